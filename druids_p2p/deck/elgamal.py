"""ElGamal on card points (not "exponential" ElGamal) under the joint key H = sum of key shares.

A ciphertext is (A, C) = (r*B, M + r*H). Nobody knows the joint secret x = sum x_i, so a card is
read only when every seat contributes its share x_i*A; the seat receiving the card keeps its own
share to itself, which is exactly what makes the card private.
"""

from __future__ import annotations

from dataclasses import dataclass

from druids_p2p.deck import group
from druids_p2p.deck.cards import card_points
from druids_p2p.deck.params import DeckParams


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
