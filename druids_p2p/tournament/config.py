"""What fixes a tournament's games: its configuration (``run.json``) and limits, the schedule of
who plays which deal in which seats, all from one master seed, and the SPRT a match may stop on."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from druids_p2p.bots.host import HOOK_TIMEOUT_MS, wait_limit_ms
from druids_p2p.games.registry import UNUSED_ROUNDS, default_name, game_spec

MODE_ROUND_ROBIN = "round-robin"
MODE_CHALLENGE = "challenge"
MODE_LINEUP = "lineup"
MODE_GAUNTLET = "gauntlet"


class TournamentError(Exception):
    """A user-facing tournament failure (bad folder, config mismatch, a worker error)."""


@dataclass(frozen=True)
class TournamentConfig:
    """What fixes the games of a run: the same config and seed give the same games."""

    bots: tuple[str, ...]
    versions: tuple[str, ...]
    players: int
    games: int
    """Games requested; the plan rounds it up to whole deals (:attr:`planned`)."""
    seed: int
    time_per_move_ms: float
    p2p: bool = False
    variant: bool = False
    mode: str = MODE_ROUND_ROBIN
    """``round-robin``; ``challenge``: the first bot against copies of the second; ``lineup``
    and ``gauntlet``: the fixed seatings of :attr:`lineups`, rotated on every deal."""
    lineups: tuple[tuple[str, ...], ...] = ()
    """Fixed lineups (bots may repeat), for the ``lineup`` and ``gauntlet`` modes."""
    sprt: tuple[float, float, float, float] | None = None
    """``(lo, hi, alpha, beta)``: stop a two-bot match when the SPRT decides (below)."""
    sprt_stat: str = "elo"
    stop_ci: float | None = None
    """Stop when the 95% interval of the margin is narrower than this (points)."""

    game: str = field(default_factory=default_name)
    """The game played (left out of run.json for the default game, as before other games
    existed)."""
    rounds: int | None = None
    """The rounds of a game played by rounds (``--rounds``); None: the game's most (left out of
    run.json then, as before the option existed)."""

    def sprt_test(self) -> SprtTest | None:
        if self.sprt is None:
            return None
        return SprtTest(*self.sprt, stat=self.sprt_stat)

    def plan(self) -> list[PlannedGame]:
        if self.lineups:
            return plan_lineups(self.lineups, self.games, self.seed)
        if self.mode == MODE_CHALLENGE:
            return plan_challenge(self.bots[0], self.bots[1], self.players, self.games, self.seed)
        return plan_tournament(self.bots, self.players, self.games, self.seed)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["bots"] = list(self.bots)
        d["versions"] = list(self.versions)
        d["lineups"] = [list(lineup) for lineup in self.lineups]
        d["sprt"] = None if self.sprt is None else list(self.sprt)
        if self.game == default_name():
            del d["game"]
        if self.rounds is None:
            del d["rounds"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentConfig:
        return cls(
            bots=tuple(d["bots"]),
            versions=tuple(d["versions"]),
            players=int(d["players"]),
            games=int(d["games"]),
            seed=int(d["seed"]),
            time_per_move_ms=float(d["time_per_move_ms"]),
            p2p=bool(d.get("p2p", False)),
            variant=bool(d.get("variant", False)),
            mode=str(d.get("mode", MODE_ROUND_ROBIN)),
            lineups=tuple(tuple(str(b) for b in lu) for lu in d.get("lineups") or ()),
            sprt=_four(d.get("sprt")),
            sprt_stat=str(d.get("sprt_stat", "elo")),
            stop_ci=None if d.get("stop_ci") is None else float(d["stop_ci"]),
            game=str(d.get("game") or default_name()),
            rounds=None if d.get("rounds") is None else int(d["rounds"]),
        )

    def differences(self, other: TournamentConfig) -> list[str]:
        """``field: ours != theirs`` for every field that differs."""
        mine, theirs = self.as_dict(), other.as_dict()
        return [f"{k} {theirs[k]!r} != {mine[k]!r}" for k in mine if mine[k] != theirs[k]]


def _four(value: Any) -> tuple[float, float, float, float] | None:
    if value is None:
        return None
    a, b, c, d = (float(v) for v in value)
    return a, b, c, d


def game_timeout_s(
    players: int, budget_ms: float, rounds: int = UNUSED_ROUNDS, game: str | None = None
) -> float:
    """The longest a game may take when every bot uses its whole limit on every call (every move the
    wait limit, two hooks per round and seat and one more per seat): a worker still busy past it is
    stuck in something the host cannot interrupt.
    """
    moves = game_spec(game).rules.max_moves(players, rounds)
    hooks = players * (2 * rounds + 1)
    return (moves * wait_limit_ms(budget_ms) + hooks * max(HOOK_TIMEOUT_MS, budget_ms)) / 1000.0


SEED_DOMAIN = "druids-tournament/v1"


def deal_seed(master: int, deal: int) -> int:
    """The game seed of deal ``deal``: 63 bits of SHA-256(domain ‖ master ‖ deal)."""
    digest = hashlib.sha256(f"{SEED_DOMAIN}/{master}/{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _lineup_rng(master: int, deal: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.seed: independent of PYTHONHASHSEED.
    return random.Random(f"{SEED_DOMAIN}/lineup/{master}/{deal}")


@dataclass(frozen=True, slots=True)
class PlannedGame:
    """One game of the plan: enough to replay it with ``play_local_game(seating, ..., seed)``."""

    index: int
    deal: int
    seed: int
    seating: tuple[str, ...]
    """Bot name per seat."""


def deals_for(games: int, players: int) -> int:
    """Whole deals needed for at least ``games`` games (one game per rotation)."""
    return max(1, -(-games // players))


def rotations(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """Seat ``s`` of rotation ``r`` gets ``lineup[(s + r) % n]``: each member sits in every seat."""
    n = len(lineup)
    return [tuple(lineup[(s + r) % n] for s in range(n)) for r in range(n)]


def _grouped(counts: dict[str, int], order: Sequence[str]) -> list[str]:
    """Copies of a bot side by side: a lineup with one run per bot has ``n`` distinct rotations."""
    return [name for name in order for _ in range(counts.get(name, 0))]


def plan_tournament(
    bots: Sequence[str], players: int, games: int, master: int
) -> list[PlannedGame]:
    """Every game of a round robin between ``bots`` at ``players`` seats, balanced so that
    appearances stay within one of each other (docs/tournaments.md, "Fair by construction").
    """
    if len(set(bots)) != len(bots) or not bots:
        raise ValueError("a tournament needs bots, each listed once")
    per_deal = 1 if len(bots) == 1 else players  # a bot alone: its rotations are all one game
    plays = dict.fromkeys(bots, 0)
    extra = dict.fromkeys(bots, 0)
    specs: list[PlannedGame] = []
    for deal in range(deals_for(games, per_deal)):
        rng = _lineup_rng(master, deal)
        order = list(bots)
        rng.shuffle(order)
        counts: dict[str, int]
        if len(bots) >= players:
            chosen = sorted(order, key=lambda b: plays[b])[:players]
            counts = dict.fromkeys(chosen, 1)
        else:
            counts = dict.fromkeys(bots, 1)
            for _ in range(players - len(bots)):
                pick = min(order, key=lambda b: extra[b])
                extra[pick] += 1
                counts[pick] += 1
        for name in counts:
            plays[name] += 1
        lineup = _grouped(counts, order)
        seed = deal_seed(master, deal)
        for r, seating in enumerate(rotations(lineup)[:per_deal]):
            specs.append(PlannedGame(deal * per_deal + r, deal, seed, seating))
    return specs


def plan_challenge(
    challenger: str, baseline: str, players: int, games: int, master: int
) -> list[PlannedGame]:
    """``challenger`` against ``players - 1`` copies of ``baseline``, in every seat of a deal."""
    if challenger == baseline:
        raise ValueError("a challenge needs two different bots")
    lineup = [challenger] + [baseline] * (players - 1)
    specs: list[PlannedGame] = []
    for deal in range(deals_for(games, players)):
        seed = deal_seed(master, deal)
        for r, seating in enumerate(rotations(lineup)):
            specs.append(PlannedGame(deal * players + r, deal, seed, seating))
    return specs


def plan_lineups(lineups: Sequence[Sequence[str]], games: int, master: int) -> list[PlannedGame]:
    """Fixed lineups (a bot may repeat), each rotated through the seats on every deal: every lineup
    meets the same cards, so a gauntlet's opponents are compared on the very same deals.
    """
    if not lineups or any(len(lu) != len(lineups[0]) for lu in lineups) or len(lineups[0]) < 2:
        raise ValueError("lineups need at least two seats each, all of the same length")
    players = len(lineups[0])
    per_deal = len(lineups) * players
    specs: list[PlannedGame] = []
    for d in range(deals_for(games, per_deal)):
        seed = deal_seed(master, d)
        for k, lineup in enumerate(lineups):
            for r, seating in enumerate(rotations(lineup)):
                specs.append(PlannedGame((d * len(lineups) + k) * players + r, d, seed, seating))
    return specs


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
