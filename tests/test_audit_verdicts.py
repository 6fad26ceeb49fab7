"""``druids audit``'s verdicts are defined and distinct (issue 15 item 4, issue 14's "audit on a
game you left cleanly exits 1"): complete (0), incomplete (3), stopped with a recorded reason
naming its seat (4), invalid (1), unreadable (2); ``--json`` carries the same verdict.

The records are real tables' (``table_harness.LocalTable``); a stop is the abort its peer signs
as the next message of its chain (what ``TableRunner._abort`` records)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from message_surgery import abort_after
from table_harness import LocalTable

from druids_p2p.wire import MsgType, decode
from druids_p2p.wire.record import MAGIC, RecordWriter
from druids_p2p.wire.transcript import VERDICT_EXIT


@pytest.fixture(scope="module")
def table() -> LocalTable:
    t = LocalTable(players=3, rounds=1, seed=4)
    t.run()
    return t


def _raws(table: LocalTable) -> list[bytes]:
    return [m.raw for m in table.machines[0].transcript.messages]


def _write(path: Path, raws: list[bytes]) -> Path:
    writer = RecordWriter.create(path)
    for raw in raws:
        writer.append(raw)
    writer.close()
    return path


def _audit(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as home:
        return subprocess.run(
            [sys.executable, "-m", "druids_p2p", "audit", str(path), *extra],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "DRUIDS_HOME": home},
        )


def _mid_game(raws: list[bytes]) -> list[bytes]:
    """The record up to its fifth card play (a ``table_show``: past the owners' words)."""
    moves = [i for i, r in enumerate(raws) if decode(r).type is MsgType.TABLE_SHOW]
    return raws[: moves[4] + 1]


def _seat(table: LocalTable, k: int) -> int:
    return table.machines[0].order.index(table.ids[k].public_key)


def test_complete(table: LocalTable, tmp_path: Path) -> None:
    path = _write(tmp_path / "r.druids", _raws(table))
    text, js = _audit(path), _audit(path, "--json")
    assert text.returncode == 0 and js.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0] == f"{path}: valid and complete"
    assert json.loads(js.stdout)["verdict"] == "complete"


def test_a_prefix_is_incomplete_not_valid_and_complete(table: LocalTable, tmp_path: Path) -> None:
    path = _write(tmp_path / "r.druids", _mid_game(_raws(table)))
    text, js = _audit(path), _audit(path, "--json")
    assert text.returncode == 3 and js.returncode == 3, text.stderr
    assert ": valid, incomplete" in text.stdout.splitlines()[0]
    out = json.loads(js.stdout)
    assert out["verdict"] == "incomplete" and out["ok"] is True and out["complete"] is False


def test_a_game_left_cleanly_is_stopped_naming_the_seat_that_left(
    table: LocalTable, tmp_path: Path
) -> None:
    cut = _mid_game(_raws(table))
    left = abort_after(table.ids[1], cut, {"reason": "p1 left the table (interrupted)"})
    path = _write(tmp_path / "r.druids", [*cut, left])
    text, js = _audit(path), _audit(path, "--json")
    assert text.returncode == 4 and js.returncode == 4, text.stderr
    assert text.stdout.splitlines()[0] == f"{path}: valid, stopped: seat {_seat(table, 1)} left"
    assert "recorded reason: p1 left the table (interrupted)" in text.stdout
    out = json.loads(js.stdout)
    assert out["verdict"] == "stopped" and out["ok"] is True
    assert out["reason"] == f"seat {_seat(table, 1)} left" and out["seat"] == _seat(table, 1)
    assert out["message_index"] == len(cut) and out["stopped_by"] == _seat(table, 1)


def test_a_deadline_stop_names_the_unreachable_seat(table: LocalTable, tmp_path: Path) -> None:
    cut = _mid_game(_raws(table))
    nxt = decode(_raws(table)[len(cut)]).sender  # the seat whose move the table waits for
    gone = [i.public_key for i in table.ids].index(nxt)
    recorder = (gone + 1) % 3
    seat = _seat(table, gone)
    reason = f"p{gone} (seat {seat}) unreachable: gone for 12 s with no message while it owed move"
    stop = abort_after(table.ids[recorder], cut, {"reason": reason, "seat": seat, "key": nxt})
    out = json.loads(_audit(_write(tmp_path / "r.druids", [*cut, stop]), "--json").stdout)
    assert out["verdict"] == "stopped" and out["seat"] == seat
    # the round is replayed to its stop without its secrets: the record shows whose move it was
    owing = "move/table_play/table_show"
    assert out["reason"] == f"seat {seat} unreachable (the record shows it owing {owing})"
    assert not out["evidence_checked"] and out["message_index"] == len(cut)


def test_lost_contact_blames_nobody(table: LocalTable, tmp_path: Path) -> None:
    cut = _mid_game(_raws(table))
    reason = "p2 (seat 1) lost contact with the table: no message from any peer for 31 s"
    stop = abort_after(table.ids[2], cut, {"reason": reason})
    path = _write(tmp_path / "r.druids", [*cut, stop])
    text = _audit(path)
    assert text.returncode == 4
    assert text.stdout.splitlines()[0] == f"{path}: valid, stopped: lost contact with the table"
    assert json.loads(_audit(path, "--json").stdout)["seat"] is None


def test_invalid_names_index_and_seat(table: LocalTable, tmp_path: Path) -> None:
    raws = _raws(table)
    data = bytearray(_write(tmp_path / "r.druids", raws).read_bytes())
    data[len(data) // 2] ^= 0x01
    bad = tmp_path / "bad.druids"
    bad.write_bytes(bytes(data))
    text, js = _audit(bad), _audit(bad, "--json")
    assert text.returncode == 1 and js.returncode == 1 and "Traceback" not in text.stderr
    out = json.loads(js.stdout)
    assert out["verdict"] == "invalid" and isinstance(out["message_index"], int)
    assert text.stderr.count("\n") == 1 and f"message {out['message_index']}" in text.stderr


@pytest.mark.parametrize("content", [b"", b"not a record at all", MAGIC, MAGIC + b"\x00\x00"])
def test_unreadable(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "junk.druids"
    path.write_bytes(content)
    text, js = _audit(path), _audit(path, "--json")
    assert text.returncode == 2 and js.returncode == 2, text.stderr
    assert text.stderr.count("\n") == 1 and "Traceback" not in text.stderr
    assert json.loads(js.stdout)["verdict"] == "unreadable"


def test_help_lists_every_exit_code() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "audit", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )
    text = " ".join(out.stdout.split())
    for code, word in (("0", "complete"), ("3", "incomplete"), ("4", "stopped")):
        assert f"Exit {code}: valid" in text and word in text
    assert "Exit 1: invalid" in text and "Exit 2" in text


def test_protocol_md_lists_every_verdict_and_its_exit_code() -> None:
    text = (Path(__file__).parent.parent / "protocol.md").read_text()
    text = text[text.index("### Audit verdicts") :]
    text = text[: text.index("\n#", 1)]
    rows = dict(re.findall(r"^\| `(\w+)` \| (\d) \|", text, flags=re.M))
    assert {k: int(v) for k, v in rows.items()} == VERDICT_EXIT


def test_a_stop_on_another_seats_word_names_its_claim(table: LocalTable, tmp_path: Path) -> None:
    """The claimant's abort did not make it into the record (it was not its signer's next message
    there): the recorder's own words still name the seat blamed, as the claimant's claim."""
    cut = _mid_game(_raws(table))
    order = table.machines[0].order
    mover = order.index(decode(_raws(table)[len(cut)]).sender)  # the seat whose move is due
    blamed, claimant = (mover + 1) % 3, (mover + 2) % 3  # one that owes nothing, and another
    inner = f"p (seat {blamed}) unreachable: gone for 40 s with no message while it owed move"
    reason = f"stopped on p (seat {claimant})'s word: {inner} (blames seat {blamed})"
    recorder = next(i for i in table.ids if i.public_key == order[mover])
    stop = abort_after(recorder, cut, {"reason": reason})
    text = _audit(_write(tmp_path / "r.druids", [*cut, stop]))
    assert text.returncode == 4
    assert text.stdout.splitlines()[0].endswith(
        f"valid, stopped: seat {blamed} unreachable (on seat {claimant}'s word)"
    )
