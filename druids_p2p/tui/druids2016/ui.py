"""Druids (2016)'s terminal UI, as its spec names it (``GameSpec.ui``): its screenshots, and
the table against a bot in this process (``app.py``), which its tests open directly."""

from __future__ import annotations

from druids_p2p.tui.druids2016.screenshots import make_2016_screenshots
from druids_p2p.tui.game_ui import GameUI

UI = GameUI(name="druids2016", screenshots=make_2016_screenshots)
