"""Druids (Leo Colovini, Kidult Games, 2004): gems, servants and mystic places, 2 to 4 players
(docs/rules-2004.md). A pure rules engine (no I/O, no clock, randomness only from a passed
``random.Random``); :data:`SPEC` is the game as the registry knows it.
"""

import random

from druids_p2p.games.druids2004.cards import format_card, format_move, parse_card, parse_move
from druids_p2p.games.druids2004.coach import coach
from druids_p2p.games.druids2004.policy import Rule2004Bot, Search2004Bot, fallback_2004
from druids_p2p.games.druids2004.ruleset import Druids2004Ruleset, play_random_game
from druids_p2p.games.druids2004.search import BudgetSearch2004Bot
from druids_p2p.games.druids2004.setup import InvalidSetup, Options, Setup, random_setup
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.games.seam import IllegalMove
from druids_p2p.games.spec import GameSpec, Level


def _playout(rng: random.Random, options: Options) -> int:
    return play_random_game(rng, options)[1]


SPEC = GameSpec(
    name=Druids2004Ruleset.name,
    title="Druids (2004)",
    rules=Druids2004Ruleset(),
    view=SeatView,
    options=Options,
    bots={"rule": Rule2004Bot, "pimc": Search2004Bot, "search": BudgetSearch2004Bot},
    coach=coach,
    levels={  # measured in README ("Levels")
        "easy": Level("rule", blunders=0.5),
        "normal": Level("rule"),
        "hard": Level("search"),
    },
    fallback=fallback_2004,
    playout=_playout,
    ui="druids_p2p.tui.druids2004.table:UI",
    api={
        "Move2004": "druids_p2p.games.druids2004.cards:Move",
        "Options2004": "druids_p2p.games.druids2004.setup:Options",
        "SeatView2004": "druids_p2p.games.druids2004.view:SeatView",
    },
)
"""Druids (2004) as the registry knows it."""

__all__ = [
    "SPEC",
    "Game2004",
    "IllegalMove",
    "InvalidSetup",
    "Options",
    "SeatView",
    "Setup",
    "format_card",
    "format_move",
    "parse_card",
    "parse_move",
    "random_setup",
]
