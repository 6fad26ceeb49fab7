"""Druids (Grant Rodiek, Hyperbole Games, 2016), the Terrain Only variant, as RULINGS-2016.md
rules it: a two-player abstract on a 7x5 board whose layout is data.

A pure engine (no I/O but ``board``'s board-file reading, of a file or the shipped default; no
clock; randomness only from a passed ``random.Random``)::

    >>> import random
    >>> from druids_p2p.games.druids2016 import Game, Move, default_board, random_setup
    >>> board = default_board()
    >>> game = Game(random_setup(random.Random(1), board), board)
    >>> game.check(Move.from_token("c1s"))
    'the Druid on c1 faces s and may not move that way'

Modules, one concern each: ``board`` (squares, the layout's checks, reading a board file),
``moves`` (the move value and its token), ``setup``, ``game`` (play, undo, legal moves, the end;
the table's options; a position arranged by hand), ``view`` (the position as JSON and text),
``replay`` (the game file, the demo); the bots' strategies: ``policy`` (the budget, ``random``
and ``rule``) and ``search`` (alpha-beta; one game between two policies, the Wilson interval;
the seam's bots). Behind the seam: ``state`` (a whole game, placements included), ``table_seat``
(the game at a card table of two peers, its cards), ``ruleset`` (with the seat's text);
:data:`SPEC` is the game as the registry knows it (pyproject's ``druids_p2p.games`` entry
point).
"""

from druids_p2p.games.druids2016.board import (
    Board,
    BoardError,
    default_board,
    load_board,
    parse_board,
)
from druids_p2p.games.druids2016.game import Game, Options, Options2016, Result
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.replay import ReplayInputError, game_record, replay
from druids_p2p.games.druids2016.ruleset import Druids2016Ruleset, playout
from druids_p2p.games.druids2016.search import Rule2016Bot, Search2016Bot, fallback_2016
from druids_p2p.games.druids2016.setup import InvalidSetup, Setup, random_setup
from druids_p2p.games.druids2016.view import SeatView
from druids_p2p.games.seam import IllegalMove
from druids_p2p.games.spec import GameSpec, Level

SPEC = GameSpec(
    name=Druids2016Ruleset.name,
    title="Druids (2016)",
    rules=Druids2016Ruleset(),
    view=SeatView,
    options=Options2016,
    bots={"rule": Rule2016Bot, "search": Search2016Bot},
    levels={  # measured in README ("Levels")
        "easy": Level("rule", blunders=0.5),
        "normal": Level("rule"),
        "hard": Level("search"),
    },
    fallback=fallback_2016,
    playout=playout,
    ui="druids_p2p.tui.druids2016.ui:UI",
    api={
        "Move2016": "druids_p2p.games.druids2016.moves:Move",
        "Options2016": "druids_p2p.games.druids2016.game:Options2016",
        "SeatView2016": "druids_p2p.games.druids2016.view:SeatView",
    },
)
"""Druids (2016) as the registry knows it."""

__all__ = [
    "SPEC",
    "Board",
    "BoardError",
    "Game",
    "IllegalMove",
    "InvalidSetup",
    "Move",
    "Options",
    "ReplayInputError",
    "Result",
    "Setup",
    "default_board",
    "game_record",
    "load_board",
    "parse_board",
    "random_setup",
    "replay",
]
