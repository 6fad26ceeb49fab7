"""High card's cards and moves: twelve cards, three suits of four ranks, and one move per card.

A card is an id ``suit * RANKS + rank - 1`` (``S1`` is 0, ``C4`` is 11) and its token is the suit's
letter and the rank; a move plays one card, so its id is the card's and its token the card's
token. :class:`Move` is the game's move value (the seam's ``GameMove``): one object per id, made
here once, so a token is parsed once where text enters and a move is compared by identity.
"""

from __future__ import annotations

from typing import Any, Final

SUITS: Final = "SHC"
"""Spades, hearts, clubs."""
RANKS: Final = 4
N_CARDS: Final = len(SUITS) * RANKS
HAND: Final = 3
"""Cards dealt to each seat: a game is three tricks."""
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4
TOKENS: Final[tuple[str, ...]] = tuple(f"{s}{r}" for s in SUITS for r in range(1, RANKS + 1))


def suit(card: int) -> int:
    return card // RANKS


def rank(card: int) -> int:
    """1 (lowest) .. RANKS (highest)."""
    return card % RANKS + 1


def format_card(card: int) -> str:
    """The token of ``card``; ValueError for an id that is no card."""
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < N_CARDS:
        raise ValueError(f"no card has id {card!r}")
    return TOKENS[card]


def parse_card(token: str) -> int:
    """The card ``token`` names; ValueError naming the token otherwise."""
    try:
        return _BY_TOKEN[token]
    except (KeyError, TypeError):
        raise ValueError(f"unknown card token {token!r} (S1..S4, H1..H4, C1..C4)") from None


_BY_TOKEN: Final[dict[str, int]] = {t: c for c, t in enumerate(TOKENS)}


class Move:
    """Play one card: ``id`` is the card's id, :meth:`token` its token."""

    __slots__ = ("_token", "id")
    id: int
    _token: str

    def __init__(self, move_id: int) -> None:
        if _SEALED:
            raise TypeError("a Move is made once per id: use Move.of or Move.from_token")
        object.__setattr__(self, "id", move_id)
        object.__setattr__(self, "_token", TOKENS[move_id])

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Move is frozen")

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return Move.of, (self.id,)  # a copy (pickle, deepcopy) is the one value again

    def __repr__(self) -> str:
        return f"Move({self._token!r})"

    def token(self) -> str:
        return self._token

    @staticmethod
    def of(move_id: int) -> Move:
        """The move with ``move_id``; ValueError for an id that is no move."""
        if isinstance(move_id, bool) or not isinstance(move_id, int):
            raise ValueError(f"no move has id {move_id!r}")
        if not 0 <= move_id < N_CARDS:
            raise ValueError(f"no move has id {move_id}")
        return MOVES[move_id]

    @staticmethod
    def from_token(token: str) -> Move:
        """The move ``token`` names; ValueError naming the token otherwise."""
        card = _BY_TOKEN.get(token) if isinstance(token, str) else None
        if card is None:
            raise ValueError(f"unknown move token {token!r} (a card: S1..S4, H1..H4, C1..C4)")
        return MOVES[card]


_SEALED = False
MOVES: Final[tuple[Move, ...]] = tuple(Move(c) for c in range(N_CARDS))
_SEALED = True
