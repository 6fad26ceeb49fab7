"""Druids (Leo Colovini, Kidult Games, 2004): gems, servants and mystic places, 2 to 4 players.

A pure rules engine (no I/O, no clock, randomness only from a passed ``random.Random``)::

    >>> import random
    >>> from druids_p2p.games.druids2004 import Game2004, Options, random_setup, parse_move
    >>> game = Game2004(random_setup(random.Random(7), 3), Options(players=3))
    >>> game.check(parse_move("Stop"))
    'P0 must first play 2 more card(s)'

Modules, one concern each: ``cards`` (ids, tokens), ``moves`` (move ids, tokens), ``options``
(one per guessed ruling), ``setup`` (the piles' orders), ``column`` (the score column), ``ritual``
(the amulet distribution), ``records`` (the log), ``row`` (the places), ``state`` (the game),
``view`` (per seat), ``hidden`` (who knows what), ``schedule`` (the deck operations as data),
``notation``/``replay`` (the JSON record), ``playout``, ``worlds``/``policy`` (for bots),
``ruleset``, ``bots``; :data:`SPEC` is the game as the registry knows it (pyproject's
``druids_p2p.games`` entry point).
"""

import random

from druids_p2p.games.druids2004.cards import format_card, format_move, parse_card, parse_move
from druids_p2p.games.druids2004.policy import Rule2004Bot, Search2004Bot, fallback_2004
from druids_p2p.games.druids2004.ruleset import Druids2004Ruleset, play_random_game
from druids_p2p.games.druids2004.search import BudgetSearch2004Bot
from druids_p2p.games.druids2004.setup import InvalidSetup, Options, Setup, random_setup
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.games.seam import IllegalMove
from druids_p2p.games.spec import GameSpec


def _playout(rng: random.Random, options: Options) -> int:
    return play_random_game(rng, options)[1]


SPEC = GameSpec(
    name=Druids2004Ruleset.name,
    title="Druids (2004)",
    rules=Druids2004Ruleset(),
    view=SeatView,
    options=Options,
    bots={"rule": Rule2004Bot, "pimc": Search2004Bot, "search": BudgetSearch2004Bot},
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
