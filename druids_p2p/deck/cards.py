"""Card ids as group elements: the plaintext alphabet of the deck.

A card is the point M_i = from_hash(SHA-512(enc("druids-p2p/v1 card", i))), so nobody knows a
discrete-log relation between two cards (a relation would let a cheater shift one card into
another). Decryption returns a point; the table below is the only way back to an id, and a point
missing from it is evidence of tampering, never a card.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from druids_p2p.deck.encoding import TAG_CARD
from druids_p2p.deck.group import IDENTITY, hash_to_point


@functools.lru_cache(maxsize=8)
def card_points(count: int) -> tuple[bytes, ...]:
    """Points of cards 0..count-1 (cached: they are public constants)."""
    points = tuple(hash_to_point(TAG_CARD, i) for i in range(count))
    if len(set(points)) != count or IDENTITY in points:  # pragma: no cover - a SHA-512 collision
        raise RuntimeError("card points collide")
    return points


@functools.lru_cache(maxsize=8)
def card_table(count: int) -> Mapping[bytes, int]:
    """Point -> card id, for decryption by lookup."""
    return {p: i for i, p in enumerate(card_points(count))}
