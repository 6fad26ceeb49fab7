"""The pieces of Druids (2004) as small integers: cards, moves, the score column, the place row.

Integers because every peer checks every move and bots play many games; a card's and a move's
token is what the notation and the views print."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

# Card identities of Druids (Colovini, 2004) as small integers, and their text tokens.
#
# Integers because every peer checks every move and bots play many games; the token of a card is
# what the notation and the views print.
#
# Cards (90 physical cards, ids 0..89):
#   * 0..53 gems: ``kind * 9 + (number - 1)``, kinds 0..5 = ``K W R B G Y`` (token ``K7``);
#   * 54..65 mystic places: ``54 + series * 6 + kind``, series 0..1 (token ``@K1``, ``@K2``);
#   * 66..89 servants: ``66 + owner * 6 + (value - 1)``, owner = seat 0..3, values 1..6 (token
#     ``S0:3`` = seat 0's servant of value 3). Seat ``s`` owns series ``s``; the series of seats
#     that are not at the table stay in the box.
#
# A gem's number plays no part in any rule (ruling "Components"); it only keeps gems distinct.


KINDS: Final = "KWRBGY"
KIND_NAMES: Final = ("black", "white", "red", "blue", "green", "yellow")
N_KINDS: Final = 6
GEM_NUMBERS: Final = 9
N_GEMS: Final = 54
PLACE0: Final = 54
N_PLACES: Final = 12
SERVANT0: Final = 66
SERVANT_VALUES: Final = 6
N_SERVANTS: Final = 24
N_CARDS: Final = 90

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4
HAND_LIMIT: Final = 7
"""A hand is topped up to 7 cards (the seed's number)."""
START_GEMS: Final = 4
START_SERVANTS: Final = 3
ROW_SLOTS: Final = 6
SERIES_COLOURS: Final = ("red", "blue", "black", "green")
"""Backs of the servant series, by owner seat."""

GEMS: Final = tuple(range(N_GEMS))
PLACES: Final = tuple(range(PLACE0, PLACE0 + N_PLACES))


def is_gem(card: int) -> bool:
    return 0 <= card < N_GEMS


def is_place(card: int) -> bool:
    return PLACE0 <= card < SERVANT0


def is_servant(card: int) -> bool:
    return SERVANT0 <= card < N_CARDS


def gem(kind: int, number: int) -> int:
    return kind * GEM_NUMBERS + number - 1


def gem_kind(card: int) -> int:
    """Kind 0..5 of a gem."""
    return card // GEM_NUMBERS


def place(kind: int, series: int) -> int:
    return PLACE0 + series * N_KINDS + kind


def place_kind(card: int) -> int:
    """Kind 0..5 of a mystic place."""
    return (card - PLACE0) % N_KINDS


def servant(owner: int, value: int) -> int:
    return SERVANT0 + owner * SERVANT_VALUES + value - 1


def servant_owner(card: int) -> int:
    return (card - SERVANT0) // SERVANT_VALUES


def servant_value(card: int) -> int:
    return (card - SERVANT0) % SERVANT_VALUES + 1


def servants_of(owner: int) -> tuple[int, ...]:
    """The six servants of a seat's series, values 1..6."""
    return tuple(servant(owner, v) for v in range(1, SERVANT_VALUES + 1))


def format_card(card: int) -> str:
    """Token of a card id: ``K7``, ``@K1``, ``S0:3``."""
    if is_gem(card):
        return f"{KINDS[gem_kind(card)]}{card % GEM_NUMBERS + 1}"
    if is_place(card):
        return f"@{KINDS[place_kind(card)]}{(card - PLACE0) // N_KINDS + 1}"
    if is_servant(card):
        return f"S{servant_owner(card)}:{servant_value(card)}"
    raise ValueError(f"no card has id {card!r}")


CARD_TOKENS: Final = tuple(format_card(c) for c in range(N_CARDS))
_BY_TOKEN: Final = {token: card for card, token in enumerate(CARD_TOKENS)}


def parse_card(token: str) -> int:
    """Card id of a token; ValueError naming the token if it is not one."""
    try:
        return _BY_TOKEN[token]
    except (KeyError, TypeError):
        raise ValueError(f"unknown card token {token!r}") from None


# The score column: 6 score cards of ``S`` spaces, wrapping upward as pawns pass its top.
#
# The column shows scores ``base .. base + 6S - 1``. When a pawn must reach ``base + 6S`` or more,
# the bottom card moves to the top (``base += S``) as long as no other pawn stands on it; if one
# does, the moving pawn stops on the top space and the game ends with that player the sole winner
# (ruling "End of the game", the score column).


@dataclass(frozen=True, slots=True)
class PawnMove:
    """The result of one pawn move: the new score and base, and whether the column ended it."""

    score: int
    base: int
    ended: bool
    scored: int
    """Points actually moved (fewer than asked when the column ends the game)."""
    blocked_by: tuple[int, ...] = ()
    """When the column ended it: the other seats whose pawns stood on its bottom card."""


def move_pawn(
    scores: Sequence[int], base: int, seat: int, points: int, spaces_per_card: int
) -> PawnMove:
    """Move ``seat``'s pawn up ``points`` spaces on a column whose bottom score is ``base``."""
    start = scores[seat]
    target = start + points
    top = base + 6 * spaces_per_card  # first score the column does not show
    while target >= top:
        blocked = tuple(q for q, s in enumerate(scores) if q != seat and s < base + spaces_per_card)
        if blocked:
            last = top - 1
            return PawnMove(last, base, True, last - start, blocked)
        base += spaces_per_card
        top += spaces_per_card
    return PawnMove(target, base, False, points)


# The row of mystic places: what was played on each place, face down until its ritual.


@dataclass(slots=True)
class PlaceSlot:
    """A mystic place in the row with what was played on it (hidden until its ritual)."""

    place: int
    gems: list[tuple[int, int]] = field(default_factory=list)
    """(seat that played it, gem), in the order played."""
    servants: list[int] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.gems) + len(self.servants)

    def copy(self) -> PlaceSlot:
        return PlaceSlot(self.place, list(self.gems), list(self.servants))


# Move identities: every decision of a turn is one move, a small integer with a text token.
#
# Ids (0..602):
#   * ``card * 6 + slot`` (0..539): play ``card`` from hand face down onto the place in ``slot``
#     (gems onto its gem pile, servants into its servant row); only gems and servants are legal;
#   * ``RITUAL + slot`` (540..545): announce a ritual on the place in ``slot``;
#   * ``DISCARD + gem`` (546..599): discard that gem face down, out of the game;
#   * ``DRAW_GEM`` (600), ``DRAW_SERVANT`` (601): draw one card from the gem pile / own reserve;
#   * ``STOP`` (602): end the turn now (no discard, no more draws).
#
# Tokens: ``K7>2`` and ``S0:3>2`` (play to slot 2), ``Ritual:2``, ``Discard:K7``, ``Draw:gem``,
# ``Draw:servant``, ``Stop``. Slots are numbered 0..5 from the left of the place row.


PLAY: Final = 0
RITUAL: Final = N_CARDS * ROW_SLOTS  # 540
DISCARD: Final = RITUAL + ROW_SLOTS  # 546
DRAW_GEM: Final = DISCARD + N_GEMS  # 600
DRAW_SERVANT: Final = DRAW_GEM + 1
STOP: Final = DRAW_SERVANT + 1
N_MOVES: Final = STOP + 1

KIND_PLAY: Final = "play"
KIND_RITUAL: Final = "ritual"
KIND_DISCARD: Final = "discard"
KIND_DRAW: Final = "draw"
KIND_STOP: Final = "stop"


@dataclass(frozen=True, slots=True, eq=False)
class Move:
    """One move as a value (python-chess's ``Move``): its kind and the card / slot / source it names
    (-1 when none), its ``id`` and its one canonical :meth:`token`. Every value is made once, here,
    so equality is identity and a token is parsed once, where text enters.
    """

    kind: str
    card: int = -1
    slot: int = -1
    source: str = ""
    id: int = -1
    _token: str = ""
    """Empty for an id that decodes but is no move (a place card played)."""

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return decode, (self.id,)  # a copy (pickle, deepcopy) is the one value again

    def __repr__(self) -> str:
        return f"Move({self._token or self.id!r})"

    def token(self) -> str:
        """The canonical token: what a signed ``move`` carries and a record writes."""
        return self._token

    @staticmethod
    def of(move_id: int) -> Move:
        """The move with ``move_id``; ValueError for an id that is no move."""
        move = decode(move_id)
        if not move._token:
            raise ValueError(f"move {move_id} plays a place card, which no move can")
        return move

    @staticmethod
    def from_token(token: str) -> Move:
        """The move ``token`` names; ValueError naming the token if it is none."""
        move = _MOVE_BY_TOKEN.get(token) if isinstance(token, str) else None
        return _DECODED[_parse(token)] if move is None else move


def play_move(card: int, slot: int) -> int:
    return card * ROW_SLOTS + slot


def ritual_move(slot: int) -> int:
    return RITUAL + slot


def discard_move(gem: int) -> int:
    return DISCARD + gem


def _decoded(move: int) -> Move:
    if move < RITUAL:
        card, slot = move // ROW_SLOTS, move % ROW_SLOTS
        token = f"{format_card(card)}>{slot}" if is_gem(card) or is_servant(card) else ""
        return Move(KIND_PLAY, card=card, slot=slot, id=move, _token=token)
    if move < DISCARD:
        return Move(KIND_RITUAL, slot=move - RITUAL, id=move, _token=f"Ritual:{move - RITUAL}")
    if move < DRAW_GEM:
        token = f"Discard:{format_card(move - DISCARD)}"
        return Move(KIND_DISCARD, card=move - DISCARD, id=move, _token=token)
    if move == DRAW_GEM:
        return Move(KIND_DRAW, source="gem", id=move, _token="Draw:gem")
    if move == DRAW_SERVANT:
        return Move(KIND_DRAW, source="servant", id=move, _token="Draw:servant")
    return Move(KIND_STOP, id=move, _token="Stop")


_DECODED: Final[tuple[Move, ...]] = tuple(_decoded(m) for m in range(N_MOVES))
_MOVE_BY_TOKEN: Final[dict[str, Move]] = {m.token(): m for m in _DECODED if m.token()}


def decode(move: int) -> Move:
    """The move an id stands for; ValueError for an id outside 0..602."""
    if not isinstance(move, int) or isinstance(move, bool) or not 0 <= move < N_MOVES:
        raise ValueError(f"no move has id {move!r}")
    return _DECODED[move]


def format_move(move: int) -> str:
    return Move.of(move).token()


def _slot(text: str, token: str) -> int:
    if len(text) != 1 or not "0" <= text <= str(ROW_SLOTS - 1):
        raise ValueError(f"unknown move token {token!r} (slots are 0..{ROW_SLOTS - 1})")
    return int(text)


def parse_move(token: str) -> int:
    """Move id of a token; ValueError naming the token if it is not a move of the notation."""
    return Move.from_token(token).id


def _parse(token: str) -> int:
    """What :meth:`Move.from_token` says of a token that names no move: why (ValueError)."""
    if not isinstance(token, str):
        raise ValueError(f"unknown move token {token!r}")
    if token == "Stop":
        return STOP
    if token == "Draw:gem":
        return DRAW_GEM
    if token == "Draw:servant":
        return DRAW_SERVANT
    if token.startswith("Ritual:"):
        return ritual_move(_slot(token[7:], token))
    if token.startswith("Discard:"):
        try:
            card = parse_card(token[8:])
        except ValueError:
            raise ValueError(f"unknown move token {token!r}") from None
        if not is_gem(card):
            raise ValueError(f"unknown move token {token!r} (only a gem can be discarded)")
        return discard_move(card)
    head, sep, slot = token.rpartition(">")
    if sep:
        try:
            card = parse_card(head)
        except ValueError:
            raise ValueError(f"unknown move token {token!r}") from None
        if not (is_gem(card) or is_servant(card)):
            raise ValueError(f"unknown move token {token!r} (a place card is never played)")
        return play_move(card, _slot(slot, token))
    raise ValueError(f"unknown move token {token!r}")
