"""One peer's pure view of a seated table (no sockets, no clock): the TableMachine takes decoded
messages and says what to send, appending each step once complete, in its sender order, built on
the step's head; the seating steps (every seat confirms its seat, then reveals its seat nonce
for the coin flip of the play order) are here, the card table's in card_table_round.py.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from druids_p2p.games.seam import GameMove, IllegalMove
from druids_p2p.lan.seating import confirm_contradiction, seat_order
from druids_p2p.table.card_table_round import (
    check_result,
    on_card_step,
    on_results,
    own_card_move,
    prove_held,
    start_card_table,
    take_back_own_move,
)
from druids_p2p.table.moves import MoveRefused
from druids_p2p.table.table_state import Divergence, Step, TableEvent, TableFault, TableMachineState
from druids_p2p.wire import Equivocation, Message, MsgType, Transcript, WireError

__all__ = ["MAX_BUFFERED", "TableMachine", "default_record_path", "record_dir_name"]


# The seating steps of a table: every seat confirms its seat, then reveals its seat nonce.
def on_confirms(t: TableMachineState, batch: list[Message]) -> None:
    """Every seat confirmed: reveal this seat's nonce."""
    for msg in batch:
        t.seating.confirms[msg.sender] = msg
    t._next("nonce", t.list_keys, MsgType.SEAT_NONCE)
    t._send_own(MsgType.SEAT_NONCE, {"nonce": t.secret.seat_nonce()})


def check_confirm(t: TableMachineState, msg: Message) -> None:
    """A confirmation names an endpoint on the table's network (else its signer is blamed)
    and agrees with what the seat message lists for its signer, which is its signer's own
    signed word (its quoted join; for the host, the seat message): else its signer
    contradicts itself, and the seat message and the confirmation prove it."""
    refused = t.network.refusal(msg.body["endpoint"])
    if refused is not None:
        raise TableFault(
            f"{t._who(msg.sender)}'s seat confirmation is refused: {refused}",
            t.seat_of(msg.sender),
            (msg.raw,),
        )
    wrong = confirm_contradiction(t.seat_message, msg)
    if wrong is not None:
        own = "seat message" if msg.sender == t.seat_message.sender else "join"
        raise TableFault(
            f"{t._who(msg.sender)}'s seat confirmation names {wrong}, which its own "
            f"signed {own} does not",
            t.seat_of(msg.sender),
            (t.seat_message.raw, msg.raw),
        )


def on_nonces(t: TableMachineState, batch: list[Message]) -> None:
    """Every nonce is out: check each against its commitment, flip the coin, deal round 1."""
    for msg in batch:
        nonce = msg.body["nonce"]
        commit = t.seating.confirms[msg.sender].body["commit"]
        if hashlib.sha256(nonce).digest() != commit:
            raise TableFault(
                f"{t._who(msg.sender)}'s seat nonce does not match its commitment",
                t.list_keys.index(msg.sender),
                (t.seating.confirms[msg.sender].raw, msg.raw),
            )
        t.seating.nonces[msg.sender] = nonce
    t.order = seat_order(t.table_id, t.list_keys, t.seating.nonces)
    names = ", ".join(f"{i}: {t.names[k]}" for i, k in enumerate(t.order))
    order = [t.names[k] for k in t.order]  # the players by play seat, for who prints results
    t._event("seated", f"seat order fixed by coin flip — {names}", {"order": order})
    start_card_table(t)  # the game at the mental card table (table/card_table_round.py)


# The table state machine: one peer's view of a seated table, from seat order to the final
# scores.
log = logging.getLogger(__name__)

MAX_BUFFERED = 64
"""Messages held per sender ahead of the schedule; more is flooding and is dropped."""

_HANDLERS: dict[str, Callable[[TableMachineState, list[Message]], None]] = {
    "confirm": on_confirms,
    "nonce": on_nonces,
    "result": on_results,
    "card_deck": on_card_step,  # the game at the mental card table: table/card_table_round.py
    "card_move": on_card_step,
    "card_word": on_card_step,
    "card_check": on_card_step,
}
"""Each step's handler, run once the step is complete (on the :class:`TableMachineState`)."""


class TableMachine(TableMachineState):
    """One peer at one seated table. Feed it decoded messages; send what it returns.

    Its state and who owns what: :class:`~druids_p2p.table.table_state.TableMachineState`; the
    steps: the seating ones here, the card table's in ``card_table_round``."""

    # ================================================================ public queries
    @property
    def my_turn(self) -> bool:
        """True when the game waits for this peer's move. Who moves is the step's (set from
        the game's turn when the step began), nobody else's."""
        step = self.step
        if self.phase != "play" or step is None or step.name != "card_move":
            return False
        return step.senders == (self.me,) and not self.own_pending_in_step()

    def own_pending_in_step(self) -> bool:
        return bool(self.pending[self.me])

    # ================================================================ driving
    def start(self) -> list[bytes]:
        """Send this peer's seat confirmation (idempotent: the same bytes every time).

        Raises :class:`TableFault` blaming the host when its seat message lists for a seat an
        address that is not that seat's own signed word (``seating.seat_list_fault``): this
        peer's confirmation is then made (pending, for the record and the others to see) but
        nothing is appended."""
        first = 1 if self.seat_message.sender == self.me else 0
        if self.chain.seq > first:  # already started (or replayed): what it sent, again
            return self.resend_own()
        commit = hashlib.sha256(self.secret.seat_nonce()).digest()
        body: dict[str, object] = {"commit": commit, "curve": self.curve, "endpoint": self.endpoint}
        self._send_own(MsgType.SEAT_CONFIRM, body)
        if self.seat_fault is not None:
            host = self.seat_message.sender
            raise TableFault(
                f"{self._who(host)}'s seat message is refused: {self.seat_fault}",
                self.seat_of(host),
                (self.seat_message.raw,),
            )
        self._pump()
        self.check_deferred()  # a replayed record's openings are proven before going on
        return self._drain()

    def load_record(self, messages: Sequence[Message]) -> None:
        """Queue a saved record's messages (after the seat message) for replay by :meth:`start`.

        Our own messages in it are regenerated byte for byte (deterministic secrets and
        signatures) or adopted (moves and card openings, which a bot chose), never re-chosen.
        """
        for msg in messages:
            if msg.type is not MsgType.SEAT and msg.sender in self.pending:
                self.pending[msg.sender][msg.seq] = msg

    def receive(self, msg: Message) -> list[bytes]:
        """Take one decoded message from the network (or a record); return messages to send.

        The caller sends what this returns, then calls :meth:`check_deferred` before anything
        else (this method does so itself first, should the caller not have)."""
        if self.aborted is not None or msg.table_id != self.table_id:
            return []
        self.check_deferred()
        if msg.sender not in self.pending:
            raise TableFault("a message from a key that has no seat at this table")
        if msg.type in (MsgType.RESEND, MsgType.EQUIVOCATION, MsgType.ABORT, MsgType.CHAT):
            raise ValueError("control messages are handled by the peer, not the machine")
        if msg.sender == self.me:
            self._check_own(msg)  # ours from a peer: the same, or taken back
        chain_next = self.transcript.next_seq(msg.sender)
        if msg.seq < chain_next:
            try:
                self.transcript.append(msg)  # duplicate (ignored) or equivocation (raised)
            except Equivocation as exc:
                raise TableFault(
                    f"{self._who(msg.sender)} signed two different messages with sequence "
                    f"number {msg.seq}",
                    self.seat_of(msg.sender),
                    (exc.first, exc.second),
                ) from None
            return []
        senders = self.steps.senders_at(msg.head)
        if senders and msg.sender not in senders:
            # Every message of a step carries that step's head, and honest peers sign only for
            # their own steps: a message built on the head of a step that was not its sender's
            # is signed proof that it was sent out of turn.
            raise TableFault(
                f"{self._who(msg.sender)} sent {msg.type.label} out of turn (the step at that "
                f"head was {', '.join(self._who(k) for k in senders)}'s)",
                self.seat_of(msg.sender),
                (msg.raw,),
            )
        held = self.pending[msg.sender]
        earlier = held.get(msg.seq)
        if earlier is not None and earlier.raw != msg.raw:
            raise TableFault(
                f"{self._who(msg.sender)} signed two different messages with sequence "
                f"number {msg.seq}",
                self.seat_of(msg.sender),
                (earlier.raw, msg.raw),
            )
        if len(held) >= MAX_BUFFERED and msg.seq not in held and msg.seq != chain_next:
            # (the sender's very next message is always taken: what it sent ahead, a flood
            # perhaps, cannot crowd out what the table is waiting for)
            log.warning("%s is too far ahead; message dropped", self._who(msg.sender))
            return []
        held[msg.seq] = msg
        if self.card_play is not None:  # a share's proof, while the step's others are on the way
            self.card_play.precheck(msg)
            if msg.sender == self.me:
                take_back_own_move(self)
        self._pump_then_fault()
        return self._drain()

    def check_everything_held(self) -> None:
        """Run now every check still waiting: when another peer says it stopped, this peer's own
        checks on what it holds decide whom to blame (protocol.md §9). At the card table every
        message is checked as its step completes, but for the passes of a shuffle in progress
        (their proofs are checked together once the last is in, deck.md §10.2: checked now)
        and a fault held back for our own messages (:class:`TableFault`). Also asked before a
        seat is blamed for a message past its deadline."""
        self.check_deferred()
        prove_held(self)

    def play(self, move: int | GameMove) -> list[bytes]:
        """Make this peer's move (it must be its turn); raises IllegalMove if it is not legal."""
        self.check_deferred()
        if not self.my_turn:
            raise IllegalMove("it is not this seat's turn")
        try:
            own_card_move(self, move)  # its copy of the rules checks it, once (ValueError)
        except MoveRefused as refused:
            raise IllegalMove(refused.rule or refused.reason) from None
        except ValueError as refused:  # the card table's copy of the rules
            raise IllegalMove(str(refused)) from None
        self._pump_then_fault()
        return self._drain()

    def resend_own(self) -> list[bytes]:
        """What others may be waiting for from this peer, again (after a peer rejoined): its
        messages of the current step."""
        return [m.raw for _, m in sorted(self.pending[self.me].items())]

    def answer_resend(self, head: bytes) -> list[bytes]:
        """What a rejoining peer whose transcript ends at ``head`` needs from this peer: the
        transcript after that point (if this peer knows it) and its own pending messages."""
        return (self.messages_after(head) or []) + self.resend_own()

    def messages_after(self, head: bytes) -> list[bytes] | None:
        """Transcript messages after the point whose head is ``head`` (None if unknown)."""
        index = self.transcript.index_of_head(head)
        if index is None:
            return None
        return [m.raw for m in self.transcript.messages[index + 1 :]]

    def _drain(self) -> list[bytes]:
        """What to send now. Write-ahead (protocol.md §8): the record is synced (once for the
        batch) before any signed message of ours leaves, so it holds all that message builds
        on and every move we chose: a restart makes every slot we signed again, byte for byte."""
        out, self._outbox = self._outbox, []
        if out:
            self.transcript.flush(sync=True)
        return out

    # ================================================================ internals: the schedule
    def _pump_then_fault(self) -> None:
        """Pump; a fault found while our own messages of the step are queued waits until the
        caller has sent them (:meth:`check_deferred` raises it): the others need them to find
        it themselves (our reveal, when every reveal was in but ours and the audit convicts)."""
        try:
            self._pump()
        except TableFault as fault:
            if not self._outbox:
                raise
            self._verdict = fault

    def _pump(self) -> None:
        for _ in range(100_000):
            step = self.step
            if step is None or not step.senders or self.aborted is not None:
                break
            batch: list[Message] = []
            complete = True
            next_seq, pending = self.transcript.next_seq, self.pending
            for key in step.senders:
                msg = pending[key].get(next_seq(key))
                if msg is None:
                    complete = False
                else:
                    batch.append(msg)
            for msg in batch:  # checked as soon as it is here, not when the step is complete
                self._check_in_step(step, msg)
            if not complete:
                break
            for msg in batch:
                del self.pending[msg.sender][msg.seq]
                self._append(msg)
            self.transcript.flush(sync=False)
            self._apply(step, batch)

    def _check_in_step(self, step: Step, msg: Message) -> None:
        if msg.type not in step.types:
            wanted = "/".join(sorted(t.label for t in step.types))
            raise TableFault(
                f"{self._who(msg.sender)} sent {msg.type.label} when {wanted} was due",
                self.seat_of(msg.sender),
                (msg.raw,),
            )
        if msg.type is MsgType.SEAT_CONFIRM:
            check_confirm(self, msg)
        if msg.type is MsgType.RESULT:
            check_result(self, msg)
        if msg.head != self.step_head:
            reason = (
                f"{self._who(msg.sender)} built on transcript head {msg.head.hex()[:12]}…, "
                f"this peer's is {self.step_head.hex()[:12]}… at step {step.name}"
                f" ({msg.type.label}): the transcripts diverge"
            )
            if msg.sender != self.me:
                # Each step's messages carry its head, so transcripts that agreed at the last
                # step's start and differ now differ in that step: ask for the sender's copy.
                raise Divergence(reason, msg.sender, self.prev_step_head, (msg.raw,))
            raise TableFault(reason, None, (msg.raw,))

    def _append(self, msg: Message) -> None:
        try:
            self.transcript.append(msg)
        except Equivocation as exc:
            raise TableFault(
                f"{self._who(msg.sender)} equivocated",
                self.seat_of(msg.sender),
                (exc.first, exc.second),
            ) from None
        except WireError as exc:
            raise TableFault(
                f"{self._who(msg.sender)}: {exc}", self.seat_of(msg.sender), (msg.raw,)
            ) from None

    def _apply(self, step: Step, batch: list[Message]) -> None:
        _HANDLERS[step.name](self, batch)

    # ================================================================ for the runner
    # It drives the machine through these alone; which message types are the machine's and
    # which the runner's control messages: peer/runner_base.py's docstring.
    def listen(self, on_event: Callable[[TableEvent], None] | None) -> None:
        """Who is told of every :class:`TableEvent` as it happens (the runner; None: nobody)."""
        self.on_event = on_event

    @property
    def head(self) -> bytes:
        """The record's head: what this peer holds, as a resend request or a result names it."""
        return self.transcript.head

    def next_seq(self, key: bytes) -> int:
        """The sequence number the record expects next from ``key``."""
        return self.transcript.next_seq(key)

    def has_next(self, key: bytes) -> bool:
        """True if ``key``'s next message for the record is already here (held for its step)."""
        return self.transcript.next_seq(key) in self.pending[key]

    def messages_since(self, key: bytes, seq: int) -> list[bytes]:
        """``key``'s recorded messages from ``seq`` on (a resend request by sender)."""
        return [m.raw for m in self.transcript.since(key, seq)]

    def held(self) -> tuple[int, int]:
        """(messages recorded, messages held for a later step): changes when one was new here."""
        return len(self.heads), sum(len(waiting) for waiting in self.pending.values())

    def own_pending(self) -> list[Message]:
        """This peer's own messages sent for a step that has not completed, in chain order."""
        return [msg for _, msg in sorted(self.pending[self.me].items())]

    def seal_control(self, msg_type: MsgType, body: dict[str, object]) -> bytes:
        """This peer's next chained message, on the record's head: the runner's abort."""
        return self.chain.seal(msg_type, body, self.transcript.head)

    def record_control(self, msg: bytes | Message) -> None:
        """Append a message the machine does not handle to the record (an abort, and, before
        ours, what it must follow); raises :class:`WireError` if it is not the next there."""
        self.transcript.append(msg)

    def flush(self) -> None:
        """Write the record to disk and sync it (the game's end, an abort)."""
        self.transcript.flush(sync=True)

    def abort(self, fault: TableFault) -> None:
        """Stop on ``fault``: nothing is received or played from now on."""
        self.aborted = fault

    def adopt_record(self, transcript: Transcript) -> None:
        """Record on into ``transcript`` from now on: a restarted peer's own saved record, once
        this machine has replayed it to the same head, or past it by this peer's own messages
        alone (raises ValueError otherwise): replay made again, byte for byte, what this peer
        owed next (a pass, its shares), which the others may wait for, so it is written on."""
        at = self.transcript.index_of_head(transcript.head)
        ahead = [] if at is None else self.transcript.messages[at + 1 :]
        if at is None or any(msg.sender != self.me for msg in ahead):
            raise ValueError("the record does not replay to the same table state")
        for msg in ahead:
            transcript.append(msg)
        transcript.flush(sync=True)  # what was read may be the page cache's: durable before sends
        self.transcript = transcript


def record_dir_name(table_id: bytes) -> str:
    return table_id.hex()[:24]


def default_record_path(base: Path, table_id: bytes, name: str) -> Path:
    return base / "records" / f"{record_dir_name(table_id)}-{name}.druids"
