"""The building blocks: group checks, encodings, card points, proofs and the shuffle step."""

from __future__ import annotations

import os

import pytest
from deck_local import random_scalar

from druids_p2p.deck import DeckParams, group, sodium
from druids_p2p.deck.cards import Deck, card_points, card_table, decrypt_with, public_encryptions
from druids_p2p.deck.encoding import encode
from druids_p2p.deck.errors import GroupError
from druids_p2p.deck.proofs import (
    prove_batch,
    prove_key,
    prove_open,
    verify_batch,
    verify_key,
    verify_open,
)
from druids_p2p.deck.shuffle import ByteStream, shuffle_step

PARAMS = DeckParams(b"P" * 32, 2, 65, 3, 15, frozenset({60}))


def scalar() -> bytes:
    return random_scalar(os.urandom)


def point() -> bytes:
    return group.base_mul(scalar())


# ------------------------------------------------------------------------------ group
def test_identity_and_bad_encodings_are_not_elements() -> None:
    assert sodium.is_valid_point(bytes(32))  # libsodium accepts it...
    assert not group.is_element(bytes(32))  # ...we do not
    assert not group.is_element(b"\xff" * 32)
    assert not group.is_element(point()[:31])
    assert not group.is_element(bytearray(point()))
    assert group.is_element(point())
    # a non-canonical spelling: the field element p + 1 (ristretto decodes only canonical ones)
    p_plus_1 = (2**255 - 19 + 1).to_bytes(32, "little")
    assert not group.is_element(p_plus_1)


def test_a_second_spelling_with_the_top_bit_set_is_refused() -> None:
    """RFC 9496 §4.3.1: one encoding per element. libsodium masks the top bit, so the same point
    with bit 255 set decodes, and would be a second spelling of every message that holds it."""
    p = point()
    twin = p[:31] + bytes([p[31] | 0x80])
    assert sodium.is_valid_point(twin)  # libsodium takes it...
    assert sodium.add(twin, group.IDENTITY) == p  # ...as the same point
    assert not group.is_element(twin)  # we do not


def test_only_canonical_scalars_are_accepted() -> None:
    assert group.is_canonical_scalar(bytes(32))
    assert group.is_canonical_scalar((group.ORDER - 1).to_bytes(32, "little"))
    assert not group.is_canonical_scalar(group.ORDER.to_bytes(32, "little"))
    assert not group.is_canonical_scalar(b"\xff" * 32)
    assert not group.is_canonical_scalar(bytes(31))


def test_zero_scalar_and_identity_multiplications_fail_cleanly() -> None:
    with pytest.raises(GroupError):
        group.base_mul(bytes(32))
    with pytest.raises(GroupError):
        group.mul(bytes(32), point())
    with pytest.raises(GroupError):
        group.mul(scalar(), bytes(32))


def test_encoding_is_injective_on_boundaries() -> None:
    assert encode(b"ab", b"c") != encode(b"a", b"bc")
    assert encode(b"", b"a") != encode(b"a")
    # ints are 8-byte items; each tag fixes which positions are ints, so this is unambiguous
    assert encode(1) == encode((1).to_bytes(8, "big"))


def test_card_points_are_distinct_and_decrypt_by_lookup() -> None:
    points = card_points(65)
    assert len(set(points)) == 65 and all(group.is_element(p) for p in points)
    table = card_table(65)
    assert all(table[p] == i for i, p in enumerate(points))
    x = scalar()
    key = group.base_mul(x)
    deck = public_encryptions(PARAMS, (3, 60), key)
    assert [
        table[decrypt_with(c, [group.mul(x, a)])] for a, c in zip(deck.a, deck.c, strict=True)
    ] == [3, 60]


# ------------------------------------------------------------------------------ proofs
def test_key_proof_is_bound_to_its_context() -> None:
    x = scalar()
    key = group.base_mul(x)
    proof = prove_key(PARAMS, 1, x, key)
    assert verify_key(PARAMS, 1, key, proof)
    assert not verify_key(PARAMS, 2, key, proof)
    other = DeckParams(b"P" * 32, 3, 65, 3, 15, frozenset({60}))
    assert not verify_key(other, 1, key, proof)
    assert not verify_key(PARAMS, 1, point(), proof)
    assert not verify_key(PARAMS, 1, key, (bytes(32), proof[1]))
    assert not verify_key(PARAMS, 1, key, (proof[0], bytes(32)))


def test_open_proof_rejects_a_wrong_share() -> None:
    x = scalar()
    key, a = group.base_mul(x), point()
    d = group.mul(x, a)
    proof = prove_open(PARAMS, 0, 5, x, key, a, d)
    assert verify_open(PARAMS, 0, 5, key, a, d, proof)
    assert not verify_open(PARAMS, 0, 6, key, a, d, proof)
    assert not verify_open(PARAMS, 0, 5, key, a, group.add(d, point()), proof)


def test_batch_proof_catches_any_wrong_share_even_cancelling_ones() -> None:
    x = scalar()
    key = group.base_mul(x)
    a_list = [point() for _ in range(15)]
    d_list = [group.mul(x, a) for a in a_list]
    proof = prove_batch(PARAMS, 0, 2, x, key, a_list, d_list)
    assert verify_batch(PARAMS, 0, 2, key, a_list, d_list, proof)
    assert not verify_batch(PARAMS, 0, 1, key, a_list, d_list, proof)
    delta = point()
    bad = list(d_list)
    bad[4] = group.add(bad[4], delta)
    assert not verify_batch(PARAMS, 0, 2, key, a_list, bad, proof)
    # errors that cancel in a plain sum must still fail (random coefficients)
    bad[9] = group.sub(bad[9], delta)
    assert group.sum_points(bad) == group.sum_points(d_list)
    forged = prove_batch(PARAMS, 0, 2, x, key, a_list, bad)
    assert not verify_batch(PARAMS, 0, 2, key, a_list, bad, forged)
    assert not verify_batch(PARAMS, 0, 2, key, a_list, d_list[:-1], proof)


# ------------------------------------------------------------------------------ shuffle
def test_byte_stream_refills_consistently() -> None:
    small = ByteStream(b"t", b"seed", initial=64)
    big = ByteStream(b"t", b"seed", initial=4096)
    assert b"".join(small.read(7) for _ in range(300)) == big.read(2100)


def test_shuffle_step_is_a_deterministic_rerandomised_permutation() -> None:
    x = scalar()
    key = group.base_mul(x)
    deck = public_encryptions(PARAMS, PARAMS.shuffled_cards(), key)
    seed = os.urandom(32)
    out, proof = shuffle_step(PARAMS, 0, 1, seed, deck, key)
    assert (out, proof) == shuffle_step(PARAMS, 0, 1, seed, deck, key)
    assert out != shuffle_step(PARAMS, 0, 1, os.urandom(32), deck, key)[0]
    assert out != shuffle_step(PARAMS, 1, 1, seed, deck, key)[0]
    assert not set(out.c) & set(deck.c)  # every ciphertext is re-randomised
    table = card_table(65)
    cards = [table[decrypt_with(c, [group.mul(x, a)])] for a, c in zip(out.a, out.c, strict=True)]
    assert sorted(cards) == list(PARAMS.shuffled_cards())
    last, _ = shuffle_step(PARAMS, 2, 1, seed, deck, key)  # the last seat outputs all of it too
    assert len(last) == len(deck) == 64 and PARAMS.kept == 44
    assert isinstance(last, Deck)
