"""Where a record's stop tail begins: one scan from the end, as the per-index test defined it.

The audit once asked, for each index of a long unreplayed rest, whether the tail began there,
each question a scan to the end (O(n²)). The one scan must give the same first index for every
record shape: the forward definition is kept here as the reference it is compared to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

from hypothesis import given, settings
from hypothesis import strategies as st

from druids_p2p.audit.schedule import stop_tail_from
from druids_p2p.wire import Message, MsgType

SENDERS = (b"A" * 32, b"B" * 32, b"C" * 32)
TYPES = (MsgType.ABORT, MsgType.MOVE, MsgType.TABLE_REVEAL)


def message(kind: MsgType, sender: bytes) -> Message:
    """A message with only what the tail's shape reads (type, sender) meaningful."""
    return Message(
        version=2, type=kind, table_id=b"", sender=sender, seq=0, prev=b"", head=b"",
        body={}, signature=b"", raw=b"", hash=b"",
    )  # fmt: skip


def is_tail_forward(msgs: Sequence[Message], recorder: bytes | None, i: int) -> bool:
    """The former ``ScheduleWalk.is_tail``, word for word: a scan of ``msgs[i:]``."""
    if recorder is None:
        return False
    aborted: set[bytes] = set()
    for msg in msgs[i:]:
        if msg.type is MsgType.ABORT:
            if msg.sender in aborted:
                return False
            aborted.add(msg.sender)
        elif aborted or msg.sender != recorder:
            return False
    return True


def recorder_of(msgs: Sequence[Message]) -> bytes | None:
    """As the walk names it: the last message's signer when that is an abort."""
    return msgs[-1].sender if msgs and msgs[-1].type is MsgType.ABORT else None


records = st.lists(
    st.builds(message, st.sampled_from(TYPES), st.sampled_from(SENDERS)), max_size=14
)


@settings(max_examples=600, deadline=None)
@given(records, st.sampled_from((None, *SENDERS)))
def test_the_one_scan_finds_the_first_index_the_forward_test_accepts(
    msgs: list[Message], named: bytes | None
) -> None:
    """Any recorder, not only the walk's: the scan must not rely on the last message."""
    for recorder in (named, recorder_of(msgs)):
        accepted = [i for i in range(len(msgs) + 1) if is_tail_forward(msgs, recorder, i)]
        start = stop_tail_from(msgs, recorder)
        if recorder is None:
            assert start is None and accepted == []
            continue
        assert start is not None
        assert accepted == list(range(start, len(msgs) + 1))  # every later index too


def test_the_tail_of_a_shape_the_generator_may_miss() -> None:
    """A recorder's messages, then three seats' aborts, the recorder's last; a repeated abort
    before them ends the search there."""
    a, b, c = SENDERS
    msgs = [
        message(MsgType.MOVE, b),
        message(MsgType.ABORT, b),
        message(MsgType.MOVE, a),
        message(MsgType.MOVE, a),
        message(MsgType.ABORT, b),
        message(MsgType.ABORT, c),
        message(MsgType.ABORT, a),
    ]
    assert stop_tail_from(msgs, a) == 2
    assert stop_tail_from(msgs[4:], a) == 0
    assert stop_tail_from([*msgs, message(MsgType.ABORT, b)], b) == 5  # b aborted twice


class _Counted(Sequence[Message]):
    """A record that counts the messages read from it."""

    def __init__(self, msgs: list[Message]) -> None:
        self.msgs = msgs
        self.reads = 0

    def __len__(self) -> int:
        return len(self.msgs)

    @overload
    def __getitem__(self, i: int) -> Message: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Message]: ...
    def __getitem__(self, i: int | slice) -> Message | Sequence[Message]:
        if isinstance(i, slice):
            raise AssertionError("the scan reads message by message, never a copy of the rest")
        self.reads += 1
        return self.msgs[i]


def test_a_long_record_is_scanned_once() -> None:
    """200,000 messages: the recorder's last 50,000 moves then two aborts are its tail, found
    with a few reads per tail message (the forward test per index: ~10¹⁰ reads)."""
    a, b, _ = SENDERS
    n, own = 200_000, 50_000
    body = [message(MsgType.MOVE, SENDERS[i % 2 + 1]) for i in range(n - own - 2)]
    msgs = [*body, *(message(MsgType.MOVE, a) for _ in range(own))]
    msgs += [message(MsgType.ABORT, b), message(MsgType.ABORT, a)]
    counted = _Counted(msgs)
    assert stop_tail_from(counted, a) == n - own - 2
    assert counted.reads <= 4 * (own + 3)
