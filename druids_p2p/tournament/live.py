"""What a running tournament knows so far: ratings, margins, the SPRT — and whether to stop.

Every statistic is over the *prefix of whole deals*, so a stop happens at a deal fixed by the seed,
not by the workers' speed; updates are incremental, so a check costs the same however long the run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from druids_p2p.tournament.config import PlannedGame, SprtTest
from druids_p2p.tournament.play import score_line
from druids_p2p.tournament.summary import margins_of, rate_game, t_quantile_975

MAX_GRID = 720
"""Cap on the score grid's points (a plan whose deals differ wildly rounds to it)."""
STOP_SPRT = "sprt"
STOP_CI = "ci"
MIN_DEALS = 10
"""No early stop before this many deals: the LLR of the normal approximation (and a t interval)
rests on a variance estimate, which two or three deals do not give (the LLR is still shown)."""


@dataclass
class _Running:
    """Running sums for a clustered mean and its interval (see :mod:`.summary`)."""

    n: int = 0
    total: float = 0.0
    deals: int = 0
    s2: float = 0.0
    sn: float = 0.0
    n2: float = 0.0

    def add_deal(self, values: Sequence[float]) -> None:
        if not values:
            return
        s, k = math.fsum(values), len(values)
        self.n += k
        self.total += s
        self.deals += 1
        self.s2 += s * s
        self.sn += s * k
        self.n2 += k * k

    def ci(self) -> tuple[float, list[float] | None]:
        if self.n == 0:
            return 0.0, None
        mean = self.total / self.n
        if self.deals < 2:
            return mean, None
        spread = max(0.0, self.s2 - 2 * mean * self.sn + mean * mean * self.n2)
        se = math.sqrt(self.deals / (self.deals - 1) * spread) / self.n
        half = t_quantile_975(self.deals - 1) * se
        return mean, [mean - half, mean + half]


def match_pair(bots: Sequence[str], specs: Sequence[PlannedGame]) -> tuple[str, str] | None:
    """(tested bot, its opponent) of a two-bot match, or None: the bot with fewer seats is tested
    (``pimc`` in ``pimc,rule,rule,rule``), the first listed when they are even."""
    if len(bots) != 2:
        return None
    seats = dict.fromkeys(bots, 0)
    for spec in specs[: len(specs[0].seating) if specs else 0]:
        for name in spec.seating:
            seats[name] = seats.get(name, 0) + 1
    a, b = bots
    return (b, a) if seats[b] < seats[a] else (a, b)


@dataclass
class Decision:
    """Why and where a run stopped early: after deal ``deal`` (games with deal ≤ it count)."""

    reason: str
    deal: int
    games: int
    text: str
    verdict: str | None = None


@dataclass
class Monitor:
    """Feed it game lines (:meth:`add`); it says what is known and whether to stop."""

    bots: tuple[str, ...]
    specs: Sequence[PlannedGame]
    sprt: SprtTest | None = None
    stop_ci: float | None = None
    rate: bool = True
    """Keep the live ratings (for the status line); a run without a display skips them."""
    ratings: dict[str, Any] = field(init=False)
    decision: Decision | None = field(default=None, init=False)
    llr: float = field(default=0.0, init=False)
    deals_done: int = field(default=0, init=False)
    games_done: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        from openskill.models import PlackettLuce

        self._model = PlackettLuce()
        self.ratings = {n: self._model.rating(name=n) for n in self.bots}
        self._size: dict[int, int] = {}
        for spec in self.specs:
            self._size[spec.deal] = self._size.get(spec.deal, 0) + 1
        self._waiting: dict[int, dict[int, dict[str, Any]]] = {}
        self._margins = {n: _Running() for n in self.bots}
        self.pair = match_pair(self.bots, self.specs)
        self._scores: list[float] = []
        self._deal_margins: list[float] = []
        # A deal's score is k / (2 · its (tested seat, opponent seat) pairs): the grid is the
        # least common multiple of those denominators (one value when every deal is alike).
        pairs: dict[int, int] = {}
        if self.pair is not None:
            for spec in self.specs:
                mine, theirs = spec.seating.count(self.pair[0]), spec.seating.count(self.pair[1])
                pairs[spec.deal] = pairs.get(spec.deal, 0) + mine * theirs
        self._grid = min(MAX_GRID, math.lcm(2, *(2 * p for p in pairs.values() if p)))

    def add(self, line: dict[str, Any]) -> None:
        """One finished game (any order; a game seen twice counts once)."""
        deal = int(line["deal"])
        if deal < self.deals_done:
            return
        self._waiting.setdefault(deal, {})[int(line["index"])] = line
        while self._waiting.get(self.deals_done) is not None and len(
            self._waiting[self.deals_done]
        ) == self._size.get(self.deals_done, -1):
            games = self._waiting.pop(self.deals_done)
            self._deal(self.deals_done, [games[i] for i in sorted(games)])
            self.deals_done += 1

    def _deal(self, deal: int, lines: list[dict[str, Any]]) -> None:
        per_bot: dict[str, list[float]] = {}
        points: list[float] = []
        for line in lines:
            self.games_done += 1
            scored = score_line(line)
            if self.rate and scored.ranks is not None:
                rate_game(self._model, self.ratings, line["seating"], scored.ranks)
            if scored.totals is not None:
                for name, m in zip(line["seating"], margins_of(scored.totals), strict=True):
                    per_bot.setdefault(name, []).append(m)
            if self.pair is not None:
                points.extend(self._pair_points(line["seating"], scored.ranks, self.pair))
        for name, values in per_bot.items():
            self._margins.setdefault(name, _Running()).add_deal(values)
        if self.pair is not None:
            hero = per_bot.get(self.pair[0])
            if hero:
                self._deal_margins.append(math.fsum(hero) / len(hero))
            if points:
                self._scores.append(math.fsum(points) / len(points))
        if self.decision is None:
            self._check(deal)

    def _may_stop(self) -> bool:
        return self.deals_done + 1 >= MIN_DEALS

    @staticmethod
    def _pair_points(
        seating: list[str], ranks: list[int] | None, pair: tuple[str, str]
    ) -> list[float]:
        """1, ½ or 0 for every (tested seat, opponent seat) of a game, by the ranks it is rated
        with: a forfeit (last) loses them all, or wins them when the opponent forfeits."""
        if ranks is None:
            return []
        mine = [s for s, n in enumerate(seating) if n == pair[0]]
        theirs = [s for s, n in enumerate(seating) if n == pair[1]]
        return [
            1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0
            for a in mine
            for b in theirs
        ]

    def _check(self, deal: int) -> None:
        if self.sprt is not None:
            self.llr = self.sprt.llr(self._scores, self._deal_margins, self._grid)
            verdict = self.sprt.verdict(self.llr)
            if verdict is not None and self._may_stop():
                lower, upper = self.sprt.bounds
                self.decision = Decision(
                    STOP_SPRT,
                    deal,
                    self.games_done,
                    f"SPRT: {verdict} accepted (LLR {self.llr:+.2f}, bounds "
                    f"[{lower:.2f}, {upper:.2f}]) after {deal + 1} deals, {self.games_done} games",
                    verdict,
                )
                return
        if self.stop_ci is not None and self._may_stop():
            names = [self.pair[0]] if self.pair is not None else list(self.bots)
            widths = [self.width(n) for n in names]
            if all(w is not None and w < self.stop_ci for w in widths):
                widest = max(w for w in widths if w is not None)
                self.decision = Decision(
                    STOP_CI,
                    deal,
                    self.games_done,
                    f"95% CI of the margin {widest:.2f} wide (< {self.stop_ci:g}) after "
                    f"{deal + 1} deals, {self.games_done} games",
                )

    def width(self, name: str) -> float | None:
        _, ci = self._margins[name].ci() if name in self._margins else (0.0, None)
        return None if ci is None else ci[1] - ci[0]

    def status(self) -> str:
        """One short line: the leaders' ratings, the LLR if testing."""
        order = sorted(self.ratings.items(), key=lambda kv: -kv[1].ordinal())
        text = " ".join(f"{n} {r.mu:.1f}" for n, r in order[:4])
        if self.sprt is not None:
            lower, upper = self.sprt.bounds
            text += f" | LLR {self.llr:+.2f} [{lower:.2f}, {upper:.2f}]"
        elif self.stop_ci is not None and self.pair is not None:
            w = self.width(self.pair[0])
            text += f" | CI width {'-' if w is None else f'{w:.2f}'}"
        return text

    def report(self) -> dict[str, Any]:
        """The test's state for ``summary.json``."""
        d = self.decision
        out: dict[str, Any] = {
            "deals": self.deals_done if d is None else d.deal + 1,
            "games": self.games_done if d is None else d.games,
        }
        if self.pair is not None:
            out["bot"], out["opponent"] = self.pair
        if self.sprt is not None:
            lower, upper = self.sprt.bounds
            out["sprt"] = {
                "stat": self.sprt.stat,
                "hypotheses": [self.sprt.lo, self.sprt.hi],
                "alpha": self.sprt.alpha,
                "beta": self.sprt.beta,
                "llr": self.llr,
                "bounds": [lower, upper],
            }
        if self.decision is not None:
            out["stopped"] = {
                "reason": self.decision.reason,
                "deal": self.decision.deal,
                "verdict": self.decision.verdict,
                "text": self.decision.text,
            }
        return out
