"""Druids (2017)'s terminal UI, as its spec names it (``GameSpec.ui``): its table at a table of
peers and its record viewer. (``druids play`` seats you at a real table of peers on loopback, so
it has no offline app; the tests' is ``tests/support/offline2017.py``.)"""

from __future__ import annotations

from druids_p2p.games.druids2017.ruleset import DruidsRuleset
from druids_p2p.tui.druids2017.replay import ReplayApp
from druids_p2p.tui.druids2017.table import TABLE_UI
from druids_p2p.tui.game_ui import GameUI

UI = GameUI(
    name=DruidsRuleset.name,
    table=TABLE_UI,
    replay=ReplayApp,
    tricks=True,
)
