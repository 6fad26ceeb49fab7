"""Sequential testing of a two-bot match: the (generalised) SPRT on duplicate deals.

A chess match is tested on *pairs* of games (the same opening, colours swapped): the pair is the
independent unit, and its score (0, ¼, ½, ¾ or 1) has five values — the *pentanomial* model of
fishtest and fastchess. A Druids deal is the same thing with ``P`` games: the deal is played once
per rotation of the lineup, so its games share the cards and the deal is the unit. We follow
fastchess (``app/src/matchmaking/sprt/sprt.cpp`` of Disservin/fastchess) and Michel Van den
Bergh's notes behind fishtest ("Comments on Normalized Elo", proposition 1.1; "GSPRT
approximation"):

* **Bounds.** ``lower = ln(β / (1 − α))``, ``upper = ln((1 − β) / α)`` (Wald); the LLR at or
  above ``upper`` accepts H1, at or below ``lower`` accepts H0. α = β = 0.05 gives ±2.944.
* **Elo (the default statistic).** The score of the tested bot in one game is the share of
  (its seat, an opponent's seat) pairs it wins (a tie is half); a deal's score is the mean over
  its games, a value on the grid ``j / G`` (``G`` = 2 × the pairs of a deal; for ``P = 2`` and
  one opponent seat that is exactly the pentanomial's five values). The hypotheses are the
  logistic scores ``1 / (1 + 10^(−elo/400))`` of ``elo0`` and ``elo1``. The LLR is the
  generalised one: ``N · Σ_i p̂_i · ln(p1_i / p0_i)`` where ``p̂`` is the empirical distribution
  of the deal scores over the grid (empty cells regularised to 1e-3 as fastchess does) and
  ``p0``, ``p1`` its maximum-likelihood re-weightings with mean ``s0``, ``s1``:
  ``p_i = p̂_i / (1 + θ (a_i − s))`` with θ solving ``Σ p̂_i (a_i − s) / (1 + θ (a_i − s)) = 0``.
* **Margin (``--sprt-stat margin``, the natural statistic here).** Each deal gives the tested bot's
  mean score margin over its opponents; with ``N`` deals of sample mean ``x̄`` and (maximum
  likelihood) variance ``σ²``, the normal GSPRT gives
  ``LLR = N (m1 − m0)(2 x̄ − m0 − m1) / (2 σ²)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

STAT_ELO = "elo"
STAT_MARGIN = "margin"
STATS = (STAT_ELO, STAT_MARGIN)
REGULARIZE = 1e-3
"""Count given to an empty cell of the grid (fastchess's ``regularize``)."""
H0 = "H0"
H1 = "H1"


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: ``(ln(β/(1−α)), ln((1−β)/α))``."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def elo_to_score(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


def mle_with_mean(support: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution on ``support`` closest to ``probs`` (maximum likelihood) with mean ``s``.

    ``s`` must lie strictly inside the support's range and every ``probs`` above 0. θ is found by
    bisection on ``(−1/(max − s), −1/(min − s))``, where the weights stay positive.
    """
    lo_a, hi_a = min(support), max(support)
    if not lo_a < s < hi_a:
        raise ValueError(f"mean {s} outside the support ({lo_a}, {hi_a})")

    def f(theta: float) -> float:
        pairs = zip(support, probs, strict=True)
        return math.fsum(p * (a - s) / (1 + theta * (a - s)) for a, p in pairs)

    lo, hi = -1.0 / (hi_a - s), -1.0 / (lo_a - s)
    for _ in range(200):  # f falls from +inf to -inf on (lo, hi); 200 halvings are plenty
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    theta = (lo + hi) / 2
    return [p / (1 + theta * (a - s)) for a, p in zip(support, probs, strict=True)]


def llr_multinomial(
    support: Sequence[float], counts: Sequence[float], s0: float, s1: float
) -> float:
    """The generalised LLR of mean ``s1`` against ``s0`` for counts of outcomes on ``support``."""
    total = math.fsum(counts)
    probs = [c / total for c in counts]
    p0 = mle_with_mean(support, probs, s0)
    p1 = mle_with_mean(support, probs, s1)
    return total * math.fsum(
        p * (math.log(a) - math.log(b)) for p, a, b in zip(probs, p1, p0, strict=True) if p > 0
    )


def grid_counts(scores: Sequence[float], grid: int) -> tuple[list[float], list[float]]:
    """Support ``j / grid`` and the (regularised) count of ``scores`` at each point."""
    counts = [0.0] * (grid + 1)
    for x in scores:
        counts[min(grid, max(0, round(x * grid)))] += 1
    return [j / grid for j in range(grid + 1)], [c if c else REGULARIZE for c in counts]


def llr_normal(values: Sequence[float], m0: float, m1: float) -> float:
    """The normal-approximation GSPRT of mean ``m1`` against ``m0``; 0 until there is spread."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / n
    if var <= 0:
        return 0.0
    return n * (m1 - m0) * (2 * mean - m0 - m1) / (2 * var)


@dataclass(frozen=True)
class SprtTest:
    """``--sprt lo,hi,alpha,beta`` on ``stat``: Elo (``lo``/``hi`` in Elo) or margin (points)."""

    lo: float
    hi: float
    alpha: float
    beta: float
    stat: str = STAT_ELO

    def __post_init__(self) -> None:
        if self.stat not in STATS:
            raise ValueError(f"the statistic must be one of {', '.join(STATS)}, not {self.stat!r}")
        if not self.lo < self.hi:
            raise ValueError(f"the first bound must be below the second ({self.lo:g}, {self.hi:g})")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("alpha and beta must be in (0, 1) with alpha + beta below 1")

    @property
    def bounds(self) -> tuple[float, float]:
        return bounds(self.alpha, self.beta)

    def llr(self, scores: Sequence[float], margins: Sequence[float], grid: int) -> float:
        """The LLR over the deals so far: their scores (on ``j / grid``) or their margins."""
        if self.stat == STAT_MARGIN:
            return llr_normal(margins, self.lo, self.hi)
        if not scores:
            return 0.0
        support, counts = grid_counts(scores, grid)
        return llr_multinomial(support, counts, elo_to_score(self.lo), elo_to_score(self.hi))

    def verdict(self, llr: float) -> str | None:
        lower, upper = self.bounds
        if llr >= upper:
            return H1
        if llr <= lower:
            return H0
        return None
