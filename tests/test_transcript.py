"""The transcript's chain checks, and its record file surviving a crash."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from sample_table import SampleTable, play_sample_game

from druids_p2p.wire import (
    ZERO_HASH,
    BrokenLink,
    Equivocation,
    Identity,
    MsgType,
    NotSeated,
    OutOfPlace,
    RecordError,
    SequenceGap,
    StaleSequence,
    Transcript,
    WrongTable,
    decode,
    encode,
    equivocation_body,
    head0,
    next_head,
    read_record,
    verify_equivocation,
)
from druids_p2p.wire.record import MAGIC, RecordWriter

MOVE = {"round": 0, "move": "G1"}


def test_head_chain() -> None:
    table = SampleTable(3, seed=1)
    move = table.send(1, "move", MOVE)
    table.send(2, "move", {"round": 0, "move": "G2"})
    assert decode(move).seq == 0
    expected = hashlib.sha256(b"druids-p2p/v1 head\x00" + table.table_id).digest()
    assert head0(table.table_id) == expected
    head = head0(table.table_id)
    for raw in table.raws:
        expected = hashlib.sha256(expected + hashlib.sha256(raw).digest()).digest()
        head = next_head(head, decode(raw).hash)
    assert table.transcript.head == expected == head


def test_per_sender_sequence_and_links() -> None:
    table = SampleTable(3, seed=2)
    a = table.send(1, "move", MOVE)
    b = table.send(1, "move", {"round": 0, "move": "G2"})
    assert decode(b).prev == decode(a).hash and decode(b).seq == 1
    assert table.transcript.next_seq(table.identities[1].public_key) == 2
    assert table.transcript.next_seq(table.identities[2].public_key) == 0
    assert [m.raw for m in table.transcript.since(table.identities[1].public_key, 1)] == [b]
    assert len(table.transcript) == 3


def test_replay_is_duplicate() -> None:
    table = SampleTable(3, seed=3)
    raw = table.send(1, "move", MOVE)
    before = table.transcript.head
    assert table.transcript.append(raw) == "duplicate"
    assert table.transcript.append(table.raws[0]) == "duplicate"  # the seat message itself
    assert table.transcript.head == before and len(table.transcript) == 2


def test_wrong_table() -> None:
    table, other = SampleTable(3, seed=4), SampleTable(3, seed=5)
    raw = other.make(0, "move", MOVE)
    with pytest.raises(WrongTable):
        table.transcript.append(raw)


def test_unseated_sender() -> None:
    table = SampleTable(3, seed=6)
    eve = Identity.from_seed(b"\x05" * 32, "eve")
    raw = encode(
        eve, "move", table_id=table.table_id, seq=0, prev=ZERO_HASH, head=ZERO_HASH, body=MOVE
    )
    with pytest.raises(NotSeated):
        table.transcript.append(raw)


def test_gap() -> None:
    table = SampleTable(3, seed=7)
    ident = table.identities[2]
    raw = encode(
        ident, "move", table_id=table.table_id, seq=2, prev=b"\x01" * 32, head=ZERO_HASH, body=MOVE
    )
    with pytest.raises(SequenceGap) as info:
        table.transcript.append(raw)
    assert (info.value.expected, info.value.got, info.value.sender) == (0, 2, ident.public_key)


def test_broken_link() -> None:
    table = SampleTable(3, seed=8)
    table.send(2, "move", MOVE)
    ident = table.identities[2]
    raw = encode(
        ident, "move", table_id=table.table_id, seq=1, prev=b"\x01" * 32, head=ZERO_HASH, body=MOVE
    )
    with pytest.raises(BrokenLink, match="seat 2"):
        table.transcript.append(raw)


def test_equivocation_keeps_a_verifiable_pair() -> None:
    table = SampleTable(3, seed=9)
    first = table.send(1, "move", MOVE)
    key = table.identities[1].public_key
    second = encode(
        table.identities[1],
        "move",
        table_id=table.table_id,
        seq=0,
        prev=ZERO_HASH,
        head=table.transcript.head,
        body={"round": 0, "move": "G2"},
    )
    with pytest.raises(Equivocation) as info:
        table.transcript.append(second)
    exc = info.value
    assert isinstance(exc, StaleSequence)
    assert (exc.first, exc.second, exc.sender, exc.seq) == (first, second, key, 0)
    body = equivocation_body(exc.first, exc.second)
    assert verify_equivocation(body["a"], body["b"]).sender == key
    # The proof travels as a message that anyone can check, and the transcript accepts it.
    table.send(2, "equivocation", body)
    assert table.transcript.messages[-1].type is MsgType.EQUIVOCATION


def test_lobby_types_have_no_place_in_a_table() -> None:
    table = SampleTable(3, seed=10)
    with pytest.raises(OutOfPlace, match="hello"):
        table.send(1, "hello", {"name": "bob", "client": "x", "n": 1})
    other_seat = table.make(1, "seat", dict(decode(table.raws[0]).body))
    with pytest.raises(OutOfPlace):
        table.transcript.append(other_seat)


def test_start_needs_a_seat_message() -> None:
    table = SampleTable(3, seed=12)
    raw = table.send(1, "move", MOVE)
    with pytest.raises(OutOfPlace, match="starts with a seat message"):
        Transcript.start(raw)


# --- the record file -----------------------------------------------------------------------------


def _played(path: Path, seed: int = 0) -> SampleTable:
    table = SampleTable(3, seed=seed, path=path)
    play_sample_game(table, seed=seed, rounds=1)
    table.transcript.flush(sync=True)
    return table


def test_record_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "game.rec"
    table = _played(path)
    table.transcript.close()
    data = path.read_bytes()
    assert data.startswith(MAGIC) and len(MAGIC) == 16
    read = read_record(path)
    assert read.tail is None and not read.corrupt and read.end == read.size == len(data)
    assert list(read.messages) == table.raws
    assert Transcript.replay(read.messages).head == table.transcript.head


def test_record_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "game.rec"
    path.write_bytes(b"precious")
    with pytest.raises(RecordError, match="cannot create"):
        SampleTable(3, seed=1, path=path)
    assert path.read_bytes() == b"precious"


def test_crash_mid_message_then_resume(tmp_path: Path) -> None:
    path = tmp_path / "game.rec"
    table = _played(path, seed=3)
    table.transcript.close()
    full = path.read_bytes()
    last = table.raws[-1]
    cut = len(full) - len(last) // 2  # the crash happened while the last message was written
    path.write_bytes(full[:cut])

    read = read_record(path)
    assert list(read.messages) == table.raws[:-1]
    assert read.tail is not None and read.tail.startswith("truncated")
    assert f"message {len(table.raws) - 1}" in read.tail
    assert f"of {len(last)} bytes" in read.tail and not read.corrupt

    resumed, seen = Transcript.resume(path)
    assert seen.tail == read.tail
    assert len(resumed) == len(table.raws) - 1
    assert resumed.append(last) == "appended"  # the peer re-sends it; the chain goes on
    resumed.close()
    assert path.read_bytes() == full


@pytest.mark.parametrize("keep", [len(MAGIC) + 2, len(MAGIC) + 4])
def test_crash_in_first_length_prefix(tmp_path: Path, keep: int) -> None:
    path = tmp_path / "game.rec"
    _played(path).transcript.close()
    path.write_bytes(path.read_bytes()[:keep])
    read = read_record(path)
    assert read.messages == () and read.tail is not None and "truncated: message 0" in read.tail
    with pytest.raises(RecordError, match="no seat message"):
        Transcript.resume(path)


def test_corrupt_length(tmp_path: Path) -> None:
    path = tmp_path / "game.rec"
    table = _played(path)
    table.transcript.close()
    data = bytearray(path.read_bytes())
    second = len(MAGIC) + 4 + len(table.raws[0])
    data[second : second + 4] = b"\xff\xff\xff\xff"
    path.write_bytes(bytes(data))
    read = read_record(path)
    assert len(read.messages) == 1 and read.corrupt
    assert read.tail is not None and "message 1" in read.tail and "length 4294967295" in read.tail
    with pytest.raises(RecordError, match="corrupt"):
        Transcript.resume(path)


def test_corrupt_message_body_is_refused_on_resume(tmp_path: Path) -> None:
    path = tmp_path / "game.rec"
    table = _played(path)
    table.transcript.close()
    data = bytearray(path.read_bytes())
    data[len(MAGIC) + 4 + len(table.raws[0]) + 4 + 30] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(RecordError, match="message 1"):
        Transcript.resume(path)


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (b"", "truncated record header"),
        (MAGIC[:9], "truncated record header"),
        (b"PK\x03\x04", "bad magic"),
    ],
)
def test_bad_headers(tmp_path: Path, content: bytes, pattern: str) -> None:
    path = tmp_path / "x.rec"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=pattern):
        read_record(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "nope.rec")


def test_writer_fsyncs_on_flush_and_close(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only what was written since the last fsync costs one (protocol.md §8: the table syncs
    before each of its own messages leaves, often with nothing new)."""
    import os

    calls: list[int] = []
    real = os.fsync

    def counting_fsync(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    writer = RecordWriter.create(tmp_path / "w.rec")
    n = len(calls)
    writer.append(b"x")
    writer.flush(sync=False)
    assert len(calls) == n
    writer.flush(sync=True)
    assert len(calls) == n + 1
    writer.flush(sync=True)
    assert len(calls) == n + 1, "nothing new: no second fsync"
    writer.append(b"y")
    writer.close()
    assert len(calls) == n + 2
