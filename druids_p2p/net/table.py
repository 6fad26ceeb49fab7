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
from dataclasses import dataclass, field
from pathlib import Path

from druids_p2p.deck import AuditRequired, DeckError, DeckFault, DeckParams, DeckPeer
from druids_p2p.engine import (
    GAIA,
    Game,
    GameOptions,
    IllegalMove,
    InvalidDeal,
    cards_for_move,
    format_card,
    format_move,
    parse_move_token,
)
from druids_p2p.engine.view import PlayerView
from druids_p2p.net.codec import Chain, WireCodec
from druids_p2p.net.endpoints import TableNetwork
from druids_p2p.net.game_result import check_result, on_results, start_result
from druids_p2p.net.round_audit import on_audit, on_ready, start_audit
from druids_p2p.net.seating import confirm_contradiction, seat_list_fault
from druids_p2p.net.secrets import TableSecret
from druids_p2p.rulesets import DEFAULT_RULESET, dealt_ruleset, seat_options
from druids_p2p.wire import (
    ZERO_HASH,
    Equivocation,
    Identity,
    Message,
    MsgType,
    Receipt,
    Transcript,
    WireError,
    encode_receipt,
    message_hash,
    next_head,
)

log = logging.getLogger(__name__)

"""The rule set every table plays (the wire's options do not name another one yet)."""

MAX_BUFFERED = 64
"""Messages held per sender ahead of the schedule; more is flooding and is dropped."""


class TableFault(Exception):
    """The table must stop. ``seat`` is the play seat to blame (None if nobody can be named yet)."""

    def __init__(
        self, reason: str, seat: int | None = None, evidence: Sequence[bytes] = ()
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.evidence = tuple(evidence)


class Divergence(TableFault):
    """``acker``'s transcript differs from ours after head ``prev`` (its receipt names another
    message there, or it built on another head): somebody signed two versions of a message.
    Ask ``acker`` for what it holds after ``prev``: its copy convicts the signer; else stop."""

    def __init__(self, reason: str, acker: bytes, prev: bytes, evidence: Sequence[bytes] = ()):
        super().__init__(reason, None, evidence)
        self.acker = acker
        self.prev = prev


@dataclass(frozen=True)
class Step:
    """Seats (by public key, in append order) that must each send one message of ``types``."""

    name: str
    senders: tuple[bytes, ...]
    types: frozenset[MsgType]


@dataclass
class TableEvent:
    """Something a user interface or log may want to show."""

    kind: str
    """seated, round_started, move, round_ended, audit, game_over, aborted"""
    text: str
    data: dict[str, object] = field(default_factory=dict)


@dataclass
class _Seating:
    confirms: dict[bytes, Message] = field(default_factory=dict)
    nonces: dict[bytes, bytes] = field(default_factory=dict)


class TableMachine:
    """One peer at one seated table. Feed it decoded messages; send what it returns."""

    def __init__(
        self,
        identity: Identity,
        seat_message: Message,
        secret: TableSecret,
        endpoint: str,
        curve: bytes,
        transcript: Transcript | None = None,
        network: TableNetwork | None = None,
    ) -> None:
        """``network``: where every seat's confirmed endpoint must be (``endpoints.py``); by
        default the network of this peer's own ``endpoint``."""
        if seat_message.type is not MsgType.SEAT:
            raise ValueError("a table starts from its seat message")
        self.identity = identity
        self.me = identity.public_key
        self.seat_message = seat_message
        self.table_id = seat_message.table_id
        body = seat_message.body
        self.list_keys: tuple[bytes, ...] = tuple(body["seats"])
        if self.me not in self.list_keys:
            raise ValueError("this identity is not seated at this table")
        self.names = dict(zip(self.list_keys, body["names"], strict=True))
        self.ruleset, self.options = seat_options(body["options"])
        if self.options.players != len(self.list_keys):
            raise ValueError("the seat message seats a different number of players")
        self.secret = secret
        self.endpoint = endpoint
        self.curve = curve
        self.network = network or TableNetwork.of_endpoint(endpoint)
        self.seat_fault = seat_list_fault(seat_message)
        """Why the seat message's addresses are not every seat's own word (the host's fault)."""
        self.transcript = transcript or Transcript.start(seat_message)
        self.heads: list[bytes] = [self.transcript.head]
        self._head_index: dict[bytes, int] = {self.transcript.head: 0}
        own_seq = 1 if seat_message.sender == self.me else 0
        own_prev = seat_message.hash if seat_message.sender == self.me else ZERO_HASH
        self.chain = Chain(identity, self.table_id, own_seq, own_prev)
        self.pending: dict[bytes, dict[int, Message]] = {k: {} for k in self.list_keys}
        self._outbox: list[bytes] = []
        self.events: list[TableEvent] = []
        self.seating = _Seating()
        self.order: tuple[bytes, ...] = ()
        self.game = Game(self.options)
        self.deck: DeckPeer | None = None
        self.codec: WireCodec | None = None
        self.phase = "seating"
        self.step: Step | None = Step("confirm", self.list_keys, frozenset({MsgType.SEAT_CONFIRM}))
        self.step_head = self.transcript.head
        self.prev_step_head = self.step_head
        self._senders_at: dict[bytes, tuple[bytes, ...]] = {self.step_head: self.step.senders}
        """Head of every step so far -> its senders: who may sign a message built on it."""
        self.last_move: Message | None = None
        self._last_move_index = 0
        self.acked: set[bytes] = set()
        """Peers known to hold ``last_move`` (by receipt, or by a signed message built on it)."""
        self._receipts: dict[bytes, list[Receipt]] = {k: [] for k in self.list_keys}
        """Receipts naming a head this peer has not reached yet, per sender (checked later)."""
        self.round_moves: list[Message] = []
        self.ready: list[Message] = []
        """This round's ``ready`` step, once complete (the Gaia holder's shows Gaia)."""
        self.gaia_holder: bytes | None = None
        """Who showed Gaia at this round's ``ready`` step: the seat the lead step waits for."""
        self.audit_callers: tuple[Message, ...] = ()
        self.audit_why = ""
        """Why this round is being audited before its end (empty at a normal end of round)."""
        self.finished = False
        self.aborted: TableFault | None = None
        self._verdict: TableFault | None = None
        """A fault found while our own messages were queued: raised once they are sent."""
        self.on_event: Callable[[TableEvent], None] | None = None

    # ================================================================ public queries
    @property
    def my_seat(self) -> int | None:
        """This peer's play seat, once the seat order is fixed."""
        return self.order.index(self.me) if self.order else None

    def seat_of(self, key: bytes) -> int | None:
        if self.order:
            return self.order.index(key) if key in self.order else None
        return self.list_keys.index(key) if key in self.list_keys else None

    def name_of_seat(self, seat: int) -> str:
        keys = self.order or self.list_keys
        return str(self.names[keys[seat]])

    @property
    def my_turn(self) -> bool:
        """True when the game waits for this peer's move (the first lead: if it holds Gaia)."""
        if self.phase != "play" or self.step is None:
            return False
        if self.me not in self.step.senders or self.step.name not in ("move", "lead"):
            return False
        rnd = self.game.round
        return (
            rnd is not None
            and rnd.to_move == self.my_seat
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

    def view(self) -> PlayerView | None:
        seat = self.my_seat
        if seat is None or self.game.round is None:
            return None
        return self.game.view(seat)

    # ================================================================ driving
    def start(self) -> list[bytes]:
        """Send this peer's seat confirmation (idempotent: the same bytes every time).

        Raises :class:`TableFault` blaming the host when its seat message lists for a seat an
        address that is not that seat's own signed word (``seating.seat_list_fault``): this
        peer's confirmation is then made (pending, for the record and the others to see) but
        nothing is appended."""
        first = 1 if self.seat_message.sender == self.me else 0
        if self.chain.seq > first or self.transcript.next_seq(self.me) > first:
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
                return [self._receipt_of_last_move()]  # its mover missed our receipt: again
            return []
        senders = self._senders_at.get(msg.head)
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
        for sender, held in self._receipts.items():
            if not held:
                continue
            keep: list[Receipt] = []
            for receipt in held:
                index = self._head_index.get(receipt.prev)
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
                if index + 1 >= self._last_move_index:
                    self.acked.add(sender)
            held[:] = keep

    def _receipt_of_last_move(self) -> bytes:
        assert self.last_move is not None
        return encode_receipt(self.heads[self._last_move_index - 1], self.last_move.hash)

    @property
    def deferred(self) -> bool:
        """True while checks that an acknowledgement did not wait for are still to be done (or a
        fault waits for our own messages to go out first)."""
        if self._verdict is not None:
            return True
        return self.deck is not None and self.deck.open_proofs_pending

    def check_deferred(self) -> None:
        """Finish the checks a move's acknowledgement did not wait for: the proofs of the card
        openings accepted since (the card itself, its decryption and the move's legality were
        checked before). Raises :class:`TableFault` blaming the opener of a bad one, or the
        fault found while our own messages were still to be sent."""
        if self._verdict is not None:
            raise self._verdict
        if self.deck is None:
            return
        try:
            self.deck.check_open_proofs()
        except DeckFault as exc:
            raise TableFault(f"deal: {exc.reason}", exc.seat, exc.evidence) from None

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
        rnd = self.game.round
        assert rnd is not None and self.deck is not None
        reason = rnd.check(move)
        if reason is not None:
            raise IllegalMove(reason)
        body: dict[str, object] = {"round": self.game.round_index, "move": format_move(move)}
        cards = cards_for_move(move)
        hand = set(self.deck.hand())
        opened = {o.card for o in self.deck.opened}
        unopened = [c for c in cards if c in hand and c not in opened]
        if cards and GAIA not in cards:
            assert self.codec is not None
            self.codec.carry(body)
            self.deck.open_card(unopened[0])  # sealed into the move, queued through the codec
        else:
            self._send_own(MsgType.MOVE, body)  # a pile pick, or the lead: Gaia shown at ready
        self._pump_then_fault()
        return self._drain()

    def resend_own(self) -> list[bytes]:
        """What others may be waiting for from this peer, again (after a peer rejoined): its
        messages of the current step, and its receipt of the last move (receipts are not in any
        record, so a restarted mover would otherwise wait for them forever)."""
        out = [m.raw for _, m in sorted(self.pending[self.me].items())]
        move = self.last_move
        if move is not None and move.sender != self.me:
            out.append(self._receipt_of_last_move())
        return out

    def answer_resend(self, head: bytes) -> list[bytes]:
        """What a rejoining peer whose transcript ends at ``head`` needs from this peer: the
        transcript after that point (if this peer knows it) and its own pending messages."""
        return (self.messages_after(head) or []) + self.resend_own()

    def messages_after(self, head: bytes) -> list[bytes] | None:
        """Transcript messages after the point whose head is ``head`` (None if unknown)."""
        try:
            index = self.heads.index(head)
        except ValueError:
            return None
        return [m.raw for m in self.transcript.messages[index + 1 :]]

    # ================================================================ internals: own messages
    def _send_own(self, msg_type: MsgType, body: dict[str, object]) -> None:
        self._queue_own(self.chain.seal_message(msg_type, body, self._seal_head()))

    def _seal_head(self) -> bytes:
        """The head our next message builds on: the current step's, or, when the current step is
        ours alone and our message for it is already made (the deck's last shuffler emits its
        shares right after its shuffle), the head that step will leave."""
        step = self.step
        if step is not None and step.senders == (self.me,):
            mine = self.pending[self.me].get(self.transcript.next_seq(self.me))
            if mine is not None and mine.seq < self.chain.seq:  # sealed by us, not just loaded
                return next_head(self.transcript.head, mine.hash)
        return self.step_head

    def _queue_own(self, msg: Message) -> None:
        """Hold our own message for its step and the outbox (the caller pumps); never changes."""
        raw = msg.raw
        held = self.pending[self.me].get(msg.seq)
        if held is not None and held.raw != raw:
            raise TableFault(
                f"this peer produced two different messages with sequence number {msg.seq} "
                "(its record or table secret does not match)",
                None,
            )
        if msg.seq < self.transcript.next_seq(self.me):
            return  # already in the record (replay)
        self.pending[self.me][msg.seq] = msg
        self._outbox.append(raw)

    def _drain(self) -> list[bytes]:
        out, self._outbox = self._outbox, []
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
            self._check_confirm(msg)
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
        self.heads.append(self.transcript.head)
        self._head_index.setdefault(self.transcript.head, len(self.heads) - 1)
        built_on = self._head_index.get(msg.head)
        if (
            built_on is not None
            and self.last_move is not None
            and built_on >= self._last_move_index
        ):
            self.acked.add(msg.sender)  # a signed message built on the move acknowledges it
        if msg.sender == self.me and msg.seq >= self.chain.seq:
            # Replaying our own record: continue our chain after it.
            self.chain.seq = msg.seq + 1
            self.chain.prev = msg.hash
        if self.codec is not None:
            self.codec.remember(msg)

    def _next(self, name: str, senders: Sequence[bytes], *types: MsgType) -> None:
        self.step = Step(name, tuple(senders), frozenset(types))
        self.prev_step_head = self.step_head
        self.step_head = self.transcript.head
        self._senders_at[self.step_head] = self.step.senders

    def _apply(self, step: Step, batch: list[Message]) -> None:
        handlers: dict[str, Callable[[list[Message]], None]] = {
            "confirm": self._on_confirms,
            "nonce": self._on_nonces,
            "deal": self._on_deck,
            "ready": lambda batch: on_ready(self, batch),
            "audit": lambda batch: on_audit(self, batch),
            "lead": self._on_play,
            "move": self._on_play,
            "reveal": self._on_reveals,
            "result": lambda batch: on_results(self, batch),
        }
        handlers[step.name](batch)

    # ---------------------------------------------------------------- seating
    def _on_confirms(self, batch: list[Message]) -> None:
        for msg in batch:
            self.seating.confirms[msg.sender] = msg
        self._next("nonce", self.list_keys, MsgType.SEAT_NONCE)
        self._send_own(MsgType.SEAT_NONCE, {"nonce": self.secret.seat_nonce()})

    def _check_confirm(self, msg: Message) -> None:
        """A confirmation names an endpoint on the table's network (else its signer is blamed)
        and agrees with what the seat message lists for its signer, which is its signer's own
        signed word (its quoted join; for the host, the seat message): else its signer
        contradicts itself, and the seat message and the confirmation prove it."""
        refused = self.network.refusal(msg.body["endpoint"])
        if refused is not None:
            raise TableFault(
                f"{self._who(msg.sender)}'s seat confirmation is refused: {refused}",
                self.seat_of(msg.sender),
                (msg.raw,),
            )
        wrong = confirm_contradiction(self.seat_message, msg)
        if wrong is not None:
            own = "seat message" if msg.sender == self.seat_message.sender else "join"
            raise TableFault(
                f"{self._who(msg.sender)}'s seat confirmation names {wrong}, which its own "
                f"signed {own} does not",
                self.seat_of(msg.sender),
                (self.seat_message.raw, msg.raw),
            )

    def _on_nonces(self, batch: list[Message]) -> None:
        for msg in batch:
            nonce = msg.body["nonce"]
            commit = self.seating.confirms[msg.sender].body["commit"]
            if hashlib.sha256(nonce).digest() != commit:
                raise TableFault(
                    f"{self._who(msg.sender)}'s seat nonce does not match its commitment",
                    self.list_keys.index(msg.sender),
                    (self.seating.confirms[msg.sender].raw, msg.raw),
                )
            self.seating.nonces[msg.sender] = nonce
        self.order = seat_order(self.table_id, self.list_keys, self.seating.nonces)
        names = ", ".join(f"{i}: {self.names[k]}" for i, k in enumerate(self.order))
        self._event("seated", f"seat order fixed by coin flip — {names}")
        self._start_round()

    # ---------------------------------------------------------------- a round
    def _start_round(self) -> None:
        r = len(self.game.rounds)
        n = self.options.players
        params = deal_params(self.table_id, r, n, self.ruleset)
        seat = self.my_seat
        assert seat is not None
        self.codec = WireCodec(seat, self.chain, self._seal_head, self.seat_of, self._queue_own)
        self.deck = DeckPeer(
            params, self.codec, entropy=self.secret.entropy(f"deck/{r}"), defer_open_proofs=True
        )
        self.phase = "deal"
        self.round_moves = []
        self.ready = []
        self.gaia_holder = None
        self.audit_callers, self.audit_why = (), ""
        self._deal_schedule = self._deal_steps(params)
        self._deal_index = 0
        self._set_deal_step()
        self._event("round_started", f"round {r + 1}: shuffling and dealing", {"round": r})
        self.deck.start()  # the commitment is sealed and queued through the codec

    def _deal_steps(self, params: DeckParams) -> list[tuple[str, tuple[bytes, ...], MsgType]]:
        everyone = self.order
        steps: list[tuple[str, tuple[bytes, ...], MsgType]] = [
            ("deal", everyone, MsgType.DECK_COMMIT),
            ("deal", everyone, MsgType.DECK_KEY),
        ]
        steps += [("deal", (k,), MsgType.DECK_SHUFFLE) for k in everyone]
        # the salts fix who holds which position, only once the final deck is fixed
        steps.append(("deal", everyone, MsgType.DECK_SALT))
        steps.append(("deal", everyone, MsgType.DECK_SHARES))
        return steps

    def _set_deal_step(self) -> None:
        name, senders, msg_type = self._deal_schedule[self._deal_index]
        self._next(name, senders, msg_type)

    def _deck_receive(self, msg: Message, audit: bool = False) -> list[bytes]:
        """Hand a message to the deck; with ``audit``, :class:`AuditRequired` is re-raised for
        the caller to start the audit, which names a seat (deck.md §9)."""
        assert self.deck is not None
        try:
            if msg.sender == self.me:
                if msg.raw not in self.deck.transcript():
                    self.deck.adopt_own(msg.raw)  # a card opening replayed from our record
                return []
            return self.deck.receive(msg.raw)
        except DeckFault as exc:
            raise TableFault(f"deal: {exc.reason}", exc.seat, exc.evidence) from None
        except AuditRequired as exc:
            if audit:
                raise
            raise TableFault(f"deal needs an audit: {exc}", None, exc.evidence) from None
        except DeckError as exc:
            raise TableFault(f"deal: {exc}", self.seat_of(msg.sender), (msg.raw,)) from None

    def _on_deck(self, batch: list[Message]) -> None:
        assert self.deck is not None
        self._deal_index += 1
        done = self._deal_index == len(self._deal_schedule)
        if not done:
            self._set_deal_step()
        else:
            self.step = None  # decided below, once the hand is known
        emitted: list[bytes] = []
        for msg in batch:
            emitted += self._deck_receive(msg)
        if done:
            if emitted:
                raise TableFault("the deck emitted a message after the deal", None)
            self._begin_play()

    def _begin_play(self) -> None:
        """The deal is complete: check every share batch, learn this seat's hand and send its
        ``ready`` (the Gaia holder's shows Gaia, so the lead step names its sender). A hand that
        does not decrypt although every proof held sends ``deck_reveal`` instead: an audit call
        (deck.md §6.5), which the whole table follows."""
        assert self.deck is not None
        seat = self.my_seat
        assert seat is not None
        try:
            self.deck.verify_all_shares()  # now, not at each seat's first opening
        except DeckFault as exc:
            raise TableFault(f"deal: {exc.reason}", exc.seat, exc.evidence) from None
        self._next("ready", self.order, MsgType.READY, MsgType.DECK_REVEAL)
        try:
            hand = list(self.deck.hand())
        except AuditRequired as exc:
            log.warning("this seat's hand does not decrypt (%s): calling an audit", exc)
            self.phase = "audit"
            self.audit_why = f"{self._who(self.me)}'s hand does not decrypt ({exc.reason})"
            self.deck.reveal()  # sealed at the ready step's head and queued through the codec
            return
        try:
            self.game.start_hidden_round(seat, hand)
        except InvalidDeal as exc:
            raise TableFault(f"the deal gave this seat an impossible hand: {exc}") from None
        self.phase = "play"
        self.deck.prepare_openings()  # our own cards' proofs, not at each move
        body: dict[str, object] = {"round": self.game.round_index}
        if GAIA in hand:
            assert self.codec is not None
            self.codec.carry(body, MsgType.READY)
            self.deck.open_card(GAIA)  # sealed into our ready and queued through the codec
        else:
            self._send_own(MsgType.READY, body)

    def _on_play(self, batch: list[Message]) -> None:
        (msg,) = batch
        rnd = self.game.round
        assert rnd is not None and self.deck is not None
        seat = self.seat_of(msg.sender)
        assert seat is not None
        if msg.body["round"] != self.game.round_index:
            raise TableFault(f"{self._who(msg.sender)} sent a move for another round", seat)
        opened_card = None
        if "open" in msg.body:
            try:
                opened_card = self._take_opening(msg, seat)
            except AuditRequired as exc:
                start_audit(self, [], f"{self._who(msg.sender)}'s opening: {exc.reason}")
                return
        try:
            move = parse_move_token(msg.body["move"])
        except ValueError as exc:
            raise TableFault(f"{self._who(msg.sender)}: {exc}", seat, (msg.raw,)) from None
        if rnd.to_move != seat:
            raise TableFault(f"{self._who(msg.sender)} moved out of turn", seat, (msg.raw,))
        cards = cards_for_move(move)
        if GAIA in cards:
            if opened_card is not None or msg.sender != self.gaia_holder:
                raise TableFault(
                    f"{self._who(msg.sender)} led {format_move(move)} with an opening (Gaia is "
                    "shown at ready, the lead carries none)",
                    seat,
                    (msg.raw,),
                )
        elif cards and opened_card not in cards:
            raise TableFault(
                f"{self._who(msg.sender)} played {format_move(move)} without opening that card",
                seat,
                (msg.raw,),
            )
        if not cards and opened_card is not None:
            raise TableFault(
                f"{self._who(msg.sender)} opened a card for {format_move(move)}", seat, (msg.raw,)
            )
        reason = rnd.check(move)
        if reason is not None:
            raise TableFault(
                f"{self._who(msg.sender)} played an illegal move {format_move(move)}: {reason}",
                seat,
                (msg.raw,),
            )
        rnd.play(move)
        self.last_move = msg
        self.round_moves.append(msg)
        self._event(
            "move",
            f"{self.name_of_seat(seat)} plays {format_move(move)}",
            {"seat": seat, "move": format_move(move)},
        )
        self._last_move_index = len(self.heads) - 1
        self.acked = set()
        if self.me != msg.sender:
            self._outbox.append(self._receipt_of_last_move())
        self._after_move()

    def _take_opening(self, msg: Message, seat: int) -> int:
        """The deck checks the opening a move carries (proof, decryption, ownership); the card it
        shows is then known to this peer's view of the round. Returns the card."""
        assert self.deck is not None and self.game.round is not None
        try:
            emitted = self._deck_receive(msg, audit=True)
        except AuditRequired as exc:
            if msg.body["open"]["card"] in self.deck.hand():
                # Only this seat sees the duplicate (the card is in its own hand): an audit it
                # started alone would not be followed in step, so it stops, as before.
                raise TableFault(f"deal needs an audit: {exc}", None, exc.evidence) from None
            raise  # every peer sees it at this move: all start the audit here
        if emitted:
            raise TableFault("the deck emitted a message in response to an opening", None)
        opened = self.deck.opened
        if not opened or opened[-1].seat != seat:
            raise TableFault(f"{self._who(msg.sender)}'s opening was not accepted", seat)
        card = opened[-1].card
        if seat != self.my_seat:
            try:
                self.game.round.reveal(seat, card)
            except ValueError as exc:
                raise TableFault(
                    f"{self._who(msg.sender)} opened {format_card(card)}: {exc}",
                    seat,
                    (msg.raw,),
                ) from None
        return card

    def _after_move(self) -> None:
        rnd = self.game.round
        assert rnd is not None
        if rnd.over:
            self._end_of_round()
            return
        assert rnd.to_move is not None
        mover = self.order[rnd.to_move]
        self._next("move", (mover,), MsgType.MOVE)

    def _end_of_round(self) -> None:
        assert self.deck is not None
        self.check_deferred()  # never reveal this seat's secrets over an unproven opening
        self.phase = "reveal"
        self._next("reveal", self.order, MsgType.DECK_REVEAL)
        self.deck.reveal()  # sealed and queued through the codec

    def _on_reveals(self, batch: list[Message]) -> None:
        assert self.deck is not None
        for msg in batch:
            self._deck_receive(msg)
        self._audit_round()
        rnd = self.game.round
        assert rnd is not None and rnd.scores is not None
        r = self.game.round_index
        self._event(
            "round_ended",
            f"round {r + 1} over ({rnd.ended_by}): scores {rnd.scores}",
            {"round": r, "scores": list(rnd.scores), "ended_by": rnd.ended_by},
        )
        self.transcript.flush(sync=True)
        if self.game.game_over:
            start_result(self)
            return
        self._start_round()

    def _audit_round(self) -> None:
        """Every secret is out: recompute the deal and replay the round with all hands known."""
        assert self.deck is not None
        try:
            result = self.deck.audit()
        except DeckFault as exc:
            raise TableFault(f"audit: {exc.reason}", exc.seat, exc.evidence) from None
        except DeckError as exc:
            raise TableFault(f"audit failed: {exc}") from None
        problem = replay_round_with_hands(
            self.options, [list(h) for h in result.hands], self.round_moves
        )
        if problem is not None:
            seat, index, reason = problem
            raise TableFault(
                f"audit: {self.name_of_seat(seat)} (seat {seat}) broke a rule at move "
                f"{index + 1} of round {self.game.round_index + 1}: {reason}",
                seat,
                (self.round_moves[index].raw,),
            )

    # ---------------------------------------------------------------- helpers
    def _who(self, key: bytes) -> str:
        seat = self.seat_of(key)
        return f"{self.names.get(key, '?')} (seat {seat})"

    def _event(self, kind: str, text: str, data: dict[str, object] | None = None) -> None:
        event = TableEvent(kind, text, data or {})
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

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
        this machine has replayed it to the same head (raises ValueError otherwise)."""
        if transcript.head != self.transcript.head:
            raise ValueError("the record does not replay to the same table state")
        self.transcript = transcript


def deal_params(
    table_id: bytes, round_no: int, players: int, ruleset: str = DEFAULT_RULESET
) -> DeckParams:
    """The deck's parameters for one round, from the rule set's deck description (the seam):
    every peer and the auditor must build exactly these."""
    rules = dealt_ruleset(ruleset)
    return DeckParams(
        table_id=table_id,
        round_no=round_no,
        num_cards=rules.deck_size,
        seats=players,
        hand_size=rules.hand_size(players),
        required=rules.required_cards(players),
    )


def seat_order(
    table_id: bytes, keys: Sequence[bytes], nonces: dict[bytes, bytes]
) -> tuple[bytes, ...]:
    """Play order from the coin flip: nobody can steer it unless all others collude."""
    joint = hashlib.sha256(
        b"druids-p2p/v1 seat-order\x00" + table_id + b"".join(nonces[k] for k in keys)
    ).digest()
    return tuple(sorted(keys, key=lambda k: hashlib.sha256(joint + k).digest()))


def replay_round_with_hands(
    options: GameOptions, hands: list[list[int]], moves: Sequence[Message]
) -> tuple[int, int, str] | None:
    """Replay a round's moves with the whole deal known; (seat, move index, reason) of a breach."""
    game = Game(options)
    rnd = game.start_round(hands)
    for index, msg in enumerate(moves):
        try:
            move = parse_move_token(msg.body["move"])
        except ValueError as exc:
            return (rnd.to_move or 0, index, str(exc))
        seat = rnd.to_move
        reason = rnd.check(move)
        if reason is not None:
            return (seat if seat is not None else 0, index, reason)
        rnd.play(move)
    return None


def record_dir_name(table_id: bytes) -> str:
    return table_id.hex()[:24]


def default_record_path(base: Path, table_id: bytes, name: str) -> Path:
    return base / "records" / f"{record_dir_name(table_id)}-{name}.druids"


__all__ = [
    "MAX_BUFFERED",
    "Step",
    "TableEvent",
    "TableFault",
    "TableMachine",
    "message_hash",
    "replay_round_with_hands",
    "seat_order",
]
