"""Levels for people (issue 32): ``easy``, ``normal`` and ``hard`` are a property of each game's
spec (``games/spec.py``: :class:`Level`), registered as bots for every game (``bots/host.py``),
so that ``druids play --level`` and the LAN lobby's table setup name no game.

Here: every registered game's levels resolve to its own bots (the test game ``highcard``, which
names none, gets the default: ``random``, then its first bot, then its last), a spec naming a bad
level is refused, a level bot is its bot move for move unless it slips, its budget is capped,
and the 2017 ladder's first step holds on duplicate deals. The CLI flag and the lobby are in
``test_levels_cli.py``."""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from druids_p2p.bots import BuiltinBots
from druids_p2p.bots.host import LevelBot, level_factory
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.games.registry import games
from druids_p2p.games.spec import LEVELS, Bot, GameSpec, Level, default_levels
from druids_p2p.testing import duplicate_margin

SUPPORT = str(Path(__file__).resolve().parent / "support")
if SUPPORT not in sys.path:
    sys.path.append(SUPPORT)

from highcard.spec import GAME as HIGHCARD  # noqa: E402


def test_every_registered_game_names_a_bot_of_its_own_for_each_level() -> None:
    """Each level is one of the game's bots (or random), and a bot named after the level plays
    every registered game, made by that game's factory."""
    builtin = BuiltinBots()
    for name, spec in games().items():
        assert spec.problem() is None
        for level in LEVELS:
            chosen = spec.level(level)
            assert chosen.bot == "random" or chosen.bot in spec.bots, (name, level)
            assert builtin.get(level).plays(name)
            bot = builtin.get(level).factory_for(name)()
            assert isinstance(bot, LevelBot) and bot.level == chosen
    shipped = {name: spec.level("hard").bot for name, spec in games().items() if spec.levels}
    assert shipped == {"druids2017": "search", "druids2004": "search", "druids2016": "search"}


def test_a_game_that_names_no_levels_gets_random_then_its_first_bot_then_its_last() -> None:
    assert HIGHCARD.levels == {} and HIGHCARD.problem() is None
    assert [HIGHCARD.level(level).bot for level in LEVELS] == ["random", "greedy", "greedy"]
    two = default_levels({"plain": Bot, "deep": Bot})
    assert [two[level].bot for level in LEVELS] == ["random", "plain", "deep"]
    assert [default_levels({})[level].bot for level in LEVELS] == ["random"] * 3
    with pytest.raises(ValueError, match="no level 'brutal'"):
        HIGHCARD.level("brutal")


@pytest.mark.parametrize(
    ("levels", "why"),
    [
        ({"brutal": Level("greedy")}, "it has no level 'brutal', only easy, normal, hard"),
        ({"hard": Level("deep")}, "level hard: its bot 'deep' is not one of the game's (greedy)"),
        ({"easy": Level("greedy", budget_ms=0)}, "level easy: its budget 0 ms"),
        ({"easy": Level("greedy", blunders=1.5)}, "level easy: its share of random moves 1.5"),
    ],
)
def test_a_spec_with_a_bad_level_is_refused(levels: dict[str, Level], why: str) -> None:
    spec: GameSpec = replace(HIGHCARD, levels=levels)
    assert (spec.problem() or "").startswith(why), spec.problem()


def test_a_level_without_slips_plays_its_bot_move_for_move_and_easy_slips() -> None:
    """``normal`` (the rule bot) replays the rule bot's game exactly; ``easy`` (the rule bot
    with one move in two at random) does not."""

    def moves(bots: list[str]) -> list[list[int]]:
        result = play_local_game(bots, seed=5, game="druids2017", enforce_budget=False)
        return [r.moves for r in result.rounds]

    rule = moves(["rule", "random", "random", "random"])
    assert moves(["normal", "random", "random", "random"]) == rule
    assert moves(["easy", "random", "random", "random"]) != rule


class Recording(Bot):
    """Records the budget it is started with; always answers its first legal move."""

    def start_game(self, seat: int, options: Any, rng: random.Random, budget: float) -> None:
        super().start_game(seat, options, rng, budget)

    def choose(self, view: Any) -> int:
        return int(view.legal[0])


class View:
    legal = (3, 5, 7, 9)


def test_a_level_caps_its_bots_budget_and_replaces_its_share_of_moves() -> None:
    capped = LevelBot(Level("x", budget_ms=30.0), Recording())
    capped.start_game(0, None, random.Random(1), 100.0)
    assert capped.inner.time_budget_ms == 30.0
    capped.start_game(0, None, random.Random(1), 10.0)  # a table's lower budget wins
    assert capped.inner.time_budget_ms == 10.0
    always = LevelBot(Level("x", blunders=1.0), Recording())
    always.start_game(0, None, random.Random(2), 100.0)
    picked = {always.choose(View()) for _ in range(200)}
    assert picked == {3, 5, 7, 9}
    never = LevelBot(Level("x"), Recording())
    never.start_game(0, None, random.Random(2), 100.0)
    assert {never.choose(View()) for _ in range(50)} == {3}
    assert level_factory("druids2016", "hard").__doc__ == "Level hard: search."


def test_normal_beats_easy_in_druids_2017_on_duplicate_deals() -> None:
    """The ladder's first step, small: README has the measured figure over 200 games."""
    normal = BuiltinBots().get("normal").factory_for("druids2017")
    easy = BuiltinBots().get("easy").factory_for("druids2017")
    report = duplicate_margin(normal, easy, games=15, players=4)
    assert report.mean - 1.96 * report.stderr > 0, report
