"""Druids (2004) ``search``: the same seed, work and position give the same move, only legal moves,
the work grows with the budget, and the clock guard keeps the budget on any machine."""

from __future__ import annotations

import random
from typing import Any

import pytest

from druids_p2p.bots.local_game import play_local_game
from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.search import BudgetSearch2004Bot
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.games.spec import Bot


class _Recorder(Bot):
    """Plays as the rule bot and keeps every view where it had a choice."""

    def __init__(self) -> None:
        super().__init__()
        self.views: list[SeatView] = []

    def choose(self, view: Any) -> int:
        if len(view.legal) > 1:
            self.views.append(view)
        assert isinstance(self.options, Options)
        return rule_move(view, self.options, self.rng)


def _views(players: int = 3, seed: int = 1) -> tuple[list[SeatView], Options]:
    recorder = _Recorder()
    bots: list[Any] = [recorder] + ["rule"] * (players - 1)
    play_local_game(bots, seed=seed, game="druids2004", enforce_budget=False)
    assert isinstance(recorder.options, Options)
    return recorder.views[::3], recorder.options


def _bot(options: Options, seed: int, worlds: int | None, budget: float = 20.0) -> Any:
    bot = BudgetSearch2004Bot(worlds)
    bot.start_game(0, options, random.Random(seed), budget)
    return bot


def test_same_seed_worlds_and_position_give_the_same_move_and_it_is_legal() -> None:
    views, options = _views()
    assert len(views) >= 8
    for view in views:
        moves = {_bot(options, 7, 4).choose(view) for _ in range(3)}
        assert len(moves) == 1
        assert moves.pop() in view.legal


def test_the_work_grows_with_the_budget() -> None:
    _, options = _views()
    assert _bot(options, 0, None, 100.0).worlds > 3 * _bot(options, 0, None, 20.0).worlds


class _SlowClock:
    """A clock that advances ``step`` seconds at every reading."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("step_ms", [0.2, 4.0])
def test_the_clock_guard_stops_the_search_within_the_budget(step_ms: float) -> None:
    """However slow a world is (each clock reading costs ``step_ms``), the search stops before it
    would run past 20 ms, and still searches worlds when it can."""
    views, options = _views(4, 2)
    searched = 0
    for view in views:
        bot = _bot(options, 3, None)
        clock = bot.clock = _SlowClock(step_ms / 1000.0)
        bot.wall = lambda: 0.0  # the CPU guard alone
        assert bot.choose(view) in view.legal
        assert clock.now * 1000.0 <= 20.0 * 1.2, f"{clock.now * 1000.0:.1f} ms of a 20 ms budget"
        searched += bot.last_worlds
    assert searched > (5 * len(views) if step_ms < 1.0 else 0)


class _SharedCore:
    """A core shared with other work: every world (each reading of the thread's CPU clock, which
    stands still) takes ``step`` seconds of wall time."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def cpu(self) -> float:
        self.now += self.step
        return 0.0

    def wall(self) -> float:
        return self.now


def test_the_wall_clock_stops_the_search_where_the_cpu_clock_would_not() -> None:
    """Where the CPU guard alone would run every planned world (35 ms of a 20 ms budget here),
    the hard stop on the wall clock keeps the move within the budget."""
    views, options = _views(4, 2)
    for view in views:
        bot = _bot(options, 3, None)
        core = _SharedCore(0.005)
        bot.clock, bot.wall = core.cpu, core.wall
        assert bot.choose(view) in view.legal
        assert core.now * 1000.0 <= 20.0 * 1.2, f"{core.now * 1000.0:.1f} ms of a 20 ms budget"
