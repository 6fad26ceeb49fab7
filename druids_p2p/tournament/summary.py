"""From game lines to a summary: means with 95% confidence intervals, first places, ratings.

**Confidence intervals.** The rotations of one deal share its cards, so their results are
correlated; deals are independent. A bot's mean (score or margin) is over all its scored seats,
and its standard error is the cluster-robust one with deals as clusters::

    se² = D / (D - 1) · Σ_d (S_d - n_d · mean)² / n²

(``D`` deals, ``S_d`` the sum and ``n_d`` the number of the bot's games in deal ``d``, ``n`` its
games). With the same number of games in every deal, as in a full tournament, this is exactly
``stdev(deal means) / √D``. The interval is ``mean ± t(0.975, D - 1) · se``; null under two deals.

**Forfeits.** A seat whose bot faulted in its game — it raised, timed out or answered an illegal
move (status ``crashed``, ``timeout``, ``illegal``), or its process died — forfeits it
(:mod:`.forfeits`): it is rated last, its score counts as the table's lowest total (so its margin is
the game's worst) and it is never first; the other seats count the game by their own totals. A game
without totals (it did not finish) counts only in the ratings, its blamed seat last and the others
sharing first; one that blames nobody is not rated.

**Ratings.** ``openskill.models.PlackettLuce`` with its defaults, one update per game in game-index
order, ranks from the totals (ties share a rank), so the same games always give the same ratings.
A bot in two seats of one game (more seats than bots, a fixed lineup such as
``pimc,rule,rule,rule``) enters the update once per seat, each seat a separate copy of the bot's
one rating; its new rating is the mean of those seats' new mu and sigma. So a bot has one
aggregate rating, not one per seat instance, and its copies ranking each other moves it little.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from druids_p2p.tournament.play import (
    STATUS_CRASHED,
    STATUS_ILLEGAL,
    STATUS_OK,
    STATUS_TIMEOUT,
    STATUSES,
    score_line,
)

_T975 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157,
    2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
    2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831,
    2.048407, 2.045230, 2.042272,
)  # fmt: skip
"""Student's t, 97.5% quantile, for 1..30 degrees of freedom."""


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (no scipy here).

    A table up to 30; above, the Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5), whose
    error there is below 1e-6.
    """
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z = statistics.NormalDist().inv_cdf(0.975)
    v = float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


def clustered_mean_ci(values: Sequence[tuple[int, float]]) -> tuple[float, list[float] | None]:
    """Mean of ``(cluster, value)`` pairs and its 95% interval with clusters as the units."""
    n = len(values)
    if n == 0:
        return 0.0, None
    mean = math.fsum(v for _, v in values) / n
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for cluster, v in values:
        sums[cluster] = sums.get(cluster, 0.0) + v
        counts[cluster] = counts.get(cluster, 0) + 1
    d = len(sums)
    if d < 2:
        return mean, None
    spread = math.fsum((sums[c] - counts[c] * mean) ** 2 for c in sums)
    se = math.sqrt(d / (d - 1) * spread) / n
    half = t_quantile_975(d - 1) * se
    return mean, [mean - half, mean + half]


@dataclass
class RatingPoint:
    """A bot's rating after the game with index ``game``."""

    game: int
    mu: float
    sigma: float


@dataclass
class BotStats:
    games: int = 0
    seats: int = 0
    ok: int = 0
    forfeits: int = 0
    timeouts: int = 0
    crashes: int = 0
    illegal: int = 0
    first_fault: dict[str, Any] | None = None
    firsts: int = 0
    scores: list[tuple[int, float]] = field(default_factory=list)
    margins: list[tuple[int, float]] = field(default_factory=list)
    history: list[RatingPoint] = field(default_factory=list)


def margins_of(totals: Sequence[float]) -> list[float]:
    """Per seat: its total minus the mean of the other seats' totals."""
    n = len(totals)
    whole = sum(totals)
    return [t - (whole - t) / (n - 1) for t in totals]


@dataclass
class Summary:
    """The summary of a set of game lines; :meth:`as_dict` is ``summary.json``'s core."""

    games: int
    bots: dict[str, dict[str, Any]]
    statuses: dict[str, int]
    history: dict[str, list[RatingPoint]]

    def as_dict(self) -> dict[str, Any]:
        return {"games": self.games, "bots": self.bots}


def rate_game(
    model: Any, ratings: dict[str, Any], seating: Sequence[str], ranks: Sequence[int]
) -> list[str]:
    """One rating update in place; the names updated.

    One fresh copy per seat: openskill given the same object twice moves both seats together
    whatever their ranks (a bot in a fixed lineup would be rated wrongly). A bot in several
    seats takes the mean of its seats' new mu and sigma.
    """
    teams = [[model.rating(mu=ratings[n].mu, sigma=ratings[n].sigma, name=n)] for n in seating]
    new = model.rate(teams, ranks=list(ranks))
    per_bot: dict[str, list[Any]] = {}
    for name, team in zip(seating, new, strict=True):
        per_bot.setdefault(name, []).append(team[0])
    for name, seats in per_bot.items():
        rating = ratings[name]
        rating.mu = math.fsum(r.mu for r in seats) / len(seats)
        rating.sigma = math.fsum(r.sigma for r in seats) / len(seats)
    return list(per_bot)


def summarize(lines: Iterable[dict[str, Any]], bots: Sequence[str]) -> Summary:
    """Summarise game lines (any order; they are rated in index order)."""
    from openskill.models import PlackettLuce

    ordered = sorted(lines, key=lambda line: int(line["index"]))
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in bots}
    stats = {name: BotStats() for name in bots}
    statuses = dict.fromkeys(STATUSES, 0)
    for line in ordered:
        seating: list[str] = line["seating"]
        for name in seating:
            if name not in stats:  # a line of a bot not in the list given (defensive)
                stats[name] = BotStats()
                ratings[name] = model.rating(name=name)
            stats[name].seats += 1
        for name in set(seating):
            stats[name].games += 1
        status = line["status"]
        statuses[status] = statuses.get(status, 0) + 1
        deal = int(line["deal"])
        scored = score_line(line)
        if scored.totals is not None:
            margins = margins_of(scored.totals)
            for seat, name in enumerate(seating):
                st = stats[name]
                st.scores.append((deal, scored.totals[seat]))
                st.margins.append((deal, margins[seat]))
                st.ok += seat not in scored.forfeits
                st.firsts += scored.firsts[seat]
        for seat, kind in scored.forfeits.items():
            st = stats[seating[seat]]
            st.forfeits += 1
            st.timeouts += kind == STATUS_TIMEOUT
            st.crashes += kind == STATUS_CRASHED
            st.illegal += kind == STATUS_ILLEGAL
            if st.first_fault is None:
                fault = scored.first_faults.get(seat, {})
                st.first_fault = {
                    "game": int(line["index"]),
                    "kind": kind,
                    "stage": fault.get("stage"),
                    "text": str(fault.get("text") or f"the game's status: {status}"),
                }
        if scored.ranks is not None:
            for name in rate_game(model, ratings, seating, scored.ranks):
                rating = ratings[name]
                stats[name].history.append(RatingPoint(int(line["index"]), rating.mu, rating.sigma))
    out: dict[str, dict[str, Any]] = {}
    for name, st in stats.items():
        mean_score, score_ci = clustered_mean_ci(st.scores)
        mean_margin, margin_ci = clustered_mean_ci(st.margins)
        rating = ratings[name]
        placed = st.ok + st.forfeits
        out[name] = {
            "games": st.games,
            "seats": st.seats,
            "finished": st.ok,
            "forfeits": st.forfeits,
            "timeouts": st.timeouts,
            "crashes": st.crashes,
            "illegal": st.illegal,
            "first_fault": st.first_fault,
            "mean_score": mean_score,
            "score_ci95": score_ci,
            "mean_margin": mean_margin,
            "margin_ci95": margin_ci,
            "first_place_rate": st.firsts / placed if placed else 0.0,
            "mu": rating.mu,
            "sigma": rating.sigma,
            "ordinal": rating.ordinal(),
        }
    return Summary(
        games=len(ordered),
        bots=out,
        statuses=statuses,
        history={name: st.history for name, st in stats.items()},
    )


def failed_everywhere(summary: Summary) -> list[str]:
    """The bots that forfeited every seat they held (at least one): a run with one of them
    has measured nothing of that bot, and its command exits non-zero."""
    return [n for n, b in summary.bots.items() if b["seats"] and b["forfeits"] == b["seats"]]


def fault_counts(bot: dict[str, Any]) -> str:
    """A bot's forfeits by kind, in words: ``2 crashed, 1 illegal``."""
    kinds = (("crashes", "crashed"), ("timeouts", "timed out"), ("illegal", "illegal"))
    return ", ".join(f"{bot[key]} {word}" for key, word in kinds if bot[key])


def fault_warnings(summary: Summary) -> list[str]:
    """One line per bot that forfeited any game: how many, of which kind, and its first fault."""
    lines = []
    for name, b in summary.bots.items():
        if not b["forfeits"]:
            continue
        first = b["first_fault"] or {}
        lines.append(
            f"bot {name!r} forfeited {b['forfeits']} of {b['seats']} seat(s) ({fault_counts(b)}), "
            f"each counted as its loss; first, in game {first.get('game')}: {first.get('text')}"
        )
    return lines


def format_table(summary: Summary) -> str:
    """The summary as a plain-text table, best rating first."""
    head = (
        "bot", "games", "score", "margin", "95% CI", "first", "mu", "sigma", "ordinal",
        "crashed", "timeouts", "illegal",
    )  # fmt: skip
    rows = [head]
    order = sorted(summary.bots.items(), key=lambda kv: -kv[1]["ordinal"])
    for name, b in order:
        ci = b["margin_ci95"]
        ci_text = "-" if ci is None else f"[{ci[0]:+.1f}, {ci[1]:+.1f}]"
        rows.append(
            (
                name,
                str(b["games"]),
                f"{b['mean_score']:.1f}",
                f"{b['mean_margin']:+.1f}",
                ci_text,
                f"{100 * b['first_place_rate']:.0f}%",
                f"{b['mu']:.2f}",
                f"{b['sigma']:.2f}",
                f"{b['ordinal']:.2f}",
                str(b["crashes"]),
                str(b["timeouts"]),
                str(b["illegal"]),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    text = []
    for row in rows:
        cells = [
            cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)
        ]
        text.append("  ".join(cells).rstrip())
    counts = ", ".join(f"{k} {v}" for k, v in summary.statuses.items() if v or k == STATUS_OK)
    text.append(
        f"{summary.games} games ({counts}); crashed, timeouts, illegal: the seats a bot forfeited "
        "by that fault, each its loss (last place, the table's lowest score)"
    )
    return "\n".join(text)
