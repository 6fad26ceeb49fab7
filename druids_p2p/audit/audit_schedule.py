"""The offline audit's schedule check: a record is its table's canonical transcript, and its stop.

A live peer appends a step's messages only once the step is complete, in the step's sender order,
and refuses a message that is not of its step's type, not from its step's sender, or not built on
its step's head (``protocol.md`` §5). So a record — the canonical transcript as its recorder saw
it — must show exactly that, message by message: this module walks the schedule over a record
whose chain already verified (``wire.audit.verify_chain``) and names the first message that
breaks it. It also finds where the record's *stop tail* begins (``protocol.md`` §9, "Aborts in a
record"): the recorder's own messages of the step it stopped in, then aborts (any seat's, one
each), the last one the recorder's own, carrying the head of the record before it.

This walk covers the seating; each round's card table is walked by its replay
(``audit/audit_card_table.py``), which asks here whether a message is of the stop tail. Content
(seat nonces against commitments, the deck, the moves' legality) is checked by ``audit/audit.py``
and that replay; here only the shape: types, senders, order, heads.
"""

from __future__ import annotations

from collections.abc import Sequence

from druids_p2p.lan.seating import seat_order
from druids_p2p.wire import Message, MsgType, Transcript
from druids_p2p.wire.transcript import AuditProblem


def stop_tail_from(msgs: Sequence[Message], recorder: bytes | None) -> int | None:
    """The first index ``i`` such that ``msgs[i:]`` is the recorder's own messages (no abort
    among them), then aborts of distinct seats; ``None`` without a recorder.

    The rest of a stop tail past its first message is a stop tail too, so the indices it may
    begin at are exactly this one and every later one: one scan back from the end finds it,
    where testing each index forward costs O(n²) on a long record."""
    if recorder is None:
        return None
    i = len(msgs)
    aborted: set[bytes] = set()
    while i > 0 and msgs[i - 1].type is MsgType.ABORT and msgs[i - 1].sender not in aborted:
        aborted.add(msgs[i - 1].sender)
        i -= 1
    while i > 0 and msgs[i - 1].type is not MsgType.ABORT and msgs[i - 1].sender == recorder:
        i -= 1
    return i


class ScheduleWalk:
    """Walks a verified record through the schedule; :meth:`run` returns where its stop tail
    begins (its length if it has none) or raises :class:`AuditProblem` at the first breach.

    The one walk of the schedule: the content checks (``audit/audit.py``) take from it the play
    order, where the seating ends, where each round and the result step begin."""

    def __init__(self, transcript: Transcript) -> None:
        messages: Sequence[Message] = transcript.messages
        self.msgs = messages
        self.head_before = transcript.head_before
        """The head before message ``i`` (the transcript's, not recomputed)."""
        seat = messages[0]
        self.list_keys: tuple[bytes, ...] = tuple(seat.body["seats"])
        self.order: tuple[bytes, ...] = ()
        last = messages[-1]
        self.recorder: bytes | None = last.sender if last.type is MsgType.ABORT else None
        """The signer of the record's last entry when it is an abort: whose record this is."""
        self.tail_from = stop_tail_from(messages, self.recorder)
        """The first index from which the rest of the record is a stop tail (None: no recorder)."""
        self._tail_start: int | None = None
        """Where the stop tail begins, once the walk has met it."""
        self.seated_at: int | None = None
        """Where the seating ends (after the nonce step), once the walk has passed it."""

    def seat(self, key: bytes) -> int | None:
        keys = self.order or self.list_keys
        return keys.index(key) if key in keys else None

    # ---------------------------------------------------------------- the walk
    def run(self) -> int:
        """Raises at the first message out of schedule; returns the stop tail's start."""
        end = self._walk()  # (the seat message's own head is the seating's check, step 4)
        if self.seated_at is None:
            self.check_tail(end)  # (else the card table's replay finds its tail and checks it)
        return end

    def _walk(self) -> int:
        i: int | None = self._step(1, "confirm", self.list_keys, {MsgType.SEAT_CONFIRM})
        nonce_at = i
        i = self._step(i, "nonce", self.list_keys, {MsgType.SEAT_NONCE})
        if i is None or nonce_at is None:
            return self._stop_at()
        nonces = {m.sender: m.body["nonce"] for m in self.msgs[nonce_at:i]}
        self.order = seat_order(self.msgs[0].table_id, self.list_keys, nonces)
        self.seated_at = i
        return self._stop_at()

    def _stop_at(self) -> int:
        return self._tail_start if self._tail_start is not None else len(self.msgs)

    def _step(
        self, i: int | None, name: str, senders: Sequence[bytes], types: set[MsgType]
    ) -> int | None:
        """One step at message ``i``: ``None`` once the record ends or its stop tail begins."""
        if i is None:
            return None
        head = self.head_before(i) if i <= len(self.msgs) else b""
        for key in senders:
            if i >= len(self.msgs):
                return None
            msg = self.msgs[i]
            if msg.sender != key or msg.type not in types or msg.head != head:
                if self.is_tail(i):
                    self._tail_start = i
                    return None
                raise self.breach(i, name, key, types, head)
            i += 1
        return i

    def breach(
        self, i: int, name: str, key: bytes, types: set[MsgType], head: bytes
    ) -> AuditProblem:
        msg = self.msgs[i]
        seat = self.seat(msg.sender)
        if msg.type is MsgType.ABORT:
            return AuditProblem(
                "the game goes on after this abort (nothing of the game follows an abort)",
                i,
                seat,
            )
        if msg.type not in types:
            wanted = "/".join(sorted(t.label for t in types))
            return AuditProblem(f"{msg.type.label} when {wanted} was due (step {name})", i, seat)
        if msg.sender != key:
            return AuditProblem(
                f"{msg.type.label} out of the canonical order: step {name} appends seat "
                f"{self.seat(key)}'s message here",
                i,
                seat,
            )
        return AuditProblem(
            f"{msg.type.label} carries head {msg.head.hex()[:12]}…, not the head "
            f"{head.hex()[:12]}… at the start of its step ({name})",
            i,
            seat,
        )

    # ---------------------------------------------------------------- the stop tail
    def is_tail(self, i: int) -> bool:
        """From ``i`` (``>= 0``) on: the recorder's own messages, then aborts, one per seat.

        Answered from :attr:`tail_from`, found once: the walk and the replays ask this at
        every step that does not match, and the blind stop-tail search of many indices."""
        return self.tail_from is not None and i >= self.tail_from

    def check_tail(self, start: int) -> None:
        if self.recorder is None:
            return
        last = len(self.msgs) - 1
        if start > last:
            raise AuditProblem(
                "the record's last abort has no place in it", last, self.seat(self.recorder)
            )
        if self.msgs[last].head != self.head_before(last):
            raise AuditProblem(
                "the recorder's abort must carry the head of its record before it",
                last,
                self.seat(self.recorder),
            )
