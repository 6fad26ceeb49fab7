"""``pimc``: Perfect-Information Monte Carlo search with rule-guided rollouts.

For each decision it samples worlds consistent with the view (``engine.determinize``: hand sizes,
played cards, revealed voids), tries every legal move in every world, plays each world to the end
of the round with the rollout policy, and picks the move with the best mean score margin over the
opponents. On Hearts-like games flat PIMC with a good rollout policy beat both rule bots and ISMCTS
with random rollouts (RESEARCH.md), and its strength grows with the number of worlds.

The work per move is fixed by the time budget through a calibrated rollout count, not by the clock,
so a seeded game replays identically on any machine and in any worker.
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
