"""The proof of a shuffle (deck.md §7.1): complete, sound against every way of cheating a
shuffle that matters here, bound to its context, and byte for byte as deck.md's vector says."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest
from deck_local import random_scalar
from hypothesis import given, settings
from hypothesis import strategies as st
from linear_pass import holds_but_the_product, linear_pass

from druids_p2p.bench.tables import counting
from druids_p2p.deck import group
from druids_p2p.deck.body_schema import proof_to_body
from druids_p2p.deck.cards import (
    Deck,
    card_points,
    public_encryptions,
    public_sides,
    rerandomize,
)
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.shuffle import derive_permutation, derive_rerandomizers, shuffle_step
from druids_p2p.deck.shuffle_proof import (
    OwnShuffle,
    ShuffleProof,
    ShuffleStatement,
    generators,
    prove_shuffle,
    verify_shuffle,
    verify_shuffles,
)
from druids_p2p.deck.table_messages import TableShuffleMsg, parse_table_body

PARAMS = DeckParams(b"P" * 32, 4, 65, 4, 14, frozenset({60}))
DECK_MD = Path(__file__).resolve().parent.parent / "docs" / "protocol" / "deck.md"


def _key() -> tuple[bytes, bytes]:
    x = random_scalar(os.urandom)
    return x, group.base_mul(x)


def _honest(
    params: DeckParams, seat: int, source: Deck, key: bytes, seed: bytes | None = None
) -> tuple[Deck, ShuffleProof]:
    return shuffle_step(params, seat, 1, seed or os.urandom(32), source, key)


def _random_deck(size: int, key: bytes) -> Deck:
    """Ciphertexts of distinct cards under ``key``, as a middle seat receives them."""
    points = card_points(max(size, 2))
    pairs = [
        rerandomize(group.BASE, group.add(points[i], key), random_scalar(os.urandom), key)
        for i in range(size)
    ]
    return Deck(tuple(a for a, _ in pairs), tuple(c for _, c in pairs))


# ------------------------------------------------------------------------------ completeness
@pytest.mark.parametrize("seat", [0, 2])
def test_an_honest_shuffle_verifies(seat: int) -> None:
    _, key = _key()
    source = (
        public_encryptions(PARAMS, PARAMS.shuffled_cards(), key)
        if seat == 0
        else _random_deck(64, key)
    )
    out, proof = _honest(PARAMS, seat, source, key)
    assert verify_shuffle(PARAMS, seat, 1, key, source, out, proof)


@settings(max_examples=25, deadline=None, database=None)
@given(size=st.integers(1, 9), seed=st.binary(min_size=32, max_size=32), seat=st.integers(0, 3))
def test_every_honest_shuffle_verifies_and_any_changed_ciphertext_does_not(
    size: int, seed: bytes, seat: int
) -> None:
    params = DeckParams(b"prop", 1, 10, 4, 1)
    _, key = _key()
    source = _random_deck(size, key)
    out, proof = shuffle_step(params, seat, 1, seed, source, key)
    assert verify_shuffle(params, seat, 1, key, source, out, proof)
    j = seed[0] % size
    nudged = Deck(out.a, (*out.c[:j], group.add(out.c[j], group.BASE), *out.c[j + 1 :]))
    assert not verify_shuffle(params, seat, 1, key, source, nudged, proof)


# ------------------------------------------------------------------------------ soundness
def _statement() -> tuple[bytes, Deck, Deck, ShuffleProof]:
    _, key = _key()
    source = _random_deck(12, key)
    out, proof = _honest(PARAMS, 1, source, key)
    return key, source, out, proof


def _replace(deck: Deck, j: int, a: bytes, c: bytes) -> Deck:
    return Deck((*deck.a[:j], a, *deck.a[j + 1 :]), (*deck.c[:j], c, *deck.c[j + 1 :]))


def test_output_that_is_not_a_permutation_and_re_encryption_is_refused() -> None:
    key, source, out, proof = _statement()
    r = random_scalar(os.urandom)
    k = random_scalar(os.urandom)
    copy = rerandomize(out.a[0], out.c[0], r, key)
    fresh = (group.base_mul(r), group.add(card_points(65)[60], group.mul(r, key)))
    cheats = {
        "duplicated": _replace(out, 3, *copy),
        "substituted": _replace(out, 3, *fresh),
        "tagged": _replace(out, 3, group.mul(k, out.a[3]), group.mul(k, out.c[3])),
        "two swapped": Deck(
            (out.a[1], out.a[0], *out.a[2:]),
            out.c,  # A parts swapped, C parts not
        ),
        "garbage": _replace(out, 3, out.a[3], group.add(out.c[3], group.BASE)),
    }
    for name, bad in cheats.items():
        assert not verify_shuffle(PARAMS, 1, 1, key, source, bad, proof), name


def test_a_proof_for_another_input_does_not_cover_this_one() -> None:
    """The forged-last-shuffle attack: a genuine proof of a shuffle of ciphertexts the cheater
    made itself says nothing about the real input."""
    key, source, _, _ = _statement()
    own_input = _random_deck(12, key)
    out, proof = _honest(PARAMS, 1, own_input, key)
    assert verify_shuffle(PARAMS, 1, 1, key, own_input, out, proof)
    assert not verify_shuffle(PARAMS, 1, 1, key, source, out, proof)


def test_the_proof_is_bound_to_its_context() -> None:
    key, source, out, proof = _statement()
    other = DeckParams(b"Q" * 32, 4, 65, 4, 14, frozenset({60}))
    later = dataclasses.replace(PARAMS, round_no=5)
    _, other_key = _key()
    assert not verify_shuffle(other, 1, 1, key, source, out, proof)  # table
    assert not verify_shuffle(later, 1, 1, key, source, out, proof)  # round
    assert not verify_shuffle(PARAMS, 2, 1, key, source, out, proof)  # seat
    assert not verify_shuffle(PARAMS, 1, 2, key, source, out, proof)  # pass
    assert not verify_shuffle(PARAMS, 1, 1, other_key, source, out, proof)  # joint key


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(ShuffleProof)])
def test_changing_any_field_of_the_proof_breaks_it(field: str) -> None:
    key, source, out, proof = _statement()
    value = getattr(proof, field)
    point = group.base_mul(random_scalar(os.urandom))
    scalar = random_scalar(os.urandom)
    is_point = field in ("perm", "d1", "d2") or field.startswith("t")
    item = point if is_point else scalar
    changed = (item, *value[1:]) if isinstance(value, tuple) else item
    # The field is chosen by name at run time, so its type is known only then.
    change: dict[str, Any] = {field: changed}
    bad = dataclasses.replace(proof, **change)
    assert not verify_shuffle(PARAMS, 1, 1, key, source, out, bad)


def test_wrong_lengths_are_refused_not_raised() -> None:
    key, source, out, proof = _statement()
    short = dataclasses.replace(proof, b_tilde=proof.b_tilde[:-1])
    assert not verify_shuffle(PARAMS, 1, 1, key, source, out, short)
    assert not verify_shuffle(PARAMS, 1, 1, key, source, out.head(11), proof)


def test_identities_an_adversary_arranges_do_not_raise() -> None:
    """c_i = h_i for every i makes c̄ the identity: the verifier must say no, not crash."""
    key, source, out, proof = _statement()
    bad = dataclasses.replace(proof, perm=generators(len(source)))
    assert verify_shuffle(PARAMS, 1, 1, key, source, out, bad) is False


def test_prove_shuffle_is_the_step_s_own_permutation_and_randomisers() -> None:
    _, key = _key()
    source = _random_deck(8, key)
    seed = os.urandom(32)
    out, proof = shuffle_step(PARAMS, 3, 1, seed, source, key)
    perm = derive_permutation(PARAMS, 3, 1, seed, 8)
    rs = derive_rerandomizers(PARAMS, 3, 1, seed, 8)
    assert prove_shuffle(PARAMS, 3, 1, seed, key, source, out, perm, rs) == proof


# ------------------------------------------------------------------------------ the wire form
def test_a_shuffle_message_round_trips_and_refuses_bad_proof_shapes() -> None:
    _, _, out, proof = _statement()
    msg = TableShuffleMsg(4, 2, "deck", out.a, out.c, proof)
    body = msg.to_body()
    assert list(body) == ["a", "c", "deck", "op", "proof", "round"]
    assert list(body["proof"]) == sorted(body["proof"])
    assert parse_table_body("table_shuffle", body) == msg
    bad_top_bit = dict(body["proof"], t1=proof.t1[:31] + bytes([proof.t1[31] | 0x80]))
    with pytest.raises(ValueError, match=r"proof\.t1"):
        parse_table_body("table_shuffle", dict(body, proof=bad_top_bit))
    short = dict(body["proof"], sp=body["proof"]["sp"][:-1])
    with pytest.raises(ValueError, match=r"proof\.sp"):
        parse_table_body("table_shuffle", dict(body, proof=short))


# ------------------------------------------------------------------------------ test vector
def vector_lines() -> list[str]:
    """deck.md §7.2's vector, recomputed: every intermediate value of one small shuffle."""
    params = DeckParams(b"druids-p2p shuffle vector", 7, 4, 2, 2)
    x = hashlib.sha512(b"druids-p2p vector secret").digest()
    secret = group.scalar_from_wide(x)
    key = group.base_mul(secret)
    seed = bytes(range(32))
    seat = 0
    source = public_encryptions(params, params.shuffled_cards(), key)
    out, proof = shuffle_step(params, seat, 1, seed, source, key)
    perm = derive_permutation(params, seat, 1, seed, len(source))
    rs = derive_rerandomizers(params, seat, 1, seed, len(source))
    gens = generators(len(source))
    # version 1's deck_shuffle shape, as deck.md §7.2 hashes it, with a table_shuffle's proof
    body = {"a": out.a, "c": out.c, "pass": 1, "proof": proof_to_body(proof), "round": 7}
    assert TableShuffleMsg(7, 0, "d", out.a, out.c, proof).to_body()["proof"] == body["proof"]
    lines = [
        f"table_id = {params.table_id.hex()}",
        f"round = {params.round_no}",
        f"seat = {seat}",
        "pass = 1",
        f"x = {secret.hex()}",
        f"H = {key.hex()}",
        f"seed = {seed.hex()}",
        *(f"h_{i} = {g.hex()}" for i, g in enumerate(gens)),
        f"perm = {' '.join(str(p) for p in perm)}",
        *(f"r'_{i} = {r.hex()}" for i, r in enumerate(rs)),
        *(f"A'_{i} = {a.hex()}" for i, a in enumerate(out.a)),
        *(f"C'_{i} = {c.hex()}" for i, c in enumerate(out.c)),
        *(f"c_{i} = {c.hex()}" for i, c in enumerate(proof.perm)),
        *(f"{name} = {getattr(proof, name).hex()}" for name in ("t1", "t3", "t41", "t42")),
        f"c_δ = {proof.d1.hex()}",
        f"c_Δ = {proof.d2.hex()}",
        *(f"{name} = {getattr(proof, name).hex()}" for name in ("s1", "s2", "s3", "s4")),
        *(f"s'_{i} = {s.hex()}" for i, s in enumerate(proof.s_prime)),
        *(f"b̃_{i} = {b.hex()}" for i, b in enumerate(proof.b_tilde)),
        f"body_sha256 = {hashlib.sha256(msgpack.packb(body)).hexdigest()}",
    ]
    assert verify_shuffle(params, seat, 1, key, source, out, proof)
    return lines


def test_deck_md_vector_is_what_the_code_computes() -> None:
    text = DECK_MD.read_text(encoding="utf-8")
    block = re.search(r"<!-- shuffle-vector -->\n```\n(.*?)```", text, re.S)
    assert block is not None, "deck.md has no shuffle vector block"
    assert block.group(1).splitlines() == vector_lines()


# ------------------------------------------------------------------------------ own shuffle
def _after_own(seat: int) -> tuple[bytes, OwnShuffle, list[ShuffleStatement]]:
    """This verifier shuffled at ``seat`` (from the public start for seat 0), the next seat
    shuffled its output: what a batch starting after its own shuffle checks."""
    _, key = _key()
    source = (
        public_encryptions(PARAMS, PARAMS.shuffled_cards(), key)
        if seat == 0
        else _random_deck(64, key)
    )
    seed = os.urandom(32)
    mine, _ = shuffle_step(PARAMS, seat, 1, seed, source, key)
    perm = derive_permutation(PARAMS, seat, 1, seed, len(source))
    rs = derive_rerandomizers(PARAMS, seat, 1, seed, len(source))
    nxt, proof = _honest(PARAMS, seat + 1, mine, key)
    own = OwnShuffle(source, mine, perm, rs)
    return key, own, [ShuffleStatement(seat + 1, 1, mine, nxt, proof)]


@pytest.mark.parametrize("seat", [0, 1])
def test_a_batch_after_the_verifier_s_own_shuffle_is_checked_the_same(seat: int) -> None:
    """Terms on the verifier's own output are moved onto its input (deck/shuffle_proof.py): an
    honest next shuffle still verifies, a cheating one is still refused, and a wrong account of
    the own shuffle (another re-randomiser) breaks the check rather than passing anything."""
    key, own, (st,) = _after_own(seat)
    assert verify_shuffles(PARAMS, key, [st], own)
    r = random_scalar(os.urandom)
    copy = rerandomize(st.shuffled.a[0], st.shuffled.c[0], r, key)
    bad = ShuffleStatement(
        st.seat, st.pass_no, st.source, _replace(st.shuffled, 3, *copy), st.proof
    )
    assert not verify_shuffles(PARAMS, key, [bad], own)
    wrong = dataclasses.replace(
        own, rerandomizers=(random_scalar(os.urandom), *own.rerandomizers[1:])
    )
    assert not verify_shuffles(PARAMS, key, [st], wrong)


# ------------------------------------------------------------------------------ public start
def _public(key: bytes) -> dict[bytes, int]:
    return {c: i for i, c in enumerate(public_sides(PARAMS.num_cards, key))}


def test_a_public_start_s_c_sides_cost_the_batch_no_multiplication() -> None:
    """Card i is (i + 1)·B, so the C side (i + 1)·B + H of a public start is rewritten onto B
    and H (deck.md §7.1): the same verdict on an honest first pass, with one generic
    multiplication fewer for each of its cards."""
    _, key = _key()
    source = public_encryptions(PARAMS, PARAMS.shuffled_cards(), key)
    out, proof = _honest(PARAMS, 0, source, key)
    st = ShuffleStatement(0, 1, source, out, proof)
    with counting() as plain:
        assert verify_shuffles(PARAMS, key, [st])
    with counting() as moved:
        assert verify_shuffles(PARAMS, key, [st], public=_public(key))
    assert plain.of(None)["mul"] - moved.of(None)["mul"] == len(source)


@pytest.mark.parametrize("public", [False, True])
def test_a_first_pass_that_swaps_a_public_card_is_refused(public: bool) -> None:
    """The first shuffler proves a genuine shuffle of another public start, card 0 swapped for
    card 60 (which the deck does not hold): refused with the public rewrite as without it."""
    _, key = _key()
    cards = PARAMS.shuffled_cards()
    source = public_encryptions(PARAMS, cards, key)
    swapped = public_encryptions(PARAMS, (60, *cards[1:]), key)
    out, proof = _honest(PARAMS, 0, swapped, key)
    assert verify_shuffles(PARAMS, key, [ShuffleStatement(0, 1, swapped, out, proof)])
    st = ShuffleStatement(0, 1, source, out, proof)
    assert not verify_shuffles(PARAMS, key, [st], public=_public(key) if public else None)


# ------------------------------------------------------------------------------ the product
@pytest.mark.parametrize("forced_last", [False, True])
def test_a_linear_pass_that_is_no_permutation_is_refused_by_the_product_argument(
    forced_last: bool,
) -> None:
    """Terelius–Wikström's criterion needs both halves: M·1 = 1 (t_1) and Π(M·u) = Πu. A pass
    built on a matrix whose rows sum to 1 but is no permutation passes every other equation
    (checked here one by one) and is refused by the product argument (deck.md §7.1), whether
    the cheater proves its own product (b̃_{N-1} ≠ c·Πu) or states the wanted one (then c_δ,
    c_Δ do not open to it)."""
    _, key = _key()
    source = _random_deck(4, key)
    out, proof = linear_pass(PARAMS, 1, 1, key, source, forced_last)
    assert holds_but_the_product(PARAMS, 1, 1, key, source, out, proof)
    assert not verify_shuffle(PARAMS, 1, 1, key, source, out, proof)
    honest_out, honest = _honest(PARAMS, 1, source, key)
    assert holds_but_the_product(PARAMS, 1, 1, key, source, honest_out, honest)
