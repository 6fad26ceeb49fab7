"""A zero-knowledge proof that a shuffle is a permutation and re-encryption of its input.

Terelius–Wikström (AFRICACRYPT 2010), as Haenni et al., FC 2017 Workshops, LNCS 10323, Alg. 4.4–4.7,
with the product of the committed challenges shown by Bayer–Groth's single value product argument
(EUROCRYPT 2012, §5.3) over the same generators instead of a commitment chain: two points a proof
instead of 2N, so a batch of passes multiplies 3N points a pass instead of 5N. Without it the last
shuffler could substitute cards and know every hand before the first lead. Mapping, challenges,
soundness and cost: deck.md §7.1.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from druids_p2p.deck import group
from druids_p2p.deck.cards import Deck
from druids_p2p.deck.encoding import (
    TAG_SHUFFLE_CHALLENGE,
    TAG_SHUFFLE_GENERATOR,
    TAG_SHUFFLE_PROOF_RAND,
    TAG_SHUFFLE_U,
    TAG_SHUFFLE_U_DIGEST,
    TAG_SHUFFLE_WEIGHT,
    ByteStream,
    encode,
    hash_to_scalar,
)
from druids_p2p.deck.lincomb import in_background, sum_products
from druids_p2p.deck.params import MAX_CARDS, DeckParams

L = group.ORDER
IDENTITY = group.IDENTITY


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """Haenni et al.'s π without its chain (commitments ``t``, responses ``s``, the permutation
    commitment ``c``, named ``perm`` here) and Bayer–Groth's product argument on Σ u_j·c_j: its
    commitments ``d1`` (c_δ) and ``d2`` (c_Δ), responses ``b_tilde`` (b̃) and ``s2`` (s̃); its
    commitment c_d is −t_3 and its responses ã are −s' (deck.md §7.1)."""

    perm: tuple[bytes, ...]
    """c_0..c_{N-1}: Pedersen commitment to the permutation matrix, indexed by input position."""
    t1: bytes
    t3: bytes
    t41: bytes
    t42: bytes
    d1: bytes
    """c_δ = ρ_δ·B + Σ_{i<N-1} (−δ_i·d_{i+1})·h_i."""
    d2: bytes
    """c_Δ = ρ_Δ·B + Σ_{i<N-1} (δ_{i+1} − u'_{i+1}·δ_i − b_i·d_{i+1})·h_i."""
    s1: bytes
    s2: bytes
    """s̃ = c·ρ_Δ + ρ_δ."""
    s3: bytes
    s4: bytes
    s_prime: tuple[bytes, ...]
    b_tilde: tuple[bytes, ...]
    """b̃_i = c·b_i + δ_i, b_i = u'_0·…·u'_i."""


# --------------------------------------------------------------------------- group helpers
def _scalar(value: int) -> bytes:
    return (value % L).to_bytes(32, "little")


def _int(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def _mul(k: int, point: bytes) -> bytes:
    """k·P for any k and any valid encoding, the identity allowed on either side (a verifier
    meets identities an adversary can arrange, e.g. Σc_i = Σh_i; they must not raise)."""
    k %= L
    if k == 0 or point == IDENTITY:
        return IDENTITY
    return group.mul(k.to_bytes(32, "little"), point)


def _base(k: int) -> bytes:
    k %= L
    if k == 0:
        return IDENTITY
    return group.base_mul(k.to_bytes(32, "little"))


_add = group.add
"""(libsodium without rbcl's per-call checks, deck/sodium.py: every point here is computed or
one ``group.is_element`` accepted.)"""


@functools.lru_cache(maxsize=1)
def _all_generators() -> tuple[bytes, ...]:
    gens = tuple(group.hash_to_point(TAG_SHUFFLE_GENERATOR, i) for i in range(MAX_CARDS))
    if len({*gens, group.BASE}) != MAX_CARDS + 1:  # pragma: no cover - collision
        raise RuntimeError("shuffle generators collide")
    return gens


def generators(count: int) -> tuple[bytes, ...]:
    """h_0..h_{count-1}: the generators of the permutation commitment and the product argument's
    vector commitments."""
    return _all_generators()[:count]


# --------------------------------------------------------------------------- Fiat–Shamir
def _statement_digest(
    params: DeckParams,
    seat: int,
    pass_no: int,
    joint_key: bytes,
    source: Deck,
    shuffled: Deck,
    perm_commitment: Sequence[bytes],
) -> bytes:
    """SHA-512 over the context and y = (e, e', c, pk) of Haenni et al. Algorithm 4.6."""
    return hashlib.sha512(
        encode(
            TAG_SHUFFLE_U_DIGEST,
            params.table_id,
            params.round_no,
            seat,
            pass_no,
            joint_key,
            len(source),
            b"".join(source.a),
            b"".join(source.c),
            b"".join(shuffled.a),
            b"".join(shuffled.c),
            b"".join(perm_commitment),
        )
    ).digest()


def _indexed_scalars(tag: bytes, prefix: bytes, count: int) -> list[int]:
    """H2S(tag, prefix, i) for i = 0..count-1, as integers: the same bytes are hashed as by
    :func:`hash_to_scalar`, but the common head ``enc(tag, prefix)`` is hashed once and copied
    (SHA-512 state), and the reduction mod l is done on Python integers."""
    head = hashlib.sha512(encode(tag, prefix))
    out: list[int] = []
    for i in range(count):
        h = head.copy()
        h.update(_INDEX_LEN + i.to_bytes(8, "big"))
        out.append(int.from_bytes(h.digest(), "little") % L)
    return out


_INDEX_LEN = (8).to_bytes(4, "big")
"""The length prefix of an integer item in :func:`encode` (integers are 8 bytes)."""


def _challenges(digest: bytes, count: int) -> list[int]:
    """u_0..u_{N-1} (the paper's GetChallenges): u_i = H2S(tag, digest, i)."""
    return _indexed_scalars(TAG_SHUFFLE_U, digest, count)


def _challenge(digest: bytes, t: tuple[bytes, bytes, bytes, bytes, bytes, bytes]) -> int:
    """c = H2S(tag, digest, t_1, t_3, t_{4,1}, t_{4,2}, c_δ, c_Δ): GetChallenge(y, t)."""
    return _int(hash_to_scalar(TAG_SHUFFLE_CHALLENGE, digest, *t))


def _proof_randomness(
    params: DeckParams, seat: int, pass_no: int, seed: bytes, count: int
) -> list[int]:
    """3N + 3 non-zero scalars from the seed (3N + 4 for N = 1): r (N), ω_1, ω_3, ω_4, ω' (N),
    δ_1..δ_{N-2} (N − 2, none for N <= 2), ρ_δ, ρ_Δ."""
    total = 2 * count + 5 + max(count - 2, 0)
    stream = ByteStream(
        TAG_SHUFFLE_PROOF_RAND,
        params.table_id,
        params.round_no,
        seat,
        pass_no,
        seed,
        initial=64 * total,
    )
    out: list[int] = []
    while len(out) < total:
        r = _int(group.scalar_from_wide(stream.read(64)))
        if r:
            out.append(r)
    return out


# --------------------------------------------------------------------------- prover
def prove_shuffle(
    params: DeckParams,
    seat: int,
    pass_no: int,
    seed: bytes,
    joint_key: bytes,
    source: Deck,
    shuffled: Deck,
    permutation: Sequence[int],
    rerandomizers: Sequence[bytes],
) -> ShuffleProof:
    """GenShuffleProof: ``shuffled[i] = source[permutation[i]] + r'_i·(B, H)``."""
    n = len(source)
    gens = generators(n)
    rand = _proof_randomness(params, seat, pass_no, seed, n)
    w1, w3, w4 = rand[n : n + 3]
    omega_prime = rand[n + 3 : 2 * n + 3]
    inner, rho_delta, rho_cap = rand[2 * n + 3 : -2], rand[-2], rand[-1]

    def sides() -> tuple[bytes, bytes, bytes]:
        """t_3, t_{4,1}, t_{4,2}: they need neither the commitments nor the challenges, so the
        helper thread (lincomb.py) makes them while this one makes those and the product's."""
        t3 = sum_products(_base(w3), omega_prime, gens)
        t41 = sum_products(_mul(-w4, joint_key), omega_prime, shuffled.c)
        if all(a == group.BASE for a in source.a):
            # The public start (every A_i is B, deck.md §7): shuffled.a_i = (1 + r'_i)·B, so
            # Σ ω'_i·A'_i is one base multiplication instead of N generic ones (same point).
            weight = sum(w * (1 + _int(r)) for w, r in zip(omega_prime, rerandomizers, strict=True))
            return t3, t41, _base(weight - w4)
        return t3, t41, sum_products(_base(-w4), omega_prime, shuffled.a)

    side = in_background(sides)
    # Algorithm 4.4: c_{ψ(i)} = g^{r_{ψ(i)}} · h_i, so r is indexed by input position.
    r = [0] * n
    perm_commitment = [IDENTITY] * n
    for i, j in enumerate(permutation):
        r[j] = rand[i]
        perm_commitment[j] = _add(_base(r[j]), gens[i])
    digest = _statement_digest(params, seat, pass_no, joint_key, source, shuffled, perm_commitment)
    u = _challenges(digest, n)
    u_prime = [u[j] for j in permutation]
    # Bayer–Groth's product argument on Σ u_j·c_j = r̃·B + Σ u'_i·h_i, with d = −ω' (so that
    # c_d = −t_3): b_i = u'_0·…·u'_i, δ_0 = d_0, δ_{N-1} = 0.
    d = [-w % L for w in omega_prime]
    b = [u_prime[0]]
    for x in u_prime[1:]:
        b.append(b[-1] * x % L)
    delta = [d[0], *inner, 0] if n > 1 else [d[0]]
    small = [-delta[i] * d[i + 1] for i in range(n - 1)]
    big = [delta[i + 1] - u_prime[i + 1] * delta[i] - b[i] * d[i + 1] for i in range(n - 1)]
    d1 = sum_products(_base(rho_delta), small, gens[: n - 1])
    d2 = sum_products(_base(rho_cap), big, gens[: n - 1])
    t1 = _base(w1)
    t3, t41, t42 = side.result()
    c = _challenge(digest, (t1, t3, t41, t42, d1, d2))
    r_bar = sum(r) % L
    r_tilde = sum(a * x for a, x in zip(r, u, strict=True)) % L
    r_prime = sum(_int(a) * x for a, x in zip(rerandomizers, u_prime, strict=True)) % L
    return ShuffleProof(
        perm=tuple(perm_commitment),
        t1=t1,
        t3=t3,
        t41=t41,
        t42=t42,
        d1=d1,
        d2=d2,
        s1=_scalar(w1 - c * r_bar),
        s2=_scalar(c * rho_cap + rho_delta),
        s3=_scalar(w3 - c * r_tilde),
        s4=_scalar(w4 - c * r_prime),
        s_prime=tuple(_scalar(omega_prime[i] - c * u_prime[i]) for i in range(n)),
        b_tilde=tuple(_scalar(c * b[i] + delta[i]) for i in range(n)),
    )


# --------------------------------------------------------------------------- verifier
@dataclass(frozen=True, slots=True)
class ShuffleStatement:
    """One shuffle to verify: who made it, from what, into what, with which proof."""

    seat: int
    pass_no: int
    source: Deck
    shuffled: Deck
    proof: ShuffleProof


def verify_shuffle(
    params: DeckParams,
    seat: int,
    pass_no: int,
    joint_key: bytes,
    source: Deck,
    shuffled: Deck,
    proof: ShuffleProof,
) -> bool:
    """CheckShuffleProof: True iff ``proof`` shows ``shuffled`` is a re-encrypted permutation of
    ``source`` under ``joint_key``."""
    statement = ShuffleStatement(seat, pass_no, source, shuffled, proof)
    return verify_shuffles(params, joint_key, [statement])


@dataclass(frozen=True, slots=True)
class OwnShuffle:
    """The verifier's own shuffle, when a batch starts with the shuffle that took its output:
    ``output[t] = source[perm[t]] + r_t·(B, H)``, all known to it, so terms on its output are
    moved onto its input and the two base points (on the public start, where every A is B, that
    saves N multiplications)."""

    source: Deck
    output: Deck
    perm: Sequence[int]
    rerandomizers: Sequence[bytes]


def verify_shuffles(
    params: DeckParams,
    joint_key: bytes,
    statements: Sequence[ShuffleStatement],
    own: OwnShuffle | None = None,
    split: bool = False,
    public: Mapping[bytes, int] | None = None,
) -> bool:
    """True iff every statement's proof holds (CheckShuffleProof, Algorithm 4.7, for each).

    Points and scalars must already have passed the message checks; lengths are checked here. All
    equations are checked as one weighted sum (Bellare–Garay–Rabin, deck.md §7.1), which pays
    because terms on a shared point merge. ``split``: as ``lincomb.sum_products``. ``public``:
    C sides of public encryptions under ``joint_key`` -> their card ``i`` (``C = (i + 1)·B + H``,
    ``TableState.public``), whose terms move onto B and H (the same sum).
    """
    terms: dict[bytes, int] = {}
    base = 0
    for st in statements:
        part = _add_terms(params, joint_key, st, terms)
        if part is None:
            return False
        base += part
    if own is not None:
        base += _move_onto_source(own, joint_key, terms)
    if public:
        base += _move_onto_base(public, joint_key, terms)
    total = _base(base + terms.pop(group.BASE, 0))
    # Σ k·P, one multiplication and one addition per distinct point (libsodium has no
    # multi-scalar multiplication): 3·N + 6 distinct points per pass after the first (deck.md
    # §7.1), the generators shared.
    total = sum_products(total, list(terms.values()), list(terms), split=split)
    return bool(total == IDENTITY)


def _move_onto_source(own: OwnShuffle, joint_key: bytes, terms: dict[bytes, int]) -> int:
    """Rewrite k·A'_t as k·A_{perm[t]} + (k·r_t)·B and k·C'_t as k·C_{perm[t]} + (k·r_t)·H (the
    same group elements, whoever else's terms share the point); return the factor of B."""
    base = 0
    src, out = own.source, own.output
    get, pop = terms.get, terms.pop
    for t, j in enumerate(own.perm):
        r = _int(own.rerandomizers[t])
        k = pop(out.a[t], 0)
        if k:
            terms[src.a[j]] = get(src.a[j], 0) + k
            base += k * r
        k = pop(out.c[t], 0)
        if k:
            terms[src.c[j]] = get(src.c[j], 0) + k
            terms[joint_key] = get(joint_key, 0) + k * r
    return base


def _move_onto_base(public: Mapping[bytes, int], joint_key: bytes, terms: dict[bytes, int]) -> int:
    """Rewrite k·C, for C = (i + 1)·B + H a public encryption's C side, as (k·(i + 1))·B + k·H:
    no multiplication for the public start of a deck (deck.md §7.1); return the factor of B."""
    base = 0
    pop = terms.pop
    moved = 0
    for point, card in public.items():
        k = pop(point, 0)
        if k:
            base += k * (card + 1)
            moved += k
    if moved:
        terms[joint_key] = terms.get(joint_key, 0) + moved
    return base


def _add_terms(
    params: DeckParams, joint_key: bytes, st: ShuffleStatement, terms: dict[bytes, int]
) -> int | None:
    """Add one proof's weighted equations to ``terms`` (point -> scalar, not yet reduced mod
    l); return its factor of the base point B, or None if the lengths or the product
    argument's two scalar equations do not hold (deck.md §7.1)."""
    source, shuffled, proof = st.source, st.shuffled, st.proof
    n = len(source)
    if not (
        len(shuffled) == n
        and len(proof.perm) == n
        and len(proof.s_prime) == n
        and len(proof.b_tilde) == n
    ):
        return None
    gens = generators(n)
    digest = _statement_digest(params, st.seat, st.pass_no, joint_key, source, shuffled, proof.perm)
    u = _challenges(digest, n)
    t = (proof.t1, proof.t3, proof.t41, proof.t42, proof.d1, proof.d2)
    c = _challenge(digest, t)
    s_prime = [_int(x) for x in proof.s_prime]
    b_tilde = [_int(x) for x in proof.b_tilde]
    u_product = 1
    for x in u:
        u_product = u_product * x % L
    # b̃_0 = ã_0 = −s'_0, and b̃_{N-1} = c·Πu_j (for N = 1, t_1 alone makes the matrix 1)
    if (b_tilde[0] + s_prime[0]) % L or (n > 1 and (b_tilde[-1] - c * u_product) % L):
        return None
    w1, w3, w41, w42, w5 = _weights(digest, proof)
    s1, s2, s3, s4 = (_int(x) for x in (proof.s1, proof.s2, proof.s3, proof.s4))
    get = terms.get

    base = w1 * s1 + w3 * s3 - w42 * s4 + w5 * s2
    cw1, cw41, cw42 = c * w1, c * w41 % L, c * w42 % L
    perm = proof.perm
    src_c, src_a, out_c, out_a = source.c, source.a, shuffled.c, shuffled.a
    for i in range(n):
        ui, spi = u[i], s_prime[i]
        p = perm[i]
        terms[p] = get(p, 0) + c * (w1 + w3 * ui)  # t_1 (c̄) and t_3 (c̃)
        # t_1 (c̄), t_3 (Σ s'_i·h_i) and the product argument's c_Δ^c·c_δ = com(c·b̃_{i+1} −
        # b̃_i·ã_{i+1}; s̃) with ã = −s'
        k = w3 * spi - cw1
        if i + 1 < n:
            k += w5 * (c * b_tilde[i + 1] + b_tilde[i] * s_prime[i + 1])
        p = gens[i]
        terms[p] = get(p, 0) + k
        p = src_c[i]
        terms[p] = get(p, 0) + cw41 * ui  # t_{4,1}: c·a'
        p = src_a[i]
        terms[p] = get(p, 0) + cw42 * ui  # t_{4,2}: c·b'
        p = out_c[i]
        terms[p] = get(p, 0) + w41 * spi
        p = out_a[i]
        terms[p] = get(p, 0) + w42 * spi
    terms[joint_key] = get(joint_key, 0) - w41 * s4
    for k, point in zip((w1, w3, w41, w42, w5, w5 * c), t, strict=True):
        terms[point] = get(point, 0) - k
    return base


def _weights(digest: bytes, proof: ShuffleProof) -> list[int]:
    """w_1, w_3, w_{4,1}, w_{4,2}, w_5: hashed from everything the prover sent."""
    seed = hashlib.sha512(
        encode(
            TAG_SHUFFLE_WEIGHT,
            digest,
            proof.t1,
            proof.t3,
            proof.t41,
            proof.t42,
            proof.d1,
            proof.d2,
            proof.s1,
            proof.s2,
            proof.s3,
            proof.s4,
            b"".join(proof.s_prime),
            b"".join(proof.b_tilde),
        )
    ).digest()
    return _indexed_scalars(TAG_SHUFFLE_WEIGHT, seed, 5)
