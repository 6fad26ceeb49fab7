"""Chat at a real LAN table (issue 28, item 1): a line from every peer reaches every peer's log.

A host and two joiners, each a ``druids host`` / ``druids join`` process on loopback (the beacon
on the loopback broadcast address), each saying one line with ``--say`` (the headless peer's
chat: said once seated). Every peer must show every line, attributed to its sayer's name, on
its ``--json`` event stream and in the event log beside its record; the game plays on to the
same end everywhere. Then a table's end: three peers in this process whose people stay at the
end screen each say "gg" after the last move, and every one of them hears every line. The
terminal UI's side (a line typed in the chat box, the box over a held
trick or a prompt) is ``test_tui_chat.py``'s and ``test_tui_chat_keys*.py``'s.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from lan_peers import Peer, allowed, results_of, table_report

from druids_p2p.cli.bot_player import bot_player
from druids_p2p.games.registry import default_game, new_table_options
from druids_p2p.lan.peer_config import ChatOutbox, HostSpec, PeerConfig, Player
from druids_p2p.peer.session import run_peer
from druids_p2p.wire import Identity

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

WAIT_S = 180.0
"""A bound on the waits for real processes on shared cores, not a speed check."""
CHAT_S = 30.0
"""A bound on the wait for lines said at a table that is over (nothing else is sent there)."""


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_a_line_from_the_host_and_from_each_joiner_reaches_every_peer(tmp_path: Path) -> None:
    beacon = ["--beacon-port", str(_free_udp_port()), "--json"]
    lines = ["hi from the host", "gg from Bob", "well played, all"]
    host = Peer(
        None,
        0,
        ["host", "--name", "chat", "--players", "3", "--rounds", "1", "--bot", "rule",
         *beacon, "--say", lines[0],
         *allowed([tmp_path / "joiner1", tmp_path / "joiner2"])],
        tmp_path / "host",
    )  # fmt: skip
    peers = [host]
    try:
        got = host.wait_for("lobby", 60)
        assert got, "the host opened no lobby" + table_report(peers)
        lobby = str(got[0]["lobby"])
        for index in (1, 2):
            args = ["join", lobby, "--bot", "random", *beacon, "--say", lines[index]]
            peers.append(Peer(None, index, args, tmp_path / f"joiner{index}"))
        results = results_of(peers, WAIT_S)
    finally:
        for peer in peers:
            if peer.proc.poll() is None:
                peer.proc.kill()
                peer.proc.wait(10)
    assert all(r["finished"] for r in results), table_report(peers)
    assert len({json.dumps(r["totals"]) for r in results}) == 1
    said = {(f"ns{index}", text) for index, text in enumerate(lines)}
    for peer, result in zip(peers, results, strict=True):
        shown = {(e["name"], e["text"]) for e in peer.events("chat")}
        assert shown == said, f"peer {peer.index} showed {shown}" + table_report(peers)
        events = Path(result["record"]).parent / "events.jsonl"
        logged = [json.loads(line) for line in events.read_text().splitlines()]
        assert {(e["name"], e["text"]) for e in logged if e.get("event") == "chat"} == said


class _Seat:
    """One peer of a table in this process (``run_peer`` on a thread, a random bot playing it)
    whose person stays at the table after its end until :attr:`leave` is set, as the terminal
    UI's end screen does (``Player.stays_for_talk``)."""

    def __init__(self, name: str, home: Path, **where: object) -> None:
        self.name = name
        self.events: list[dict[str, object]] = []
        self.leave = threading.Event()
        self.chat = ChatOutbox()
        self.config = PeerConfig(
            home=home,
            identity=Identity.generate(name),
            player="bot:random",
            bind="127.0.0.1",
            announce=False,
            emit=self.events.append,
            bot_players=self._player,
            chat=self.chat,
            open_table="host" in where,  # the friends' keys are made here, fresh: let them in
            **where,  # type: ignore[arg-type]
        )
        self.result: dict[str, object] | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _player(self, bot: str, config: PeerConfig, seed: bytes) -> Player:
        player = bot_player(bot, config, seed)
        player.stays_for_talk = lambda: not self.leave.is_set()  # type: ignore[method-assign]
        return player

    def _run(self) -> None:
        self.result = run_peer(self.config)

    def said(self) -> set[tuple[object, object]]:
        return {(e["name"], e["text"]) for e in list(self.events) if e.get("event") == "chat"}

    def saw(self, kind: str) -> list[dict[str, object]]:
        return [e for e in list(self.events) if e.get("event") == kind]


def _until(check: Callable[[], bool], what: str, bound_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + bound_s
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_gg_said_after_the_game_reaches_the_players_still_at_the_table(tmp_path: Path) -> None:
    """Three peers over loopback play a one-round game; once it is over, while their people
    are still at the end screen, each says "gg": every peer shows every line. Then they leave
    and their peers stop (before: a peer heard no chat after the last move and sent none of
    its own, and a line typed at the end screen waited unsent for ever)."""
    options = new_table_options(default_game(), 3, False, 1)
    host = _Seat("alice", tmp_path / "alice", host=HostSpec("gg", options, default_game()))
    seats = [host]
    try:
        host.thread.start()
        _until(lambda: bool(host.saw("lobby")), "the host's lobby")
        lobby = str(host.saw("lobby")[0]["lobby"])
        for name in ("bob", "carol"):
            seats.append(_Seat(name, tmp_path / name, join=lobby))
            seats[-1].thread.start()
        _until(lambda: all(s.saw("result") for s in seats), "the game's end at every peer")
        assert all(s.saw("game_over") for s in seats)
        for seat in seats:
            seat.chat.say(f"gg from {seat.name}")
        everything = {(s.name, f"gg from {s.name}") for s in seats}
        _until(lambda: all(s.said() == everything for s in seats), "every gg", CHAT_S)
    finally:
        for seat in seats:
            seat.leave.set()
        for seat in seats:
            seat.thread.join(30)
    assert not any(s.thread.is_alive() for s in seats)  # they left: the peers stopped
    assert all(s.result is not None and s.result["finished"] for s in seats)
