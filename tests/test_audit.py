"""``druids audit``: a saved record is re-verified and replayed; the first problem is named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from sample_table import SampleTable, play_sample_game, sample_record

from druids_p2p.engine import Game, GameOptions, deal_from_seed, format_card, format_move
from druids_p2p.wire import MsgType, encode
from druids_p2p.wire.audit import audit_file, audit_messages
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
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Game]:
    path = tmp_path_factory.mktemp("audit") / "game.rec"
    return path, sample_record(path, players=4, seed=21)


# --- valid records -------------------------------------------------------------------------------


def test_valid_record_json(good: tuple[Path, Game]) -> None:
    path, game = good
    result = _druids("audit", str(path), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["ok"] is True and data["complete"] is True and data["verdict"] == "complete"
    assert data["rounds"] == 5 and data["totals"] == game.totals
    assert data["round_scores"] == game.round_scores and data["winners"] == game.winners
    assert [p["name"] for p in data["players"]] == ["alice", "bob", "carol", "dave"]


def test_valid_record_text(good: tuple[Path, Game]) -> None:
    path, game = good
    result = _druids("audit", str(path))
    assert result.returncode == 0, result.stderr
    assert ": valid and complete" in result.stdout and "alice" in result.stdout
    assert "totals:  " + "  ".join(map(str, game.totals)) in result.stdout


def test_unfinished_game_is_valid_but_incomplete(tmp_path: Path) -> None:
    table = SampleTable(3, seed=4, path=tmp_path / "g.rec")
    play_sample_game(table, seed=4, rounds=2)
    table.transcript.close()
    report = audit_file(tmp_path / "g.rec")
    assert report.ok and not report.complete and len(report.round_scores) == 2
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


def test_equivocation_in_record(tmp_path: Path) -> None:
    table = SampleTable(3, seed=5)
    table.send(1, "move", {"round": 0, "move": "G1"})
    twin = encode(
        table.identities[1],
        "move",
        table_id=table.table_id,
        seq=0,
        prev=bytes(32),
        head=table.transcript.head,
        body={"round": 0, "move": "G2"},
    )
    report = audit_file(_write(tmp_path / "e.rec", [*table.raws, twin]))
    assert report.problem is not None
    assert (report.problem.message_index, report.problem.seat) == (2, 1)
    assert "equivocation" in report.problem.error


def test_duplicate_in_record() -> None:
    table = SampleTable(3, seed=5)
    table.send(1, "move", {"round": 0, "move": "G1"})
    report = audit_messages([*table.raws, table.raws[-1]])
    assert report.problem is not None and "duplicate" in report.problem.error


Tamper = Callable[[SampleTable, Game, list[list[int]], int], bool]


def _round_with(tamper: Tamper, seed: int = 8) -> SampleTable:
    """Play one round; ``tamper`` may send something else instead of move k (returns True)."""
    table = SampleTable(3, seed=seed, rounds=1)
    game = Game(GameOptions(players=3, rounds=1))
    hands = deal_from_seed(seed, 3)
    game.start_round(hands)
    k = 0
    while not game.round_over:
        if tamper(table, game, hands, k):
            break
        move = game.legal_moves()[0]
        table.send(game.to_move or 0, "move", {"round": 0, "move": format_move(move)})
        game.play(move)
        k += 1
    for seat, hand in enumerate(hands):
        table.send(seat, MsgType.ROUND_REVEAL, {"round": 0, "hand": [format_card(c) for c in hand]})
    return table


def test_illegal_move(tmp_path: Path) -> None:
    def tamper(table: SampleTable, game: Game, hands: list[list[int]], k: int) -> bool:
        if k != 4:
            return False
        seat = game.to_move or 0
        foreign = hands[(seat + 1) % 3][0]  # a card someone else holds
        table.send(seat, "move", {"round": 0, "move": format_card(foreign)})
        return True

    table = _round_with(tamper)
    path = _write(tmp_path / "i.rec", table.raws)
    out = json.loads(_druids("audit", str(path), "--json").stdout)
    assert out["ok"] is False and out["message_index"] == 5
    assert "illegal move" in out["error"] and out["seat"] is not None


def test_out_of_turn(tmp_path: Path) -> None:
    def tamper(table: SampleTable, game: Game, hands: list[list[int]], k: int) -> bool:
        if k != 2:
            return False
        seat = ((game.to_move or 0) + 1) % 3
        table.send(seat, "move", {"round": 0, "move": format_card(hands[seat][0])})
        return True

    report = audit_messages(_round_with(tamper).raws)
    assert report.problem is not None and "out of turn" in report.problem.error
    assert report.problem.message_index == 3


def test_overlapping_reveals() -> None:
    table = _round_with(lambda *a: False)
    raws = table.raws[:-1]  # drop seat 2's reveal, replace it by a copy of seat 1's hand
    forged = SampleTable(3, seed=8, rounds=1)  # same keys and table: continue the chain from raws
    for raw in raws[1:]:
        forged.transcript.append(raw)
    hand1 = list(table.transcript.messages[-2].body["hand"])
    forged.send(2, MsgType.ROUND_REVEAL, {"round": 0, "hand": hand1})
    report = audit_messages([m.raw for m in forged.transcript.messages])
    assert report.problem is not None and "also in another revealed hand" in report.problem.error
    assert report.problem.seat == 2


def test_missing_reveal() -> None:
    table = _round_with(lambda *a: False)
    report = audit_messages(table.raws[:-1])
    assert report.problem is not None and "seat 2 did not reveal" in report.problem.error


def test_wrong_hand_size() -> None:
    table = SampleTable(3, seed=9, rounds=1)
    table.send(0, MsgType.ROUND_REVEAL, {"round": 0, "hand": ["G1", "G2"]})
    report = audit_messages(table.raws)
    assert report.problem is not None and "has 2 cards, a deal is 15" in report.problem.error
