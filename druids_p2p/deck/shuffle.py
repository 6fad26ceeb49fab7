"""One seat's shuffle step, derived entirely from its secret 32-byte seed (deck.md §7).

Deterministic so that a restarted peer re-sends identical bytes and the audit recomputes the
step, proof included; the seed is derived from the seat's secret and the pass's whole input
(deck.md §9), so the deal stays uniform with one honest seat (§11.4).
"""

from __future__ import annotations

from druids_p2p.deck import group
from druids_p2p.deck.cards import Deck
from druids_p2p.deck.encoding import (
    TAG_SHUFFLE_PERM,
    TAG_SHUFFLE_RAND,
    TAG_TABLE_SHUFFLE_SEED,
    ByteStream,
    sha256,
)
from druids_p2p.deck.lincomb import in_background
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.shuffle_proof import ShuffleProof, prove_shuffle

__all__ = [
    "ByteStream",
    "derive_permutation",
    "derive_rerandomizers",
    "fisher_yates",
    "shuffle_output",
    "shuffle_step",
    "statement_seed",
    "uniform_below",
]


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


def statement_seed(
    secret: bytes, params: DeckParams, seat: int, pass_no: int, deck: Deck, joint_key: bytes
) -> bytes:
    """The seed of a shuffle nobody committed to in advance (the card table's, deck.md §9):
    SHA-256 of the seat's secret and the shuffle's whole statement. The same input deck gives the
    same pass, proof included; any other input another permutation, re-randomisers and proof
    randomness, so no randomness ever serves two statements (RFC 6979's rule for nonces)."""
    a, c = b"".join(deck.a), b"".join(deck.c)
    items = (params.table_id, params.round_no, seat, pass_no, joint_key, a, c)
    return sha256(TAG_TABLE_SHUFFLE_SEED, secret, *items)


def shuffle_output(
    params: DeckParams, seat: int, pass_no: int, seed: bytes, deck: Deck, joint_key: bytes
) -> tuple[Deck, list[int], list[bytes]]:
    """Permute and re-randomise ``deck`` (deck.md §7), returning the permutation and the
    re-randomisers the proof needs: output t is input perm[t] re-randomised by rs[t]."""
    size = len(deck)
    perm = derive_permutation(params, seat, pass_no, seed, size)
    rs = derive_rerandomizers(params, seat, pass_no, seed, size)
    # The C side (a generic multiplication each) on the helper thread, the A side here.
    c_out = in_background(_reencrypt_c, deck.c, perm, rs, joint_key)
    add, base_mul, scalar_add = group.add, group.base_mul, group.scalar_add
    a_in, base, one = deck.a, group.BASE, group.ONE
    a_out: list[bytes] = []
    for t in range(size):
        a, r = a_in[perm[t]], rs[t]
        if a == base and not group.is_zero_scalar(shifted := scalar_add(one, r)):
            a_out.append(base_mul(shifted))  # the public start: B + r·B = (1 + r)·B, one call
        else:
            a_out.append(add(a, base_mul(r)))
    return Deck(tuple(a_out), c_out.result()), perm, rs


def _reencrypt_c(
    c_in: tuple[bytes, ...], perm: list[int], rs: list[bytes], joint_key: bytes
) -> tuple[bytes, ...]:
    add, mul = group.add, group.mul
    return tuple(add(c_in[src], mul(r, joint_key)) for src, r in zip(perm, rs, strict=True))


def shuffle_step(
    params: DeckParams, seat: int, pass_no: int, seed: bytes, deck: Deck, joint_key: bytes
) -> tuple[Deck, ShuffleProof]:
    """Shuffle ``deck`` and prove it (deck.md §7, §7.1); the same inputs always give the same
    bytes, so the audit can recompute both from the revealed seed."""
    out, perm, rs = shuffle_output(params, seat, pass_no, seed, deck, joint_key)
    proof = prove_shuffle(params, seat, pass_no, seed, joint_key, deck, out, perm, rs)
    return out, proof
