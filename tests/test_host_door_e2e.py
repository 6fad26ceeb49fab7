"""A headless host is closed by default (issue 27, item 6): ``druids host`` as a real process.

Without ``--open``, ``--allow FP`` or ``--approve`` anyone who heard the beacon could take every
free seat under the friends' names. Now the host seats a joiner only if one of them says so, and
a refused joiner's one-line error says why and what to ask for.

Real processes over loopback: the host (``druids host --json``, beacons to 127.255.255.255 on a
free port) and each joiner (``druids join 127.0.0.1:PORT --bot random``), each with its own
``DRUIDS_HOME``. A 3-seat table with one joiner never starts a game: the test looks at the host's
``joined`` / ``refused`` events and the joiner's exit, then stops the processes.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from cli_harness import run_cli

from druids_p2p.lan.seating import closed_reason
from druids_p2p.peer.local_table import PeerProcess
from druids_p2p.wire import rename_identity

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

BOUND_S = 60.0


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _druids(*args: str) -> list[str]:
    return [sys.executable, "-m", "druids_p2p", *args]


def _host(tmp: Path, door: list[str]) -> tuple[PeerProcess, str]:
    """``druids host`` with the door options ``door``; returns it and its lobby ``HOST:PORT``."""
    argv = _druids(
        "host", "--name", "friday", "--players", "3", "--rounds", "1", "--bot", "random",
        "--address", "127.0.0.1", "--beacon-port", str(_free_udp_port()), "--json", *door,
    )  # fmt: skip
    host = PeerProcess(0, tmp / "alice", argv, human=False)
    host.start()
    return host, str(host.wait_for("lobby", BOUND_S)["lobby"])


def _joiner(tmp: Path, index: int, name: str, lobby: str) -> PeerProcess:
    home = tmp / name
    rename_identity(name, home)  # made now, so that the test knows its fingerprint
    argv = _druids("join", lobby, "--bot", "random", "--address", "127.0.0.1", "--json")
    peer = PeerProcess(index, home, argv, human=False)
    peer.start()
    return peer


def _fingerprint(tmp: Path, name: str) -> str:
    return rename_identity(name, tmp / name).fingerprint


def _stop(*peers: PeerProcess) -> None:
    for peer in peers:
        peer.kill()


def _refused_line(peer: PeerProcess) -> str:
    assert peer.proc is not None
    assert peer.proc.wait(BOUND_S) == 1
    return peer.tail_log()


def test_a_headless_host_without_flags_refuses_a_joiner_and_says_why(tmp_path: Path) -> None:
    """Today's host seats whoever asks: Mallory takes a seat as "bob"."""
    host, lobby = _host(tmp_path, [])
    mallory = _joiner(tmp_path, 1, "bob", lobby)
    try:
        refused = host.wait_for("refused", BOUND_S)
        line = _refused_line(mallory)
    finally:
        _stop(mallory, host)
    fingerprint = _fingerprint(tmp_path, "bob")
    assert refused == {
        "event": "refused",
        "name": "bob",
        "fingerprint": fingerprint,
        "reason": "not pinned (--allow) and no approver (--approve)",
        "_t": refused["_t"],
    }
    assert line == f"druids: error: the host refused: {closed_reason(fingerprint)}"
    assert f"ask the host to --allow {fingerprint}" in line
    assert not [e for e in host.events if e.get("event") == "joined"]


def test_open_seats_any_joiner(tmp_path: Path) -> None:
    host, lobby = _host(tmp_path, ["--open"])
    joiner = _joiner(tmp_path, 1, "bob", lobby)
    try:
        joined = host.wait_for("joined", BOUND_S)
    finally:
        _stop(joiner, host)
    assert joined["name"] == "bob"


def test_allow_seats_only_the_pinned_key(tmp_path: Path) -> None:
    bob = _fingerprint(tmp_path, "bob")
    host, lobby = _host(tmp_path, ["--allow", bob[:14]])
    mallory = _joiner(tmp_path, 1, "mallory", lobby)
    peers = [mallory]
    try:
        assert host.wait_for("refused", BOUND_S)["name"] == "mallory"
        line = _refused_line(mallory)
        peers.append(_joiner(tmp_path, 2, "bob", lobby))
        assert host.wait_for("joined", BOUND_S)["name"] == "bob"
    finally:
        _stop(*peers, host)
    assert line == (
        f"druids: error: the host refused: {closed_reason(_fingerprint(tmp_path, 'mallory'))}"
    )
    assert [e["name"] for e in host.events if e.get("event") == "joined"] == ["bob"]


@pytest.mark.parametrize(
    ("door", "error"),
    [
        (["--allow", "xyz"], "--allow 'xyz': expected hex digits of a fingerprint"),
        (["--allow", "5282"], "--allow '5282': give at least 8 hex digits"),
        (["--open", "--approve"], "--open seats anyone: it cannot go with --approve or --allow"),
        (["--open", "--allow", "5282e6a3"], "--open seats anyone: it cannot go with --approve"),
    ],
)
def test_bad_door_options_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], door: list[str], error: str
) -> None:
    for command in (["host"], ["peer", "--host"]):
        code, out, err = run_cli([*command, *door], capsys)
        assert code == 2 and out == ""
        assert len(err.strip().splitlines()) == 1 and error in err, err


def test_join_game_is_checked_against_the_tables_game_not_ignored(tmp_path: Path) -> None:
    """``druids join HOST:PORT --game druids2004`` at a Druids 2017 table is refused in one line
    (exit 2) instead of the flag being ignored (issue 28 item 8); with the table's own game the
    join goes ahead (the host, open, seats it)."""
    host, lobby = _host(tmp_path, ["--open"])
    peers = [host]
    try:
        rename_identity("bob", tmp_path / "bob")
        argv = _druids("join", lobby, "--game", "druids2004", "--json")
        wrong = PeerProcess(1, tmp_path / "bob", argv, human=False)
        peers.append(wrong)
        wrong.start()
        assert wrong.proc is not None and wrong.proc.wait(BOUND_S) == 2
        line = wrong.tail_log()
        assert "--game druids2004" in line and "plays druids2017" in line, line
        rename_identity("carol", tmp_path / "carol")
        argv = _druids("join", lobby, "--game", "druids2017", "--bot", "random", "--json")
        right = PeerProcess(2, tmp_path / "carol", argv, human=False)
        peers.append(right)
        right.start()
        assert host.wait_for("joined", BOUND_S)["name"] == "carol"
    finally:
        _stop(*peers)
