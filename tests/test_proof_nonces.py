"""Every proof nonce is a function of the secret and the proof's whole statement (deck.md §8).

As RFC 6979 §3.2 and RFC 8032 §5.1.6 derive a signature's nonce from the key and the message, a
proof's nonce ``w`` hashes the secret with exactly what its challenge hashes before the prover's
commitments (the :class:`~druids_p2p.deck.proofs.Statement`): the same statement always gives the
same proof (a restarted peer re-sends the bytes it sent), and two statements never share a
nonce, so no two proofs of one secret answer two challenges for one commitment. Each test
recovers ``w = s − e·x`` from a real proof and recomputes it from the statement.
"""

from __future__ import annotations

import hashlib

import pytest

from druids_p2p.deck import group
from druids_p2p.deck.encoding import TAG_NONCE, hash_to_scalar
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.proofs import (
    Statement,
    batch_statement,
    key_statement,
    nonce,
    open_statement,
    prove_batch,
    prove_key,
    prove_open,
    verify_batch,
    verify_key,
    verify_open,
)
from druids_p2p.deck.table_state import context_params

ORDER = group.ORDER
PARAMS = DeckParams(hashlib.sha256(b"nonce test table").digest(), 2, 10, 3, 2)


def scalar(label: str) -> bytes:
    return group.scalar_from_wide(hashlib.sha512(label.encode()).digest())


def point(label: str) -> bytes:
    return group.base_mul(scalar(label))


X = scalar("secret")
KEY = group.base_mul(X)
A = point("a")
D = group.mul(X, A)


def used_nonce(proof: tuple[bytes, bytes], x: bytes) -> bytes:
    """w = s − e·x: the nonce a proof (e, s) of secret x was made with."""
    e, s = (int.from_bytes(v, "little") for v in proof)
    w = (s - e * int.from_bytes(x, "little")) % ORDER
    return w.to_bytes(32, "little")


def test_a_proofs_nonce_is_the_hash_of_the_secret_and_its_challenges_statement() -> None:
    """w = H2S("druids-p2p/v1 deck nonce", x, tag, item_1 … item_m, 0), and the challenge is
    H2S(tag, item_1 … item_m, commitments) over the very same items."""
    statement = open_statement(PARAMS, 1, 4, KEY, A, D)
    proof = prove_open(PARAMS, 1, 4, X, KEY, A, D)
    w = used_nonce(proof, X)
    assert (
        w == nonce(X, statement) == hash_to_scalar(TAG_NONCE, X, statement.tag, *statement.items, 0)
    )
    assert proof[0] == statement.challenge(group.base_mul(w), group.mul(w, A))
    key_proof = prove_key(PARAMS, 1, X, KEY)
    w = used_nonce(key_proof, X)
    assert w == nonce(X, key_statement(PARAMS, 1, KEY))
    assert key_proof[0] == key_statement(PARAMS, 1, KEY).challenge(group.base_mul(w))


def test_the_same_statement_twice_gives_the_same_proof() -> None:
    a_list, d_list = [A, point("b")], [D, group.mul(X, point("b"))]
    assert prove_key(PARAMS, 0, X, KEY) == prove_key(PARAMS, 0, X, KEY)
    assert prove_open(PARAMS, 0, 3, X, KEY, A, D) == prove_open(PARAMS, 0, 3, X, KEY, A, D)
    batch = prove_batch(PARAMS, 0, 2, X, KEY, a_list, d_list)
    assert batch == prove_batch(PARAMS, 0, 2, X, KEY, a_list, d_list)
    assert verify_key(PARAMS, 0, KEY, prove_key(PARAMS, 0, X, KEY))
    assert verify_open(PARAMS, 0, 3, KEY, A, D, prove_open(PARAMS, 0, 3, X, KEY, A, D))
    assert verify_batch(PARAMS, 0, 2, KEY, a_list, d_list, batch)


def _open_variants() -> list[tuple[str, DeckParams, int, int, bytes, bytes]]:
    """One opening's statement and, one item at a time, every other it could be confused with:
    the card table's context (its table, operation, deck), the round, the seat, the position
    and the ciphertext (with its share)."""
    base = context_params(b"table", 0, 3, b"share", "gems", 7)
    b = point("b")
    return [
        ("base", base, 1, 4, A, D),
        ("operation", context_params(b"table", 0, 3, b"share", "gems", 8), 1, 4, A, D),
        ("deck", context_params(b"table", 0, 3, b"share", "places", 7), 1, 4, A, D),
        ("what", context_params(b"table", 0, 3, b"open", "gems", 7), 1, 4, A, D),
        ("table", context_params(b"other", 0, 3, b"share", "gems", 7), 1, 4, A, D),
        ("round", context_params(b"table", 1, 3, b"share", "gems", 7), 1, 4, A, D),
        ("seat", base, 2, 4, A, D),
        ("position", base, 1, 5, A, D),
        ("ciphertext", base, 1, 4, b, group.mul(X, b)),
    ]


def test_the_same_secret_with_two_different_statements_gives_two_different_nonces() -> None:
    """Whatever one item differs in (the issue's fork: the same gem at another operation), the
    nonce differs, and no two of these proofs share a commitment w·B."""
    nonces = {}
    for name, params, seat, pos, a, d in _open_variants():
        proof = prove_open(params, seat, pos, X, KEY, a, d)
        assert verify_open(params, seat, pos, KEY, a, d, proof)
        nonces[name] = used_nonce(proof, X)
    assert len(set(nonces.values())) == len(nonces), nonces
    key_nonces = {used_nonce(prove_key(PARAMS, seat, X, KEY), X) for seat in range(3)}
    assert len(key_nonces) == 3


def test_a_batch_nonce_covers_every_share_of_the_batch() -> None:
    a_list = [A, point("b"), point("c")]
    d_list = [group.mul(X, a) for a in a_list]
    seen = {used_nonce(prove_batch(PARAMS, 0, 1, X, KEY, a_list, d_list), X)}
    seen.add(used_nonce(prove_batch(PARAMS, 0, 2, X, KEY, a_list, d_list), X))
    swapped_a, swapped_d = [a_list[1], a_list[0], a_list[2]], [d_list[1], d_list[0], d_list[2]]
    seen.add(used_nonce(prove_batch(PARAMS, 0, 1, X, KEY, swapped_a, swapped_d), X))
    assert len(seen) == 3
    digest = batch_statement(PARAMS, 0, 1, KEY, a_list, d_list)
    assert isinstance(digest, Statement) and len(digest.items) == 1


@pytest.mark.parametrize("attempt", [0, 1, 2])
def test_each_attempt_has_its_own_nonce(attempt: int) -> None:
    """A zero nonce, challenge or response (probability about 2^-250) moves to the next attempt."""
    statement = key_statement(PARAMS, 0, KEY)
    others = {nonce(X, statement, a) for a in range(3) if a != attempt}
    assert nonce(X, statement, attempt) not in others
