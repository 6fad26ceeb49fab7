"""This seat's messages at one table: the record (its transcript), what is held for a step not
yet complete, its own chain and what waits to leave. The machine (``table.py``) decides the
steps; the ledger keeps the messages they are made of, so that no other part touches the record
(write-ahead and a lost record: protocol.md §8).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from druids_p2p.table.codec import Chain
from druids_p2p.table.table_state import (
    Divergence,
    RecordLost,
    Seating,
    Step,
    StepLog,
    TableFault,
)
from druids_p2p.wire import (
    Equivocation,
    Identity,
    Message,
    MsgType,
    Transcript,
    WireError,
    next_head,
)

log = logging.getLogger(__name__)

MAX_BUFFERED = 64
"""Messages held per sender ahead of the schedule; more is flooding and is dropped."""


class Ledger:
    """The record and the messages held for it, by sender and sequence number."""

    def __init__(
        self, identity: Identity, seating: Seating, transcript: Transcript, steps: StepLog
    ) -> None:
        """``steps``: the machine's step log, read here for the head a message must carry."""
        self.me = identity.public_key
        self.seating = seating
        self.transcript = transcript
        self.steps = steps
        self.chain = Chain(identity, seating.seat_message.table_id, self.own_recorded)
        """Our next message's place: read from the record (whichever transcript it is now) and
        the newest message we signed; nothing copies it (``table/codec.py``)."""
        self.pending: dict[bytes, dict[int, Message]] = {k: {} for k in seating.keys}
        self._outbox: list[bytes] = []

    # ================================================================ our own messages
    def own_recorded(self) -> tuple[int, bytes]:
        """The seq and back-link the record expects next from us (our chain reads it here; a
        bound method, not a closure, so that a copied ledger reads its own record)."""
        return self.transcript.next_seq(self.me), self.transcript.last_hash(self.me)

    def recorded(self, raw: bytes) -> Message | None:
        """The decoded message with these bytes if the record holds it, or it is one of ours
        waiting for its step (the deck codec's lookup: nothing is decoded twice)."""
        msg = self.transcript.find(raw)
        if msg is None:
            msg = next((m for m in self.pending[self.me].values() if m.raw == raw), None)
        return msg

    def head_after_own(self) -> bytes:
        """The transcript's head after every message of ours sealed but not yet appended: those
        are for steps of ours alone that come first (a deck runs ahead of the transcript only on
        this seat's own messages), so the head their steps leave is known here already."""
        head, next_seq = self.transcript.head, self.transcript.next_seq(self.me)
        for seq, msg in sorted(self.pending[self.me].items()):
            if next_seq <= seq < self.chain.seq:
                head = next_head(head, msg.hash)
        return head

    def seal_head(self) -> bytes:
        """The head our next message builds on: the current step's, or, when the current step is
        ours alone and our message for it is already made (the deck's last shuffler emits its
        shares right after its shuffle), the head that step will leave."""
        step = self.steps.current
        if step is not None and step.senders == (self.me,):
            mine = self.pending[self.me].get(self.transcript.next_seq(self.me))
            if mine is not None and mine.seq < self.chain.seq:  # sealed by us, not just loaded
                return next_head(self.transcript.head, mine.hash)
        return self.steps.head

    def send_own(self, msg_type: MsgType, body: dict[str, object]) -> None:
        """Seal our message for the step due (:meth:`seal_head`) and queue it."""
        self.queue_own(self.chain.seal_message(msg_type, body, self.seal_head()))

    def seal_after_own(self, msg_type: MsgType, body: dict[str, object]) -> Message:
        """Seal our message on :meth:`head_after_own` (a move) and queue it."""
        msg = self.chain.seal_message(msg_type, body, self.head_after_own())
        self.queue_own(msg)
        return msg

    def queue_own(self, msg: Message) -> None:
        """Hold our own message for its step and the outbox; never changes. Another one held for
        its slot (from our record or a peer) stops us before this one can leave."""
        held = self.pending[self.me].get(msg.seq)
        if held is not None and held.raw != msg.raw:
            raise RecordLost(msg.seq, (held.raw, msg.raw))
        self.pending[self.me][msg.seq] = msg
        self._outbox.append(msg.raw)

    def check_own(self, msg: Message) -> None:
        """A message of ours from another peer (a resend answer) that we hold or made otherwise:
        :class:`RecordLost`. One we lack is taken back like our record's (protocol.md §8)."""
        recorded = self.transcript.since(self.me, msg.seq)[:1]
        ours = recorded[0] if recorded else self.pending[self.me].get(msg.seq)
        if ours is not None and ours.raw != msg.raw:
            raise RecordLost(msg.seq, (ours.raw, msg.raw))

    def saved_own(self, head: bytes) -> Message | None:
        """Our next message, when our saved record holds it for the step at ``head`` and it is
        not made again yet (a restarted peer's move, made as it was made then)."""
        seq = self.transcript.next_seq(self.me)
        saved = self.pending[self.me].get(seq)
        if saved is None or seq < self.chain.seq or saved.head != head:
            return None
        return saved

    @property
    def sending(self) -> bool:
        """Messages of ours wait in the outbox."""
        return bool(self._outbox)

    def drain(self) -> list[bytes]:
        """What to send now. Write-ahead (protocol.md §8): the record is synced (once for the
        batch) before any signed message of ours leaves."""
        out, self._outbox = self._outbox, []
        if out:
            self.transcript.flush(sync=True)
        return out

    # ================================================================ others' messages
    def hold(self, msg: Message) -> bool:
        """Hold a received message for its step: False if it needs nothing more (a duplicate, or
        dropped as a flood); a second signed version of a slot or a message sent out of turn is
        its signer's fault."""
        if msg.sender == self.me:
            self.check_own(msg)  # ours from a peer: the same, or taken back
        who = self.seating
        chain_next = self.transcript.next_seq(msg.sender)
        if msg.seq < chain_next:
            try:
                self.transcript.append(msg)  # duplicate (ignored) or equivocation (raised)
            except Equivocation as exc:
                twice = f" signed two different messages with sequence number {msg.seq}"
                raise who.fault(msg, twice, exc.first, exc.second) from None
            return False
        senders = self.steps.senders_at(msg.head)
        if senders and msg.sender not in senders:
            # Every message of a step carries that step's head, and honest peers sign only for
            # their own steps: one built on another seat's step's head was sent out of turn.
            whose = ", ".join(who.who(k) for k in senders)
            raise who.fault(
                msg,
                f" sent {msg.type.label} out of turn (the step at that head was {whose}'s)",
            )
        held = self.pending[msg.sender]
        earlier = held.get(msg.seq)
        if earlier is not None and earlier.raw != msg.raw:
            twice = f" signed two different messages with sequence number {msg.seq}"
            raise who.fault(msg, twice, earlier.raw, msg.raw)
        if len(held) >= MAX_BUFFERED and msg.seq not in held and msg.seq != chain_next:
            # (the sender's very next message is always taken: what it sent ahead, a flood
            # perhaps, cannot crowd out what the table is waiting for)
            log.warning("%s is too far ahead; message dropped", who.who(msg.sender))
            return False
        held[msg.seq] = msg
        return True

    def due(self, step: Step) -> tuple[list[Message], bool]:
        """The step's messages held now, in its sender order, and whether all are here."""
        batch: list[Message] = []
        complete = True  # (asked on every message at a table: no len() in between)
        next_seq, pending = self.transcript.next_seq, self.pending
        for key in step.senders:
            msg = pending[key].get(next_seq(key))
            if msg is None:
                complete = False
            else:
                batch.append(msg)
        return batch, complete

    def wrong_type(self, step: Step, msg: Message) -> TableFault:
        """A message of another type than its step's: its sender's fault."""
        wanted = "/".join(sorted(t.label for t in step.types))
        return self.seating.fault(msg, f" sent {msg.type.label} when {wanted} was due")

    def diverged(self, step: Step, msg: Message) -> TableFault:
        """A message built on another head than its step's: the transcripts diverge."""
        reason = (
            f"{self.seating.who(msg.sender)} built on transcript head {msg.head.hex()[:12]}…, "
            f"this peer's is {self.steps.head.hex()[:12]}… at step {step.name}"
            f" ({msg.type.label}): the transcripts diverge"
        )
        if msg.sender != self.me:
            # Each step's messages carry its head, so transcripts that agreed at the last
            # step's start and differ now differ in that step: ask for the sender's copy.
            return Divergence(reason, msg.sender, self.steps.previous_head, (msg.raw,))
        return TableFault(reason, None, (msg.raw,))

    def take(self, batch: list[Message]) -> None:
        """Append a complete step's messages to the record (synced when ours next leave)."""
        for msg in batch:
            del self.pending[msg.sender][msg.seq]
            try:
                self.transcript.append(msg)
            except Equivocation as exc:
                raise self.seating.fault(msg, " equivocated", exc.first, exc.second) from None
            except WireError as exc:
                raise self.seating.fault(msg, f": {exc}") from None
        self.transcript.flush(sync=False)

    # ================================================================ the record, for the runner
    def load(self, messages: Sequence[Message]) -> None:
        """Hold a saved record's messages (after the seat message) for replay."""
        for msg in messages:
            if msg.type is not MsgType.SEAT and msg.sender in self.pending:
                self.pending[msg.sender][msg.seq] = msg

    def own_pending(self) -> list[Message]:
        return [msg for _, msg in sorted(self.pending[self.me].items())]

    def messages_after(self, head: bytes) -> list[bytes] | None:
        """Transcript messages after the point whose head is ``head`` (None if unknown)."""
        index = self.transcript.index_of_head(head)
        if index is None:
            return None
        return [m.raw for m in self.transcript.messages[index + 1 :]]

    def held(self) -> tuple[int, int]:
        return len(self.transcript.heads), sum(len(w) for w in self.pending.values())

    def adopt(self, transcript: Transcript) -> None:
        """Record on into ``transcript``, a restarted peer's saved record, once replay reached
        its head, or passed it by our own messages alone (ValueError otherwise)."""
        at = self.transcript.index_of_head(transcript.head)
        ahead = [] if at is None else self.transcript.messages[at + 1 :]
        if at is None or any(msg.sender != self.me for msg in ahead):
            raise ValueError("the record does not replay to the same table state")
        for msg in ahead:
            transcript.append(msg)
        transcript.flush(sync=True)  # what was read may be the page cache's: durable before sends
        self.transcript = transcript
