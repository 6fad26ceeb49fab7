"""Druids (2004) between real peer processes on loopback: ``druids play --headless --game
druids2004`` and the local table it starts (``peer/local_table.py``), bots in every seat."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cli_harness import audit_record, check_result_block, result_block
from lan_peers import power_cut

from druids_p2p.games.druids2004.hidden import NO, YES
from druids_p2p.peer.local_table import LocalTable
from druids_p2p.table.card_table_play import is_logged_move
from druids_p2p.table.codec import MOVE_KINDS
from druids_p2p.wire import Message, MsgType, decode
from druids_p2p.wire.record import read_record

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_three_peer_processes_play_a_whole_druids2004_game(tmp_path: Path) -> None:
    """Each seat is a ``druids peer --game druids2004`` process whose bot moves from its own
    card-table copy; all three finish, agree on the result and hold the same record, which
    holds every card-table step and ends with every seat's signed result."""
    seats = ["bot:rule", "bot:random", "bot:rule"]
    table = LocalTable(seats, tmp_path, None, game="druids2004", move_events=False)
    try:
        table.start()
        results = table.wait(timeout=300)
    finally:
        table.close()
    messages = _one_end_everywhere(table, results)
    totals, winners = results[0]["totals"], results[0]["winners"]
    assert len(totals) == 3 and winners and {totals[w] for w in winners} == {max(totals)}
    kinds = {m.type for m in messages}
    assert {MsgType.TABLE_KEY, MsgType.TABLE_SHUFFLE, MsgType.TABLE_SHARE} <= kinds
    assert {MsgType.TABLE_PLAY, MsgType.TABLE_OPEN, MsgType.TABLE_REVEAL, MsgType.MOVE} <= kinds
    _every_move_timed_once(table.summary(results), messages)


def _every_move_timed_once(summary: dict[str, Any], messages: list[Message]) -> None:
    """Each move a player made has one latency, in one class; a face-down play after which
    the same seat moves again too (it leaves the table ready for that move before it returns).
    The owners' words (``Word:yes``/``Word:no``) are the deck's and the words' check
    (``Words:fit``/``Words:unfit``) every seat's copy signs by itself: neither is a player's
    move, and a game whose end asks for words holds one check from every seat."""
    made = [m for m in messages if is_logged_move(m) and m.body.get("move") not in (YES, NO)]
    by_kind = summary["move_latency_by_kind"]
    timed = summary["move_latency_ms"]
    assert len(timed) == len(made), _untimed(summary, made)
    assert sum(len(v) for v in by_kind.values()) == len(made)
    assert set(by_kind) <= set(MOVE_KINDS) and by_kind["draw"] and by_kind["play"]
    assert by_kind["end"], "the last move, whose latency holds the final reveal and audit"


def _untimed(summary: dict[str, Any], made: list[Message]) -> str:
    """Which moves went untimed: each seat's latencies by class beside each signer's moves."""
    moves: dict[str, Counter[str]] = {}
    for m in made:
        token = "table_play" if m.type is MsgType.TABLE_PLAY else str(m.body["move"])
        moves.setdefault(m.sender.hex()[:12], Counter())[token.split(":")[0]] += 1
    made_by = {who: (sum(c.values()), dict(c)) for who, c in moves.items()}
    return (
        f"{len(summary['move_latency_ms'])} latencies for {len(made)} moves; timed by class "
        f"{ {k: len(v) for k, v in summary['move_latency_by_kind'].items()} }; moves made by "
        f"each signer (count, by kind): {made_by}"
    )


def _one_end_everywhere(table: LocalTable, results: list[dict[str, Any]]) -> list[Message]:
    """Every seat finished with the same totals and winners and wrote the same record, which
    ends with every seat's signed result: its messages."""
    summary = table.summary(results)
    assert summary["finished"] and summary["aborted"] is None, summary
    assert summary["heads_agree"] and len(results) == len(table.seats), summary
    assert len({(tuple(r["totals"]), tuple(r["winners"])) for r in results}) == 1, results
    records = [Path(r["record"]).read_bytes() for r in results]
    assert len(set(records)) == 1, "every seat wrote the same record"
    messages = [decode(raw) for raw in read_record(Path(results[0]["record"])).messages]
    assert [m.type for m in messages[-len(results) :]] == [MsgType.RESULT] * len(results)
    _audits_complete(results[0]["record"], results[0]["totals"])
    return messages


def _audits_complete(record: str, totals: list[int]) -> None:
    """``druids audit`` replays the record with every card known and reaches the same end."""
    code, report = audit_record(record)
    assert code == 0 and report["verdict"] == "complete", report
    assert report["totals"] == totals, report


def test_a_killed_druids2004_peer_restarted_with_resume_plays_on_to_the_same_end(
    tmp_path: Path,
) -> None:
    """A joiner's process is killed (-9) mid-game and started again with ``--resume``: it
    replays its own record (its copy of the game and its deck seat rebuilt from the transcript
    and its saved table secret), catches up from the others and the game ends with the same
    totals, winners and record at every seat."""
    seats = ["bot:rule", "bot:random", "bot:rule"]
    table = LocalTable(seats, tmp_path, None, game="druids2004")
    try:
        table.start()
        victim = table.peers[1]
        victim.wait_for("seated", 120)
        deadline = time.monotonic() + 180
        while sum(e.get("event") == "move" for e in victim.events) < 12:
            assert time.monotonic() < deadline, "the game did not get going: " + victim.tail_log()
            assert victim.proc is not None and victim.proc.poll() is None, victim.tail_log()
            time.sleep(0.02)
        victim.kill()
        time.sleep(0.5)  # its sockets are gone before its endpoint is bound again
        victim.argv = [*victim.argv, "--resume"]
        victim.restart()
        victim.wait_for("rejoining", 60)
        results = table.wait(timeout=300)
    finally:
        table.close()
    _one_end_everywhere(table, results)


def test_play_headless_druids2004_killed_with_all_its_peers_resumes_with_resume(
    tmp_path: Path,
) -> None:
    """The command and every peer process go down mid-game (kill -9 of the group): with
    ``--resume`` every seat rejoins from its record and the game ends, one record for all."""
    argv = [sys.executable, "-m", "druids_p2p", "play", "--headless", "--game", "druids2004",
            "--seats", "bot:rule,bot:random,bot:rule", "--workdir", str(tmp_path),
            "--json"]  # fmt: skip
    power_cut(argv, tmp_path, 3 * 12, 180.0)
    resumed = subprocess.run([*argv, "--resume"], capture_output=True, text=True, timeout=400)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["finished"] and summary["aborted"] is None, summary
    records = [Path(r).read_bytes() for r in summary["records"]]
    assert len(records) == 3 and len(set(records)) == 1
    _audits_complete(summary["records"][0], summary["totals"])


def test_play_headless_druids2004_prints_the_result_and_every_record_each_auditing_complete(
    tmp_path: Path,
) -> None:
    """Two seats: the printed result and the records, one and the same, each auditing complete
    with the totals and winners printed (the 2-seat case of test_audit_card_table.py's
    real-table audit, checked on this game rather than on a second one)."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "druids_p2p",
            "play",
            "--headless",
            "--game",
            "druids2004",
            "--seats",
            "bot:random,bot:rule",
            "--workdir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    _, _, records = result_block(out.stdout)
    assert len(records) == 2 and all(Path(r).is_file() for r in records)
    assert Path(records[0]).read_bytes() == Path(records[1]).read_bytes()
    for record in records:
        code, report = audit_record(record)
        assert code == 0 and report["verdict"] == "complete", report
        check_result_block(out.stdout, report)


def test_bench_table_druids2004_reports_game_time_and_draw_and_move_latency() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "druids_p2p",
            "bench",
            "table",
            "--game",
            "druids2004",
            "--players",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert (report["game"], report["players"]) == ("druids2004", 2)
    assert report["game_s"] > 0 and report["moves_measured"] > report["draw_measured"] > 0
    assert 0 < report["draw_latency_ms_p50"] <= report["draw_latency_ms_p99"]
    assert 0 < report["move_latency_ms_p50"] <= report["move_latency_ms_p99"]
    measured = [report[f"{kind}_measured"] for kind in MOVE_KINDS]
    assert sum(measured) == report["moves_measured"], "every move in exactly one class"
    assert report["end_measured"] >= 1, "the last move's latency holds the final audit"
