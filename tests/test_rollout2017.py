"""Druids (2017) rollouts: the fused kernel (:func:`playout.policy_rollout`) leaves the same state,
scores and random stream as the stepwise policy (``policy_move`` then ``play``) from every kind of
position, so search bots that moved to it play the very same moves, faster."""

from __future__ import annotations

import random

import pytest

from druids_p2p.games.druids2017 import Game, GameOptions, deal
from druids_p2p.games.druids2017.determinize import WorldSampler
from druids_p2p.games.druids2017.rollout import FastRound, ModelRound, rollout, rollout_draws
from druids_p2p.games.druids2017.rule_model import RuleRound
from druids_p2p.games.druids2017.rules import Round


def _stepwise(state: FastRound, rng: random.Random) -> list[int]:
    for _ in range(400):
        if state.play(state.policy_move(rng)):
            return state.scores()
    raise AssertionError("a round must end")


class _Draws(random.Random):
    """The stepwise policy's generator reading ``rollout_draws``' numbers as it does."""

    def __init__(self, draws: list[float]) -> None:
        self.draws = draws
        self.at = 0

    def random(self) -> float:
        u = self.draws[self.at % len(self.draws)]
        self.at += 1
        return u

    def randrange(self, k: int) -> int:  # type: ignore[override]
        return min(int(self.random() * k), k - 1)


def _slots(state: FastRound) -> dict[str, object]:
    return {name: getattr(state, name) for name in FastRound.__slots__}


@pytest.mark.parametrize("model", [FastRound, ModelRound])
def test_the_kernel_plays_exactly_as_the_stepwise_policy(model: type[FastRound]) -> None:
    checked = pending = gaia = 0
    for seed in range(100):
        rng = random.Random(seed)
        n = 3 + seed % 3
        hands = deal(rng, n)
        rnd = Round(hands, variant=seed % 4 < 2)
        while not rnd.over:
            base = model.from_round(rnd)
            pending += bool(base.pending)
            gaia += base.gaia_seat >= 0
            for r in range(2):
                kernel, step = base.copy(), base.copy()
                a, b = random.Random(seed * 7 + r), random.Random(seed * 7 + r)
                assert type(kernel) is model
                assert rollout(kernel, a) == _stepwise(step, b)
                assert _slots(kernel) == _slots(step)
                assert a.getstate() == b.getstate()
                checked += 1
            rnd.play(rng.choice(rnd.legal_moves()))
    assert checked > 8_000 and pending >= 5 and gaia >= 100


def test_rollouts_on_drawn_numbers_play_exactly_as_the_stepwise_policy() -> None:
    """Numbers drawn once (as a search draws them once per world) and read in turn, too few
    of them included (they are read again from the start): the same state and scores."""
    checked = 0
    for seed in range(60):
        rng = random.Random(seed)
        rnd = Round(deal(rng, 3 + seed % 3), variant=seed % 4 < 2)
        while not rnd.over:
            for model in (FastRound, ModelRound):
                base = model.from_round(rnd)
                draws = [rng.random() for _ in range(rng.choice([5, 40, 128]))]
                kernel, step = base.copy(), base.copy()
                assert rollout_draws(kernel, draws) == _stepwise(step, _Draws(draws))
                assert _slots(kernel) == _slots(step)
                checked += 1
            rnd.play(rng.choice(rnd.legal_moves()))
    assert checked > 3000


def test_rollouts_on_drawn_numbers_refuse_a_policy_they_do_not_play() -> None:
    class Other(ModelRound):
        __slots__ = ()

    base = Other.from_round(Round(deal(random.Random(1), 4)))
    with pytest.raises(TypeError, match="Other"):
        rollout_draws(base, [0.5])


def test_a_world_with_new_hands_is_the_replay_of_that_world() -> None:
    """One replayed world with a sample's hands in it (``with_hands``) is, slot for slot, the
    world the sampler replays from that sample's deal: both models, 3-5 seats, every position."""
    checked = 0
    for seed in range(25):
        rng = random.Random(seed)
        n = 3 + seed % 3
        game = Game(GameOptions(players=n, variant=seed % 2 == 0))
        game.start_round(deal(rng, n))
        while not game.round_over:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            for model in (ModelRound, RuleRound):
                sampler = WorldSampler(view, 0.0, model)
                template = sampler.worlds(random.Random(seed), 1)[0].state
                for draw in range(3):
                    hidden = sampler.hidden_hands(random.Random(draw))
                    dealt = sampler.deal(random.Random(draw))
                    assert hidden is not None and dealt is not None
                    hidden[seat] = list(view.hand)
                    fresh = template.with_hands(hidden)
                    replayed, _ = sampler.replay(dealt)
                    assert type(fresh) is model
                    assert _slots(fresh) == _slots(replayed)
                    if isinstance(fresh, RuleRound):
                        assert isinstance(replayed, RuleRound)
                        assert (fresh.played, fresh.voids, fresh.specials) == (
                            replayed.played,
                            replayed.voids,
                            replayed.specials,
                        )
                    checked += 1
            game.play(rng.choice(view.legal))
    assert checked > 1500
