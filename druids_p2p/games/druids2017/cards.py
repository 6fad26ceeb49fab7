"""Card and move identities as small integers (protocol.md Appendix A lists the cards): every peer
checks every move and search bots run millions of playouts, so a card id indexes tables directly
and a hand is five 12-bit masks. Dealing for local play is here too (the LAN deal is the mental
card table's); its randomness is passed in.
"""

from __future__ import annotations

import random
from typing import Final

# Card and move identities as small integers (protocol.md Appendix A lists the cards): every peer
# checks every move and search bots run millions of playouts, so a card id indexes tables
# directly and a hand is five 12-bit masks.
DOMAINS: Final = "GYRBV"
DOMAIN_NAMES: Final = ("Healing Arts", "Prophecy", "Shape-Shifting", "Astronomy", "Fine Arts")
COLOUR_NAMES: Final = ("green", "yellow", "red", "blue", "violet")
N_DOMAINS: Final = 5
N_VALUES: Final = 12
N_DOMAIN_CARDS: Final = 60
N_CARDS: Final = 65

GAIA: Final = 60
MISTLETOES: Final = (61, 62)
SICKLES: Final = (63, 64)

HAND_SIZE: Final = {3: 15, 4: 14, 5: 13}
MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 5
ROUNDS_PER_GAME: Final = 5

# Move ids: 0..59 play that domain card; GAIA_DARK + d (GAIA_LIGHT + d) leads Gaia naming domain d;
# PILE + d removes pile d; GAIA_BARE, Gaia naming nothing, is never legal (kept to say why).
GAIA_DARK: Final = 60
GAIA_LIGHT: Final = 65
PLAY_MISTLETOE: Final = 70
PLAY_SICKLE: Final = 71
PILE: Final = 72
GAIA_BARE: Final = 77
N_MOVES: Final = 78


def card_domain(card: int) -> int:
    """Domain index of a domain card, -1 for the special cards."""
    return card // N_VALUES if card < N_DOMAIN_CARDS else -1


def card_value(card: int) -> int:
    """Face value 1..12 of a domain card, 0 for the special cards."""
    return card % N_VALUES + 1 if card < N_DOMAIN_CARDS else 0


def domain_card(domain: int, value: int) -> int:
    return domain * N_VALUES + value - 1


def is_mistletoe(card: int) -> bool:
    return card in MISTLETOES


def is_sickle(card: int) -> bool:
    return card in SICKLES


def move_for_card(card: int) -> int:
    """The move that plays ``card`` (Gaia needs a domain: it maps to the never-legal bare lead)."""
    if card < N_DOMAIN_CARDS:
        return card
    if card == GAIA:
        return GAIA_BARE
    return PLAY_MISTLETOE if card in MISTLETOES else PLAY_SICKLE


def cards_for_move(move: int) -> tuple[int, ...]:
    """The physical cards a move may put on the table: what the deck layer must open for it."""
    if move < N_DOMAIN_CARDS:
        return (move,)
    if GAIA_DARK <= move < PLAY_MISTLETOE or move == GAIA_BARE:
        return (GAIA,)
    if move == PLAY_MISTLETOE:
        return MISTLETOES
    if move == PLAY_SICKLE:
        return SICKLES
    return ()


def is_gaia_move(move: int) -> bool:
    return GAIA_DARK <= move < PLAY_MISTLETOE


def is_pile_move(move: int) -> bool:
    return PILE <= move < GAIA_BARE


# Dealing for local play (the LAN deal is the mental-card protocol in ``druids_p2p.deck``).
def deal(rng: random.Random, players: int) -> list[list[int]]:
    """Deal hands with Gaia always dealt, to a uniformly random seat, the rest uniformly random.

    As the physical game does (Gaia shuffled into the dealt part), pick ``k - 1`` of the other 64
    cards uniformly, then give Gaia a uniformly random one of the ``k`` dealt slots.
    """
    if players not in HAND_SIZE:
        raise ValueError(f"Druids is for 3 to 5 players, not {players}")
    size = HAND_SIZE[players]
    dealt = players * size
    others = [c for c in range(N_CARDS) if c != GAIA]
    for i in range(dealt - 1):
        j = i + rng.randrange(len(others) - i)
        others[i], others[j] = others[j], others[i]
    cards = others[: dealt - 1]
    cards.insert(rng.randrange(dealt), GAIA)
    return [sorted(cards[s * size : (s + 1) * size]) for s in range(players)]


def deal_from_seed(seed: int | str | bytes, players: int) -> list[list[int]]:
    """Deal from an explicit seed: the same seed always gives the same hands."""
    return deal(random.Random(seed), players)
