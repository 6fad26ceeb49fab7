"""One seat's shuffle step, derived entirely from its secret 32-byte seed.

Determinism is the point: a seat commits to SHA-256(seed) before any key is known, the seed is
revealed at the end of the round, and everybody recomputes the step bit for bit. So a shuffle that
drops, duplicates or replaces a card is caught and blamed without any zero-knowledge shuffle proof.
"""

from __future__ import annotations

import hashlib

from druids_p2p.deck import group
from druids_p2p.deck.elgamal import Deck
from druids_p2p.deck.encoding import TAG_SHUFFLE_PERM, TAG_SHUFFLE_RAND, encode
from druids_p2p.deck.params import DeckParams


class ByteStream:
    """SHAKE-256 read as an endless byte stream (each refill re-squeezes a longer prefix)."""

    def __init__(self, tag: bytes, *items: bytes | int, initial: int = 256) -> None:
        self._xof = hashlib.shake_256(encode(tag, *items))
        self._size = max(initial, 64)
        self._buf = self._xof.digest(self._size)
        self._pos = 0

    def read(self, count: int) -> bytes:
        while self._pos + count > self._size:
            self._size *= 2
            self._buf = self._xof.digest(self._size)
        out = self._buf[self._pos : self._pos + count]
        self._pos += count
        return out


def uniform_below(stream: ByteStream, bound: int) -> int:
    """Uniform integer in [0, bound) by masked rejection sampling (no modulo bias).

    Reads ceil(bits/8) bytes big-endian, keeps the low ``bits`` bits, where bits is the bit length
    of bound-1, and retries while the value is >= bound (acceptance probability above 1/2).
    """
    if bound <= 1:
        return 0
    bits = (bound - 1).bit_length()
    width = (bits + 7) // 8
    mask = (1 << bits) - 1
    while True:
        value = int.from_bytes(stream.read(width), "big") & mask
        if value < bound:
            return value


def fisher_yates(stream: ByteStream, size: int) -> list[int]:
    """A uniform permutation of range(size): for i = size-1 down to 1 swap i with U[0, i]."""
    perm = list(range(size))
    for i in range(size - 1, 0, -1):
        j = uniform_below(stream, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _stream_items(
    params: DeckParams, seat: int, pass_no: int, seed: bytes
) -> tuple[bytes | int, ...]:
    return (params.table_id, params.round_no, seat, pass_no, seed)


def derive_permutation(
    params: DeckParams, seat: int, pass_no: int, seed: bytes, size: int
) -> list[int]:
    """Output position t takes input position perm[t]."""
    stream = ByteStream(
        TAG_SHUFFLE_PERM, *_stream_items(params, seat, pass_no, seed), initial=4 * size
    )
    return fisher_yates(stream, size)


def derive_rerandomizers(
    params: DeckParams, seat: int, pass_no: int, seed: bytes, count: int
) -> list[bytes]:
    """Non-zero scalars r_t from 64-byte chunks reduced mod l (a zero chunk is skipped)."""
    stream = ByteStream(
        TAG_SHUFFLE_RAND, *_stream_items(params, seat, pass_no, seed), initial=64 * count
    )
    out: list[bytes] = []
    while len(out) < count:
        r = group.scalar_from_wide(stream.read(64))
        if not group.is_zero_scalar(r):
            out.append(r)
    return out


def shuffle_step(
    params: DeckParams, seat: int, pass_no: int, seed: bytes, deck: Deck, joint_key: bytes
) -> Deck:
    """Permute and re-randomise ``deck``; the same inputs always give the same output bytes."""
    out_len = params.output_len(pass_no, seat)
    perm = derive_permutation(params, seat, pass_no, seed, len(deck))
    rs = derive_rerandomizers(params, seat, pass_no, seed, out_len)
    add, base_mul, mul = group.add, group.base_mul, group.mul
    a_in, c_in = deck.a, deck.c
    a_out: list[bytes] = []
    c_out: list[bytes] = []
    for t in range(out_len):
        src = perm[t]
        r = rs[t]
        a_out.append(add(a_in[src], base_mul(r)))
        c_out.append(add(c_in[src], mul(r, joint_key)))
    return Deck(tuple(a_out), tuple(c_out))
