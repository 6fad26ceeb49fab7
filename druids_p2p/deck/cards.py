"""Card ids as group elements and their ElGamal encryption under the joint key (deck.md §3): card i
is (i + 1)·B, so a public encryption (B, (i + 1)·B + H) is a known multiple of B plus H and a
shuffle's batch check multiplies by it for free; it is read only when every seat contributes its
share.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from druids_p2p.deck import group
from druids_p2p.deck.group import IDENTITY
from druids_p2p.deck.params import DeckParams


# Card ids as group elements: the plaintext alphabet of the deck.
@functools.lru_cache(maxsize=8)
def card_points(count: int) -> tuple[bytes, ...]:
    """Points of cards 0..count-1, card i being (i + 1)·B (cached: they are public constants).
    Their discrete logs are public, which costs no privacy (an ElGamal plaintext's encoding is
    not secret, deck.md §11.1) and lets :func:`public_sides` name a public encryption's
    C side as a multiple of B plus H."""
    points = tuple(group.base_mul((i + 1).to_bytes(32, "little")) for i in range(count))
    if len(set(points)) != count or IDENTITY in points:  # pragma: no cover - count >= l
        raise RuntimeError("card points collide")
    return points


@functools.lru_cache(maxsize=8)
def card_table(count: int) -> Mapping[bytes, int]:
    """Point -> card id, for decryption by lookup."""
    return {p: i for i, p in enumerate(card_points(count))}


def public_sides(count: int, joint_key: bytes) -> tuple[bytes, ...]:
    """The C side M_i + H of each card's public encryption (B, M_i + H) under ``joint_key``:
    what a new deck or a returned card holds (a table makes them once: ``TableState.public``)."""
    add = group.add
    return tuple(add(m, joint_key) for m in card_points(count))


# ElGamal under the joint key H = sum of key shares, on card points read back by a lookup in a
# table of N points (never a discrete log).
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
    points, add = card_points(params.num_cards), group.add
    return Deck((group.BASE,) * len(cards), tuple(add(points[card], joint_key) for card in cards))


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
