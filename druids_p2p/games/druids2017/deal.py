"""Dealing for local play (the LAN deal is the mental-card protocol in ``druids_p2p.deck``).

Randomness is passed in (a seed or a ``random.Random``) so the engine stays deterministic.
"""

from __future__ import annotations

import random

from druids_p2p.games.druids2017.cards import GAIA, HAND_SIZE, N_CARDS


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
