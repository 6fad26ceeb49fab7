"""The card table's public state (decks, positions, zones, who sent what), kept apart from any
secret so that every seat and an auditor hold the same one and agree on its digest (deck.md §9;
decks, positions and zones: §6.1)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from druids_p2p.deck import group
from druids_p2p.deck.body_schema import Body
from druids_p2p.deck.cards import Deck, public_sides
from druids_p2p.deck.encoding import POINT_PREFIX, encode, encode_int, sha256
from druids_p2p.deck.errors import DeckError, DeckFault, MalformedMessage
from druids_p2p.deck.lincomb import Aside
from druids_p2p.deck.params import MAX_CARDS, MAX_ROUND, MAX_SEATS, MAX_TABLE_ID, DeckParams
from druids_p2p.deck.proofs import SharesTerms, verify_key
from druids_p2p.deck.table_messages import (
    DEALS,
    FINAL,
    MAX_POSITIONS,
    MAX_TABLE_CARDS,
    Opened,
    SharePart,
    TableKeyMsg,
    TableMessage,
    TableOp,
    TableShareMsg,
    parse_table_body,
)

TAG_TABLE_CONTEXT = b"druids-p2p/v1 table context"
"""Fiat–Shamir context of every proof at the card table (deck.md §9)."""
TAG_TABLE_STATE = b"druids-p2p/v1 table state"
MAX_AHEAD = 64
"""Messages a seat may have stored for operations not yet pushed (a bound on memory)."""

M = TypeVar("M", covariant=True)


class TableOpError(DeckError, ValueError):
    """The schedule asked for something the table cannot do (a deal from an empty deck, a
    return of a hidden card): the caller's rules are wrong, no seat is blamed."""


@dataclass(frozen=True, slots=True)
class Sent(Generic[M]):
    """A parsed table message with its sender and the signed bytes that prove it."""

    seat: int
    msg: M
    raw: bytes


@dataclass(slots=True)
class DeckState:
    """One deck: its ciphertexts (top first), how often it was shuffled, and whether it holds
    returned or transferred cards that nobody has shuffled yet (it may then not be drawn from:
    where those cards lie is known)."""

    a: list[bytes]
    c: list[bytes]
    shuffles: int = 0
    unshuffled_returns: bool = False
    source_raws: tuple[bytes, ...] = ()
    """The signed messages that produced the current ciphertexts (evidence for the next proof):
    its last shuffle, and the source deck's for a card transferred onto it since."""


@dataclass(slots=True)
class Position:
    """A ciphertext that left deck ``deck`` at operation ``op``, and what is public about it."""

    a: bytes
    c: bytes
    deck: str
    op: int
    owner: int | None
    """The seat it was dealt to (it alone knows the card), None for a card turned face up."""
    zone: str | None
    """Where it lies now; None once returned into a deck."""
    card: int | None = None
    """The card, once public (turned, revealed, or after the final reveal)."""
    shares: dict[int, Sent[TableShareMsg | SharePart]] = field(default_factory=dict)
    """Decryption shares published when it left its deck (deal: all but the owner; turn: all),
    each with the signed message that carries it (a ``table_share``, or the ``table_shares``
    of a ``deals`` whose part it is)."""
    opened: Sent[Opened] | None = None
    """The owner's ``table_open`` or ``table_show`` that made its card public."""
    from_raws: tuple[bytes, ...] = ()
    """The signed shuffle that put this ciphertext on top of its deck (empty: a public start)."""


def context_params(
    table_id: bytes, round_no: int, seats: int, what: bytes, name: str, op: int
) -> DeckParams:
    """The deal's proofs take their Fiat–Shamir context from a ``DeckParams``' table id and
    round; the table's context is SHA-256(enc(tag, table id, what, name, op)) in its place,
    so every proof is bound to the table, the game, the operation, its deck or zone and (inside
    each proof) the seat and position, and is useless anywhere else."""
    digest = sha256(TAG_TABLE_CONTEXT, table_id, what, name.encode(), op)
    return DeckParams(digest, round_no, MAX_CARDS, seats, 1)


class TableState:
    """Everything public at one table for one game (``round_no`` names the game)."""

    def __init__(
        self, table_id: bytes, round_no: int, seats: int, num_cards: int, viewer: int | None = None
    ) -> None:
        if not isinstance(table_id, bytes) or not 1 <= len(table_id) <= MAX_TABLE_ID:
            raise ValueError(f"table_id must be 1..{MAX_TABLE_ID} bytes")
        if not 0 <= round_no <= MAX_ROUND:
            raise ValueError(f"round_no must be in 0..{MAX_ROUND}")
        if not 2 <= seats <= MAX_SEATS:
            raise ValueError(f"seats must be in 2..{MAX_SEATS}, not {seats}")
        if not 2 <= num_cards <= MAX_TABLE_CARDS:
            raise ValueError(f"num_cards must be in 2..{MAX_TABLE_CARDS}, not {num_cards}")
        self.table_id, self.round_no, self.seats, self.num_cards = (
            table_id,
            round_no,
            seats,
            num_cards,
        )
        self.viewer = viewer
        """The seat whose state this is: during a deals it checks only the proofs of the shares
        of its own cards (the others wait in :attr:`unproven`); None, an auditor, checks all."""
        self.ops: list[TableOp] = []
        self.done = 0
        """Operations completed; ``ops[done]`` is in progress."""
        self.keys: dict[int, Sent[TableKeyMsg]] = {}
        self.slots: dict[tuple[int, int], Sent[TableMessage]] = {}
        """(op, seat) -> the one message that seat sent for that operation."""
        self.own: set[bytes] = set()
        """Raws this state's own seat made: their proofs are not re-checked."""
        self.decks: dict[str, DeckState] = {}
        self.positions: list[Position] = []
        self.zones: dict[str, list[int]] = {}
        self.created: set[int] = set()
        """The cards created at this table (a card id is created once)."""
        self.progress = 0
        """Within the current operation: shuffle passes accepted so far."""
        self.secrets: dict[int, int] = {}
        """After the final reveal: every seat's secret, as an integer."""
        self.raws: list[bytes] = []
        """The transcript: every accepted message, in the order it was stored."""
        self.at_op: dict[int, int] = {}
        """Deal, deals and turn operations -> the (first) position they take off their deck."""
        self.plans: dict[int, dict[int, list[int]]] = {}
        """Reveal operations -> owner -> the hidden positions it must open, in zone order."""
        self.sizes: dict[int, int] = {}
        """Shuffle operations -> the ciphertexts their deck held when they began (none: no pass
        is owed). Kept, because the deck may be drawn down by the operations after it before a
        caller that follows the transcript asks who owed its passes."""
        self.starts: dict[int, tuple[Deck, int]] = {}
        """Shuffle operations -> their deck as they began and their pass number: what the final
        audit follows each pass from (``table_audit.KnownLogs``)."""
        self.begun = -1
        """The last operation whose start (deck creation, position taken) has run."""
        self.checked: set[tuple[int, int]] = set()
        """(op, seat) slots whose message has passed every check."""
        self.proven: set[bytes] = set()
        """Raws of shares whose proof held when checked ahead of their step's end
        (``table_ops.precheck_share``): not checked a second time when the step is complete."""
        self.share_terms: dict[tuple[bytes, int], SharesTerms] = {}
        """A ``table_shares``' proof's part of its batch check, by the message's raw bytes and
        the proof's seat, made once (``shuffle_passes.keep_terms``)."""
        self.unproven: dict[int, list[tuple[int, int]]] = {}
        """seat -> (deals, sender) of every stored ``table_shares`` proof of the shares of that
        seat's cards not checked yet (a seat checks another's when one of its cards is opened,
        before a silence is blamed, and at the final reveal: ``shuffle_passes.prove_unproven``)."""
        self.aside: dict[int, tuple[list[tuple[int, int]], Aside[Any, Any]]] = {}
        """seat -> the check of its :attr:`unproven` entries (those listed) under way on the
        aside thread, if a LAN peer started them while waiting
        (``shuffle_passes.check_aside``): each taken when it is due."""
        self._ctx: dict[tuple[bytes, str, int], DeckParams] = {}
        self._ctx_prefix = encode(TAG_TABLE_CONTEXT, table_id)
        """The start of every context's hash input (the tag and the table id), encoded once."""
        self._round_encoded = encode_int(round_no)
        self._ctx_starts: dict[tuple[bytes, str], bytes] = {}
        """(what, name) -> the context's hash input but the operation, encoded once."""
        self.joint_key: bytes | None = None
        """The sum of every seat's key, once all are in: computed once, when the last key is
        stored (the table's operations ask for it on every message)."""
        self._public: tuple[tuple[bytes, ...], dict[bytes, int]] | None = None
        self.fresh: dict[int, list[int]] = {}
        """op -> the seats whose message for it is stored but not yet checked to be of the
        operation's kind and owed (``table_ops._check_parts`` checks each once)."""

    # ------------------------------------------------------------------ derived values
    def context(self, what: bytes, name: str, op: int) -> DeckParams:
        """:func:`context_params` of this table, made once per (what, name, op)."""
        key = (what, name, op)
        params = self._ctx.get(key)
        if params is None:
            start = self._ctx_starts.get((what, name))
            if start is None:
                start = self._ctx_prefix + encode(what, name.encode())
                self._ctx_starts[(what, name)] = start
            digest = hashlib.sha256(start + encode_int(op)).digest()
            encoded = POINT_PREFIX + digest + self._round_encoded  # enc(digest, round_no)
            params = DeckParams(digest, self.round_no, MAX_CARDS, self.seats, 1, encoded=encoded)
            self._ctx[key] = params
        return params

    def public(self) -> tuple[tuple[bytes, ...], dict[bytes, int]]:
        """Each card's public encryption's C side under the joint key (a new deck's, a returned
        card's), and the same as C side -> card (the batch check of a shuffle rewrites those
        points as multiples of B plus H, deck.md §7.1): made once, when first asked for."""
        if self._public is None:
            assert self.joint_key is not None
            sides = public_sides(self.num_cards, self.joint_key)
            self._public = sides, {c: i for i, c in enumerate(sides)}
        return self._public

    def key_raws(self) -> tuple[bytes, ...]:
        return tuple(self.keys[s].raw for s in sorted(self.keys))

    @property
    def current(self) -> TableOp | None:
        return self.ops[self.done] if self.done < len(self.ops) else None

    @property
    def finished(self) -> bool:
        return len(self.secrets) == self.seats  # (seats >= 2: checked when made)

    def zone(self, name: str) -> tuple[int, ...]:
        return tuple(self.zones.get(name, ()))

    def taken(self, index: int) -> range:
        """The positions operation ``index`` took off its deck (a deal or turn: one; a deals:
        one per seat it lists, in order; anything else, or not begun yet: none)."""
        first = self.at_op.get(index)
        if first is None:
            return range(0)
        op = self.ops[index]
        return range(first, first + (len(op.seats) if op.kind == DEALS else 1))

    def shares_of(self, p: int) -> list[bytes]:
        """The decryption shares published for position ``p`` when it left its deck."""
        shares = self.positions[p].shares
        return [shares[s].msg.share for s in sorted(shares)]

    def hidden_owners(self, zone: str) -> dict[int, list[int]]:
        """owner -> its positions in ``zone`` whose card is not public, in zone order."""
        out: dict[int, list[int]] = {}
        for p in self.zones.get(zone, ()):
            pos = self.positions[p]
            if pos.card is None and pos.owner is not None:
                out.setdefault(pos.owner, []).append(p)
        return dict(sorted(out.items()))

    def digest(self) -> bytes:
        """SHA-256 of the whole public state: equal at every honest seat after the same ops."""
        h = hashlib.sha256(encode(TAG_TABLE_STATE, self.table_id, self.round_no, self.done))
        for name in sorted(self.decks):
            d = self.decks[name]
            h.update(encode(name.encode(), b"".join(d.a), b"".join(d.c), d.shuffles))
        for p, pos in enumerate(self.positions):
            h.update(
                encode(
                    p,
                    pos.a,
                    pos.c,
                    (pos.zone or "").encode(),
                    -1 % 2**64 if pos.owner is None else pos.owner,
                    -1 % 2**64 if pos.card is None else pos.card,
                )
            )
        for name in sorted(self.zones):
            h.update(
                encode(name.encode(), b"".join(p.to_bytes(2, "big") for p in self.zones[name]))
            )
        return h.digest()

    # ------------------------------------------------------------------ storing
    def add(self, seat: int, kind: str, body: Body, raw: bytes) -> TableMessage | None:
        """Parse and store an authenticated message; None for an exact repeat (a re-delivery).

        Blames the signer for a malformed body or two different messages for one slot; a body
        for another game is dropped (:class:`MalformedMessage`), as the deal does."""
        if not 0 <= seat < self.seats:
            raise MalformedMessage(f"seat {seat} is not at this table")
        try:
            msg = parse_table_body(kind, body)
        except MalformedMessage as exc:
            raise DeckFault(seat, f"malformed {kind}: {exc}", (raw,)) from None
        return self.put(seat, msg, raw)

    def take(self, seat: int, msg: TableMessage, raw: bytes) -> TableMessage | None:
        """:meth:`add` of a message whose shape was checked when it was decoded: what the group
        must say of its points and scalars is checked here, once (a share whose proofs already
        held ahead of its step, ``proven``, had them checked then), and blames the signer."""
        if raw not in self.proven:
            try:
                msg.check_members()
            except MalformedMessage as exc:
                raise DeckFault(seat, f"malformed {msg.KIND}: {exc}", (raw,)) from None
        return self.put(seat, msg, raw)

    def put(self, seat: int, msg: TableMessage, raw: bytes) -> TableMessage | None:
        """Store a parsed authenticated message (:meth:`add` without the parse: a seat's own
        message, made here from its typed value, or one the layer above parsed on receipt)."""
        if not 0 <= seat < self.seats:
            raise MalformedMessage(f"seat {seat} is not at this table")
        if msg.round_no != self.round_no:
            raise MalformedMessage(f"{msg.KIND} for game {msg.round_no}, not this one")
        if isinstance(msg, TableKeyMsg):
            return msg if self._put_key(Sent(seat, msg, raw)) else None
        slot = (msg.op, seat)
        old = self.slots.get(slot)
        if old is not None:
            if old.raw == raw:
                return None
            raise DeckFault(
                seat, f"equivocation: two different messages for operation {msg.op}", (old.raw, raw)
            )
        if msg.op >= len(self.ops):
            ahead = sum(1 for (o, s) in self.slots if s == seat and o >= len(self.ops))
            if ahead >= MAX_AHEAD:
                raise DeckFault(
                    seat, f"more than {MAX_AHEAD} messages ahead of the schedule", (raw,)
                )
        elif msg.op < self.done:
            raise DeckFault(seat, f"{msg.KIND} for operation {msg.op}, which is over", (raw,))
        self.slots[slot] = Sent(seat, msg, raw)
        self.fresh.setdefault(msg.op, []).append(seat)
        self.raws.append(raw)
        return msg

    def _put_key(self, sent: Sent[TableKeyMsg]) -> bool:
        old = self.keys.get(sent.seat)
        if old is not None:
            if old.raw == sent.raw:
                return False
            raise DeckFault(
                sent.seat, "equivocation: two different table_key messages", (old.raw, sent.raw)
            )
        if sent.raw not in self.own and not verify_key(
            self.context(b"key", "", 0), sent.seat, sent.msg.key, (sent.msg.e, sent.msg.s)
        ):
            raise DeckFault(sent.seat, "key share has an invalid proof of knowledge", (sent.raw,))
        self.keys[sent.seat] = sent
        self.raws.append(sent.raw)
        if len(self.keys) == self.seats:
            self.joint_key = group.sum_points([self.keys[s].msg.key for s in range(self.seats)])
        return True

    def push(self, op: TableOp) -> int:
        """Append the rule set's next operation; returns its index."""
        if len(self.ops) >= MAX_POSITIONS * 4:
            raise TableOpError("too many operations for one game")
        if self.ops and self.ops[-1].kind == FINAL:
            raise TableOpError("the game is over: nothing follows the final reveal")
        self.ops.append(op)
        return len(self.ops) - 1
