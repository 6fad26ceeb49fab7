"""``pimc``: Perfect-Information Monte Carlo with rule-guided rollouts: every legal move tried in
sampled worlds, played out by the rollout policy, and the best mean score margin played. A
calibrated rollout count, not the clock, fixes the work, so a seeded game replays identically
anywhere.
"""

from __future__ import annotations

from druids_p2p.games.druids2017.determinize import sample_round
from druids_p2p.games.druids2017.rollout import FastRound, rollout
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.spec import Bot

ROLLOUTS_PER_MS = 8.0
"""Rollouts granted per millisecond of budget: about half the measured speed here, for headroom."""
MIN_WORLDS = 4
MAX_WORLDS = 400


class PimcBot(Bot):
    """Flat PIMC: worlds x legal moves rollouts, mean margin over the opponents."""

    def __init__(self, worlds: int | None = None) -> None:
        super().__init__()
        self.fixed_worlds = worlds

    def worlds_for(self, legal_count: int) -> int:
        if self.fixed_worlds is not None:
            return self.fixed_worlds
        rollouts = self.time_budget_ms * ROLLOUTS_PER_MS
        return max(MIN_WORLDS, min(MAX_WORLDS, int(rollouts / (legal_count + 1))))

    def choose(self, view: PlayerView) -> int:
        legal = list(view.legal)
        if len(legal) == 1:
            return legal[0]
        seat = view.seat
        n = view.players
        totals = [0.0] * len(legal)
        for _ in range(self.worlds_for(len(legal))):
            base = FastRound.from_round(sample_round(view, self.rng))
            for i, move in enumerate(legal):
                world = base.copy()
                scores = world.scores() if world.play(move) else rollout(world, self.rng)
                mine = scores[seat]
                totals[i] += mine - (sum(scores) - mine) / (n - 1)
        best = max(range(len(legal)), key=lambda i: totals[i])
        return legal[best]
