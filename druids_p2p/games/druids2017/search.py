"""``search`` for Druids (2017), and ``pimc`` its origin: every legal move of a world rolled out
on the same numbers, so moves differ by themselves, not by luck, each rated by the chance of
finishing first (what the bench counts); the options left off are in README's bots section.
"""

from __future__ import annotations

import bisect
import math
import random
import time
from collections.abc import Callable
from random import Random

from druids_p2p.games.druids2017.cards import ROUNDS_PER_GAME
from druids_p2p.games.druids2017.determinize import World, WorldSampler, sample_round
from druids_p2p.games.druids2017.rollout import FastRound, ModelRound, rollout, rollout_draws
from druids_p2p.games.druids2017.rule_bot import rule_move
from druids_p2p.games.druids2017.rule_model import RuleRound
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.spec import Bot

__all__ = ["PimcBot", "SearchBot", "rollout_mixed"]


# ``pimc``: every legal move tried in sampled worlds, played out by the rule-guided rollouts; a
# calibrated rollout count, not the clock, fixes the work, so a seeded game replays anywhere.
PIMC_ROLLOUTS_PER_MS = 8.0
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
        rollouts = self.time_budget_ms * PIMC_ROLLOUTS_PER_MS
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


# ``search`` for Druids (2017): determinized search over the whole budget, with common random
# numbers and, as options, inference from play by the ``rule`` bot's own model.
TRUST = 0.9
"""Weight of the rule bot's choice in an observed play's likelihood (the rest is uniform)."""
RULE_PLIES = 0
"""Moves of a rollout played by the exact rule model before the cheap policy takes over."""
WORLDS_PER_MS = 4.0
"""Worlds per millisecond of budget (about 0.1 ms of CPU each without inference: 400 take a mean
of 40 ms a move, the CPU 170 took before the rollouts' kernel was fused)."""
RULE_TRICK = False
"""Finish the trick each candidate move starts by the rule bots' exact choices in every world:
off, as it did not pay on the bench's deals (README's bots section)."""
RESAMPLED_WORLDS_PER_MS = 0.4
"""Worlds weighed per millisecond of budget when a few are resampled (``fresh=False``)."""
RECENT = 0
"""The latest public plays a world's likelihood counts (None: every play, about 0.1 ms a world
mid-round with ``rule_model.Evidence``'s caches): none by default, as inference did not pay in
the screens, neither on the latest 8 plays nor on every play (README's bots section)."""
ROLLOUTS_PER_MS = 6.0
"""Rollouts per millisecond of budget, shared among the legal moves."""
ESS_SHARE = 0.25
"""The worlds' weights are tempered until their effective number is at least this share of them."""
CLOCK_SHARE = 0.8
"""Share of the budget (in the thread's CPU time) after which the clock guard stops the search."""
WALL_SHARE = 0.9
"""Share of the budget in wall time after which the search stops whatever its CPU time."""
DRAWS = 128
"""Random numbers drawn once per world and shared by its legal moves' rollouts (common random
numbers without seeding a generator per rollout; a long rollout reads them again from the start)."""
WEIGH_SHARE = 0.35
"""Share of the clock the weighing of worlds may take before the rollouts start anyway."""
ROUND_SPREAD = 9.6
"""Standard deviation of the difference of two seats' scores in one round (rule bots, 4 seats,
40 games: 9.6): how far the rounds still to come may move a lead."""
MARGIN_WEIGHT = 0.005
"""Chance of first place one point of margin is worth where the chance alone is flat (a game
already won or lost in every world)."""


PRUNE_Z = 2.0
"""A move is dropped once its mean falls this many standard errors (of its difference from the
best move's, world by world) below the best's."""
PRUNED_WORLDS = 4
"""At most this many times the planned worlds, when pruning leaves rollouts to spare."""


def pruned(active: list[int], rows: list[list[float]]) -> list[int]:
    """The moves of ``active`` still worth rolling out: those not clearly below the best (their
    difference from it, world by world on common random numbers, is within ``PRUNE_Z`` standard
    errors)."""
    k = len(rows)
    means = {i: sum(row[i] for row in rows) / k for i in active}
    best = max(active, key=lambda i: (means[i], -i))
    keep = []
    for i in active:
        if i == best:
            keep.append(i)
            continue
        diffs = [row[best] - row[i] for row in rows]
        mean = sum(diffs) / k
        var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
        if mean <= PRUNE_Z * math.sqrt(var / k):
            keep.append(i)
    return keep


def first_chance(final: list[int], seat: int, rounds_left: int) -> float:
    """The chance that ``seat`` ends the game first (ties count, as the bench counts them) from
    these totals with ``rounds_left`` rounds to come: each rival's lead a normal variable of
    spread ``ROUND_SPREAD`` a round, the rivals taken as independent."""
    mine = final[seat]
    if rounds_left <= 0:
        return 1.0 if mine >= max(final) else 0.0
    scale = ROUND_SPREAD * math.sqrt(2.0 * rounds_left)
    chance = 1.0
    for other, theirs in enumerate(final):
        if other != seat:
            chance *= 0.5 * (1.0 + math.erf((mine - theirs + 0.5) / scale))
    return chance


def tempered(weights: list[float], target: float) -> list[float]:
    """The weights raised to the largest power in [0, 1] (bisection) whose effective sample size,
    (sum w)^2 / sum w^2, is still at least ``target``: the likelihood sharpens the worlds' odds
    without letting one or two worlds stand for all of them (with the rule policy as the model,
    40 worlds' raw weights are worth about two from the third trick on)."""
    floor = 1e-300
    logs = [math.log(max(w, floor)) for w in weights]
    top = max(logs)
    logs = [x - top for x in logs]

    def ess(alpha: float) -> tuple[float, list[float]]:
        ws = [math.exp(alpha * x) for x in logs]
        return sum(ws) ** 2 / sum(w * w for w in ws), ws

    value, ws = ess(1.0)
    if value >= target:
        return ws
    lo, hi = 0.0, 1.0
    for _ in range(12):
        mid = (lo + hi) / 2
        if ess(mid)[0] >= target:
            lo = mid
        else:
            hi = mid
    return ess(lo)[1]


def public_model(view: PlayerView) -> RuleRound:
    """What every world at ``view`` shares for the rule model (cards played, voids shown, specials
    played): a :class:`RuleRound` with only those fields, for :func:`ruled` to fill per world."""
    public = RuleRound.__new__(RuleRound)
    public.played = [0] * 5
    public.voids = [0] * view.players
    public.specials = 0
    for trick in view.tricks:
        public._observe_trick(trick[1])
    public._observe_trick(view.trick)
    return public


def ruled(plain: ModelRound, public: RuleRound) -> RuleRound:
    """The world ``plain`` (copied) as a :class:`RuleRound` with ``public``'s public fields, so
    the rule bot's own choice can be asked in it."""
    f = RuleRound.__new__(RuleRound)
    for name in FastRound.__slots__:
        value = getattr(plain, name)
        setattr(f, name, value[:] if isinstance(value, list) else value)
    f.played = public.played[:]
    f.voids = public.voids[:]
    f.specials = public.specials
    return f


def rest_of_trick(state: RuleRound, seat: int, more: int = 0) -> bool:
    """Play the current trick to its end as the rule bots would (the others' exact choices, the
    seats after ``seat``), then ``more`` whole tricks with every seat the rule bot; True when the
    round ended. The rule bots at the table are deterministic, so the trick a move starts is
    predicted exactly where the world is right."""
    play, greedy = state.play, state.greedy_move
    while state.pos and not state.pending and state.to_move != seat:
        if play(greedy()):
            return True
    for _ in range(more):
        while state.pending:  # the pile choice the last trick left
            if play(greedy()):
                return True
        while True:
            if play(greedy()):
                return True
            if not state.pos:
                break
    return False


def rollout_mixed(state: RuleRound, rng: random.Random, plies: int) -> list[int]:
    """Play the round to its end: ``plies`` moves by the rule model, then the cheap policy."""
    for _ in range(plies):
        if state.play(state.policy_move(rng)):
            return state.scores()
    play, cheap = state.play, state.cheap_move
    for _ in range(400):
        if play(cheap(rng)):
            return state.scores()
    raise RuntimeError("rollout did not end")  # pragma: no cover - rounds are finite


class SearchBot(Bot):
    """PIMC over the whole budget on common random numbers, rated by the chance of first place;
    the round's margin, inference from play by the rule bot's model, pruning and each move's
    trick finished by the rule model as options."""

    def __init__(
        self,
        worlds: int | None = None,
        rollouts: int | None = None,
        trust: float = TRUST,
        rule_plies: int = RULE_PLIES,
        ess_share: float = ESS_SHARE,
        fresh: bool = True,
        recent: int | None = RECENT,
        win_weight: float = 0.0,
        first_place: bool = True,
        prune: bool = False,
        rule_trick: bool = RULE_TRICK,
        rule_tricks: int = 0,
        chain: tuple[int, int] | None = None,
    ) -> None:
        super().__init__()
        self.rule_trick = rule_trick
        """The rest of the current trick after each candidate move played by the rule bot's exact
        choice (:func:`rest_of_trick`), the kernel's policy from the next trick on."""
        self.rule_tricks = rule_tricks
        """Whole tricks after the current one played by the rule bot's choice for every seat (with
        ``rule_trick``): the seat's own play as strong as the rule bot's, the others' exact."""
        self.chain = chain
        """Draw the worlds from a Metropolis chain on the rule model's likelihood of every play
        (``WorldSampler.chain``: burn-in steps, steps between worlds), each weighing 1."""
        self.prune = prune
        """Successive pruning: at a quarter, half, all and twice the planned worlds, moves clearly
        below the best stop being rolled out (:func:`pruned`), and their rollouts go to more
        worlds for the rest (the same rollouts in all)."""
        self.first_place = first_place
        """Rate a rollout by the seat's chance of ending the game first (:func:`first_chance` of
        the totals it leads to, plus ``MARGIN_WEIGHT`` a point of margin), as the bench counts
        first places, rather than by its margin in this round."""
        self.win_weight = win_weight
        """Points a rollout adds to its margin where the seat ends the game's totals first (on the
        last round; a share ``1 / (rounds left + 1)`` of it before): first place is what counts."""
        self.fresh = fresh
        """Each world rolled out once for every legal move, its weight applied to the outcome (as
        ``pimc``, every world a new one), instead of rollouts from a resampled few."""
        self.recent = recent
        """Count only the latest this many public plays in a world's likelihood (None: all)."""
        self.ess_share = ess_share
        self.fixed = (worlds, rollouts)
        """Worlds weighed and rollouts per move regardless of the budget, and no clock (tests)."""
        self.trust = trust
        self.rule_plies = rule_plies
        self.clock: Callable[[], float] = time.thread_time
        self.wall: Callable[[], float] = time.perf_counter
        """The wall clock of the hard stop (``WALL_SHARE`` of the budget): a core shared with
        other work makes the CPU guard's work take longer than the budget, this stops it."""
        self._wall_deadline = math.inf
        self._wall_began = 0.0
        self.last_work = (0, 0)
        """(worlds weighed, rollouts) of the last search."""
        self.last_values: dict[int, float] = {}
        """The last search's (fresh worlds) weighted mean value of each move it kept."""

    def work_for(self) -> tuple[int, int]:
        worlds, rollouts = self.fixed
        ms = self.time_budget_ms
        return (
            worlds
            if worlds is not None
            else max(
                MIN_WORLDS, int(ms * (WORLDS_PER_MS if self.fresh else RESAMPLED_WORLDS_PER_MS))
            ),
            rollouts if rollouts is not None else max(8, int(ms * ROLLOUTS_PER_MS)),
        )

    def choose(self, view: PlayerView) -> int:
        legal = list(view.legal)
        if len(legal) == 1:
            return legal[0]
        clock = self.clock
        start = clock()
        timed = self.fixed == (None, None)
        deadline = start + self.time_budget_ms * CLOCK_SHARE / 1000.0 if timed else math.inf
        self._wall_began = self.wall()
        self._wall_deadline = (
            self._wall_began + self.time_budget_ms * WALL_SHARE / 1000.0 if timed else math.inf
        )
        n_worlds, n_rollouts = self.work_for()
        rng = self.rng
        sampler = WorldSampler(view, self.trust, RuleRound)
        if self.recent is not None:
            sampler.checked_from = max(0, len(sampler.plays) - self.recent)
        if self.fresh:
            return self._fresh(view, legal, sampler, n_worlds, deadline)
        worlds: list[World] = []
        weigh_until = start + (deadline - start) * WEIGH_SHARE
        wall_weigh_until = self._wall_began + (self._wall_deadline - self._wall_began) * WEIGH_SHARE
        for _ in range(n_worlds):
            worlds.extend(sampler.worlds(rng, 1))
            if worlds and (clock() > weigh_until or self.wall() > wall_weigh_until):
                break
        if not worlds:
            return rule_move(view)
        cumulative: list[float] = []
        acc = 0.0
        for weight in tempered([w.weight for w in worlds], self.ess_share * len(worlds)):
            acc += weight
            cumulative.append(acc)
        seat, n = view.seat, view.players
        per_move = max(1, n_rollouts // len(legal))
        totals = [0.0] * len(legal)
        done = 0
        began = clock()
        self._wall_began = self.wall()
        plies = self.rule_plies
        bases: dict[int, ModelRound] = {}
        for done in range(per_move):
            now = clock()
            if done and (now + (now - began) / done > deadline or self._late(done)):
                break
            pick = min(bisect.bisect_right(cumulative, rng.random() * acc), len(worlds) - 1)
            base = worlds[pick].state
            assert isinstance(base, RuleRound)
            plain = bases.get(pick)
            if plain is None:
                plain = bases[pick] = base.plain()
            seed = rng.getrandbits(64)
            for i, move in enumerate(legal):
                if plies:
                    state = base.copy()
                    ended = state.play(move)
                    scores = state.scores() if ended else rollout_mixed(state, Random(seed), plies)
                else:
                    cheap = plain.copy()
                    ended = cheap.play(move)
                    scores = cheap.scores() if ended else rollout(cheap, Random(seed))
                mine = scores[seat]
                totals[i] += mine - (sum(scores) - mine) / (n - 1)
        else:
            done = per_move
        self.last_work = (len(worlds), done * len(legal))
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        return legal[best]

    def _late(self, done: int) -> bool:
        """Whether the next of ``done`` equal steps since the loop began would likely end past the
        wall deadline."""
        now = self.wall()
        return now + (now - self._wall_began) / done > self._wall_deadline

    def _fresh(
        self,
        view: PlayerView,
        legal: list[int],
        sampler: WorldSampler,
        n_worlds: int,
        deadline: float,
    ) -> int:
        """A new world for each iteration, every legal move rolled out in it on one seed; the
        margins summed with the worlds' tempered weights."""
        rng, clock = self.rng, self.clock
        draw = rng.random
        seat, n = view.seat, view.players
        weights: list[float] = []
        margins: list[list[float]] = []
        totals_so_far = view.totals if len(view.totals) == n else (0,) * n
        rounds = getattr(getattr(self, "options", None), "rounds", ROUNDS_PER_GAME)
        left = max(0, rounds - 1 - view.round_index)
        bonus = self.win_weight / (1 + left) if self.win_weight else 0.0
        first = self.first_place
        public = public_model(view) if self.rule_trick else None
        more = self.rule_tricks
        weighed = sampler.trust > 0.0 and sampler.checked_from < len(sampler.plays)
        began = clock()
        self._wall_began = self.wall()
        active = list(range(len(legal)))
        budget = n_worlds * len(legal)
        spent = done = 0
        checks = [c for c in (n_worlds // 4, n_worlds // 2, n_worlds, 2 * n_worlds) if c >= 8]
        chain = sampler.chain(rng, *self.chain) if self.chain and sampler.plays else None
        while spent < budget and done < PRUNED_WORLDS * n_worlds:
            now = clock()
            if done and (now + (now - began) / done > deadline or self._late(done)):
                break
            done += 1
            # (without a chain, the same draws as ``worlds``, and no replay)
            hidden = next(chain, None) if chain is not None else sampler.hidden_hands(rng)
            if hidden is None:
                continue
            plain = sampler.state_of(hidden)
            weight = sampler.weight_of(hidden) if weighed and chain is None else 1.0
            draws = [draw() for _ in range(DRAWS)]
            row = [0.0] * len(legal)
            for i in active:
                if public is not None:
                    scores = self._ruled_rollout(plain, public, legal[i], seat, draws, more)
                else:
                    cheap = plain.copy()
                    ended = cheap.play(legal[i])
                    scores = cheap.scores() if ended else rollout_draws(cheap, draws)
                mine = scores[seat]
                margin = mine - (sum(scores) - mine) / (n - 1)
                if first:
                    final = [t + sc for t, sc in zip(totals_so_far, scores, strict=True)]
                    margin = first_chance(final, seat, left) + MARGIN_WEIGHT * margin
                elif bonus:
                    final = [t + sc for t, sc in zip(totals_so_far, scores, strict=True)]
                    if final[seat] >= max(final):
                        margin += bonus
                row[i] = margin
            spent += len(active)
            weights.append(weight)
            margins.append(row)
            if self.prune and not weighed and len(weights) in checks and len(active) > 1:
                active = pruned(active, margins)
        self.last_work = (len(weights), spent)
        if not weights:
            return rule_move(view)
        totals = [0.0] * len(legal)
        tempers = tempered(weights, self.ess_share * len(weights))
        for w, row in zip(tempers, margins, strict=True):
            for i, m in enumerate(row):
                totals[i] += w * m
        mass = sum(tempers) or 1.0
        self.last_values = {legal[i]: totals[i] / mass for i in active}
        best = max(active, key=lambda i: (totals[i], -i))
        return legal[best]

    @staticmethod
    def _ruled_rollout(
        plain: ModelRound, public: RuleRound, move: int, seat: int, draws: list[float], more: int
    ) -> list[int]:
        """``move`` in world ``plain``, the trick finished by the rule bots (and ``more`` tricks),
        then the kernel."""
        state = ruled(plain, public)
        if state.play(move) or rest_of_trick(state, seat, more):
            return state.scores()
        return rollout_draws(state.plain(), draws)
