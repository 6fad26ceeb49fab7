"""One owner for this peer's chain position, one store of decoded messages (issue 16).

Where this peer's next message goes is read from what exists: the record (the transcript's chain
of our messages) and the newest message we signed that still waits for its step. Nothing copies
a position from one object to another, so no route that records a message of ours (the pump,
the runner's ``record_control``, a replayed record) can leave the two apart. The deck codec finds
an already decoded message in the transcript instead of a store of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from table_harness import LocalTable

from druids_p2p.deck import MalformedMessage
from druids_p2p.table import codec as codec_module
from druids_p2p.table.codec import WireCodec
from druids_p2p.table.table import TableMachine
from druids_p2p.wire import Message, MsgType, decode, read_record


def _where_next(m: TableMachine) -> tuple[int, bytes]:
    """Worked out here from the record and the messages we hold for a step, not from the chain:
    the seq and back-link our next message must carry."""
    seq, prev = m.transcript.next_seq(m.me), m.transcript.last_hash(m.me)
    for s, msg in sorted(m.pending[m.me].items()):
        if s == seq:
            seq, prev = s + 1, msg.hash
    return seq, prev


def _after(n: int) -> Callable[[], bool]:
    """A ``LocalTable.run`` stop: after ``n`` deliveries or moves."""
    count = [0]

    def stop() -> bool:
        count[0] += 1
        return count[0] > n

    return stop


def _echo_own(table: LocalTable, k: int) -> None:
    """Hand peer k its own messages back, as a resend from another peer would: its last recorded
    one (a duplicate) and the ones it holds for a step (already held)."""
    m = table.machines[k]
    own = list(m.transcript.since(m.me, max(0, m.transcript.next_seq(m.me) - 1)))
    for msg in [*own, *m.own_pending()]:
        table.broadcast(k, m.receive(msg))


def test_the_chain_follows_our_messages_through_a_game_with_restarts(tmp_path: Path) -> None:
    """Sealing, echoes of our own messages coming back, and restarts from the record at four
    points of the first round (deal and play), then three rounds to the end: after every
    delivery each peer's chain continues exactly after its newest message, recorded or waiting
    for its step."""
    table = LocalTable(players=3, rounds=3, seed=16, records=tmp_path)
    checked = {"n": 0, "goal": 0}

    def agree() -> bool:
        for k, m in enumerate(table.machines):
            assert (m.chain.seq, m.chain.prev) == _where_next(m)
            if checked["n"] % 7 == k and not m.finished:
                _echo_own(table, k)
                assert (m.chain.seq, m.chain.prev) == _where_next(m)
        checked["n"] += 1
        return checked["n"] >= checked["goal"]

    for restart_after, k in ((40, 1), (60, 2), (90, 0), (110, 1)):
        checked["goal"] = checked["n"] + restart_after
        table.run(stop=agree)
        assert not table.machines[k].finished
        table.restart(k)
        agree()
        table.broadcast(k, table.machines[k].resend_own())
    checked["goal"] = 10**9
    table.run(stop=agree)
    assert all(m.finished and m.aborted is None for m in table.machines)
    assert len({m.transcript.head for m in table.machines}) == 1
    assert checked["n"] > 400


def test_a_message_of_ours_recorded_by_the_runner_moves_the_chain(tmp_path: Path) -> None:
    """The runner records messages the pump does not (``record_control``: our own pending ones
    and the evidence before an abort). A peer whose record is appended that way still chains its
    next message (its abort) after our last recorded one: the record is the position."""
    table = LocalTable(players=3, rounds=1, seed=4, records=tmp_path)
    table.run(stop=_after(60))
    saved = read_record(tmp_path / "p1.druids").messages
    original = table.machines[1]
    fresh = TableMachine(
        table.ids[1], table.seat_msg, table.secrets[1], original.endpoint, original.curve
    )
    for raw in saved[1:]:
        fresh.record_control(raw)
    ours = [msg for msg in map(decode, saved) if msg.sender == fresh.me]
    assert len(ours) > 2
    abort = decode(fresh.seal_control(MsgType.ABORT, {"reason": "left"}))
    assert (abort.seq, abort.prev) == (ours[-1].seq + 1, ours[-1].hash)
    fresh.record_control(abort)  # the next of our chain, not a second message at an old seq


def test_nothing_can_copy_a_position_into_the_chain() -> None:
    """The chain's seq and back-link are views (of the record and of what it signed): there is
    no field to re-sync by hand."""
    table = LocalTable(players=3)
    chain = table.machines[0].chain
    with pytest.raises(AttributeError):
        chain.seq = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        chain.prev = bytes(32)  # type: ignore[misc]


def _counting_decode(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Count the codec's own decodes (each verifies a signature) while still decoding."""
    calls: list[bytes] = []
    real: Callable[[bytes], Message] = decode  # the one the codec imports

    def counted(raw: bytes) -> Message:
        calls.append(raw)
        return real(raw)

    monkeypatch.setattr(codec_module, "decode", counted)
    return calls


def test_the_table_opens_every_deck_message_from_its_transcript(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A whole round, with a restart: every deck message the deck opens is one the transcript
    already decoded and checked, found there (no signature is verified a second time)."""
    calls = _counting_decode(monkeypatch)
    table = LocalTable(players=3, rounds=1, seed=8, records=tmp_path)
    table.run(stop=_after(80))
    table.restart(2)
    table.broadcast(2, table.machines[2].resend_own())
    table.run()
    assert all(m.finished for m in table.machines)
    assert calls == []


def test_the_codec_finds_decoded_messages_through_the_lookup_it_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The codec keeps no messages: what the transcript holds is found through it (the same
    decoded message, not verified again); anything else is decoded and verified, and a message
    whose signature does not verify is refused."""
    table = LocalTable(players=3, rounds=1, seed=2)

    def keys_in() -> bool:
        return any(msg.type is MsgType.TABLE_KEY for msg in table.machines[0].transcript.messages)

    table.run(stop=keys_in)
    m = table.machines[0]
    held = next(msg for msg in m.transcript.messages if msg.type is MsgType.TABLE_KEY)
    seat = m.seat_of(held.sender)
    assert seat is not None
    # The codec a seat's card table is given (card_table_round._new_table): its lookup is the
    # record's (``recorded``).
    codec = WireCodec(seat, m.chain, lambda: m.step_head, m.seat_of, m.recorded, m.ledger.queue_own)
    calls = _counting_decode(monkeypatch)
    assert codec.open(held.raw).raw is held.raw
    assert calls == []

    other = table.machines[1]
    seat = other.seat_of(held.sender)
    assert seat is not None
    lonely = WireCodec(
        seat,
        other.chain,
        lambda: other.step_head,
        other.seat_of,
        lambda raw: None,
        lambda msg: None,
    )
    assert lonely.open(held.raw).body == dict(held.body)  # decoded and verified here
    assert calls == [held.raw]
    forged = bytearray(held.raw)
    forged[-1] ^= 1
    with pytest.raises(MalformedMessage):
        lonely.open(bytes(forged))


def test_the_transcript_finds_a_message_by_its_bytes() -> None:
    """The transcript is the one store the codec reads: every message it holds is found by its
    bytes (equal bytes, not only the same object), anything else is not."""
    table = LocalTable(players=3)
    table.run(stop=lambda: all(x.phase != "seating" for x in table.machines))
    t = table.machines[0].transcript
    assert len(t) > 3
    for msg in t.messages:
        assert t.find(msg.raw) is msg
        assert t.find(bytes(bytearray(msg.raw))) is msg
    assert t.find(t.messages[-1].raw + b"x") is None


def test_links_read_the_confirmations_through_the_machine() -> None:
    """The links ask the machine for every seat's confirmed address (None until all are in)
    instead of walking its seating state."""
    table = LocalTable(players=3)
    m = table.machines[0]
    assert m.confirmed_addresses() is None
    table.run(stop=lambda: all(x.phase != "seating" for x in table.machines))
    expected = [(key, endpoint, curve) for key, _, endpoint, curve in table.seats]
    assert m.confirmed_addresses() == expected
