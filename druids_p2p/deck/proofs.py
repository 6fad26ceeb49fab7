"""Non-interactive Schnorr and Chaum-Pedersen proofs in the (e, s) form, 64 bytes (deck.md §8).

They stop a rogue key share and convict a wrong decryption share on arrival; challenges bind
the table, round and seats, and nonces are deterministic (RFC 6979 §3.2, RFC 8032 §5.1.6).
Batched DLEQ: Henry–Goldberg; Davidson et al., "Privacy Pass", PoPETs 2018, §3.2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from druids_p2p.deck import group
from druids_p2p.deck.encoding import (
    INT_PAIR,
    TAG_DEALS_BATCH,
    TAG_DEALS_DLEQ,
    TAG_DEALS_WEIGHT,
    TAG_KEY_POK,
    TAG_NONCE,
    TAG_OPEN_DLEQ,
    TAG_SHARES_BATCH,
    TAG_SHARES_COEF,
    TAG_SHARES_DLEQ,
    Item,
    encode,
    encode_int,
    encode_points,
    hash_encoded_to_scalar,
    hash_to_scalar,
    sha512,
    xof,
)
from druids_p2p.deck.errors import GroupError
from druids_p2p.deck.lincomb import sum_products
from druids_p2p.deck.params import DeckParams

Proof = tuple[bytes, bytes]
"""(e, s): the challenge and the response, two canonical scalars."""
MAX_ATTEMPTS = 64
"""Attempts before giving up; each fails with probability about 2^-250 (a zero scalar)."""


@dataclass(frozen=True, slots=True)
class Statement:
    """What a proof's challenge hashes before the prover's commitments: its tag and every public
    input, context included. The nonce hashes the same, so it covers the whole statement.

    ``encoded`` is ``enc(tag, items…)``, written once for the nonce and the challenge (a
    statement made by this module passes it in, built from its context's encoded start)."""

    tag: bytes
    items: tuple[Item, ...]
    encoded: bytes = b""

    def __post_init__(self) -> None:
        if not self.encoded:
            object.__setattr__(self, "encoded", encode(self.tag, *self.items))

    def challenge(self, *commitments: bytes) -> bytes:
        """e = H2S(tag, items…, commitments…); every commitment is a point (32 bytes)."""
        return hash_encoded_to_scalar(self.encoded + encode_points(*commitments))


_NONCE_HEAD = encode(TAG_NONCE)


def nonce(secret: bytes, statement: Statement, attempt: int = 0) -> bytes:
    """w = H2S("druids-p2p/v1 deck nonce", x, tag, items…, attempt) (deck.md §8)."""
    head = _NONCE_HEAD + encode_points(secret)
    return hash_encoded_to_scalar(head + statement.encoded + encode_int(attempt))


def _prove(
    secret: bytes, statement: Statement, commit: Callable[[bytes], tuple[bytes, ...]]
) -> Proof:
    """The first attempt whose nonce, challenge and response are all non-zero."""
    for attempt in range(MAX_ATTEMPTS):
        w = nonce(secret, statement, attempt)
        if group.is_zero_scalar(w):
            continue
        e = statement.challenge(*commit(w))
        s = _respond(w, e, secret)
        if _usable(e, s):
            return e, s
    raise GroupError(f"no usable proof in {MAX_ATTEMPTS} attempts")


def _respond(w: bytes, e: bytes, secret: bytes) -> bytes:
    out: bytes = group.scalar_add(w, group.scalar_mul(e, secret))
    return out


_ZERO = bytes(32)


def _int(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def _usable(e: bytes, s: bytes) -> bool:
    return e != _ZERO and s != _ZERO


def _commit_point(s: bytes, e: bytes, base: bytes, public: bytes) -> bytes:
    """s*base - e*public: the prover's commitment recomputed from (e, s)."""
    out: bytes = group.sub(group.mul(s, base), group.mul(e, public))
    return out


def _commit_base(s: bytes, e: bytes, public: bytes) -> bytes:
    out: bytes = group.sub(group.base_mul(s), group.mul(e, public))
    return out


# --------------------------------------------------------------------------- Schnorr (key share)
def key_statement(params: DeckParams, seat: int, key: bytes) -> Statement:
    return Statement(TAG_KEY_POK, (params.table_id, params.round_no, seat, key))


def prove_key(params: DeckParams, seat: int, secret: bytes, key: bytes) -> Proof:
    return _prove(secret, key_statement(params, seat, key), lambda w: (group.base_mul(w),))


def verify_key(params: DeckParams, seat: int, key: bytes, proof: Proof) -> bool:
    e, s = proof
    if not _usable(e, s):
        return False
    try:
        r = _commit_base(s, e, key)
    except GroupError:
        return False
    return key_statement(params, seat, key).challenge(r) == e


# --------------------------------------------------------------------------- single DLEQ (open)
_OPEN_HEAD = encode(TAG_OPEN_DLEQ)


def open_statement(
    params: DeckParams, seat: int, position: int, key: bytes, a: bytes, d: bytes
) -> Statement:
    """Encoded from the context's encoded start, the two integers in one pack and the three
    points (32 bytes each, checked or computed): the bytes ``encode`` gives, in a few calls."""
    encoded = (
        _OPEN_HEAD + params.encoded + INT_PAIR.pack(8, seat, 8, position) + encode_points(key, a, d)
    )
    items = (params.table_id, params.round_no, seat, position, key, a, d)
    return Statement(TAG_OPEN_DLEQ, items, encoded)


def prove_open(
    params: DeckParams,
    seat: int,
    position: int,
    secret: bytes,
    key: bytes,
    a: bytes,
    d: bytes,
) -> Proof:
    statement = open_statement(params, seat, position, key, a, d)
    return _prove(secret, statement, lambda w: (group.base_mul(w), group.mul(w, a)))


def verify_open(
    params: DeckParams, seat: int, position: int, key: bytes, a: bytes, d: bytes, proof: Proof
) -> bool:
    e, s = proof
    if not _usable(e, s):
        return False
    mul, sub = group.mul, group.sub
    try:  # (the commitments of _commit_base and _commit_point, without a call for each)
        t1 = sub(group.base_mul(s), mul(e, key))
        t2 = sub(mul(s, a), mul(e, d))
    except GroupError:
        return False
    return open_statement(params, seat, position, key, a, d).challenge(t1, t2) == e


# --------------------------------------------------------------------------- batched DLEQ (shares)
def batch_digest(
    params: DeckParams,
    sender: int,
    recipient: int,
    key: bytes,
    a_list: list[bytes],
    d_list: list[bytes],
) -> bytes:
    """Hash of the whole batch statement; fixes the coefficients and enters the challenge."""
    return sha512(
        TAG_SHARES_BATCH,
        params.table_id,
        params.round_no,
        sender,
        recipient,
        key,
        b"".join(a_list),
        b"".join(d_list),
    )


def batch_statement(
    params: DeckParams,
    sender: int,
    recipient: int,
    key: bytes,
    a_list: list[bytes],
    d_list: list[bytes],
) -> Statement:
    """The challenge's statement is the digest of the whole batch (one item)."""
    return _digest_statement(batch_digest(params, sender, recipient, key, a_list, d_list))


def _digest_statement(digest: bytes) -> Statement:
    return Statement(TAG_SHARES_DLEQ, (digest,))


def batch_coefficients(digest: bytes, count: int) -> list[bytes]:
    """c_t: 64-byte chunks of SHAKE-256(digest) reduced mod l (zero has probability ~2^-252)."""
    stream = xof(TAG_SHARES_COEF, 64 * count, digest)
    reduce = group.scalar_from_wide
    return [reduce(stream[64 * t : 64 * t + 64]) for t in range(count)]


def prove_batch(
    params: DeckParams,
    sender: int,
    recipient: int,
    secret: bytes,
    key: bytes,
    a_list: list[bytes],
    d_list: list[bytes],
) -> Proof:
    """Costs one base and len(a_list) generic multiplications: T2 = sum (w*c_t)*A_t."""
    digest = batch_digest(params, sender, recipient, key, a_list, d_list)
    return _prove_combined(secret, _digest_statement(digest), digest, a_list)


def verify_batch(
    params: DeckParams,
    sender: int,
    recipient: int,
    key: bytes,
    a_list: list[bytes],
    d_list: list[bytes],
    proof: Proof,
) -> bool:
    """Costs 2*len + 1 generic and one base multiplication: T2 = sum (s*c_t)*A_t + (-e*c_t)*D_t."""
    if len(a_list) != len(d_list) or not a_list:
        return False
    digest = batch_digest(params, sender, recipient, key, a_list, d_list)
    return _verify_combined(_digest_statement(digest), digest, key, a_list, d_list, proof)


def _prove_combined(
    secret: bytes, statement: Statement, digest: bytes, a_list: list[bytes]
) -> Proof:
    """A Chaum-Pedersen proof on A* = sum c_t*A_t, the c_t read from ``digest``."""
    coefs = [_int(c) for c in batch_coefficients(digest, len(a_list))]

    def commit(w: bytes) -> tuple[bytes, bytes]:
        w_int = _int(w)
        scalars = [w_int * c for c in coefs]
        return group.base_mul(w), sum_products(group.IDENTITY, scalars, a_list, split=True)

    return _prove(secret, statement, commit)


def _verify_combined(
    statement: Statement,
    digest: bytes,
    key: bytes,
    a_list: list[bytes],
    d_list: list[bytes],
    proof: Proof,
) -> bool:
    """Checks the proof on A* = sum c_t*A_t and D* = sum c_t*D_t without forming them."""
    e, s = proof
    if not _usable(e, s):
        return False
    coefs = [_int(c) for c in batch_coefficients(digest, len(a_list))]
    s_int, e_int = _int(s), _int(e)
    try:
        t1 = _commit_base(s, e, key)
    except GroupError:
        return False
    # T2 = Σ (s·c_t)·A_t − (e·c_t)·D_t: one sum, half of it on the helper thread (every seat
    # waits for this check before the deal goes on; lincomb.py)
    scalars = [s_int * c for c in coefs] + [-e_int * c for c in coefs]
    t2 = sum_products(group.IDENTITY, scalars, [*a_list, *d_list], split=True)
    return statement.challenge(t1, t2) == e


# --------------------------------------------------------------------------- a table_shares
def shares_digest(
    params: DeckParams,
    seat: int,
    key: bytes,
    positions: list[int],
    a_list: list[bytes],
    d_list: list[bytes],
) -> bytes:
    """Hash of a ``table_shares``' whole statement (deck.md §8.3): its context (table, game,
    deals operation, deck), sender, key, every position (u64be each) with its A and d."""
    return sha512(
        TAG_DEALS_BATCH,
        params.table_id,
        params.round_no,
        seat,
        key,
        b"".join(p.to_bytes(8, "big") for p in positions),
        b"".join(a_list),
        b"".join(d_list),
    )


def shares_statement(
    params: DeckParams,
    seat: int,
    key: bytes,
    positions: list[int],
    a_list: list[bytes],
    d_list: list[bytes],
) -> Statement:
    """The composite proof's statement: its tag and the digest (one item)."""
    return Statement(TAG_DEALS_DLEQ, (shares_digest(params, seat, key, positions, a_list, d_list),))


SharesProof = tuple[bytes, bytes, bytes]
"""A ``table_shares``' composite proof ``(e, s, T2)``: the challenge, the response and the second
commitment, which it carries so that the equation on ``T2`` of every ``table_shares`` of a deals
is checked in one batch (deck.md §8.3)."""


def prove_shares(
    params: DeckParams,
    seat: int,
    secret: bytes,
    key: bytes,
    positions: list[int],
    a_list: list[bytes],
    d_list: list[bytes],
) -> SharesProof:
    """One proof that every d_t = x*A_t with the x of ``key``: one base and len generic
    multiplications (a proof a share would cost two each)."""
    statement = shares_statement(params, seat, key, positions, a_list, d_list)
    (digest,) = statement.items
    assert isinstance(digest, bytes)
    coefs = [_int(c) for c in batch_coefficients(digest, len(a_list))]
    made: list[bytes] = []

    def commit(w: bytes) -> tuple[bytes, bytes]:
        w_int = _int(w)
        t2 = sum_products(group.IDENTITY, [w_int * c for c in coefs], a_list, split=True)
        made.append(t2)
        return group.base_mul(w), t2

    e, s = _prove(secret, statement, commit)
    return e, s, made[-1]


@dataclass(frozen=True, slots=True)
class SharesTerms:
    """One ``table_shares``' part of its deals' batch equation (deck.md §8.3):
    ``ρ·(s·A* − e·D* − T2) = Σ_t alphas[t]·A_t + rest``, the ``A_t`` those of its positions in
    order. ``rest`` is computed once, when the message is checked; the ``A_t`` terms wait for
    the other seats' (the same points: one multiplication each for all of them)."""

    alphas: tuple[int, ...]
    """ρ·s·c_t for each of its positions (integers, not reduced)."""
    rest: bytes
    """Σ_t (−ρ·e·c_t)·d_t − ρ·T2."""


def shares_challenge_holds(
    params: DeckParams,
    seat: int,
    key: bytes,
    positions: list[int],
    a_list: list[bytes],
    d_list: list[bytes],
    proof: SharesProof,
) -> bool:
    """The check of a ``table_shares``' proof as it arrives: the lists alike and not empty,
    ``e`` and ``s`` non-zero, and ``e = H2S(deals-dleq, digest, s·B − e·h, T2)``. One base and one
    generic multiplication; the equation on ``T2`` is :func:`shares_batch_holds`'."""
    e, s, t2 = proof
    if not (len(positions) == len(a_list) == len(d_list)) or not a_list or not _usable(e, s):
        return False
    try:
        t1 = _commit_base(s, e, key)
    except GroupError:
        return False
    return shares_statement(params, seat, key, positions, a_list, d_list).challenge(t1, t2) == e


def shares_terms(
    params: DeckParams,
    seat: int,
    key: bytes,
    positions: list[int],
    a_list: list[bytes],
    d_list: list[bytes],
    proof: SharesProof,
) -> SharesTerms:
    """The message's part of the batch, weighted by ``ρ = H2S(deals-weight, digest, T2, e, s)``
    (hashed from all it sent, so no seat can pick an error that cancels another's): ``len + 1``
    generic multiplications."""
    e, s, t2 = proof
    digest = shares_digest(params, seat, key, positions, a_list, d_list)
    coefs = [_int(c) for c in batch_coefficients(digest, len(a_list))]
    rho = _int(hash_to_scalar(TAG_DEALS_WEIGHT, digest, t2, e, s))
    weight_d = -rho * _int(e)
    rest = sum_products(
        group.IDENTITY, [weight_d * c for c in coefs] + [-rho], [*d_list, t2], split=True
    )
    weight_a = rho * _int(s)
    return SharesTerms(tuple(weight_a * c for c in coefs), rest)


def shares_batch_holds(parts: list[tuple[list[bytes], SharesTerms]]) -> bool:
    """True iff ``Σ ρ_j·(s_j·A*_j − e_j·D*_j − T2_j)`` over every ``(A list, terms)`` is the
    identity: each ``A_t`` multiplied once for every message that has a share of it."""
    merged: dict[bytes, int] = {}
    total = group.IDENTITY
    for a_list, terms in parts:
        for a, alpha in zip(a_list, terms.alphas, strict=True):
            merged[a] = merged.get(a, 0) + alpha
        total = terms.rest if total == group.IDENTITY else group.add(total, terms.rest)
    total = sum_products(total, list(merged.values()), list(merged), split=True)
    return total == group.IDENTITY


def verify_shares(
    params: DeckParams,
    seat: int,
    key: bytes,
    positions: list[int],
    a_list: list[bytes],
    d_list: list[bytes],
    proof: SharesProof,
) -> bool:
    """Both checks of one ``table_shares``' proof, alone: one base and ``2·len + 2`` generic
    multiplications. False for lists of different lengths or none."""
    if not shares_challenge_holds(params, seat, key, positions, a_list, d_list, proof):
        return False
    terms = shares_terms(params, seat, key, positions, a_list, d_list, proof)
    return shares_batch_holds([(a_list, terms)])
