"""A test kit for bot authors: play many games with your bot and fail loudly on any misbehaviour.

It plays through the same host as real games, so whatever the host would report as a fault is a
failure here, with the seed that reproduces it (docs/plugins.md, "Testing your bot").
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from druids_p2p.bots.host import DEFAULT_BUDGET_MS, Bot, BotSpec, RandomBot
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.plugins import register_plugin, unregister_plugin, validate_spec


@dataclass
class BotCheckReport:
    """What :func:`check_bot` saw; ``failures`` is empty for a well-behaved bot."""

    bot: str
    games: int
    moves: int = 0
    failures: list[str] = field(default_factory=list)
    max_move_ms: float = 0.0
    mean_move_ms: float = 0.0
    mean_margin: float = 0.0
    """Mean of (the bot's total − the mean of its opponents' totals): > 0 beats random."""

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        head = (
            f"check_bot({self.bot}): {self.games} games, {self.moves} moves, "
            f"max {self.max_move_ms:.1f} ms, mean {self.mean_move_ms:.2f} ms a move, "
            f"margin {self.mean_margin:+.1f} over random"
        )
        if self.ok:
            return head + ": ok"
        shown = "\n  ".join(self.failures[:20])
        more = f"\n  ... and {len(self.failures) - 20} more" if len(self.failures) > 20 else ""
        return f"{head}: {len(self.failures)} failure(s)\n  {shown}{more}"


def check_bot(
    bot: BotSpec | Callable[[], Bot],
    games: int = 20,
    players: Sequence[int] = (3, 4, 5),
    budget_ms: float = DEFAULT_BUDGET_MS,
    seed: int = 0,
    *,
    raise_on_failure: bool = True,
) -> BotCheckReport:
    """Play ``games`` games, the bot against random bots; AssertionError on any failure.

    Game ``i`` has seed ``seed + i`` (replay it with :func:`play_local_game`); a move over
    ``budget_ms`` of the bot's own time fails even where the host's grace would accept it.
    """
    if isinstance(bot, BotSpec):
        problem = validate_spec(bot)
        if problem is not None:
            raise AssertionError(f"check_bot: invalid BotSpec: {problem}")
        name = bot.name
    else:
        name = getattr(bot, "__name__", None) or type(bot).__name__
    report = BotCheckReport(bot=name, games=games)
    times: list[float] = []
    margins: list[float] = []
    for i in range(games):
        n = players[i % len(players)]
        seat = (i // len(players)) % n
        seated: list[BotSpec | Callable[[], Bot]] = [RandomBot] * n
        seated[seat] = bot
        game_seed = seed + i
        where = f"game {i} ({n} players, seat {seat}, seed {game_seed})"
        try:
            result = play_local_game(seated, None, game_seed, budget_ms)
        except Exception as exc:  # the factory itself, or a bot that returned a non-Bot
            report.failures.append(f"{where}: {type(exc).__name__}: {exc}")
            continue
        faulted = set()
        for fault in result.faults_of(seat):
            report.failures.append(f"{where}: {fault}")
            faulted.add((fault.round, fault.move_index))
        for r_index, rnd in enumerate(result.rounds):
            for m_index, (s, ms) in enumerate(zip(rnd.seats, rnd.times_ms, strict=True)):
                if s != seat or (r_index, m_index) in faulted:
                    continue
                times.append(ms)
                if ms > budget_ms:
                    report.failures.append(
                        f"{where}: round {r_index + 1}, move {m_index + 1} took {ms:.1f} ms, "
                        f"over the {budget_ms:g} ms budget"
                    )
        others = [t for s, t in enumerate(result.totals) if s != seat]
        margins.append(result.totals[seat] - sum(others) / len(others))
    report.moves = len(times)
    report.max_move_ms = max(times, default=0.0)
    report.mean_move_ms = statistics.fmean(times) if times else 0.0
    report.mean_margin = statistics.fmean(margins) if margins else 0.0
    if raise_on_failure and report.failures:
        raise AssertionError(report.summary())
    return report


@dataclass(frozen=True)
class MarginReport:
    """Mean score margin of a bot over its opponents on duplicate deals."""

    mean: float
    stderr: float
    games: int


def duplicate_margin(
    bot: BotSpec | Callable[[], Bot],
    opponent: BotSpec | Callable[[], Bot] = RandomBot,
    games: int = 60,
    players: int = 4,
    seed: int = 0,
    budget_ms: float = DEFAULT_BUDGET_MS,
) -> MarginReport:
    """How much ``bot`` outscores ``opponent``: the same deals, the bot rotated through every seat.

    Duplicate deals cancel most of the cards' luck, so a few dozen deals give a usable figure;
    budgets are not enforced (trusted bots, for speed).
    """
    margins: list[float] = []
    for g in range(games):
        for seat in range(players):
            seated: list[BotSpec | Callable[[], Bot]] = [opponent] * players
            seated[seat] = bot
            result = play_local_game(seated, None, seed + g, budget_ms, enforce_budget=False)
            others = [t for s, t in enumerate(result.totals) if s != seat]
            margins.append(result.totals[seat] - sum(others) / len(others))
    stderr = statistics.stdev(margins) / len(margins) ** 0.5 if len(margins) > 1 else 0.0
    return MarginReport(statistics.fmean(margins), stderr, len(margins))


@contextmanager
def registered_plugin(plugin: object, name: str) -> Iterator[object]:
    """Include ``plugin`` in every :func:`~druids_p2p.plugins.load_bots` inside the block.

    For tests of code that discovers bots: register a plugin for one test, and it is gone after.
    """
    register_plugin(plugin, name)
    try:
        yield plugin
    finally:
        unregister_plugin(name)
