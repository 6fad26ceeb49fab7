"""What one peer knows of one seated table: its faults, its schedule's steps and their log, the
table secret its seat's randomness is derived from, and the state every step acts on (each piece
with one owner: the transcript, our chain, the step log, the game's copy; everything else a view
of it). The one table machine is this state with its steps as methods (card_table_round.py's
CardTableSteps) and its driving (table.py's TableMachine).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from druids_p2p.games.registry import RULESETS, table_options
from druids_p2p.games.seam import CardTableRuleset, TableOptions
from druids_p2p.lan.network import TableNetwork
from druids_p2p.lan.seating import (
    carried_in_play_order,
    carried_rounds,
    seat_list_fault,
    winners_of,
    with_carried,
)
from druids_p2p.table.codec import Chain
from druids_p2p.wire import Identity, Message, MsgType, Transcript, next_head
from druids_p2p.wire.record import sync_dir


# The table machine's small values: its faults, its schedule's steps and the one log of them.
class TableFault(Exception):
    """The table must stop. ``seat`` is the play seat to blame (None if nobody can be named yet)."""

    def __init__(
        self, reason: str, seat: int | None = None, evidence: Sequence[bytes] = ()
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.evidence = tuple(evidence)


class Departure(TableFault):
    """The blamed seat is gone from the table for good, by this peer's own clock: unreachable,
    past the move limit, withholding what it owes, or it stopped instead of sending it. The
    others may go on without it (``go_on.py``), unlike after a fault with evidence."""


class RecordLost(TableFault):
    """We hold, or just made, another message of ours for a slot than one we signed before (our
    storage lost synced writes, or the record is an older copy): we stop at once and sign
    nothing more, not even an abort, since any slot of our chain may already be taken
    (protocol.md §8, "A lost record"). Nobody is blamed."""

    def __init__(self, seq: int, evidence: Sequence[bytes]) -> None:
        super().__init__(
            f"this peer's record does not hold the message {seq} it signed before (its storage "
            "lost writes, or the record is an older copy): it stops and signs nothing more",
            None,
            evidence,
        )


class Divergence(TableFault):
    """``peer``'s transcript differs from ours after head ``prev``: its message for this step
    is built on another head than ours, so somebody signed two versions of a message in the
    last step. Ask ``peer`` for what it holds after ``prev``: its copy convicts the signer;
    else stop."""

    def __init__(self, reason: str, peer: bytes, prev: bytes, evidence: Sequence[bytes] = ()):
        super().__init__(reason, None, evidence)
        self.peer = peer
        self.prev = prev


@dataclass(frozen=True)
class Step:
    """Seats (by public key, in append order) that must each send one message of ``types``,
    each built on ``head``: the transcript head when the step began."""

    name: str
    senders: tuple[bytes, ...]
    types: frozenset[MsgType]
    head: bytes = b""


@dataclass
class TableEvent:
    """Something a user interface or log may want to show."""

    kind: str
    """seated, round_started, move, round_ended, audit, game_over, aborted"""
    text: str
    data: dict[str, object] = field(default_factory=dict)


class StepLog:
    """Every step the table has begun, in order: the one owner of the schedule's history.

    The current step, its head, the previous step's head and who may sign a message built on a
    given head are all views of it (the table once kept four structures in step by hand)."""

    def __init__(self, first: Step) -> None:
        self._steps: list[Step] = [first]
        self._senders_at: dict[bytes, tuple[bytes, ...]] = {first.head: first.senders}
        self._open = True

    def begin(self, step: Step) -> None:
        self._steps.append(step)
        self._senders_at[step.head] = step.senders
        self._open = True

    def close(self) -> None:
        """No step is due (a completed step is being handled and the next not begun yet)."""
        self._open = False

    @property
    def current(self) -> Step | None:
        return self._steps[-1] if self._open else None

    @property
    def head(self) -> bytes:
        """The head the last step began at (what its messages must carry)."""
        return self._steps[-1].head

    @property
    def previous_head(self) -> bytes:
        """The head the step before the last began at: where transcripts last agreed."""
        return self._steps[-2].head if len(self._steps) > 1 else self._steps[-1].head

    def senders_at(self, head: bytes) -> tuple[bytes, ...] | None:
        """Who the step that began at ``head`` was for (None for a head no step began at)."""
        return self._senders_at.get(head)


# Per-table secrets, kept on disk so a restarted peer re-derives exactly what it sent before.
Entropy = Callable[[int], bytes]

SECRET_SIZE = 32


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner can read (mode 0600), durably and atomically: a crash leaves
    either the old file or the new one, never a torn secret (the rename is synced too: a table
    secret lost in a power cut would make a restarted peer sign other messages for its slots)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    sync_dir(path.parent)


class TableSecret:
    """The root secret of one peer at one table, and the streams derived from it."""

    def __init__(self, root: bytes) -> None:
        if len(root) != SECRET_SIZE:
            raise ValueError("a table secret is 32 bytes")
        self._root = root

    @classmethod
    def load_or_create(cls, path: Path) -> TableSecret:
        """Read the secret at ``path`` or create it there (0600) with fresh OS randomness."""
        if path.exists():
            data = path.read_bytes()
            if len(data) != SECRET_SIZE:
                raise ValueError(f"{path}: a table secret must be {SECRET_SIZE} bytes")
            return cls(data)
        path.parent.mkdir(parents=True, exist_ok=True)
        root = secrets.token_bytes(SECRET_SIZE)
        write_private(path, root)
        return cls(root)

    def derive(self, label: str) -> bytes:
        return hmac.new(self._root, b"druids-p2p/v1 " + label.encode(), hashlib.sha256).digest()

    def seat_nonce(self) -> bytes:
        """The nonce this peer contributes to the seat-order coin flip."""
        return self.derive("seat-nonce")

    def entropy(self, label: str) -> Entropy:
        """A deterministic byte stream (HMAC-SHA256 in counter mode) for one purpose."""
        key = self.derive(label)
        counter = 0

        def draw(size: int) -> bytes:
            nonlocal counter
            out = b""
            while len(out) < size:
                counter += 1
                out += hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
            return out[:size]

        return draw

    def __repr__(self) -> str:  # never print the secret
        return "TableSecret(<hidden>)"


# What one peer knows of one seated table, and the helpers every step of its schedule uses.
@dataclass
class Seating:
    """The seating steps' messages: every seat's confirmation and revealed nonce."""

    confirms: dict[bytes, Message] = field(default_factory=dict)
    nonces: dict[bytes, bytes] = field(default_factory=dict)


class TableMachineState:
    """One peer at one seated table: its state, and the helpers its steps share.

    Its game is played at the mental card table: ``card_rules`` and, once seated,
    ``card_play`` (``table/card_table_round.py``)."""

    options: TableOptions

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
        """``network``: where every seat's confirmed endpoint must be (``lan/network.py``); by
        default the network of this peer's own ``endpoint``."""
        if seat_message.type is not MsgType.SEAT:
            raise ValueError("a table starts from its seat message")
        self.identity = identity
        self.me = identity.public_key
        self.seat_message = seat_message
        body = seat_message.body
        self.list_keys: tuple[bytes, ...] = tuple(body["seats"])
        if self.me not in self.list_keys:
            raise ValueError("this identity is not seated at this table")
        self.names = dict(zip(self.list_keys, body["names"], strict=True))
        self.ruleset, self.options = table_options(body["options"])
        self.card_rules: CardTableRuleset = RULESETS[self.ruleset]
        self.card_play: Any = None
        """This seat's card-table game (``CardTablePlay``), once seated at a card table."""
        self.card_cursor = (-1, 0)
        """(operation, pass) the transcript has reached at a card table."""
        self.card_check_due = False
        """The words' check step comes next (every owners'-word step is followed by one)."""
        self.card_contradiction: Message | None = None
        """The first signed ``Words:unfit``: the table reveals all and judges the words."""
        if self.options.players != len(self.list_keys):
            raise ValueError("the seat message seats a different number of players")
        self.secret = secret
        self.endpoint = endpoint
        self.curve = curve
        self.network = network or TableNetwork.of_endpoint(endpoint)
        self.seat_fault = seat_list_fault(seat_message)
        """Why the seat message's addresses are not every seat's own word (the host's fault)."""
        self.carried: dict[bytes, list[int]] = {}
        """Each seat's rounds carried from the previous tables of a game going on without a
        departed seat (``lan/seating.py``); empty at a first table."""
        if self.seat_fault is None:
            self.carried = carried_rounds(seat_message)
        self.rounds_audited = 0
        """Rounds of this table complete and audited (what an account of it carries)."""
        self.transcript = transcript or Transcript.start(seat_message)
        self.chain = Chain(identity, self.table_id, self._own_recorded)
        """Our next message's place: read from the record (whichever transcript it is now) and
        the newest message we signed; nothing copies it (``table/codec.py``)."""
        self.pending: dict[bytes, dict[int, Message]] = {k: {} for k in self.list_keys}
        self._outbox: list[bytes] = []
        self.events: list[TableEvent] = []
        self.seating = Seating()
        self.order: tuple[bytes, ...] = ()
        self.phase = "seating"
        self.steps = StepLog(
            Step("confirm", self.list_keys, frozenset({MsgType.SEAT_CONFIRM}), self.transcript.head)
        )
        self.finished = False
        self.aborted: TableFault | None = None
        self._verdict: TableFault | None = None
        """A fault found while our own messages were queued: raised once they are sent."""
        self.on_event: Callable[[TableEvent], None] | None = None

    # ================================================================ views
    @property
    def table_id(self) -> bytes:
        return self.seat_message.table_id

    @property
    def heads(self) -> Sequence[bytes]:
        """``heads[i]``: the transcript head once message ``i`` was appended (its view)."""
        return self.transcript.heads

    @property
    def step(self) -> Step | None:
        """The step due now (None between steps that wait on this peer's own work)."""
        return self.steps.current

    @property
    def step_head(self) -> bytes:
        return self.steps.head

    @property
    def prev_step_head(self) -> bytes:
        return self.steps.previous_head

    @property
    def my_seat(self) -> int | None:
        """This peer's play seat, once the seat order is fixed."""
        return self.order.index(self.me) if self.order else None

    def _own_recorded(self) -> tuple[int, bytes]:
        """The seq and back-link the record expects next from us (our chain reads it here; a
        bound method, not a closure, so that a copied machine reads its own record)."""
        return self.transcript.next_seq(self.me), self.transcript.last_hash(self.me)

    def recorded(self, raw: bytes) -> Message | None:
        """The decoded message with these bytes if the record holds it, or it is one of ours
        waiting for its step (the deck codec's lookup: nothing is decoded twice)."""
        msg = self.transcript.find(raw)
        if msg is None:
            msg = next((m for m in self.pending[self.me].values() if m.raw == raw), None)
        return msg

    def confirmed_addresses(self) -> list[tuple[bytes, str, bytes]] | None:
        """Every listed seat's (key, endpoint, CURVE key), in seat-list order, from its own
        signed confirmation; None until every confirmation is in (``peer/links.py``)."""
        confirms = self.seating.confirms
        if len(confirms) < len(self.list_keys):
            return None
        bodies = [confirms[key].body for key in self.list_keys]
        return [
            (key, body["endpoint"], body["curve"])
            for key, body in zip(self.list_keys, bodies, strict=True)
        ]

    def seat_of(self, key: bytes) -> int | None:
        if self.order:
            return self.order.index(key) if key in self.order else None
        return self.list_keys.index(key) if key in self.list_keys else None

    def name_of_seat(self, seat: int) -> str:
        keys = self.order or self.list_keys
        return str(self.names[keys[seat]])

    def outcome(self) -> tuple[list[int], list[int] | None]:
        """The game's totals (play order) and winners (None while it is not over); at a table
        going on from a previous one's account, its carried rounds count too."""
        if self.card_play is None:
            return [0] * self.options.players, None
        game = self.card_play.copy
        if not self.carried or not self.order:
            return list(game.totals), game.winners
        totals = with_carried(game.totals, self.order, self.carried)
        return totals, None if game.winners is None else winners_of(totals)

    def all_round_scores(self) -> list[list[int]]:
        """Every round's scores in play order: the carried ones first, then this table's."""
        own = [] if self.card_play is None else [list(s) for s in self.card_play.copy.round_scores]
        return carried_in_play_order(self.order, self.carried) + own

    def view(self) -> Any:
        """This seat's view of the round (the rule set's own type), None before a deal."""
        seat = self.my_seat
        if seat is None or self.card_play is None:
            return None
        return self.card_play.copy.view(seat)

    # ================================================================ deferred checks
    @property
    def deferred(self) -> bool:
        """True while a fault found waits for our own messages to go out first."""
        return self._verdict is not None

    def check_deferred(self) -> None:
        """Raise the fault found while our own messages were still to be sent
        (:class:`TableFault`), once they are."""
        if self._verdict is not None:
            raise self._verdict

    def take_over(self, fault: TableFault) -> None:
        """The runner handles ``fault`` from now on (a divergence whose proof it seeks): it is
        not raised again, so the other signed copy can still come in and convict its signer."""
        if self._verdict is fault:
            self._verdict = None

    # ================================================================ helpers for the steps
    def _who(self, key: bytes) -> str:
        seat = self.seat_of(key)
        return f"{self.names.get(key, '?')} (seat {seat})"

    def _event(self, kind: str, text: str, data: dict[str, object] | None = None) -> None:
        event = TableEvent(kind, text, data or {})
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _next(self, name: str, senders: Sequence[bytes], *types: MsgType) -> None:
        """Begin the next step, at the transcript's head now."""
        self.steps.begin(Step(name, tuple(senders), frozenset(types), self.transcript.head))

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

    def _check_own(self, msg: Message) -> None:
        """A message of ours from another peer (a resend answer) that we hold or made otherwise:
        :class:`RecordLost`. One we lack is taken back like our record's (protocol.md §8)."""
        recorded = self.transcript.since(self.me, msg.seq)[:1]
        ours = recorded[0] if recorded else self.pending[self.me].get(msg.seq)
        if ours is not None and ours.raw != msg.raw:
            raise RecordLost(msg.seq, (ours.raw, msg.raw))

    def _queue_own(self, msg: Message) -> None:
        """Hold our own message for its step and the outbox (the caller pumps); never changes.
        Another one held for its slot (from our record or a peer) stops us: :class:`RecordLost`,
        raised before this one can leave."""
        raw = msg.raw
        held = self.pending[self.me].get(msg.seq)
        if held is not None and held.raw != raw:
            raise RecordLost(msg.seq, (held.raw, raw))
        self.pending[self.me][msg.seq] = msg
        self._outbox.append(raw)
