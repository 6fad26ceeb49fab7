"""Real peer processes on loopback playing whole games, with the records audited afterwards."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_harness import audit_record

from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.peer.local_table import LocalTable

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _audit(record: str) -> dict[str, object]:
    code, report = audit_record(record)
    assert code == 0, report
    return report


@pytest.mark.parametrize(("players", "rounds"), [(3, 2), (4, 5), (5, 1)])
def test_whole_game_over_processes(tmp_path: Path, players: int, rounds: int) -> None:
    seats = ["bot:random"] * players
    seats[0] = "bot:rule"
    table = LocalTable(seats, tmp_path, GameOptions(players=players, rounds=rounds))
    try:
        table.start()
        results = table.wait(timeout=240)
    finally:
        table.close()
    summary = table.summary(results)
    assert summary["finished"] and summary["aborted"] is None
    assert summary["heads_agree"], [r["head"] for r in results]
    assert len({json.dumps(r["totals"]) for r in results}) == 1
    assert len(summary["round_scores"]) == rounds
    for record in summary["records"]:
        report = _audit(record)
        assert report["ok"] and report["complete"]
        assert report["totals"] == summary["totals"]


def test_killed_peer_restarts_and_the_game_completes(tmp_path: Path) -> None:
    table = LocalTable(["bot:random"] * 4, tmp_path, GameOptions(players=4, rounds=2))
    try:
        table.start()
        victim = table.peers[2]
        victim.wait_for("seated", 60)
        # Let it get well into the first round, then kill -9 it mid-play and start it again.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            moves = [e for e in victim.events if e.get("event") == "move"]
            if len(moves) >= 8:
                break
            time.sleep(0.02)
        victim.kill()
        time.sleep(0.5)
        victim.restart()
        victim.wait_for("rejoining", 30)
        results = table.wait(timeout=240)
    finally:
        table.close()
    summary = table.summary(results)
    assert summary["finished"], summary
    assert summary["heads_agree"]
    for record in summary["records"]:
        assert _audit(record)["ok"]


@pytest.mark.parametrize(
    "args",
    [
        ["--seats", "bot:random,bot:random"],
        ["--seats", "bot:random,bot:random,robot"],
        ["--seats", "bot:random,bot:random,bot:random", "--rounds", "9"],
    ],
)
def test_play_rejects_bad_flags(args: list[str]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "play", "--headless", *args],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_a_peer_gone_past_the_timeout_ends_the_game_with_a_recorded_reason(
    tmp_path: Path,
) -> None:
    table = LocalTable(
        ["bot:random"] * 3,
        tmp_path,
        GameOptions(players=3, rounds=5),
        extra_args=("--gone-after", "8"),  # its debts' deadline is then 4 s: "away" at 3 s first
    )
    try:
        table.start()
        victim = table.peers[1]
        victim.wait_for("seated", 60)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if sum(e.get("event") == "move" for e in victim.events) >= 5:
                break
            time.sleep(0.02)
        victim.kill()  # and never comes back
        assert victim.result() is None, "the game ended before the peer could be killed"
        survivors = [p for p in table.peers if p is not victim]
        results = [p.wait_for("result", 60) for p in survivors]
        away = [e for p in survivors for e in p.events if e.get("event") == "away"]
    finally:
        table.close()
    assert away and all(e["seconds"] >= 3 for e in away), (away, results)  # the waiters saw it go
    for result in results:
        assert not result["finished"]
        assert "gone for" in result["aborted"]
    for result in results:
        code, report = audit_record(result["record"])
        assert code == 4 and report["ok"] and report["verdict"] == "stopped", report
        assert "unreachable" in report["reason"] and "gone for" in report["recorded_reason"]
