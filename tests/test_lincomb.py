"""The deck's sums of products on two threads (``deck/lincomb.py``) give the same points, proofs
and verdicts as on one, from any thread and in a forked child."""

from __future__ import annotations

import os
import time

import pytest

from druids_p2p.deck import group, lincomb
from druids_p2p.deck.elgamal import Deck, public_encryptions
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


@pytest.mark.parametrize("count", [0, 1, 2, 15, 16, 17, 101])
@pytest.mark.parametrize("cores", [1, 2])
def test_sum_of_products_is_the_same_point_on_one_or_two_threads(
    count: int, cores: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lincomb, "two_cores", lambda: cores == 2)
    scalars, points = _pairs(count)
    assert lincomb.sum_products(scalars, points) == _one_by_one(scalars, points)


def test_work_handed_on_from_the_helper_thread_runs_there() -> None:
    """The helper is one thread: a sum started on it must not wait for itself."""
    scalars, points = _pairs(40)
    future = lincomb.in_background(lincomb.sum_products, scalars, points)
    assert future.result(timeout=120) == _one_by_one(scalars, points)


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


def test_a_forked_child_sums_without_the_parents_helper_thread() -> None:
    scalars, points = _pairs(40)
    expected = _one_by_one(scalars, points)
    assert lincomb.sum_products(scalars, points) == expected  # the parent's helper is up
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        os._exit(0 if lincomb.sum_products(scalars, points) == expected else 1)
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
        assert lincomb.sum_products(scalars, points) == _one_by_one(scalars, points)
        lincomb.two_cores.cache_clear()
        monkeypatch.delenv(lincomb.ONE_THREAD_ENV)
        assert lincomb.two_cores() == (len(os.sched_getaffinity(0)) > 1)
    finally:
        lincomb.two_cores.cache_clear()
