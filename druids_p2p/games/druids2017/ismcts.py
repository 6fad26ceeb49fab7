"""``ismcts``: single-observer information-set MCTS with inference and rule-guided rollouts.

Cowling, Powley & Whitehouse (2012), "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2).
Unlike flat PIMC it spends rollouts on the moves that look best and answers replies inside the
trick, removing much of PIMC's strategy fusion; iterations are fixed by the budget (README).
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Callable

from druids_p2p.games.druids2017.determinize import TRUST, WorldSampler
from druids_p2p.games.druids2017.rollout import FastRound, ModelRound, rollout
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.spec import Bot

ITERATIONS_PER_MS = 8.0
"""Iterations granted per millisecond of budget (measured speed here, with headroom)."""
WORLDS_PER_ITERATION = 0.25
"""Sampled worlds per iteration (each is reused by several iterations)."""
MIN_WORLDS = 8
EXPLORATION = 0.7
"""UCB1's constant, for rewards in about [-1, 1]."""
REWARD_SCALE = 20.0
"""Score margin that counts as a reward of 1."""
CLOCK_SHARE = 0.85
"""Share of the budget after which the clock guard stops the search."""
WORLDS_SHARE = 0.3
"""Share of the clock the world sampling may take before the search starts anyway."""


class Node:
    """A node of the information-set tree: the move that led here and whose it was."""

    __slots__ = ("avail", "children", "mover", "total", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.children: dict[int, Node] = {}


class IsmctsBot(Bot):
    """SO-ISMCTS over the public moves, worlds weighted by inference, rule-guided rollouts."""

    def __init__(
        self,
        iterations: int | None = None,
        trust: float = TRUST,
        leader_weight: float = 0.0,
        model: type[FastRound] = ModelRound,
    ) -> None:
        super().__init__()
        self.model = model
        self.leader_weight = leader_weight
        self.clock: Callable[[], float] = time.perf_counter
        """Seconds, for the budget's guard (a test may hand it a fake clock)."""
        self.fixed_iterations = iterations
        """Iterations per move regardless of the budget (and no clock): reproducible tests."""
        self.trust = trust
        self.last_iterations = 0
        """Iterations the last search ran (fewer than planned when the clock stopped it)."""

    def iterations_for(self) -> int:
        if self.fixed_iterations is not None:
            return self.fixed_iterations
        return max(16, int(self.time_budget_ms * ITERATIONS_PER_MS))

    def _rewards(self, scores: list[int], totals: tuple[int, ...], n: int) -> list[float]:
        """Each seat's reward for a round's scores: its margin over the others' mean, blended
        (``leader_weight``) with its game-total margin over the best other seat — first place
        is what counts, and it depends on the totals so far."""
        total = sum(scores)
        a = self.leader_weight
        if not a:
            return [(m - (total - m) / (n - 1)) / REWARD_SCALE for m in scores]
        final = [t + m for t, m in zip(totals, scores, strict=True)]
        out = []
        for s in range(n):
            mine = scores[s]
            best = max(final[o] for o in range(n) if o != s)
            mean_margin = mine - (total - mine) / (n - 1)
            out.append(((1.0 - a) * mean_margin + a * (final[s] - best)) / REWARD_SCALE)
        return out

    def choose(self, view: PlayerView) -> int:
        legal = list(view.legal)
        if len(legal) == 1:
            return legal[0]
        clock = self.clock
        start = clock()
        deadline = (
            math.inf
            if self.fixed_iterations is not None
            else start + self.time_budget_ms * CLOCK_SHARE / 1000.0
        )
        iterations = self.iterations_for()
        rng = self.rng
        sampler = WorldSampler(view, self.trust, self.model)
        worlds = []
        for _ in range(max(MIN_WORLDS, int(iterations * WORLDS_PER_ITERATION))):
            worlds.extend(sampler.worlds(rng, 1))
            if worlds and clock() > start + (deadline - start) * WORLDS_SHARE:
                break
        if not worlds:
            return legal[0]
        cumulative: list[float] = []
        acc = 0.0
        for world in worlds:
            acc += world.weight
            cumulative.append(acc)
        if acc <= 0.0:
            cumulative = [float(i + 1) for i in range(len(worlds))]
            acc = float(len(worlds))
        root = Node(-1)
        n = view.players
        totals = view.totals if len(view.totals) == n else (0,) * n
        began = clock()
        for done in range(iterations):
            now = clock()
            if done and now + (now - began) / done > deadline:
                break  # the next iteration would likely end past the deadline
            pick = bisect.bisect_right(cumulative, rng.random() * acc)
            state = worlds[min(pick, len(worlds) - 1)].state.copy()
            node = root
            path = []
            ended = False
            while True:
                moves = state.legal()
                children = node.children
                untried = [m for m in moves if m not in children]
                mover = state.to_move
                if untried:
                    move = untried[rng.randrange(len(untried))]
                    child = Node(mover)
                    children[move] = child
                    for m in moves:
                        other = children.get(m)
                        if other is not None:
                            other.avail += 1
                    path.append(child)
                    ended = state.play(move)
                    break
                best = None
                best_value = -math.inf
                for m in moves:
                    c = children[m]
                    c.avail += 1
                    value = c.total / c.visits + EXPLORATION * math.sqrt(
                        math.log(c.avail) / c.visits
                    )
                    if value > best_value:
                        best, best_value = c, value
                        move = m
                assert best is not None
                path.append(best)
                node = best
                if state.play(move):
                    ended = True
                    break
            scores = state.scores() if ended else rollout(state, rng)
            rewards = self._rewards(scores, totals, n)
            for c in path:
                c.visits += 1
                c.total += rewards[c.mover]
        else:
            done = iterations
        self.last_iterations = done
        ranked = [(root.children[m].visits, -i) for i, m in enumerate(legal) if m in root.children]
        if not ranked:  # not even one iteration in time: the rollout policy's move in a world
            move = worlds[0].state.greedy_move()
            return move if move in legal else legal[0]
        return legal[-max(ranked)[1]]


__all__ = ["IsmctsBot"]
