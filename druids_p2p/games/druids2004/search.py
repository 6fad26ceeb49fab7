"""``search`` for Druids (2004): determinized sampling that spends its budget.

``pimc`` uses about a fifth of its budget; this bot samples the same worlds for as many as a
calibrated cost per world pays, so seed, budget and position fix the move, not the clock. A CPU-
time guard and a ``WALL_SHARE`` hard stop keep the budget on a slow or shared machine (README).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from druids_p2p.games.druids2004.policy import _options, candidates, clone, rollout, sample_world
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.games.spec import Bot

MS_PER_WORLD = 2.8
"""Budget granted per sampled world, all its candidates rolled out (measured: about 1.8 ms of CPU
a world, 18 ms for ``pimc``'s 10, so 35 worlds take about two thirds of a 100 ms budget)."""
MIN_WORLDS = 4
MAX_WORLDS = 200
CANDIDATES = 8
"""Candidate moves searched: every non-play move and the rule heuristics' best plays."""
CLOCK_SHARE = 0.75
"""Share of the budget (in the thread's CPU time) after which the clock guard stops the sampling."""
WALL_SHARE = 0.9
"""Share of the budget in wall time after which the sampling stops whatever its CPU time."""


def budget_search(
    view: SeatView,
    options: Options,
    rng: random.Random,
    worlds: int,
    deadline: float = math.inf,
    clock: Callable[[], float] = time.thread_time,
    wall_deadline: float = math.inf,
    wall: Callable[[], float] = time.perf_counter,
    limit: int = CANDIDATES,
    turns: int | None = None,
    common: bool = False,
) -> tuple[int, int]:
    """The candidate with the best mean evaluation over sampled worlds (with ``common``, every
    candidate of a world rolled out from one seed); and how many worlds were searched (fewer than
    ``worlds`` only when ``deadline``, in ``clock`` time, or ``wall_deadline``, in wall time, came
    first). Rollouts last ``turns`` turns, by default one for each seat and one more, as
    ``pimc``'s."""
    legal = view.legal
    if len(legal) == 1:
        return legal[0], 0
    cands = candidates(view, options, rng, limit)
    if len(cands) == 1:
        return cands[0], 0
    totals = [0.0] * len(cands)
    horizon = turns if turns is not None else view.players + 1
    done = 0
    began = clock()
    wall_began = wall()
    for done in range(worlds):
        now = clock()
        if done and now + 1.5 * (now - began) / done > deadline:
            break  # the next world would likely end past the deadline
        wall_now = wall()
        if done and wall_now + 1.5 * (wall_now - wall_began) / done > wall_deadline:
            break  # or past the wall-time deadline (a core shared with other work)
        base = sample_world(view, options, rng)
        seed = rng.getrandbits(64) if common else 0
        for i, move in enumerate(cands):
            world = clone(base)
            world.play(move)
            totals[i] += rollout(world, view.seat, random.Random(seed) if common else rng, horizon)
    else:
        done = worlds
    best = max(range(len(cands)), key=lambda i: (totals[i], -i))
    return cands[best], done


class BudgetSearch2004Bot(Bot):
    """Determinized sampling over worlds as many as the budget pays for (``pimc``'s worlds,
    candidates and rollouts)."""

    def __init__(self, worlds: int | None = None) -> None:
        super().__init__()
        self.fixed_worlds = worlds
        """Worlds per move regardless of the budget (and no clock): reproducible tests."""
        self.clock: Callable[[], float] = time.thread_time
        self.wall: Callable[[], float] = time.perf_counter
        """The wall clock of the hard stop (``WALL_SHARE`` of the budget)."""
        self.last_worlds = 0
        """Worlds the last search covered (fewer than planned when the clock stopped it)."""

    @property
    def worlds(self) -> int:
        if self.fixed_worlds is not None:
            return self.fixed_worlds
        count = int(self.time_budget_ms / MS_PER_WORLD)
        return max(MIN_WORLDS, min(MAX_WORLDS, count))

    def choose(self, view: Any) -> int:
        start = self.clock()
        deadline = (
            math.inf
            if self.fixed_worlds is not None
            else start + self.time_budget_ms * CLOCK_SHARE / 1000.0
        )
        wall_deadline = (
            math.inf
            if self.fixed_worlds is not None
            else self.wall() + self.time_budget_ms * WALL_SHARE / 1000.0
        )
        move, self.last_worlds = budget_search(
            view,
            _options(self),
            self.rng,
            self.worlds,
            deadline,
            self.clock,
            wall_deadline,
            self.wall,
        )
        return move


__all__ = ["BudgetSearch2004Bot", "budget_search"]
