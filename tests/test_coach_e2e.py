"""The coach option between real peer processes over loopback (issue 32): ``druids host --coach``.

A person is a seat played at the terminal (``druids host``/``join`` without ``--bot``), a bot one
played by ``--bot NAME``; each says which in its signed join. With the coach on:

* the host, a person, refuses a second person's join in one line (the joiner stops with it) and
  seats a bot;
* a host that seats a second person anyway (``tests/evil_peer.py coach-persons``) is refused by
  every peer, each with the one line naming both persons, before the table starts;
* one person with bots plays the game to the end: the person here is the host's terminal,
  answering each prompt with its first legal move.

Each process has its own ``DRUIDS_HOME``; beacons go to 127.255.255.255 on a free port.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import pytest
from test_peer_attacks_e2e import EVIL_SCRIPT

from druids_p2p.lan.persons import COACH_ONE_PERSON
from druids_p2p.peer.local_table import PeerProcess
from druids_p2p.wire import decode, rename_identity

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

BOUND_S = 60.0


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _host_argv(players: int, evil: str | None = None) -> list[str]:
    program = [str(EVIL_SCRIPT), evil] if evil else ["-m", "druids_p2p"]
    return [
        sys.executable, *program, "host", "--coach", "--open", "--name", "coached",
        "--players", str(players), "--rounds", "1", "--address", "127.0.0.1",
        "--beacon-port", str(_free_udp_port()), "--json", "--step-deadline", "5",
    ]  # fmt: skip


class Person(PeerProcess):
    """A person at the terminal of a peer: each prompt (its ``legal:`` line, on stderr) is
    answered with the first legal move; everything on stderr is kept in the log."""

    def start(self) -> None:
        env = dict(os.environ)
        env["DRUIDS_HOME"] = str(self.home)
        self.home.mkdir(parents=True, exist_ok=True)
        self.stderr_path = self.home / "peer.log"
        self.proc = subprocess.Popen(
            self.argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.PIPE,
            text=True,
            env=env,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        threading.Thread(target=self._answer, daemon=True).start()

    def _answer(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        assert self.stderr_path is not None
        with open(self.stderr_path, "a") as log:
            for line in self.proc.stderr:
                log.write(line)
                log.flush()
                if line.startswith("legal: ") and self.proc.stdin is not None:
                    self._say(self.proc.stdin, line.split()[1])

    @staticmethod
    def _say(stdin: IO[str], token: str) -> None:
        try:
            stdin.write(token + "\n")
            stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # the peer has stopped


def _join(tmp: Path, index: int, name: str, lobby: str, bot: bool) -> PeerProcess:
    argv = [sys.executable, "-m", "druids_p2p", "join", lobby, "--address", "127.0.0.1"]
    argv += ["--json", "--step-deadline", "5", *(["--bot", "random"] if bot else [])]
    rename_identity(name, tmp / name)
    peer = PeerProcess(index, tmp / name, argv, human=False)
    peer.start()
    return peer


def _line(peer: PeerProcess) -> str:
    """The one line a stopped peer said last."""
    assert peer.proc is not None
    assert peer.proc.wait(BOUND_S) == 1
    return peer.tail_log()


def _stop(*peers: PeerProcess) -> None:
    for peer in peers:
        peer.kill()


def test_a_coach_host_refuses_a_second_person_in_one_line(tmp_path: Path) -> None:
    host = Person(0, tmp_path / "alice", _host_argv(3), human=False)
    host.start()
    peers: list[PeerProcess] = [host]
    try:
        lobby = str(host.wait_for("lobby", BOUND_S)["lobby"])
        bob = _join(tmp_path, 1, "bob", lobby, bot=False)
        peers.append(bob)
        refused = host.wait_for("refused", BOUND_S)
        line = _line(bob)
        peers.append(_join(tmp_path, 2, "carol", lobby, bot=True))
        assert host.wait_for("joined", BOUND_S)["seats"] == 2
    finally:
        _stop(*peers)
    reason = f"join refused: {COACH_ONE_PERSON}, and its person is seated"
    assert refused["reason"] == reason
    assert line == f"druids: error: the host refused: {reason}"


def test_every_peer_refuses_a_coach_table_seating_two_persons(tmp_path: Path) -> None:
    """The host seats Bob, a second person, at its coached table (its own refusal patched out):
    Bob and Carol (a bot) each refuse the seat message with the one line before sending
    anything, and the host's own table stops on it too."""
    rename_identity("alice", tmp_path / "alice")
    host = PeerProcess(0, tmp_path / "alice", _host_argv(3, "coach-persons"), human=False)
    host.start()
    peers: list[PeerProcess] = [host]
    try:
        lobby = str(host.wait_for("lobby", BOUND_S)["lobby"])
        bob = _join(tmp_path, 1, "bob", lobby, bot=False)
        peers.append(bob)
        assert host.wait_for("joined", BOUND_S)["name"] == "bob"
        carol = _join(tmp_path, 2, "carol", lobby, bot=True)
        peers.append(carol)
        lines = [_line(bob), _line(carol)]
        host_result = host.wait_for("result", BOUND_S)
    finally:
        _stop(*peers)
    why = f"{COACH_ONE_PERSON}, not 2 persons (alice, bob)"
    for line in lines:
        assert line == f"druids: error: the host's seat message is refused: {why}", line
    assert host_result["aborted"] and why in host_result["aborted"], host_result


def test_a_coach_table_of_one_person_and_bots_plays_to_the_end(tmp_path: Path) -> None:
    host = Person(0, tmp_path / "alice", _host_argv(3), human=False)
    host.start()
    peers: list[PeerProcess] = [host]
    try:
        lobby = str(host.wait_for("lobby", BOUND_S)["lobby"])
        peers += [_join(tmp_path, k, f"bot{k}", lobby, bot=True) for k in (1, 2)]
        results = [p.wait_for("result", 120) for p in peers]
    finally:
        _stop(*peers)
    assert all(r["finished"] and not r["aborted"] for r in results), results
    assert len({r["head"] for r in results}) == 1
    (path,) = (tmp_path / "alice" / "tables").glob("*/seat.msg")
    seat = decode(path.read_bytes())
    assert seat.body["options"]["coach"] is True
    assert list(seat.body["bots"]) == [1, 2]


def test_a_coach_hosts_beacon_is_listed_with_the_coach_on(tmp_path: Path) -> None:
    """``druids tables`` hears a ``druids host --coach`` process's beacon and says "coach on"
    (``--json``: ``coach``), before anyone joins."""
    argv = _host_argv(3)
    port = argv[argv.index("--beacon-port") + 1]
    host = Person(0, tmp_path / "alice", argv, human=False)
    host.start()
    try:
        host.wait_for("lobby", BOUND_S)
        listed = subprocess.run(
            [sys.executable, "-m", "druids_p2p", "tables", "--beacon-port", port, "--json"],
            capture_output=True,
            text=True,
            timeout=BOUND_S,
            env={**os.environ, "DRUIDS_HOME": str(tmp_path / "lister")},
        )
    finally:
        _stop(host)
    assert listed.returncode == 0, listed.stderr
    (table,) = json.loads(listed.stdout)
    assert (table["name"], table["coach"]) == ("coached", True)
