"""A cable cut for good on a namespaced LAN: a split, recorded as one (issue 13 item 5).

Four real peers behind the userspace switch of ``test_faults_netns`` (root only; skips
elsewhere). One joiner's cable is pulled mid-game and never comes back. The three that still hear
each other record it *unreachable* (each on its own clock, or on the word of the one that saw it
first) and never as a cheat; the cut-off peer, which hears from nobody, records that it lost
contact with the table, blaming nobody. Every record audits as "valid, stopped" (exit 4), never
as invalid.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_harness import audit_record
from lan_peers import table_report
from netns import Lan
from test_faults_netns import (
    CUT_AFTER_MOVES,
    GAME_TIMEOUT_S,
    VICTIM,
    homes_in,
    results_of,
    start_table,
    tap_lan,
    wait_moves,
)

pytestmark = [pytest.mark.netns, pytest.mark.slow]

__all__ = ["tap_lan"]  # the fixture, shared with the fault suite


@pytest.mark.timeout(300)
def test_a_cable_cut_for_good_is_a_split_not_a_cheat(tap_lan: Lan, tmp_path: Path) -> None:
    peers = start_table(tap_lan, homes_in(tmp_path), "--gone-after", "8")
    wait_moves(peers[0], CUT_AFTER_MOVES, peers)
    tap_lan.cut(VICTIM)
    results = results_of(peers, GAME_TIMEOUT_S)
    why = table_report(peers)
    gone = results[VICTIM]
    seat = gone["seat"]
    assert not gone["finished"] and gone["blame"] is None, (gone, why)
    assert "lost contact with the table" in (gone["aborted"] or ""), (gone, why)
    code, report = audit_record(gone["record"])
    assert code == 4 and report["verdict"] == "stopped", report
    assert report["reason"] == "lost contact with the table" and report["seat"] is None, report
    for i, r in enumerate(results):
        if i == VICTIM:
            continue
        aborted = r["aborted"] or ""
        assert not r["finished"] and "unreachable: gone for" in aborted, (r, why)
        assert "withheld" not in aborted and "lost contact" not in aborted, (r, why)
        claimed = (r.get("claim") or {}).get("seat")
        assert r["blame"] == seat or (r["blame"] is None and claimed == seat), (r, why)
        code, report = audit_record(r["record"])
        assert code == 4 and report["verdict"] == "stopped", report
        assert report["reason"].startswith(f"seat {seat} unreachable"), report
        assert report["seat"] == seat, report
