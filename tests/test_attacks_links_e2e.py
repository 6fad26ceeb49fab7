"""Issue 27 items 1 and 2 at real tables of real peer processes on loopback: a seated peer that
splits two others by taking their links over, and one that relays a crashed seat's hellos.

The cheats run ``tests/evil_link_peer.py MODE`` (the real peer, patched). What must hold: no
honest seat is blamed for the cheat; a crashed seat is recorded unreachable, never as withholding,
and keeps the time the deadlines give it to restart and rejoin.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from cli_harness import audit_record

from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.peer.local_table import LocalTable, PeerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(150)]

EVIL_SCRIPT = Path(__file__).with_name("evil_link_peer.py")


class LinkAttackTable(LocalTable):
    """A 3-seat table of bots where the seats in ``evil`` run ``evil_link_peer.py MODE``."""

    def __init__(self, workdir: Path, evil: dict[int, str], extra: tuple[str, ...]) -> None:
        super().__init__(
            ["bot:random"] * 3, workdir, GameOptions(players=3, rounds=1), 20.0, extra_args=extra
        )
        self.evil = evil

    def _argv(self, index: int, role: list[str]) -> list[str]:
        argv = super()._argv(index, role)
        if index in self.evil:
            assert argv[1:3] == ["-m", "druids_p2p"]
            argv[1:3] = [str(EVIL_SCRIPT), self.evil[index]]
        return argv


def _log(peer: PeerProcess) -> str:
    assert peer.stderr_path is not None
    return peer.stderr_path.read_text(errors="replace") if peer.stderr_path.exists() else ""


def _honest_argv(peer: PeerProcess) -> list[str]:
    """The seat's command without the cheat: ``python -m druids_p2p peer …`` again."""
    argv = list(peer.argv)
    if argv[1] == str(EVIL_SCRIPT):
        argv[1:3] = ["-m", "druids_p2p"]
    return argv


def _wait_exit(peer: PeerProcess, seconds: float) -> float:
    """When the seat's process ended (it kills itself), bounded."""
    assert peer.proc is not None
    peer.proc.wait(seconds)
    return time.monotonic()


# ==================================================================== item 1: the split
def test_a_seat_taking_other_links_over_gets_no_honest_seat_blamed(tmp_path: Path) -> None:
    """Seat 1 keeps connecting to seat 0's and seat 2's inboxes with its own CURVE key and the
    routing id the other one's link uses there. Before the fix each connection took that link
    over, and seats 0 and 2 recorded each other unreachable (nobody blamed seat 1). Now the
    routing id is bound to the key that authenticated it: the game finishes, or seat 1 is blamed."""
    table = LinkAttackTable(tmp_path, {1: "split"}, ("--step-deadline", "10", "--gone-after", "60"))
    try:
        table.start()
        results = table.wait(120)
    finally:
        table.close()
    assert "split:" in _log(table.peers[1]), _log(table.peers[1])[-2000:]
    evil_seat = results[1].get("seat")
    for index in (0, 2):
        result = results[index]
        assert "Traceback" not in _log(table.peers[index])
        if not result["finished"]:
            assert result["blame"] == evil_seat and evil_seat is not None, result["aborted"]
    summary = table.summary(results)
    assert summary["finished"] or summary["blame"] == evil_seat, summary["aborted"]


# ==================================================================== item 2: relayed hellos
STEP_S = 10
SLOW_S = 5
"""Seat 2 gets the message that makes its shuffle due ``SLOW_S`` after the others (its hellos go
on), then crashes: its last word is ``SLOW_S`` later than the start of its debt's clock. At the
deadline it has been silent ``STEP_S - SLOW_S`` s, longer than the 3 s after which a seat is away
(``PeerConfig.away_after_s``): unreachable, not withholding, unless relayed hellos count."""
REJOIN_S = 3
"""The rejoin time when seat 2 stays down (``--rejoin-time``; 30 s by default, waited in full)."""


def _relay_table(tmp_path: Path, *rejoin: str) -> LinkAttackTable:
    extra = ("--step-deadline", str(STEP_S), "--gone-after", "120", *rejoin)
    return LinkAttackTable(tmp_path, {1: "relay-hellos", 2: "slow-crash"}, extra)


def _crashed(table: LinkAttackTable, monkeypatch: pytest.MonkeyPatch) -> float:
    monkeypatch.setenv("DRUIDS_EVIL_SLOW_LINK_S", str(SLOW_S))
    table.start()
    victim = table.peers[2]
    killed = _wait_exit(victim, 90)
    assert victim.proc is not None and victim.proc.returncode == -9, _log(victim)[-2000:]
    assert "killed before its shuffle" in _log(victim)
    return killed


def _unreachable(result: dict[str, Any]) -> None:
    """The host's verdict on seat 2: unreachable (an honest crash), not withholding."""
    reason = str(result.get("aborted"))
    assert "seat2-random" in reason and "unreachable: gone for" in reason, reason
    assert "withheld" not in reason, reason
    assert result["blame"] is not None and f"(seat {result['blame']})" in reason


def test_relayed_hellos_do_not_turn_a_crash_into_withholding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seat 2 crashes before its shuffle and stays down; seat 1 keeps relaying seat 2's old
    signed hellos to the host. The host records seat 2 unreachable, as the audit reads it too
    (before the fix: "withheld deck_shuffle … while sending other messages")."""
    table = _relay_table(tmp_path, "--rejoin-time", str(REJOIN_S))
    try:
        _crashed(table, monkeypatch)
        host = table.peers[0]
        result = host.wait_for("result", 90)
    finally:
        table.close()
    assert "relay-hellos:" in _log(table.peers[1])
    _unreachable(result)
    code, report = audit_record(result["record"])
    assert code == 4 and report["verdict"] == "stopped", report
    assert "unreachable" in report["reason"], report


def test_a_crashed_seat_keeps_its_time_to_rejoin_despite_relayed_hellos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same crash, but seat 2 is started again ``STEP_S - SLOW_S`` + 1.5 s after it died:
    past its debt's deadline counted from when the debt began (when relayed hellos got it blamed
    as withholding before the fix), within the deadline counted from its last own word. It
    rejoins, shuffles, and the game finishes with nobody blamed."""
    table = _relay_table(tmp_path)
    try:
        killed = _crashed(table, monkeypatch)
        victim = table.peers[2]
        time.sleep(max(0.0, killed + STEP_S - SLOW_S + 1.5 - time.monotonic()))
        victim.argv = _honest_argv(victim)
        victim.restart()
        results = table.wait(120)
    finally:
        table.close()
    for index in (0, 2):
        assert results[index]["finished"], (index, results[index].get("aborted"))
        assert "Traceback" not in _log(table.peers[index])
