"""Druids (2017) rollouts: the fused kernel (:func:`playout.policy_rollout`) leaves the same state,
scores and random stream as the stepwise policy (``policy_move`` then ``play``) from every kind of
position, so search bots that moved to it play the very same moves, faster."""

from __future__ import annotations

import random

import pytest

from druids_p2p.games.druids2017 import deal
from druids_p2p.games.druids2017.rollout import FastRound, ModelRound, rollout
from druids_p2p.games.druids2017.rules import Round


def _stepwise(state: FastRound, rng: random.Random) -> list[int]:
    for _ in range(400):
        if state.play(state.policy_move(rng)):
            return state.scores()
    raise AssertionError("a round must end")


def _slots(state: FastRound) -> dict[str, object]:
    return {name: getattr(state, name) for name in FastRound.__slots__}


@pytest.mark.parametrize("model", [FastRound, ModelRound])
def test_the_kernel_plays_exactly_as_the_stepwise_policy(model: type[FastRound]) -> None:
    checked = pending = gaia = 0
    for seed in range(150):
        rng = random.Random(seed)
        n = 3 + seed % 3
        hands = deal(rng, n)
        rnd = Round(hands, variant=seed % 4 < 2)
        while not rnd.over:
            base = model.from_round(rnd)
            pending += bool(base.pending)
            gaia += base.gaia_seat >= 0
            for r in range(3):
                kernel, step = base.copy(), base.copy()
                a, b = random.Random(seed * 7 + r), random.Random(seed * 7 + r)
                assert type(kernel) is model
                assert rollout(kernel, a) == _stepwise(step, b)
                assert _slots(kernel) == _slots(step)
                assert a.getstate() == b.getstate()
                checked += 1
            rnd.play(rng.choice(rnd.legal_moves()))
    assert checked > 10_000 and pending >= 5 and gaia >= 150
