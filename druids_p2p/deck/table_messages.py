"""The card table's operations (as data) and its six message bodies (deck.md §15).

A rule set says *what* happens at the table as a list of :class:`TableOp` (shuffle a deck, deal
its top card to a seat, turn its top card face up, a seat plays a position face down, the owners
open a zone, a revealed card goes back into a deck, the final reveal). The deck never learns what
a card means. Each seat's part of an operation is one signed message whose body names the
operation's index ``op``, so a message can never be taken for another operation's.

Bodies are strictly validated like the deal's (:mod:`druids_p2p.deck.messages`): sorted keys,
exact types, canonical points and scalars, bounded arrays; anything else is
:class:`~druids_p2p.deck.errors.MalformedMessage`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from druids_p2p.deck.errors import MalformedMessage
from druids_p2p.deck.messages import (
    Body,
    _array,
    _fields,
    _int,
    _point,
    _points,
    _round,
    _scalar,
    proof_from_body,
    proof_to_body,
)
from druids_p2p.deck.params import MAX_CARDS
from druids_p2p.deck.shuffle_proof import ShuffleProof

MAX_TABLE_CARDS = 256
"""Card ids of a table are 0..N-1 with N <= 256 (Druids 2004: 90). A deck still holds at most
MAX_CARDS ciphertexts, so one shuffle with its proof fits a wire message."""
MAX_OPS = 2**32 - 1
MAX_POSITIONS = 4096
"""Positions are numbered as cards leave decks (deals and turns); a game makes a few hundred."""
NAME = re.compile(r"[A-Za-z0-9:_.+-]{1,32}\Z")
"""Deck and zone names: the wire's token characters, 1..32 of them."""

SHUFFLE = "shuffle"
DEAL = "deal"
TURN = "turn"
PLAY = "play"
REVEAL = "reveal"
RETURN = "return"
FINAL = "final"
OP_KINDS = (SHUFFLE, DEAL, TURN, PLAY, REVEAL, RETURN, FINAL)


def hand_zone(seat: int) -> str:
    """The zone a deal puts a card in: the seat's hand."""
    return f"hand:{seat}"


@dataclass(frozen=True, slots=True)
class TableOp:
    """One operation, as the rule set's schedule gives it to every seat alike.

    * ``shuffle``: ``deck``; ``cards`` (top first) when the deck is new, empty when it exists.
    * ``deal``: the top of ``deck`` to ``seat``'s hand (zone ``hand:seat``).
    * ``turn``: the top of ``deck`` face up into ``zone``.
    * ``play``: ``seat`` moves a position of its hand (its own choice, in its message) to ``zone``.
    * ``reveal``: every hidden position of ``zone`` is opened by its owner.
    * ``return``: the revealed ``position`` goes into ``deck`` as the public encryption of its
      card (the deck must then be shuffled before anything is taken from it).
    * ``final``: every seat reveals its secret; everything is then known and audited.
    """

    kind: str
    deck: str = ""
    zone: str = ""
    seat: int | None = None
    cards: tuple[int, ...] = ()
    position: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in OP_KINDS:
            raise ValueError(f"unknown table operation {self.kind!r}")
        for field, used in (
            ("deck", (SHUFFLE, DEAL, TURN, RETURN)),
            ("zone", (TURN, PLAY, REVEAL)),
        ):
            value = getattr(self, field)
            if (self.kind in used) != bool(value) or (value and not NAME.match(value)):
                raise ValueError(f"{self.kind}: {field} {value!r} is missing, unused or not a name")
        if (self.kind in (DEAL, PLAY)) != (self.seat is not None):
            raise ValueError(f"{self.kind}: a seat is needed exactly for deal and play")
        if (self.kind == RETURN) != (self.position is not None):
            raise ValueError(f"{self.kind}: a position is needed exactly for return")
        if self.kind in (TURN, PLAY) and self.zone.startswith("hand:"):
            raise ValueError(f"{self.kind}: only a deal puts a card in a hand")
        if self.cards and self.kind != SHUFFLE:
            raise ValueError(f"{self.kind}: only a shuffle of a new deck lists cards")


def _name(value: object, where: str) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise MalformedMessage(f"{where}: expected a name of 1..32 token characters")
    return value


def _op(fields: Any) -> int:
    return _int(fields["op"], 0, MAX_OPS, "op")


KIND_TABLE_KEY = "table_key"
KIND_TABLE_SHUFFLE = "table_shuffle"
KIND_TABLE_SHARE = "table_share"
KIND_TABLE_PLAY = "table_play"
KIND_TABLE_OPEN = "table_open"
KIND_TABLE_REVEAL = "table_reveal"


@dataclass(frozen=True, slots=True)
class TableKeyMsg:
    """The seat's key share h_i = x_i·B for the whole game, with a Schnorr proof (e, s)."""

    KIND: ClassVar[str] = KIND_TABLE_KEY
    round_no: int
    key: bytes
    e: bytes
    s: bytes
    op: int = -1
    """Not part of the body: keys come before every operation."""

    def to_body(self) -> Body:
        return {"e": self.e, "key": self.key, "round": self.round_no, "s": self.s}

    @classmethod
    def from_body(cls, body: object) -> TableKeyMsg:
        f = _fields(body, ("e", "key", "round", "s"), cls.KIND)
        return cls(_round(f), _point(f["key"], "key"), _scalar(f["e"], "e"), _scalar(f["s"], "s"))


@dataclass(frozen=True, slots=True)
class TableShuffleMsg:
    """One seat's pass over ``deck``: the permuted, re-randomised ciphertexts and the proof."""

    KIND: ClassVar[str] = KIND_TABLE_SHUFFLE
    round_no: int
    op: int
    deck: str
    a: tuple[bytes, ...]
    c: tuple[bytes, ...]
    proof: ShuffleProof

    def to_body(self) -> Body:
        return {
            "a": list(self.a),
            "c": list(self.c),
            "deck": self.deck,
            "op": self.op,
            "proof": proof_to_body(self.proof),
            "round": self.round_no,
        }

    @classmethod
    def from_body(cls, body: object) -> TableShuffleMsg:
        f = _fields(body, ("a", "c", "deck", "op", "proof", "round"), cls.KIND)
        a = _points(f["a"], 1, MAX_CARDS, "a")
        c = _points(f["c"], 1, MAX_CARDS, "c")
        if len(a) != len(c):
            raise MalformedMessage("a and c must have the same length")
        return cls(
            _round(f), _op(f), _name(f["deck"], "deck"), a, c, proof_from_body(f["proof"], len(a))
        )


@dataclass(frozen=True, slots=True)
class TableShareMsg:
    """A decryption share d = x_i·A of position ``pos`` (a deal or a turn), with a DLEQ proof."""

    KIND: ClassVar[str] = KIND_TABLE_SHARE
    round_no: int
    op: int
    position: int
    share: bytes
    e: bytes
    s: bytes

    def to_body(self) -> Body:
        return {
            "d": self.share,
            "e": self.e,
            "op": self.op,
            "pos": self.position,
            "round": self.round_no,
            "s": self.s,
        }

    @classmethod
    def from_body(cls, body: object) -> TableShareMsg:
        f = _fields(body, ("d", "e", "op", "pos", "round", "s"), cls.KIND)
        return cls(
            _round(f),
            _op(f),
            _int(f["pos"], 0, MAX_POSITIONS - 1, "pos"),
            _point(f["d"], "d"),
            _scalar(f["e"], "e"),
            _scalar(f["s"], "s"),
        )


@dataclass(frozen=True, slots=True)
class TablePlayMsg:
    """The player moves position ``pos`` of its hand face down to ``zone``."""

    KIND: ClassVar[str] = KIND_TABLE_PLAY
    round_no: int
    op: int
    position: int
    zone: str

    def to_body(self) -> Body:
        return {"op": self.op, "pos": self.position, "round": self.round_no, "zone": self.zone}

    @classmethod
    def from_body(cls, body: object) -> TablePlayMsg:
        f = _fields(body, ("op", "pos", "round", "zone"), cls.KIND)
        return cls(
            _round(f), _op(f), _int(f["pos"], 0, MAX_POSITIONS - 1, "pos"), _name(f["zone"], "zone")
        )


@dataclass(frozen=True, slots=True)
class Opening:
    """One position opened by its owner: its own share, a DLEQ proof and the card it claims."""

    position: int
    card: int
    share: bytes
    e: bytes
    s: bytes

    def to_body(self) -> Body:
        return {"card": self.card, "d": self.share, "e": self.e, "pos": self.position, "s": self.s}

    @classmethod
    def from_body(cls, body: object, where: str) -> Opening:
        f = _fields(body, ("card", "d", "e", "pos", "s"), where)
        return cls(
            _int(f["pos"], 0, MAX_POSITIONS - 1, f"{where}.pos"),
            _int(f["card"], 0, MAX_TABLE_CARDS - 1, f"{where}.card"),
            _point(f["d"], f"{where}.d"),
            _scalar(f["e"], f"{where}.e"),
            _scalar(f["s"], f"{where}.s"),
        )


@dataclass(frozen=True, slots=True)
class TableOpenMsg:
    """At a reveal, one owner opens every hidden position it owns in the zone, in zone order."""

    KIND: ClassVar[str] = KIND_TABLE_OPEN
    round_no: int
    op: int
    opens: tuple[Opening, ...]

    def to_body(self) -> Body:
        return {"op": self.op, "opens": [o.to_body() for o in self.opens], "round": self.round_no}

    @classmethod
    def from_body(cls, body: object) -> TableOpenMsg:
        f = _fields(body, ("op", "opens", "round"), cls.KIND)
        items = _array(f["opens"], 1, MAX_CARDS, "opens")
        return cls(
            _round(f),
            _op(f),
            tuple(Opening.from_body(o, f"opens[{i}]") for i, o in enumerate(items)),
        )


@dataclass(frozen=True, slots=True)
class TableRevealMsg:
    """The final reveal: the seat's secret x_i, after which every card at the table is known."""

    KIND: ClassVar[str] = KIND_TABLE_REVEAL
    round_no: int
    op: int
    secret: bytes

    def __repr__(self) -> str:
        return f"TableRevealMsg(round_no={self.round_no}, op={self.op}, <secret>)"

    def to_body(self) -> Body:
        return {"op": self.op, "round": self.round_no, "x": self.secret}

    @classmethod
    def from_body(cls, body: object) -> TableRevealMsg:
        f = _fields(body, ("op", "round", "x"), cls.KIND)
        return cls(_round(f), _op(f), _scalar(f["x"], "x"))


TableMessage: TypeAlias = (
    TableKeyMsg | TableShuffleMsg | TableShareMsg | TablePlayMsg | TableOpenMsg | TableRevealMsg
)

_PARSERS: dict[str, Any] = {
    KIND_TABLE_KEY: TableKeyMsg.from_body,
    KIND_TABLE_SHUFFLE: TableShuffleMsg.from_body,
    KIND_TABLE_SHARE: TableShareMsg.from_body,
    KIND_TABLE_PLAY: TablePlayMsg.from_body,
    KIND_TABLE_OPEN: TableOpenMsg.from_body,
    KIND_TABLE_REVEAL: TableRevealMsg.from_body,
}
TABLE_KINDS = tuple(_PARSERS)
EXPECTED_KIND = {
    SHUFFLE: KIND_TABLE_SHUFFLE,
    DEAL: KIND_TABLE_SHARE,
    TURN: KIND_TABLE_SHARE,
    PLAY: KIND_TABLE_PLAY,
    REVEAL: KIND_TABLE_OPEN,
    FINAL: KIND_TABLE_REVEAL,
}
"""The message each seat's part of an operation is (a return needs no message)."""


def parse_table_body(kind: str, body: object) -> TableMessage:
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise MalformedMessage(f"unknown table message type {kind!r}")
    msg: TableMessage = parser(body)
    return msg
