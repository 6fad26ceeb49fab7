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
``ruleset``.
"""

from druids_p2p.games.druids2004.cards import format_card, parse_card
from druids_p2p.games.druids2004.moves import format_move, parse_move
from druids_p2p.games.druids2004.options import Options
from druids_p2p.games.druids2004.setup import InvalidSetup, Setup, random_setup
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.games.seam import IllegalMove

__all__ = [
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
