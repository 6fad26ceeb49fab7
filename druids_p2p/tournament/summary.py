"""From game lines to what a tournament reports: means with confidence intervals, first places,
ratings and their plot, and the run folder they are read from and written to."""

from __future__ import annotations

import json
import math
import os
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from druids_p2p.tournament.config import TournamentConfig, TournamentError
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


def rate_ci(values: Sequence[tuple[int, float]]) -> tuple[float, list[float] | None]:
    """:func:`clustered_mean_ci` of a rate (values 0 or 1), its interval clipped to [0, 1]."""
    rate, ci = clustered_mean_ci(values)
    return rate, None if ci is None else [max(0.0, ci[0]), min(1.0, ci[1])]


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
    places: list[tuple[int, float]] = field(default_factory=list)
    """Per seat placed (finished or forfeited), by deal: 1.0 where it finished first (ties
    count), else 0.0."""
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
    """One rating update in place; the names updated. One fresh copy per seat: openskill given one
    object twice moves both seats together whatever their ranks.
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
                st.places.append((deal, float(scored.firsts[seat])))
        else:
            for seat in scored.forfeits:  # a forfeit is placed, never first
                stats[seating[seat]].places.append((deal, 0.0))
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
        first_rate, first_ci = rate_ci(st.places)
        rating = ratings[name]
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
            "first_place_rate": first_rate,
            "first_place_ci95": first_ci,
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


PLOT_EXTRA_HINT = "pip install 'druids-p2p[plot]' (or matplotlib)"


def matplotlib_missing() -> str | None:
    """None if matplotlib can be imported, else the one-line reason."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return f"--plot needs matplotlib: {PLOT_EXTRA_HINT}"
    return None


def plot_ratings(summary: Summary, path: Path, title: str = "") -> None:
    """Draw mu after each rated game, with a mu ± 2 sigma band, one colour per bot."""
    import matplotlib

    matplotlib.use("Agg")  # files only: never open a window, work without a display
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5), dpi=110)
    order = sorted(summary.bots, key=lambda name: -summary.bots[name]["ordinal"])
    for name in order:
        points = summary.history.get(name, [])
        if not points:
            continue
        xs = [p.game + 1 for p in points]
        mu = [p.mu for p in points]
        lo = [p.mu - 2 * p.sigma for p in points]
        hi = [p.mu + 2 * p.sigma for p in points]
        (line,) = ax.plot(xs, mu, label=f"{name} ({mu[-1]:.1f} ± {2 * points[-1].sigma:.1f})")
        ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.18, linewidth=0)
    ax.set_xlabel("games played")
    ax.set_ylabel("openskill rating (mu, band: ± 2 sigma)")
    ax.set_title(title or f"Ratings over {summary.games} games")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


RUN_FORMAT = 1


@dataclass
class RunResult:
    """What :func:`run_tournament` did; ``lines`` are every game of the folder, in index order."""

    config: TournamentConfig
    out_dir: Path
    lines: list[dict[str, Any]]
    planned: int
    played: int
    """Games played by this invocation (the others were already in the folder)."""
    seconds: float
    interrupted: bool
    summary: Summary
    test: dict[str, Any] | None = None
    """The stopping rule's state (:meth:`.live.Monitor.report`) when one was set."""
    stopped: str | None = None
    """Why the run stopped early (an SPRT decision, a narrow interval), or None."""

    @property
    def complete(self) -> bool:
        return len(self.lines) == self.planned


def read_run(out_dir: Path) -> TournamentConfig | None:
    path = out_dir / "run.json"
    if not path.exists():
        return None
    try:
        return TournamentConfig.from_dict(json.loads(path.read_text())["config"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TournamentError(f"{path}: not a tournament run file ({exc})") from None


def read_games(path: Path) -> dict[int, dict[str, Any]]:
    """Lines of ``games.jsonl`` by index; a torn last line (a killed run) is dropped."""
    games: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return games
    with path.open() as f:
        for text in f:
            try:
                line = json.loads(text)
                games[int(line["index"])] = line
            except (ValueError, KeyError, TypeError):
                continue
    return games


def encode_line(line: dict[str, Any]) -> str:
    return json.dumps(line, separators=(",", ":")) + "\n"


def write_sorted(path: Path, games: dict[int, dict[str, Any]], texts: dict[int, str]) -> None:
    """Rewrite ``games.jsonl`` in index order (reusing the text of lines encoded this run)."""
    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("w") as f:
        for index in sorted(games):
            f.write(texts.get(index) or encode_line(games[index]))
    os.replace(tmp, path)


def write_summary(result: RunResult) -> None:
    document = {
        **result.summary.as_dict(),
        "planned": result.planned,
        "complete": result.complete,
        "statuses": result.summary.statuses,
        "config": result.config.as_dict(),
    }
    if result.test is not None:
        document["test"] = result.test
    (result.out_dir / "summary.json").write_text(json.dumps(document, indent=2) + "\n")
