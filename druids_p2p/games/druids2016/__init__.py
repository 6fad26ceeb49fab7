"""Druids (Grant Rodiek, Hyperbole Games, 2016), the Terrain Only variant, as RULINGS-2016.md rules
it (docs/rules-2016.md): a two-player abstract on a 7x5 board whose layout is data. A pure engine
(no I/O but reading a board file, no clock, randomness only from a passed ``random.Random``);
:data:`SPEC` is the game as the registry knows it.
"""

from druids_p2p.games.druids2016.board import (
    Board,
    BoardError,
    InvalidSetup,
    Setup,
    default_board,
    load_board,
    parse_board,
    random_setup,
)
from druids_p2p.games.druids2016.coach import coach
from druids_p2p.games.druids2016.game import Game, Options, Options2016, Result
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.replay import ReplayInputError, game_record, replay
from druids_p2p.games.druids2016.ruleset import Druids2016Ruleset, playout
from druids_p2p.games.druids2016.search import Rule2016Bot, Search2016Bot, fallback_2016
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
    coach=coach,
    levels={  # measured in README ("Levels")
        "easy": Level("rule", blunders=0.5),
        "normal": Level("rule"),
        "hard": Level("search"),
    },
    fallback=fallback_2016,
    playout=playout,
    ui="druids_p2p.tui.druids2016.lan_table:UI",
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
