"""Everything signed during one round's deal, stored by slot, shared by the peer and the audit.

Each seat has exactly one slot per message kind (one per position for
opens). Who owns a position is known only once every salt is in (:mod:`druids_p2p.deck.assign`):
an opening that arrives before that is kept aside and placed (owner-checked) by
:meth:`RoundLog.set_assignment`. Because envelopes and Ed25519 signatures are deterministic, an
honest seat never produces two different byte strings for one slot: an exact repeat is a harmless
re-delivery, a different one is equivocation and the pair convicts the sender. Shape checks that
need the round parameters (lengths, seats, positions) are made here, so a stored message is always
well-formed for the round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from druids_p2p.deck.assign import Assignment
from druids_p2p.deck.body_schema import Body
from druids_p2p.deck.errors import DeckFault, MalformedMessage
from druids_p2p.deck.messages import (
    CommitMsg,
    KeyMsg,
    Message,
    OpenMsg,
    RevealMsg,
    SaltMsg,
    SharesMsg,
    ShuffleMsg,
    parse_body,
)
from druids_p2p.deck.params import SHUFFLE_PASS, DeckParams

M = TypeVar("M", CommitMsg, KeyMsg, ShuffleMsg, SaltMsg, SharesMsg, OpenMsg, RevealMsg)
K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class Signed(Generic[M]):
    """A parsed message with its sender and the signed bytes that prove it."""

    seat: int
    msg: M
    raw: bytes


def check_shape(params: DeckParams, seat: int, msg: Message, raw: bytes) -> None:
    """Refuse, and blame the signer of, a body that cannot belong to this round."""

    def fault(reason: str) -> DeckFault:
        return DeckFault(seat, f"{msg.KIND}: {reason}", (raw,))

    if isinstance(msg, ShuffleMsg):
        if msg.pass_no != SHUFFLE_PASS:
            raise fault(f"pass {msg.pass_no} but this deal has one shuffle per seat")
        want = params.shuffle_len
        if len(msg.a) != want:
            raise fault(f"{len(msg.a)} ciphertexts, expected {want}")
        if len(set(zip(msg.a, msg.c, strict=True))) != want:
            raise fault("the output repeats a ciphertext")
    elif isinstance(msg, SharesMsg):
        want_seats = [s for s in range(params.seats) if s != seat]
        if [b.to for b in msg.batches] != want_seats:
            raise fault(f"batches must address seats {want_seats} in this order")
        for b in msg.batches:
            if len(b.shares) != params.hand_size:
                raise fault(f"{len(b.shares)} shares for seat {b.to}, expected {params.hand_size}")
    elif isinstance(msg, OpenMsg):
        if msg.position >= params.dealt:
            raise fault(f"position {msg.position} was not dealt (k = {params.dealt})")
        if msg.card >= params.num_cards:
            raise fault(f"card {msg.card} does not exist")


class RoundLog:
    """The round's signed messages; ``raws`` keeps them in arrival order (the transcript)."""

    def __init__(self, params: DeckParams) -> None:
        self.params = params
        self.commits: dict[int, Signed[CommitMsg]] = {}
        self.keys: dict[int, Signed[KeyMsg]] = {}
        self.shuffles: dict[int, Signed[ShuffleMsg]] = {}
        self.salts: dict[int, Signed[SaltMsg]] = {}
        self.shares: dict[int, Signed[SharesMsg]] = {}
        self.opens: list[Signed[OpenMsg]] = []
        self.open_at: dict[int, Signed[OpenMsg]] = {}
        self.unplaced: list[Signed[OpenMsg]] = []
        """Openings received before the assignment was known, in arrival order."""
        self.assignment: Assignment | None = None
        self.reveals: dict[int, Signed[RevealMsg]] = {}
        self.raws: list[bytes] = []

    # ------------------------------------------------------------------ evidence context
    def final_raw(self) -> tuple[bytes, ...]:
        """The signed final deck (last shuffle), which fixes every position's ciphertext."""
        last = self.shuffles.get(self.params.seats - 1)
        return () if last is None else (last.raw,)

    def shuffle_input_raw(self, seat: int) -> tuple[bytes, ...]:
        """The signed shuffle whose output is ``seat``'s input (none for the public start)."""
        previous = self.shuffles.get(seat - 1) if seat > 0 else None
        return () if previous is None else (previous.raw,)

    def key_raw(self, seat: int) -> tuple[bytes, ...]:
        key = self.keys.get(seat)
        return () if key is None else (key.raw,)

    def all_key_raws(self) -> tuple[bytes, ...]:
        return tuple(self.keys[s].raw for s in sorted(self.keys))

    def shares_raws(self, exclude: int) -> tuple[bytes, ...]:
        return tuple(self.shares[s].raw for s in sorted(self.shares) if s != exclude)

    # ------------------------------------------------------------------ storing
    def add(self, seat: int, kind: str, body: Body, raw: bytes) -> Message | None:
        """Parse and store an authenticated body; None if it repeats a stored message exactly."""
        try:
            msg = parse_body(kind, body)
        except MalformedMessage as exc:
            raise DeckFault(seat, f"malformed {kind}: {exc}", (raw,)) from None
        return msg if self.add_parsed(seat, msg, raw) else None

    def add_parsed(self, seat: int, msg: Message, raw: bytes) -> bool:
        """Store a message; False for an exact repeat, :class:`DeckFault` for a conflicting one."""
        if not 0 <= seat < self.params.seats:
            raise MalformedMessage(f"seat {seat} is not at this table")
        if msg.round_no != self.params.round_no:  # a replay, not a fault: the wire drops it
            raise MalformedMessage(f"{msg.KIND} for round {msg.round_no}, not this round")
        check_shape(self.params, seat, msg, raw)
        if isinstance(msg, CommitMsg):
            return self._put(self.commits, seat, seat, msg, raw)
        if isinstance(msg, KeyMsg):
            return self._put(self.keys, seat, seat, msg, raw)
        if isinstance(msg, ShuffleMsg):
            return self._put(self.shuffles, seat, seat, msg, raw)
        if isinstance(msg, SaltMsg):
            return self._put(self.salts, seat, seat, msg, raw)
        if isinstance(msg, SharesMsg):
            return self._put(self.shares, seat, seat, msg, raw)
        if isinstance(msg, RevealMsg):
            return self._put(self.reveals, seat, seat, msg, raw)
        return self._add_open(seat, msg, raw)

    def _put(self, slots: dict[K, Signed[M]], key: K, seat: int, msg: M, raw: bytes) -> bool:
        old = slots.get(key)
        if old is not None:
            if old.raw == raw:
                return False
            raise DeckFault(
                seat, f"equivocation: two different {msg.KIND} messages", (old.raw, raw)
            )
        slots[key] = Signed(seat, msg, raw)
        self.raws.append(raw)
        return True

    def set_assignment(self, assignment: Assignment) -> None:
        """Fix who owns which position, and place the openings that arrived before it."""
        if self.assignment is not None:
            if self.assignment != assignment:  # pragma: no cover - derived the same way everywhere
                raise RuntimeError("the assignment cannot change during a round")
            return
        self.assignment = assignment
        early, self.unplaced = self.unplaced, []
        for signed in early:
            self._place_open(signed)

    def _add_open(self, seat: int, msg: OpenMsg, raw: bytes) -> bool:
        signed = Signed(seat, msg, raw)
        if self.assignment is None:
            if any(old.raw == raw for old in self.unplaced):
                return False
            self.unplaced.append(signed)
            self.raws.append(raw)
            return True
        if not self._place_open(signed):
            return False
        self.raws.append(raw)
        return True

    def _place_open(self, signed: Signed[OpenMsg]) -> bool:
        assert self.assignment is not None
        seat, msg, raw = signed.seat, signed.msg, signed.raw
        owner = self.assignment.owner(msg.position)
        if owner != seat:
            raise DeckFault(
                seat, f"opened position {msg.position}, which was dealt to seat {owner}", (raw,)
            )
        old = self.open_at.get(msg.position)
        if old is not None:
            if old.raw == raw:
                return False
            raise DeckFault(seat, f"opened position {msg.position} twice", (old.raw, raw))
        self.open_at[msg.position] = signed
        self.opens.append(signed)
        return True
