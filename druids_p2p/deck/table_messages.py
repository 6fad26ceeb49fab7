"""The card table's operations (as data) and its eight message bodies (deck.md §5, §6.2).

A rule set says *what* happens as a list of :class:`TableOp`, so the deck never learns what a
card means; each message names its operation's index, so it can never be taken for another's.
Bodies follow :mod:`~druids_p2p.deck.body_schema`; `Codec` binds them to seat, table and round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeAlias

from druids_p2p.deck import body_schema as bs
from druids_p2p.deck.body_schema import Body
from druids_p2p.deck.errors import MalformedMessage
from druids_p2p.deck.params import MAX_CARDS, MAX_SEATS
from druids_p2p.deck.shuffle_proof import ShuffleProof


# The seam between deck messages and signed bytes.
@dataclass(frozen=True, slots=True)
class Envelope:
    """An authenticated message: ``raw`` is the exact signed bytes, kept as evidence."""

    seat: int
    kind: str
    body: Body
    raw: bytes
    shaped: Any = field(default=None, compare=False)
    """The body as its message, shape checked when it was decoded (the wire's decoder runs the
    deck's parser, ``table_messages.shape_table_body``), or None: the deck parses ``body``."""


class Codec(Protocol):
    """Signs this seat's bodies and authenticates everybody's, for one table and round."""

    @property
    def seat(self) -> int: ...

    def seal(self, kind: str, body: Body) -> bytes:
        """The signed bytes of ``body`` from this codec's seat."""
        ...

    def open(self, raw: bytes) -> Envelope:
        """Authenticate ``raw``; raise :class:`MalformedMessage` for anything not provably sent."""
        ...


# The card table's operations (as data) and its eight message bodies (deck.md §5, §6.2).
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
TRANSFER = "transfer"
SHOW = "show"
DEALS = "deals"
CREATE = "create"
OP_KINDS = (SHUFFLE, DEAL, TURN, PLAY, REVEAL, RETURN, FINAL, TRANSFER, SHOW, DEALS, CREATE)
_WITH_DECK = (SHUFFLE, DEAL, TURN, RETURN, TRANSFER, DEALS, CREATE)
_WITH_ZONE = (TURN, PLAY, REVEAL, SHOW)
_WITH_SOURCE = (TRANSFER,)


def hand_zone(seat: int) -> str:
    """The zone a deal puts a card in: the seat's hand."""
    return f"hand:{seat}"


@dataclass(frozen=True, slots=True)
class TableOp:
    """One operation, as the rule set's schedule gives it to every seat alike.

    The kinds (``shuffle``, ``deal``, ``deals``, ``turn``, ``play``, ``show``, ``reveal``,
    ``return``, ``transfer``, ``create``, ``final``), their fields and effects: deck.md §6.2.
    """

    kind: str
    deck: str = ""
    zone: str = ""
    seat: int | None = None
    cards: tuple[int, ...] = ()
    position: int | None = None
    source: str = ""
    seats: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in OP_KINDS:
            raise ValueError(f"unknown table operation {self.kind!r}")
        for part, value, used in (
            ("deck", self.deck, _WITH_DECK),
            ("zone", self.zone, _WITH_ZONE),
            ("source", self.source, _WITH_SOURCE),
        ):
            if (self.kind in used) != bool(value) or (value and not NAME.match(value)):
                raise ValueError(f"{self.kind}: {part} {value!r} is missing, unused or not a name")
        if (self.kind in (DEAL, PLAY, SHOW)) != (self.seat is not None):
            raise ValueError(f"{self.kind}: a seat is needed exactly for deal, play and show")
        if (self.kind == RETURN) != (self.position is not None):
            raise ValueError(f"{self.kind}: a position is needed exactly for return")
        if self.kind in (TURN, PLAY, SHOW) and self.zone.startswith("hand:"):
            raise ValueError(f"{self.kind}: only a deal puts a card in a hand")
        if self.kind == TRANSFER and self.source == self.deck:
            raise ValueError(f"transfer: deck {self.deck} onto itself")
        if self.cards and self.kind not in (SHUFFLE, CREATE):
            raise ValueError(f"{self.kind}: only a new deck (create, shuffle) lists cards")
        if self.kind == CREATE and not self.cards:
            raise ValueError("create: a new deck lists its cards")
        if (self.kind == DEALS) != bool(self.seats):
            raise ValueError(f"{self.kind}: seats are listed exactly for deals")
        if self.seats != () and (
            not isinstance(self.seats, tuple)
            or len(self.seats) > MAX_CARDS
            or any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in self.seats)
        ):
            raise ValueError(f"deals: 1..{MAX_CARDS} seat numbers, not {self.seats!r}")


def _name(value: object, where: str) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise MalformedMessage(f"{where}: expected a name of 1..32 token characters")
    return value


OP = bs.Field("op", "op", bs.an_int(0, MAX_OPS))
"""Every body but the key's names the operation it is this seat's part of."""
POSITION = bs.Field("pos", "position", bs.an_int(0, MAX_POSITIONS - 1))

KIND_TABLE_KEY = "table_key"
KIND_TABLE_SHUFFLE = "table_shuffle"
KIND_TABLE_SHARE = "table_share"
KIND_TABLE_PLAY = "table_play"
KIND_TABLE_OPEN = "table_open"
KIND_TABLE_REVEAL = "table_reveal"
KIND_TABLE_SHOW = "table_show"
KIND_TABLE_SHARES = "table_shares"


@dataclass(frozen=True, slots=True)
class TableKeyMsg(bs.Whole):
    """The seat's key share h_i = x_i·B for the whole game, with a Schnorr proof (e, s)."""

    KIND: ClassVar[str] = KIND_TABLE_KEY
    SCHEMA: ClassVar[bs.Schema] = bs.Schema(bs.ROUND, bs.point_field("key", "key"), *bs.DLEQ)
    round_no: int
    key: bytes
    e: bytes
    s: bytes
    op: int = -1
    """Not part of the body: keys come before every operation."""


@dataclass(frozen=True, slots=True)
class TableShuffleMsg(bs.Whole):
    """One seat's pass over ``deck``: the permuted, re-randomised ciphertexts and the proof."""

    KIND: ClassVar[str] = KIND_TABLE_SHUFFLE
    SCHEMA: ClassVar[bs.Schema] = bs.Schema(
        *bs.CIPHERTEXTS,
        bs.ROUND,
        OP,
        bs.Field("deck", "deck", _name),
        bs.PROOF,
        after=bs.shuffled,
        across=bs.sized,
    )
    round_no: int
    op: int
    deck: str
    a: tuple[bytes, ...]
    c: tuple[bytes, ...]
    proof: ShuffleProof


@dataclass(frozen=True, slots=True)
class TableShareMsg(bs.Whole):
    """A decryption share d = x_i·A of position ``pos`` (a deal or a turn), with a DLEQ proof."""

    KIND: ClassVar[str] = KIND_TABLE_SHARE
    SCHEMA: ClassVar[bs.Schema] = bs.Schema(
        bs.ROUND, OP, POSITION, bs.point_field("d", "share"), *bs.DLEQ
    )
    round_no: int
    op: int
    position: int
    share: bytes
    e: bytes
    s: bytes


@dataclass(frozen=True, slots=True)
class SharePart(bs.Part):
    """One position's share in a ``table_shares``: its position and d = x_i·A (the proof of
    its owner's shares covers it)."""

    SCHEMA: ClassVar[bs.Schema] = bs.Schema(POSITION, bs.point_field("d", "share"))
    position: int
    share: bytes


@dataclass(frozen=True, slots=True)
class SeatProof(bs.Part):
    """The composite Chaum-Pedersen proof (e, s, T2) of a ``table_shares``' shares of the
    positions dealt to one seat, ``seat`` (deck.md §8.3): that seat checks it during the deal,
    to read its cards; every other seat when one of them is opened, or at the final reveal."""

    SCHEMA: ClassVar[bs.Schema] = bs.Schema(
        bs.Field("seat", "seat", bs.an_int(0, MAX_SEATS - 1)), *bs.DLEQ, bs.point_field("t2", "t2")
    )
    seat: int
    e: bytes
    s: bytes
    t2: bytes


@dataclass(frozen=True, slots=True)
class TableSharesMsg(bs.Whole):
    """A seat's part of a ``deals``: its share of every position dealt to another seat, in
    position order (none of its own), and one composite proof a seat it deals to, in seat order
    (deck.md §8.3): a receiver checks during the deal only the proof of the shares of its own
    cards, the others' when their cards are opened; ``T2`` lets it check the equation on it
    with every other seat's proof of the same cards at once."""

    KIND: ClassVar[str] = KIND_TABLE_SHARES
    SCHEMA: ClassVar[bs.Schema] = bs.Schema(
        bs.ROUND,
        OP,
        bs.Field(
            "shares",
            "shares",
            bs.parts_of(SharePart.from_body, 1, MAX_CARDS),
            bs.as_bodies,
            bs.parts_members,
        ),
        bs.Field(
            "proofs",
            "proofs",
            bs.parts_of(SeatProof.from_body, 1, MAX_SEATS - 1),
            bs.as_bodies,
            bs.parts_members,
        ),
    )
    round_no: int
    op: int
    shares: tuple[SharePart, ...]
    proofs: tuple[SeatProof, ...]


@dataclass(frozen=True, slots=True)
class TablePlayMsg(bs.Whole):
    """The player moves position ``pos`` of its hand face down to ``zone``."""

    KIND: ClassVar[str] = KIND_TABLE_PLAY
    SCHEMA: ClassVar[bs.Schema] = bs.Schema(bs.ROUND, OP, POSITION, bs.Field("zone", "zone", _name))
    round_no: int
    op: int
    position: int
    zone: str


@dataclass(frozen=True, slots=True)
class Opening(bs.Part):
    """One position opened by its owner: its own share, a DLEQ proof and the card it claims."""

    SCHEMA: ClassVar[bs.Schema] = bs.Schema(*bs.opening(MAX_POSITIONS, MAX_TABLE_CARDS))
    position: int
    card: int
    share: bytes
    e: bytes
    s: bytes


@dataclass(frozen=True, slots=True)
class TableOpenMsg(bs.Whole):
    """At a reveal, one owner opens every hidden position it owns in the zone, in zone order."""

    KIND: ClassVar[str] = KIND_TABLE_OPEN
    SCHEMA: ClassVar[bs.Schema] = bs.Schema(
        bs.ROUND,
        OP,
        bs.Field(
            "opens",
            "opens",
            bs.parts_of(Opening.from_body, 1, MAX_CARDS),
            bs.as_bodies,
            bs.parts_members,
        ),
    )
    round_no: int
    op: int
    opens: tuple[Opening, ...]


@dataclass(frozen=True, slots=True)
class TableRevealMsg(bs.Whole):
    """The final reveal: the seat's secret x_i, after which every card at the table is known."""

    KIND: ClassVar[str] = KIND_TABLE_REVEAL
    SCHEMA: ClassVar[bs.Schema] = bs.Schema(bs.ROUND, OP, bs.scalar_field("x", "secret"))
    round_no: int
    op: int
    secret: bytes

    def __repr__(self) -> str:
        return f"TableRevealMsg(round_no={self.round_no}, op={self.op}, <secret>)"


@dataclass(frozen=True, slots=True)
class TableShowMsg(bs.Whole):
    """The player lays position ``pos`` of its hand face up into ``zone``: the card it claims,
    opened as a reveal opens one (its own share and a DLEQ proof), in the one message."""

    KIND: ClassVar[str] = KIND_TABLE_SHOW
    SCHEMA: ClassVar[bs.Schema] = bs.Schema(
        bs.ROUND,
        OP,
        *bs.opening(MAX_POSITIONS, MAX_TABLE_CARDS),
        bs.Field("zone", "zone", _name),
    )
    round_no: int
    op: int
    position: int
    card: int
    share: bytes
    e: bytes
    s: bytes
    zone: str

    @property
    def opens(self) -> tuple[Opening, ...]:
        """The position it shows as a reveal's opening, so both are checked and audited by
        the same code."""
        return (Opening(self.position, self.card, self.share, self.e, self.s),)


TableMessage: TypeAlias = (
    TableKeyMsg
    | TableShuffleMsg
    | TableShareMsg
    | TablePlayMsg
    | TableOpenMsg
    | TableRevealMsg
    | TableShowMsg
    | TableSharesMsg
)
TABLE_MESSAGES = (
    TableKeyMsg,
    TableShuffleMsg,
    TableShareMsg,
    TablePlayMsg,
    TableOpenMsg,
    TableRevealMsg,
    TableShowMsg,
    TableSharesMsg,
)
"""The eight message classes (for an ``isinstance`` check)."""
Opened: TypeAlias = TableOpenMsg | TableShowMsg
"""A message that opens positions of its sender's (their cards become public)."""

_PARSERS: dict[str, Any] = {cls.KIND: cls.from_body for cls in TABLE_MESSAGES}
_SHAPED: dict[str, Any] = {cls.KIND: cls.shaped for cls in TABLE_MESSAGES}
TABLE_KINDS = tuple(_PARSERS)
EXPECTED_KIND = {
    SHUFFLE: KIND_TABLE_SHUFFLE,
    DEAL: KIND_TABLE_SHARE,
    TURN: KIND_TABLE_SHARE,
    PLAY: KIND_TABLE_PLAY,
    REVEAL: KIND_TABLE_OPEN,
    FINAL: KIND_TABLE_REVEAL,
    SHOW: KIND_TABLE_SHOW,
    DEALS: KIND_TABLE_SHARES,
}
"""The message each seat's part of an operation is (a return and a transfer need none)."""


def parse_table_body(kind: str, body: object) -> TableMessage:
    """The whole check of a body (its shape and its points' and scalars' membership)."""
    msg: TableMessage = bs.parse_kind(_PARSERS, "table", kind, body)
    return msg


def shape_table_body(kind: str, body: object) -> TableMessage:
    """A body's shape checked, once, on receipt (the wire's decoder calls this for types
    60–67, ``table/codec.py``): the message, whose points and scalars the table judges
    when it stores it (``TableState.take``)."""
    msg: TableMessage = bs.parse_kind(_SHAPED, "table", kind, body)
    return msg
