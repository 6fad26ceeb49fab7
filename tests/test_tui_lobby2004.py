"""The LAN lobby (Textual Pilot) of Druids (2004), ``druids play --lan --game druids2004``.

The lobby is of the game asked for (``tui/lobby.py``): its host dialog offers that game's
seats (2 to 4) and no rounds or light side, its list shows every table heard with its game, and
it joins only tables of its game. Beacons are handed to the listener here (nothing is sent); the
e2e tests at the end seat the person at real 2004 tables of peer processes on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from lobby_pilot import shown_lobby
from peer_table2004_keys import play_by_keys, run_app, table_screen, until
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Checkbox, DataTable, Input, Select

from druids_p2p.games.registry import SeatOptions
from druids_p2p.lan.discovery import TableInfo, encode_beacon
from druids_p2p.lan.listener import BeaconListener
from druids_p2p.lan.network import resolve
from druids_p2p.peer.local_table import PeerProcess
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.dialogs import ApproveJoin, ConfirmJoin
from druids_p2p.tui.druids2004.lan_table import LanTable2004Screen
from druids_p2p.tui.game_ui import NO_PACING, table_ui
from druids_p2p.tui.lobby import LanSetup, LobbyScreen
from druids_p2p.tui.player import TableSpec
from druids_p2p.wire import load_or_create
from druids_p2p.wire.identity import Identity

GAME = "druids2004"
HOST = Identity.from_seed(bytes([1]) * 32, "alice")
OTHER_HOST = Identity.from_seed(bytes([2]) * 32, "bob")
TABLE_2004 = TableInfo(
    "gems", "tcp://127.0.0.1:45123", bytes(range(32)), players=3, ruleset=GAME, lobby_port=40123
)
TABLE_2017 = TableInfo("tricks", "tcp://127.0.0.1:45124", bytes(range(1, 33)), players=4)
SIZE = (150, 40)


class RecordingApp(DruidsApp):
    """The app with the lobby, recording the tables it would open instead of opening them."""

    def __init__(self, setup: LanSetup) -> None:
        super().__init__(table_ui=table_ui(setup.game), lan=setup, identity=HOST, folder=Path("."))
        self.opened: list[tuple[TableSpec, tuple[str, ...]]] = []

    def open_table(
        self, spec: TableSpec, expected: tuple[str, ...], title: str | None = None
    ) -> None:
        self.opened.append((spec, expected))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # a free port, nothing sent
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _lobby_test(
    setup: LanSetup, body: Callable[[RecordingApp, LobbyScreen], Awaitable[None]]
) -> RecordingApp:
    app = RecordingApp(setup)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await body(app, await shown_lobby(app, pilot))
            await pilot.pause()

    asyncio.run(main())
    return app


def _options(select: Select[int]) -> list[int]:
    return [value for _, value in select._options if isinstance(value, int)]


def test_the_2004_host_dialog_offers_2_to_4_seats_and_hosts_a_2004_table() -> None:
    """Players 2, 3 or 4, a seat choice for players 2 to 4 only, no rounds, no light side; the
    table hosted is a druids2004 one with the seats chosen (a bot, a LAN player)."""
    setup = LanSetup(net=resolve(), beacon_port=_free_port(), bots=("rule", "random"), game=GAME)
    seen: dict[str, Any] = {}

    async def body(app: RecordingApp, lobby: LobbyScreen) -> None:
        seen["players"] = _options(lobby.query_one("#players", Select))
        seen["rounds"] = len(lobby.query("#rounds")) + len(lobby.query(Checkbox))
        seen["seats"] = [s for s in range(2, 7) if lobby.query(f"#seat-{s}")]
        seen["title"] = str(lobby.query_one("#lobby-title").render())
        lobby.query_one("#players", Select).value = 3
        lobby.query_one("#seat-3", Select).value = "open"
        lobby.action_host()

    app = _lobby_test(setup, body)
    assert seen["players"] == [2, 3, 4] and seen["rounds"] == 0
    assert seen["seats"] == [2, 3, 4]
    assert "LAN lobby for druids2004" in seen["title"]
    ((spec, expected),) = app.opened
    assert spec.host is not None and spec.host.ruleset == GAME
    assert isinstance(spec.host.options, SeatOptions) and spec.host.options.players == 3
    assert [b.bot for b in spec.bots] == ["rule"] and expected == ("rule-1", "(LAN player)")


def test_the_2017_host_dialog_keeps_3_to_5_seats_rounds_and_the_light_side() -> None:
    setup = LanSetup(net=resolve(), beacon_port=_free_port(), bots=("rule",))
    seen: dict[str, Any] = {}

    async def body(app: RecordingApp, lobby: LobbyScreen) -> None:
        seen["players"] = _options(lobby.query_one("#players", Select))
        seen["rounds"] = _options(lobby.query_one("#rounds", Select))
        seen["variant"] = len(lobby.query("#variant"))
        seen["seats"] = [s for s in range(2, 7) if lobby.query(f"#seat-{s}")]

    _lobby_test(setup, body)
    assert seen == {
        "players": [3, 4, 5],
        "rounds": [1, 2, 3, 4, 5],
        "variant": 1,
        "seats": [2, 3, 4, 5],
    }


def test_the_2004_lobby_lists_every_game_and_joins_only_a_2004_table() -> None:
    """A 2017 table and a 2004 table are both listed, each with its game (a 2004 table has no
    rounds, no variant); joining the 2017 one is refused by a line that says which lobby joins
    it, and the 2004 one is joined (its host pinned: no question)."""
    port = _free_port()
    listener = BeaconListener(resolve(), port)
    setup = LanSetup(net=resolve(), beacon_port=port, listener=listener, game=GAME)
    setup.trusted.add(HOST.public_key)
    seen: dict[str, Any] = {}

    async def body(app: RecordingApp, lobby: LobbyScreen) -> None:
        listener.handle(encode_beacon(OTHER_HOST, TABLE_2017, bytes([2]) * 16, 1), ("127.0.0.1", 1))
        listener.handle(encode_beacon(HOST, TABLE_2004, bytes([1]) * 16, 1), ("127.0.0.1", 1))
        lobby.poll()
        table = lobby.query_one("#tables", DataTable)
        header = [str(c.label) for c in table.columns.values()]
        rows = {str(r[0]): r for r in (table.get_row_at(i) for i in range(table.row_count))}
        seen["rows"] = {
            name: {h: str(v) for h, v in zip(header, row, strict=True)}
            for name, row in rows.items()
        }
        names = [t.name for t in lobby.tables]
        table.move_cursor(row=names.index("tricks"))
        lobby.action_join()
        seen["refused"] = str(lobby.query_one("#lobby-status").render())
        seen["opened_after_refusal"] = len(app.opened)
        table.move_cursor(row=names.index("gems"))
        lobby.action_join()

    app = _lobby_test(setup, body)
    rows = seen["rows"]
    assert rows["gems"]["game"] == GAME and rows["tricks"]["game"] == "druids2017"
    assert rows["gems"]["rounds"] == "-" and rows["gems"]["variant"] == "-"
    assert rows["gems"]["seats"] == "0/3" and rows["tricks"]["rounds"] == "5"
    assert "'tricks' is a druids2017 table; this lobby joins druids2004 tables" in seen["refused"]
    assert "--game druids2017" in seen["refused"] and seen["opened_after_refusal"] == 0
    ((spec, _),) = app.opened
    assert spec.host is None and spec.announcement is not None
    assert spec.host_fingerprint == HOST.fingerprint


# ---------------------------------------------------------------------- real peers (e2e)


def _lan_app(tmp_path: Path, port: int) -> DruidsApp:
    setup = LanSetup(net=resolve(), beacon_port=port, bots=("rule",), game=GAME, budget_ms=20.0)
    return DruidsApp(
        table_ui=table_ui(GAME),
        lan=setup,
        identity=load_or_create().with_name("tester"),
        folder=tmp_path / "game",
        pacing=NO_PACING,
    )


async def _play_to_the_end(pilot: Pilot[Any], app: DruidsApp, players: int) -> dict[str, Any]:
    """The person's whole game at the 2004 table screen the lobby opened: its result."""
    await until(pilot, lambda: isinstance(app.table, LanTable2004Screen), "the 2004 table")
    await play_by_keys(pilot, app, players, random.Random(3))
    result = table_screen(app).result
    assert result is not None and result["finished"]
    await pilot.press("enter")
    await pilot.pause()
    return result


async def _yes_then_play(
    pilot: Pilot[Any], app: DruidsApp, question: type[Screen[Any]], what: str
) -> dict[str, Any]:
    """Answer the lobby's ``question`` (joining a host, seating a joiner) yes, then play the
    2-seat game to its end and leave: its result."""
    await until(pilot, lambda: isinstance(app.screen, question), what)
    await pilot.press("y")
    result = await _play_to_the_end(pilot, app, 2)
    await pilot.press("q")
    return result


def _run(app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    run_app(app, SIZE, body)


@pytest.mark.e2e
@pytest.mark.slow
def test_the_lobby_joins_a_2004_table_hosted_by_a_bot_peer_and_plays_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``druids peer --game druids2004 --host`` process (a bot) announces a 2-seat table on
    loopback; the lobby lists it, asks for the host's fingerprint, joins, and the person plays
    the whole game at the 2004 table screen; both peers agree on the result."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    port = random.randint(42000, 58000)
    argv = [sys.executable, "-m", "druids_p2p", "peer", "--game", GAME, "--player", "bot:rule"]
    argv += ["--name", "hostbot", "--host", "--open", "--players", "2", "--table-name", "t2004"]
    host = PeerProcess(0, tmp_path / "host", [*argv, "--beacon-port", str(port)], human=False)
    host.start()
    app = _lan_app(tmp_path, port)
    result: dict[str, Any] = {}

    async def body(pilot: Pilot[Any]) -> None:
        def listed() -> bool:
            screen = app.screen
            return isinstance(screen, LobbyScreen) and any(t.name == "t2004" for t in screen.tables)

        await until(pilot, listed, "the table's beacon")
        await pilot.press("j")
        result.update(await _yes_then_play(pilot, app, ConfirmJoin, "the fingerprint question"))

    try:
        _run(app, body)
    finally:
        host.kill()
    hosted = host.result()
    assert hosted is not None and hosted["finished"]
    assert hosted["totals"] == result["totals"] and hosted["winners"] == result["winners"]


@pytest.mark.e2e
@pytest.mark.slow
def test_the_lobby_hosts_a_2004_table_with_a_bot_seat_and_plays_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Host (h) with 2 players, the other seat a bot: the bot peer process joins the announced
    table on loopback and the person plays the whole game at the 2004 table screen."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    app = _lan_app(tmp_path, random.randint(42000, 58000))
    result: dict[str, Any] = {}

    async def body(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        lobby.query_one("#players", Select).value = 2
        lobby.query_one("#seat-2", Select).value = "rule"
        await pilot.pause()
        await pilot.press("h")
        result.update(await _play_to_the_end(pilot, app, 2))
        await pilot.press("q")

    _run(app, body)
    assert result["finished"] and len(result["totals"]) == 2


@pytest.mark.e2e
@pytest.mark.slow
def test_the_lobby_hosts_a_2004_table_with_an_open_seat_and_seats_an_approved_joiner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Host (h) a 2-seat table whose other seat is open: ``druids join NAME --game druids2004
    --bot rule`` finds it by its beacon on loopback, the lobby asks the person (the joiner's
    name and fingerprint), ``y`` seats it, and the game is played to the end by both peers."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    port = random.randint(42000, 58000)
    app = _lan_app(tmp_path, port)
    argv = [sys.executable, "-m", "druids_p2p", "join", "open2004", "--game", GAME, "--json"]
    argv += ["--bot", "rule", "--beacon-port", str(port), "--seconds", "60"]
    env = {**os.environ, "DRUIDS_HOME": str(tmp_path / "joiner")}
    joiner: list[subprocess.Popen[str]] = []
    result: dict[str, Any] = {}

    async def body(pilot: Pilot[Any]) -> None:
        lobby = await shown_lobby(app, pilot)
        lobby.query_one("#table-name", Input).value = "open2004"
        lobby.query_one("#players", Select).value = 2
        lobby.query_one("#seat-2", Select).value = "open"
        await pilot.pause()
        await pilot.press("h")
        joiner.append(
            subprocess.Popen(
                argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        )
        result.update(await _yes_then_play(pilot, app, ApproveJoin, "the joiner's request"))

    try:
        _run(app, body)
        out, err = joiner[0].communicate(timeout=120)
    finally:
        for proc in joiner:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert joiner[0].returncode == 0, err[-2000:]
    joined = json.loads(out.strip().splitlines()[-1])
    assert joined["finished"] and joined["totals"] == result["totals"]
