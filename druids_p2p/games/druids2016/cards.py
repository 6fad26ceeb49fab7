"""The cards a table of two peers draws Druids (2016)'s setup with: nothing of the game is a
card, so these stand for its chance and its secret choices (docs/protocol/deck.md §16).

* 0-4, the five **tile cards** ``C1 C2 M F R``: shuffled with the two seat cards and turned,
  their order is the tiles' on the start squares (c4, a3, a5, e3, e5 on the default board);
* 5-6, the **seat cards** ``P0 P1``: of the two, the one turned first names the player at row
  1, who moves first;
* 7-14, the **square cards** ``P0:1`` .. ``P1:4``: player ``p``'s ``k``-th free back-row square
  (its back row but the Temple, from column a to e), dealt to ``p`` alone; two of them played
  face down are its placement, committed before either player's is opened.
"""

from __future__ import annotations

from typing import Final

from druids_p2p.games.druids2016.setup import TILE_SET

TILE_CARDS: Final = tuple(range(len(TILE_SET)))
SEAT_CARDS: Final = (5, 6)
SETUP_CARDS: Final = (*TILE_CARDS, *SEAT_CARDS)
"""The setup deck: shuffled by both peers, then every card turned face up."""
SLOTS: Final = 4
"""Free squares on a back row (five squares, one the Temple)."""
SQUARE_BASE: Final = len(SETUP_CARDS)
N_CARDS: Final = SQUARE_BASE + 2 * SLOTS
TILE_TOKENS: Final = ("C1", "C2", "M", "F", "R")
TOKENS: Final[tuple[str, ...]] = (
    *TILE_TOKENS,
    "P0",
    "P1",
    *(f"P{p}:{k + 1}" for p in (0, 1) for k in range(SLOTS)),
)
_BY_TOKEN: Final = {t: c for c, t in enumerate(TOKENS)}


def tile_kind(card: int) -> str:
    """The kind (C, M, F, R) of a tile card."""
    return TILE_SET[card]


def square_card(player: int, slot: int) -> int:
    """The card of ``player``'s ``slot``-th free back-row square (0-3)."""
    return SQUARE_BASE + SLOTS * player + slot


def square_cards(player: int) -> tuple[int, ...]:
    return tuple(square_card(player, k) for k in range(SLOTS))


def slot_of(card: int) -> tuple[int, int]:
    """(player, slot) of a square card; ValueError for another card."""
    if not SQUARE_BASE <= card < N_CARDS:
        raise ValueError(f"card {card} is no square card")
    return divmod(card - SQUARE_BASE, SLOTS)


def format_card(card: int) -> str:
    """The card's token; ValueError for an id that is no card."""
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < N_CARDS:
        raise ValueError(f"no card has id {card!r}")
    return TOKENS[card]


def parse_card(token: str) -> int:
    """The card ``token`` names; ValueError naming the token otherwise."""
    card = _BY_TOKEN.get(token) if isinstance(token, str) else None
    if card is None:
        raise ValueError(f"unknown card token {token!r} (C1 C2 M F R, P0 P1, P0:1 .. P1:4)")
    return card
