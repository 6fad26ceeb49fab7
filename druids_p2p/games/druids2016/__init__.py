"""Druids (Grant Rodiek, Hyperbole Games, 2016), the Terrain Only variant, as RULINGS-2016.md rules
it (docs/rules-2016.md): a two-player abstract on a 7x5 board whose layout is data. A pure engine
(no I/O but reading a board file, no clock, randomness only from a passed ``random.Random``).
This package's own module is only :data:`SPEC`, the game as the registry knows it, with its parts
named: a process that plays another game imports none of them.
"""

from druids_p2p.games.spec import GameSpec, Level

_HERE = "druids_p2p.games.druids2016"

SPEC = GameSpec(
    name="druids2016",
    title="Druids (2016)",
    rules=f"{_HERE}.ruleset:RULES",
    view=f"{_HERE}.view:SeatView",
    options=f"{_HERE}.game:Options2016",
    players=(2, 2),
    bots={"rule": f"{_HERE}.search:Rule2016Bot", "search": f"{_HERE}.search:Search2016Bot"},
    coach=f"{_HERE}.coach:coach",
    levels={  # measured in README ("Levels")
        "easy": Level("rule", blunders=0.5),
        "normal": Level("rule"),
        "hard": Level("search"),
    },
    fallback=f"{_HERE}.search:fallback_2016",
    playout=f"{_HERE}.ruleset:playout",
    ui="druids_p2p.tui.druids2016.lan_table:UI",
    api={
        "Move2016": f"{_HERE}.moves:Move",
        "Options2016": f"{_HERE}.game:Options2016",
        "SeatView2016": f"{_HERE}.view:SeatView",
    },
)
"""Druids (2016) as the registry knows it."""

__all__ = ["SPEC"]
