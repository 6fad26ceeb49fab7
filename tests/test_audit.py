"""``druids audit``: a saved record is re-verified and replayed; the first problem is named.

Every record here is a real table's (``table_harness``: TableMachine peers dealing and playing),
written to a file as a peer writes it; the tampered ones are re-signed and re-chained
(``message_surgery``) so that only the tamper is wrong.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from message_surgery import rechain, resign, thaw
from table_harness import LocalTable, game_of

from druids_p2p.audit.audit import audit_file, audit_messages
from druids_p2p.audit.audit_card_table import CardTableReplay
from druids_p2p.audit.schedule import ScheduleWalk
from druids_p2p.games.druids2017 import Game
from druids_p2p.games.registry import RULESETS
from druids_p2p.wire import Identity, MsgType, decode
from druids_p2p.wire.record import MAGIC, RecordWriter


def _write(path: Path, raws: list[bytes]) -> Path:
    writer = RecordWriter.create(path)
    for raw in raws:
        writer.append(raw)
    writer.close()
    return path


def _druids(*args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as home:  # never the user's real identity folder
        return subprocess.run(
            [sys.executable, "-m", "druids_p2p", *args],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "DRUIDS_HOME": home},
        )


@pytest.fixture(scope="module")
def table() -> LocalTable:
    t = LocalTable(players=4, rounds=2, seed=21)
    t.run()
    assert all(m.finished for m in t.machines)
    return t


def _raws(table: LocalTable) -> list[bytes]:
    return [m.raw for m in table.machines[0].transcript.messages]


def _keys(table: LocalTable) -> dict[bytes, Identity]:
    return {i.public_key: i for i in table.ids}


@pytest.fixture(scope="module")
def good(table: LocalTable, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Game]:
    path = tmp_path_factory.mktemp("audit") / "game.druids"
    return _write(path, _raws(table)), game_of(table.machines[0])


# --- valid records -------------------------------------------------------------------------------


def test_valid_record_json(good: tuple[Path, Game]) -> None:
    path, game = good
    result = _druids("audit", str(path), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["ok"] is True and data["complete"] is True and data["verdict"] == "complete"
    assert data["rounds"] == 2 and data["totals"] == game.totals
    assert data["round_scores"] == game.round_scores and data["winners"] == game.winners
    assert sorted(p["name"] for p in data["players"]) == ["p0", "p1", "p2", "p3"]


def test_valid_record_text(good: tuple[Path, Game]) -> None:
    path, game = good
    result = _druids("audit", str(path))
    assert result.returncode == 0, result.stderr
    assert ": valid and complete" in result.stdout and "p0" in result.stdout
    assert "totals:  " + "  ".join(map(str, game.totals)) in result.stdout


def test_unfinished_game_is_valid_but_incomplete(table: LocalTable, tmp_path: Path) -> None:
    """A record cut before its last round is scored: valid, the finished round's score only."""
    raws = _raws(table)
    # The longest prefix with one round scored: the count only grows with the prefix, so a
    # binary search finds the same cut as trying every prefix from the end (~8 audits, not ~80).
    lo, hi = 1, len(raws)  # one scored round at most in raws[:lo]; two in raws[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if len(audit_messages(raws[:mid]).round_scores) <= 1 else (lo, mid)
    cut = lo
    report = audit_file(_write(tmp_path / "g.druids", raws[:cut]))
    assert report.ok and not report.complete and len(report.round_scores) == 1
    assert report.verdict == "incomplete" and report.exit_code == 3


# --- damaged files -------------------------------------------------------------------------------


def test_bit_flip_is_reported_with_index_and_seat(good: tuple[Path, Game], tmp_path: Path) -> None:
    data = bytearray(good[0].read_bytes())
    data[len(data) // 2] ^= 0x10
    bad = tmp_path / "flipped.rec"
    bad.write_bytes(bytes(data))
    result = _druids("audit", str(bad), "--json")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    out = json.loads(result.stdout)
    assert out["ok"] is False and isinstance(out["message_index"], int) and out["error"]
    assert set(out) == {"ok", "verdict", "error", "message_index", "seat"}
    assert out["verdict"] == "invalid"
    text = _druids("audit", str(bad))
    assert text.returncode == 1 and text.stderr.count("\n") == 1
    assert f"message {out['message_index']}" in text.stderr and "Traceback" not in text.stderr


def test_truncated_file(good: tuple[Path, Game], tmp_path: Path) -> None:
    cut = tmp_path / "cut.rec"
    cut.write_bytes(good[0].read_bytes()[:-7])
    result = _druids("audit", str(cut), "--json")
    out = json.loads(result.stdout)
    assert result.returncode == 1 and out["ok"] is False
    assert out["error"].startswith("record truncated") and out["message_index"] > 0


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (b"", "truncated record header"),
        (b"hello world, not a record", "bad magic"),
        (MAGIC, "empty record"),
        (MAGIC + b"\x00\x00", "truncated: message 0"),
        (MAGIC + b"\x00\x00\x00\x05abc", "truncated: message 0 at offset 16 has 3 of 5 bytes"),
        (MAGIC + b"\x00\x00\x00\x03abc", "2 trailing bytes"),
    ],
)
def test_garbage_files(tmp_path: Path, content: bytes, pattern: str) -> None:
    path = tmp_path / "junk.rec"
    path.write_bytes(content)
    report = audit_file(path)
    assert not report.ok and report.problem is not None and pattern in report.problem.error


def test_garbage_file_cli(tmp_path: Path) -> None:
    path = tmp_path / "junk.rec"
    path.write_bytes(b"\x00" * 100)
    result = _druids("audit", str(path))
    assert result.returncode == 2 and "not a druids-p2p record" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_file_is_bad_input(tmp_path: Path) -> None:
    result = _druids("audit", str(tmp_path / "nope.rec"))
    assert result.returncode == 2 and "Traceback" not in result.stderr


# --- records that verify cryptographically but break the chain or the rules -------------------


def test_equivocation_in_record(table: LocalTable, tmp_path: Path) -> None:
    """A second message with the same sender and sequence number, signed: an equivocation,
    named at the twin, blaming its signer."""
    raws = _raws(table)
    move = next(i for i, raw in enumerate(raws) if decode(raw).type is MsgType.MOVE)
    msg = decode(raws[move])
    twin = resign(_keys(table)[msg.sender], raws[move], body={**thaw(msg.body), "move": "G1"})
    report = audit_file(_write(tmp_path / "e.druids", [*raws[: move + 1], twin]))
    assert report.problem is not None
    assert report.problem.message_index == move + 1
    assert "equivocation" in report.problem.error
    assert report.problem.seat == table.machines[0].transcript.seat_of(msg.sender)  # seat list


def test_duplicate_in_record(table: LocalTable) -> None:
    raws = _raws(table)
    report = audit_messages([*raws, raws[-1]])
    assert report.problem is not None and "duplicate" in report.problem.error


def test_a_show_of_a_card_not_at_its_position_is_invalid_at_the_show(table: LocalTable) -> None:
    """The rules half of the audit: a card play shown as another card than its position holds
    (so it cannot be shown to be in the mover's hand) is invalid at that show, blaming the
    mover."""
    raws = _raws(table)
    shows = [i for i, raw in enumerate(raws) if decode(raw).type is MsgType.TABLE_SHOW]
    move = shows[4]
    msg = decode(raws[move])
    # a card another seat shows later: not the mover's
    claimed = next(
        decode(raws[i]).body["card"] for i in shows[5:] if decode(raws[i]).sender != msg.sender
    )
    forged = list(raws)
    forged[move] = resign(
        _keys(table)[msg.sender], raws[move], body={**thaw(msg.body), "card": claimed}
    )
    report = audit_messages(rechain(forged, _keys(table), raws))
    assert report.problem is not None and report.problem.message_index == move
    assert f"at position {msg.body['pos']}" in report.problem.error, report.problem
    assert report.problem.seat == table.machines[0].order.index(msg.sender)  # play seat


def test_one_walk_finds_the_seating_and_the_replay_each_round_and_the_result(
    table: LocalTable,
) -> None:
    """The schedule of the seating is walked once: the walk gives the play order and where the
    seating ends; the card tables' replay takes them from it and walks each round's table (from
    its keys) to the result step."""
    machine = table.machines[0]
    walk = ScheduleWalk(machine.transcript)
    msgs = machine.transcript.messages
    assert walk.run() == len(msgs)
    assert walk.order == machine.order
    assert walk.seated_at is not None and msgs[walk.seated_at - 1].type is MsgType.SEAT_NONCE
    assert msgs[walk.seated_at].type is MsgType.TABLE_KEY
    replay = CardTableReplay(msgs, walk, RULESETS["druids2017"], machine.options)
    replay.run()
    assert replay.complete and replay.i == len(msgs)
    assert [state.round_no for state, _ in replay.tables] == [0, 1]
    assert all(state.finished and x is not None for state, x in replay.tables)
    results = [i for i, m in enumerate(msgs) if m.type is MsgType.RESULT]
    assert results == list(range(len(msgs) - 4, len(msgs)))
    assert msgs[results[0] - 1].type is MsgType.TABLE_REVEAL


def test_a_round_without_its_secrets_is_still_replayed_move_by_move(table: LocalTable) -> None:
    """Round 2 cut short of its final reveal: without its secrets no hand is known, yet the
    audit follows it to where it stops (its words only say who leads, every card is shown as
    played), so a show lied about there is found by the deck's public check of the show, at
    that show, blaming the shower; the same record untampered is a valid prefix."""
    raws = _raws(table)
    shows = [
        i
        for i, raw in enumerate(raws)
        if decode(raw).type is MsgType.TABLE_SHOW and decode(raw).body["round"] == 1
    ]
    move = shows[5]
    cut = raws[: move + 1]
    report = audit_messages(cut)
    assert report.verdict == "incomplete" and len(report.round_scores) == 1, report.problem
    msg = decode(raws[move])
    seen = {decode(raws[i]).body["card"] for i in shows[:5]}
    claimed = next(c for c in range(60) if c not in seen and c != msg.body["card"])
    forged = resign(_keys(table)[msg.sender], raws[move], body={**thaw(msg.body), "card": claimed})
    report = audit_messages([*cut[:-1], forged])
    assert report.verdict == "invalid" and report.problem is not None, report.to_json()
    assert report.problem.message_index == move
    assert report.problem.seat == table.machines[0].order.index(msg.sender)
    assert f"claimed card {claimed} at position {msg.body['pos']}" in report.problem.error
