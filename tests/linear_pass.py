"""A cheating shuffler's pass that passes every equation of the proof of a shuffle but the
product argument's (deck.md §7.1): what shows that the product argument is what refuses it."""

from __future__ import annotations

import os

from deck_local import random_scalar

from druids_p2p.deck import group
from druids_p2p.deck.cards import Deck
from druids_p2p.deck.lincomb import sum_products
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.shuffle_proof import (
    ShuffleProof,
    _challenge,
    _challenges,
    _statement_digest,
    generators,
)


def _le(value: int) -> bytes:
    return (value % group.ORDER).to_bytes(32, "little")


def linear_pass(
    params: DeckParams, seat: int, pass_no: int, key: bytes, source: Deck, forced_last: bool = False
) -> tuple[Deck, ShuffleProof]:
    """A cheater's pass over ``source`` (2 or more ciphertexts) that is no permutation: it commits
    to the matrix M (the identity but rows 0, 1 = (2, −1, 0, …), (0, 1, 0, …): every row sums to
    1, so t_1 holds)
    and outputs N = M^-T times the input, re-encrypted (then Σ u'_i·C'_i = Σ u_j·C_j with
    u' = M·u, so t_3, t_{4,1} and t_{4,2} hold), proven as the honest prover proves: only the
    product Π u'_i ≠ Π u_j betrays it. ``forced_last``: b̃_{N-1} set to c·Π u_j as the
    verifier wants, instead of the product argument's own."""
    n, order = len(source), group.ORDER
    half = pow(2, -1, order)
    m_rows = [{0: 2, 1: -1}, {1: 1}, *({i: 1} for i in range(2, n))]
    n_rows = [{0: half}, {0: half, 1: 1}, *({i: 1} for i in range(2, n))]  # (M^-1)^T
    rnd = [int.from_bytes(random_scalar(os.urandom), "little") for _ in range(3 * n + 5)]
    rs, r, (w1, w3, w4), omega = rnd[:n], rnd[n : 2 * n], rnd[2 * n : 2 * n + 3], rnd[-n - 2 : -2]
    rho_d, rho_big = rnd[-2], rnd[-1]

    def row(rows: list[dict[int, int]], i: int) -> list[int]:
        return [rows[i].get(j, 0) for j in range(n)]

    out = Deck(
        tuple(sum_products(group.base_mul(_le(rs[i])), row(n_rows, i), source.a) for i in range(n)),
        tuple(sum_products(group.mul(_le(rs[i]), key), row(n_rows, i), source.c) for i in range(n)),
    )
    gens = generators(n)
    columns = [[m_rows[i].get(j, 0) for i in range(n)] for j in range(n)]
    perm = [sum_products(group.base_mul(_le(r[j])), columns[j], gens) for j in range(n)]
    digest = _statement_digest(params, seat, pass_no, key, source, out, perm)
    u = _challenges(digest, n)
    u_prime = [sum(k * x for k, x in zip(row(m_rows, i), u, strict=True)) % order for i in range(n)]
    t1 = group.base_mul(_le(w1))
    t3 = sum_products(group.base_mul(_le(w3)), omega, gens)
    t41 = sum_products(group.mul(_le(-w4), key), omega, out.c)
    t42 = sum_products(group.base_mul(_le(-w4)), omega, out.a)
    d = [-w % order for w in omega]
    b = [u_prime[0]]
    for x in u_prime[1:]:
        b.append(b[-1] * x % order)
    delta = [d[0], *(int.from_bytes(random_scalar(), "little") for _ in range(n - 2)), 0]
    small = [-delta[i] * d[i + 1] for i in range(n - 1)]
    big = [delta[i + 1] - u_prime[i + 1] * delta[i] - b[i] * d[i + 1] for i in range(n - 1)]
    d1 = sum_products(group.base_mul(_le(rho_d)), small, gens[: n - 1])
    d2 = sum_products(group.base_mul(_le(rho_big)), big, gens[: n - 1])
    c = _challenge(digest, (t1, t3, t41, t42, d1, d2))
    b_tilde = [_le(c * b[i] + delta[i]) for i in range(n)]
    if forced_last:
        product = 1
        for x in u:
            product = product * x % order
        b_tilde[-1] = _le(c * product)
    r_prime = sum(a * x for a, x in zip(rs, u_prime, strict=True))
    proof = ShuffleProof(
        perm=tuple(perm),
        t1=t1,
        t3=t3,
        t41=t41,
        t42=t42,
        d1=d1,
        d2=d2,
        s1=_le(w1 - c * sum(r)),
        s2=_le(c * rho_big + rho_d),
        s3=_le(w3 - c * sum(a * x for a, x in zip(r, u, strict=True))),
        s4=_le(w4 - c * r_prime),
        s_prime=tuple(_le(omega[i] - c * u_prime[i]) for i in range(n)),
        b_tilde=tuple(b_tilde),
    )
    return out, proof


def holds_but_the_product(
    params: DeckParams,
    seat: int,
    pass_no: int,
    key: bytes,
    source: Deck,
    out: Deck,
    proof: ShuffleProof,
) -> bool:
    """Every equation of the proof but the product argument's, checked one by one."""
    n, order = len(source), group.ORDER
    digest = _statement_digest(params, seat, pass_no, key, source, out, proof.perm)
    u = _challenges(digest, n)
    c = _challenge(digest, (proof.t1, proof.t3, proof.t41, proof.t42, proof.d1, proof.d2))
    sp = [int.from_bytes(x, "little") for x in proof.s_prime]
    s1, s3, s4 = (int.from_bytes(x, "little") for x in (proof.s1, proof.s3, proof.s4))
    gens = generators(n)
    minus_gens = [-c % order] * n
    t1 = sum_products(group.base_mul(_le(s1)), [c] * n + minus_gens, [*proof.perm, *gens])
    t3 = sum_products(group.base_mul(_le(s3)), [c * x for x in u] + sp, [*proof.perm, *gens])
    t41 = sum_products(group.mul(_le(-s4), key), [c * x for x in u] + sp, [*source.c, *out.c])
    t42 = sum_products(group.base_mul(_le(-s4)), [c * x for x in u] + sp, [*source.a, *out.a])
    return (t1, t3, t41, t42) == (proof.t1, proof.t3, proof.t41, proof.t42)
