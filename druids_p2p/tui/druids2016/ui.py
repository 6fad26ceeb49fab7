"""Druids (2016)'s terminal UI, as its spec names it (``GameSpec.ui``); its table against a bot in
this process (``app.py``) is opened directly by its tests and screenshots
(``tools/screenshots_druids2016.py``)."""

from __future__ import annotations

from druids_p2p.tui.game_ui import GameUI

UI = GameUI(name="druids2016")
