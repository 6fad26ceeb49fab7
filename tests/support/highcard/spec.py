"""The game as the registry reads it: the one value the entry point names.

``highcard-0.1.dist-info/entry_points.txt`` says ``highcard = highcard.spec:GAME`` in the group
``druids_p2p.games``, as a third party's ``pyproject.toml`` would::

    [project.entry-points."druids_p2p.games"]
    highcard = "highcard.spec:GAME"
"""

from __future__ import annotations

from druids_p2p.games.spec import GameSpec
from highcard.bots import GreedyBot, fallback
from highcard.engine import Options, View, playout
from highcard.ruleset import NAME, HighCardRuleset

GAME = GameSpec(
    name=NAME,
    title="High card",
    rules=HighCardRuleset(),
    view=View,
    options=Options,
    bots={"greedy": GreedyBot},
    fallback=fallback,
    playout=playout,
)
"""No rounds, no variant, no terminal UI: ``--rounds`` and ``--variant`` are refused for it."""
