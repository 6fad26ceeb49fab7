"""Card identities of Druids (Colovini, 2004) as small integers, and their text tokens.

Integers because every peer checks every move and bots play many games; the token of a card is
what the notation and the views print.

Cards (90 physical cards, ids 0..89):
  * 0..53 gems: ``kind * 9 + (number - 1)``, kinds 0..5 = ``K W R B G Y`` (token ``K7``);
  * 54..65 mystic places: ``54 + series * 6 + kind``, series 0..1 (token ``@K1``, ``@K2``);
  * 66..89 servants: ``66 + owner * 6 + (value - 1)``, owner = seat 0..3, values 1..6 (token
    ``S0:3`` = seat 0's servant of value 3). Seat ``s`` owns series ``s``; the series of seats
    that are not at the table stay in the box.

A gem's number plays no part in any rule (ruling "Components"); it only keeps gems distinct.
"""

from __future__ import annotations

from typing import Final

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
