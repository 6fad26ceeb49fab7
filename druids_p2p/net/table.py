"""The table state machine: one peer's view of a seated table, from seat order to the final scores.

Pure protocol logic, no sockets and no clock: messages in (already decoded by ``wire.decode``),
messages out (raw bytes to broadcast). The same machine replays a saved record after a restart.

Every peer appends the table's messages in one canonical order, so every honest transcript is
byte-identical and its head hash can be compared. The order is a fixed schedule of *steps*; each
step names the seats that must each send exactly one message of given types. A step is appended
in its listed seat order once all its messages are in, and every message of a step must carry, as
its ``head``, the transcript head at the start of the step (an implicit acknowledgement of all
earlier history). The schedule (``protocol.md``, "Table"):

  seating   SEAT_CONFIRM from every seat, then SEAT_NONCE from every seat (seat-order coin flip)
  each round
    deal    DECK_COMMIT (all), DECK_KEY (all), DECK_SHUFFLE (each seat in turn, per pass),
            DECK_SALT (all), DECK_SHARES (all), READY (all; the Gaia holder's shows Gaia, so
            the lead step names it) or, from a seat whose hand does not decrypt, DECK_REVEAL
    play    the mover's MOVE (carrying the card opening when it plays a card; the Gaia lead
            carries none, Gaia having been shown at ready)
    end     DECK_REVEAL (all); then every peer audits the round with all hands known
    audit   (instead of the rest of a round that needs one) DECK_REVEAL from every seat that
            has not revealed; the audit names the seat the table stops blaming

Acknowledgements are not steps: every peer sends an unsigned receipt of every move it appends
(``wire/receipt.py``) to the mover and the next mover, over the CURVE links that authenticate it.
A move *counts* once every other peer's receipt (or a later signed message built on it) agrees
with this peer's transcript, and the next mover moves only then. A receipt that names another
message after a head this peer knows means the transcripts diverge: :class:`Divergence`.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from druids_p2p.deck import DeckFault
from druids_p2p.games.seam import IllegalMove
from druids_p2p.net.card_table_round import on_card_step, own_card_move, take_back_own_move
from druids_p2p.net.game_result import check_result, on_results
from druids_p2p.net.moves import MoveRefused
from druids_p2p.net.round_audit import on_audit, on_ready
from druids_p2p.net.table_round import on_deck, on_play, on_reveals, own_move, receipt_of_last_move
from druids_p2p.net.table_seating import check_confirm, on_confirms, on_nonces
from druids_p2p.net.table_state import TableState
from druids_p2p.net.table_types import Divergence, Step, TableEvent, TableFault
from druids_p2p.wire import Equivocation, Message, MsgType, Receipt, Transcript, WireError
from druids_p2p.wire.receipt import is_receipt

log = logging.getLogger(__name__)

MAX_BUFFERED = 64
"""Messages held per sender ahead of the schedule; more is flooding and is dropped."""

_HANDLERS: dict[str, Callable[[TableState, list[Message]], None]] = {
    "confirm": on_confirms,
    "nonce": on_nonces,
    "deal": on_deck,
    "ready": on_ready,
    "audit": on_audit,
    "lead": on_play,
    "move": on_play,
    "reveal": on_reveals,
    "result": on_results,
    "card_deck": on_card_step,  # a game at a mental card table: net/card_table_round.py
    "card_move": on_card_step,
    "card_word": on_card_step,
    "card_check": on_card_step,
}
"""Each step's handler, run once the step is complete (its state is :class:`TableState`'s)."""


class TableMachine(TableState):
    """One peer at one seated table. Feed it decoded messages; send what it returns.

    Its state and who owns what: :class:`~druids_p2p.net.table_state.TableState`; the steps'
    handlers: ``table_seating``, ``table_round``, ``round_audit``, ``game_result``."""

    # ================================================================ public queries
    @property
    def my_turn(self) -> bool:
        """True when the game waits for this peer's move (the first lead: if it holds Gaia).
        Who moves is the step's (set from the game's turn when the step began), nobody else's."""
        step = self.step
        if self.phase != "play" or step is None or step.name not in ("move", "lead", "card_move"):
            return False
        return (
            step.senders == (self.me,)
            and not self.own_pending_in_step()
            and not self.awaiting_receipts()
        )

    def receipt_targets(self) -> tuple[bytes, ...]:
        """Who needs this peer's receipt of the last move: its mover, whose move counts with it,
        and the next mover, who moves only once it counts and so sees every receipt (any split
        view among the others shows there). Everyone else learns of the move's fate from the next
        move, whose signed head acknowledges it. When nobody else moves next (the mover picks a
        pile after its Sickle, or the round is over) every peer gets it, so that an honest peer
        still sees every receipt."""
        move = self.last_move
        if move is None:
            return ()
        next_mover = self._next_mover()
        if next_mover is not None:
            targets: Sequence[bytes] = (move.sender, next_mover)
        else:
            targets = (move.sender, *(k for k in self.list_keys if k != move.sender))
        return tuple(k for k in targets if k != self.me)

    def _next_mover(self) -> bytes | None:
        """The seat that moves after the last move, if it is another seat (None when the round
        is over or the mover picks a pile after its Sickle)."""
        move, step = self.last_move, self.step
        if move is None or step is None or step.name != "move" or step.senders[0] == move.sender:
            return None
        return step.senders[0]

    def awaiting_receipts(self) -> tuple[bytes, ...]:
        """Peers whose acknowledgement of the last move is still missing (it counts when none).
        Only its mover and the next mover collect them; to anyone else nothing is missing."""
        move = self.last_move
        if move is None or self.me not in (move.sender, self._next_mover()):
            return ()
        return tuple(
            k for k in self.list_keys if k not in (move.sender, self.me) and k not in self.acked
        )

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
            move = self.last_move
            if move is not None and msg.raw == move.raw and move.sender != self.me:
                return [receipt_of_last_move(self)]  # its mover missed our receipt: again
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
        if len(held) >= MAX_BUFFERED and msg.seq not in held:
            log.warning("%s is too far ahead; message dropped", self._who(msg.sender))
            return []
        held[msg.seq] = msg
        if self.card_play is not None:  # a share's proof, while the step's others are on the way
            self.card_play.precheck(msg)
            if msg.sender == self.me:
                take_back_own_move(self)
        self._pump_then_fault()
        if self._verdict is None:
            self._check_receipts()
        return self._drain()

    def receive_receipt(self, sender: bytes, receipt: Receipt) -> None:
        """Take an acknowledgement from ``sender`` (authenticated by its link, not a signature).

        Raises :class:`Divergence` when ``sender`` appended another message after a head this
        peer holds; a receipt for a head not reached yet is kept and checked once it is. A copy
        of one already kept is dropped: it takes no room from a different receipt."""
        if sender not in self._receipts or sender == self.me:
            raise ValueError("a receipt from a key with no other seat at this table")
        if self.aborted is not None:
            return
        held = self._receipts[sender]
        if receipt in held:
            return  # the same one again (a nudge resent it, or it was queued during a cut)
        if len(held) >= MAX_BUFFERED:
            log.warning("%s is too far ahead; receipt dropped", self._who(sender))
            return
        held.append(receipt)
        self._check_receipts()

    def _check_receipts(self) -> None:
        last = len(self.heads) - 1
        moved_at = self._last_move_at
        for sender, held in self._receipts.items():
            if not held:
                continue
            keep: list[Receipt] = []
            for receipt in held:
                index = self.transcript.index_of_head(receipt.prev)
                if index is None or index >= last:
                    keep.append(receipt)  # this peer is behind (or diverged before): later
                    continue
                mine = self.transcript.message_at(index + 1)
                if mine.hash != receipt.msg:
                    held.clear()
                    raise Divergence(
                        f"{self._who(sender)} appended a different message than "
                        f"{self._who(mine.sender)}'s {mine.type.label} after head "
                        f"{receipt.prev.hex()[:12]}…: its sender signed two versions",
                        sender,
                        receipt.prev,
                    )
                if index + 1 >= moved_at:
                    self.acked.add(sender)
            held[:] = keep

    @property
    def _last_move_at(self) -> int:
        """Where the last move sits in the transcript (0 before the first)."""
        last = self.moves.last
        return 0 if last is None else last.at

    def check_everything_held(self) -> None:
        """Run now every check that waits for a batch or a later step (shuffle proofs, opening
        proofs): when another peer says it stopped, this peer's own checks on what it holds
        decide whom to blame (protocol.md §9). Raises :class:`TableFault` naming the culprit."""
        self.check_deferred()
        if self.deck is None:
            return
        try:
            self.deck.prove_held_shuffles()
        except DeckFault as exc:
            raise TableFault(f"deal: {exc.reason}", exc.seat, exc.evidence) from None

    def play(self, move: int) -> list[bytes]:
        """Make this peer's move (it must be its turn); raises IllegalMove if it is not legal."""
        self.check_deferred()
        if not self.my_turn:
            raise IllegalMove("it is not this seat's turn")
        try:
            if self.card_play is not None:
                own_card_move(self, move)  # its copy of the rules checks it (ValueError)
            else:
                own_move(self, move)  # checked once, here: its message is not checked again
        except MoveRefused as refused:
            raise IllegalMove(refused.rule or refused.reason) from None
        except ValueError as refused:  # the card table's copy of the rules
            raise IllegalMove(str(refused)) from None
        self._pump_then_fault()
        return self._drain()

    def resend_own(self) -> list[bytes]:
        """What others may be waiting for from this peer, again (after a peer rejoined): its
        messages of the current step, and its receipt of the last move (receipts are not in any
        record, so a restarted mover would otherwise wait for them forever)."""
        out = [m.raw for _, m in sorted(self.pending[self.me].items())]
        move = self.last_move
        if move is not None and move.sender != self.me:
            out.append(receipt_of_last_move(self))
        return out

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
        on and every move we chose: a restart makes every slot we signed again, byte for byte.
        Receipts alone (unsigned, no slot) need no sync."""
        out, self._outbox = self._outbox, []
        if any(not is_receipt(raw) for raw in out):
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
            for key in step.senders:
                msg = self.pending[key].get(self.transcript.next_seq(key))
                if msg is not None:
                    batch.append(msg)
            for msg in batch:  # checked as soon as it is here, not when the step is complete
                self._check_in_step(step, msg)
            if len(batch) < len(step.senders):
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
        built_on = self.transcript.index_of_head(msg.head)
        if built_on is not None and self.moves.last is not None and built_on >= self._last_move_at:
            self.acked.add(msg.sender)  # a signed message built on the move acknowledges it

    def _apply(self, step: Step, batch: list[Message]) -> None:
        _HANDLERS[step.name](self, batch)

    # ================================================================ for the runner
    # It drives the machine through these alone; which message types are the machine's and
    # which the runner's control messages: net/runner_base.py's docstring.
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


__all__ = [
    "MAX_BUFFERED",
    "TableMachine",
    "default_record_path",
    "record_dir_name",
]
