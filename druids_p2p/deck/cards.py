"""Card ids as group elements and their ElGamal encryption under the joint key (deck.md §3): a card
is a hash-to-point, so nobody knows a discrete-log relation between two cards, and it is read
only when every seat contributes its share.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from druids_p2p.deck import group
from druids_p2p.deck.encoding import TAG_CARD
from druids_p2p.deck.group import IDENTITY, hash_to_point
from druids_p2p.deck.params import DeckParams


# Card ids as group elements: the plaintext alphabet of the deck.
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


# ElGamal on card points (not "exponential" ElGamal) under the joint key H = sum of key shares.
@dataclass(frozen=True, slots=True)
class Deck:
    """A sequence of ciphertexts, kept as two parallel tuples (the message layout)."""

    a: tuple[bytes, ...]
    c: tuple[bytes, ...]

    def __len__(self) -> int:
        return len(self.a)

    def head(self, count: int) -> Deck:
        return Deck(self.a[:count], self.c[:count])


def public_encryptions(params: DeckParams, cards: tuple[int, ...], joint_key: bytes) -> Deck:
    """The public starting ciphertexts (B, M + H): randomness 1, never 0 (A would be the identity).

    Anyone can recompute them, so the starting deck needs no message and no trust.
    """
    points = card_points(params.num_cards)
    add = group.add
    return Deck(
        (group.BASE,) * len(cards),
        tuple(add(points[card], joint_key) for card in cards),
    )


def final_deck(params: DeckParams, last_shuffle: Deck, joint_key: bytes) -> Deck:
    """The first k-|R| ciphertexts of the last shuffle followed by the required cards' public
    encryptions: the k dealt positions."""
    kept = last_shuffle.head(params.kept)
    extra = public_encryptions(params, params.required_sorted, joint_key)
    return Deck(kept.a + extra.a, kept.c + extra.c)


def rerandomize(a: bytes, c: bytes, r: bytes, joint_key: bytes) -> tuple[bytes, bytes]:
    """(A + r*B, C + r*H): same card, unlinkable to the input without knowing r."""
    return group.add(a, group.base_mul(r)), group.add(c, group.mul(r, joint_key))


def decrypt_with(c: bytes, shares: list[bytes]) -> bytes:
    """C minus every share x_i*A: the card point if the shares cover the whole joint key."""
    total = group.sum_points(shares)
    out: bytes = group.sub(c, total)
    return out
