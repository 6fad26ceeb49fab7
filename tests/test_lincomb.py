"""The deck's sums of products (``deck/lincomb.py``) give the same points as one product at a
time, and the prover's helper thread the same proofs and verdicts as one thread, from any thread
and in a forked child."""

from __future__ import annotations

import os
import time

import pytest

from druids_p2p.deck import group, lincomb
from druids_p2p.deck.cards import Deck, public_encryptions
from druids_p2p.deck.params import SHUFFLE_PASS, DeckParams
from druids_p2p.deck.shuffle import shuffle_step
from druids_p2p.deck.shuffle_proof import verify_shuffle


def _pairs(count: int) -> tuple[list[bytes], list[bytes]]:
    scalars = [group.scalar_from_wide(os.urandom(64)) for _ in range(count)]
    points = [group.base_mul(group.scalar_from_wide(os.urandom(64))) for _ in range(count)]
    return scalars, points


def _one_by_one(scalars: list[bytes], points: list[bytes]) -> bytes:
    acc = group.IDENTITY
    for k, p in zip(scalars, points, strict=True):
        acc = group.add(acc, group.mul(k, p))
    return acc


@pytest.mark.parametrize("count", [0, 1, 2, 17, 101])
@pytest.mark.parametrize("start", ["identity", "point"])
def test_sum_of_products_is_the_same_point_as_one_product_at_a_time(count: int, start: str) -> None:
    scalars, points = _pairs(count)
    first = group.IDENTITY if start == "identity" else group.base_mul(group.ONE)
    expected = group.add(first, _one_by_one(scalars, points)) if count else first
    ints = [int.from_bytes(k, "little") for k in scalars]
    assert lincomb.sum_products(first, ints, points) == expected


def test_zero_scalars_and_identities_are_skipped_not_raised() -> None:
    """A verifier meets both when an adversary arranges them: the product is the identity."""
    scalars, points = _pairs(3)
    ints = [int.from_bytes(k, "little") for k in scalars]
    expected = lincomb.sum_products(group.IDENTITY, ints[:1], points[:1])
    got = lincomb.sum_products(
        group.IDENTITY,
        [ints[0], 0, group.ORDER, ints[2]],
        [points[0], points[1], points[2], group.IDENTITY],
    )
    assert got == expected


@pytest.mark.parametrize("count", [0, 1, 15, 16, 17, 101])
@pytest.mark.parametrize("start", ["identity", "point"])
def test_a_split_sum_is_the_same_point_as_one_thread(
    count: int, start: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Half on the helper, half here: the same point (and a zero product or an identity point in
    either half is still skipped)."""
    monkeypatch.setattr(lincomb, "two_cores", lambda: True)
    scalars, points = _pairs(count)
    ints = [int.from_bytes(k, "little") for k in scalars]
    if count > 2:
        ints[0], points[-1] = group.ORDER, group.IDENTITY
    first = group.IDENTITY if start == "identity" else group.base_mul(group.ONE)
    expected = lincomb.sum_products(first, ints, points)
    assert lincomb.sum_products(first, ints, points, split=True) == expected


def test_a_split_sum_that_cancels_is_the_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """The two halves are each other's negatives: their sum is the identity encoding."""
    monkeypatch.setattr(lincomb, "two_cores", lambda: True)
    scalars, points = _pairs(20)
    ints = [int.from_bytes(k, "little") for k in scalars]
    negated = [group.ORDER - k for k in ints]
    got = lincomb.sum_products(group.IDENTITY, ints + negated, points + points, split=True)
    assert got == group.IDENTITY


def test_work_handed_on_from_the_helper_thread_runs_there() -> None:
    """The helper is one thread: a sum started on it must not wait for itself."""
    scalars, points = _pairs(40)
    ints = [int.from_bytes(k, "little") for k in scalars]

    def nested() -> bytes:
        inner = lincomb.in_background(lincomb.sum_products, group.IDENTITY, ints, points)
        return inner.result(timeout=120)

    assert lincomb.in_background(nested).result(timeout=120) == _one_by_one(scalars, points)


def _params() -> DeckParams:
    return DeckParams(os.urandom(32), 3, 24, 3, 4, frozenset({5}))


def test_a_shuffle_and_its_proof_are_the_same_bytes_on_one_or_two_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    params = _params()
    key = group.base_mul(group.scalar_from_wide(os.urandom(64)))
    deck = public_encryptions(params, params.shuffled_cards(), key)
    seed = os.urandom(32)
    made = {}
    for cores in (1, 2):
        monkeypatch.setattr(lincomb, "two_cores", lambda cores=cores: cores == 2)
        first = shuffle_step(params, 0, SHUFFLE_PASS, seed, deck, key)
        second = shuffle_step(params, 1, SHUFFLE_PASS, seed, first[0], key)
        assert verify_shuffle(params, 1, SHUFFLE_PASS, key, first[0], *second)
        tampered = Deck((*second[0].a[:-1], second[0].a[0]), second[0].c)  # one A replaced
        assert not verify_shuffle(params, 1, SHUFFLE_PASS, key, first[0], tampered, second[1])
        made[cores] = (first, second)
    assert made[1] == made[2]


def test_a_forked_child_works_without_the_parents_helper_thread() -> None:
    scalars, points = _pairs(40)
    ints = [int.from_bytes(k, "little") for k in scalars]
    expected = _one_by_one(scalars, points)

    def on_helper() -> bytes:
        return lincomb.in_background(lincomb.sum_products, group.IDENTITY, ints, points).result()

    assert on_helper() == expected  # the parent's helper is up
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        os._exit(0 if on_helper() == expected else 1)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child never finished its sum")


def test_the_helper_thread_can_be_turned_off_for_timing(monkeypatch: pytest.MonkeyPatch) -> None:
    lincomb.two_cores.cache_clear()
    try:
        monkeypatch.setenv(lincomb.ONE_THREAD_ENV, "1")
        assert not lincomb.two_cores()
        scalars, points = _pairs(40)
        ints = [int.from_bytes(k, "little") for k in scalars]
        done = lincomb.in_background(lincomb.sum_products, group.IDENTITY, ints, points)
        assert done.done() and done.result() == _one_by_one(scalars, points)  # ran at once, here
        lincomb.two_cores.cache_clear()
        monkeypatch.delenv(lincomb.ONE_THREAD_ENV)
        assert lincomb.two_cores() == (len(os.sched_getaffinity(0)) > 1)
    finally:
        lincomb.two_cores.cache_clear()
