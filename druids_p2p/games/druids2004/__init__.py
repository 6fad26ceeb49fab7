"""Druids (Leo Colovini, Kidult Games, 2004): gems, servants and mystic places, 2 to 4 players
(docs/rules-2004.md). A pure rules engine (no I/O, no clock, randomness only from a passed
``random.Random``). This package's own module is only :data:`SPEC`, the game as the registry
knows it, with its parts named: a process that plays another game imports none of them.
"""

from druids_p2p.games.spec import GameSpec, Level

_HERE = "druids_p2p.games.druids2004"

SPEC = GameSpec(
    name="druids2004",
    title="Druids (2004)",
    rules=f"{_HERE}.ruleset:RULES",
    view=f"{_HERE}.view:SeatView",
    options=f"{_HERE}.setup:Options",
    players=(2, 4),
    bots={
        "rule": f"{_HERE}.policy:Rule2004Bot",
        "pimc": f"{_HERE}.policy:Search2004Bot",
        "search": f"{_HERE}.search:BudgetSearch2004Bot",
    },
    coach=f"{_HERE}.coach:coach",
    levels={  # measured in README ("Levels")
        "easy": Level("rule", blunders=0.5),
        "normal": Level("rule"),
        "hard": Level("search"),
    },
    fallback=f"{_HERE}.policy:fallback_2004",
    playout=f"{_HERE}.ruleset:playout",
    ui="druids_p2p.tui.druids2004.table:UI",
    api={
        "Move2004": f"{_HERE}.cards:Move",
        "Options2004": f"{_HERE}.setup:Options",
        "SeatView2004": f"{_HERE}.view:SeatView",
    },
)
"""Druids (2004) as the registry knows it."""

__all__ = ["SPEC"]
