"""The registry of game UIs: the one neutral TUI module that names every game's TUI package.

Each entry is a game's :class:`~druids_p2p.tui.game_ui.GameUI` under its rule set's name (as in
``druids_p2p.rulesets``); the CLI and the TUI's entry points (``tui/launch.py``,
``tui/screenshots.py``) ask it by that name. Another game's UI is added by writing its package
under ``druids_p2p/tui`` and adding one line below. The modules the game packages build on (the
app shell, sessions, names, dialogs, widgets) never import this registry, so nothing cycles.
"""

from __future__ import annotations

from druids_p2p.tui.druids2004.ui import UI as _DRUIDS2004
from druids_p2p.tui.druids2017.ui import UI as _DRUIDS2017
from druids_p2p.tui.game_ui import GameUI, OfflineApp, TableUI

GAME_UIS: dict[str, GameUI] = {ui.name: ui for ui in (_DRUIDS2017, _DRUIDS2004)}
"""Every game's UI by rule set name."""


def game_ui(name: str) -> GameUI:
    """The UI of rule set ``name``; ValueError (one line, naming it) if it has none."""
    try:
        return GAME_UIS[name]
    except KeyError:
        known = ", ".join(GAME_UIS)
        raise ValueError(f"{name!r} has no terminal UI (games with one: {known})") from None


def table_ui(name: str) -> TableUI:
    """Rule set ``name``'s table screen at a table of peers; ValueError if it has none yet."""
    table = game_ui(name).table
    if table is None:
        raise ValueError(f"{name!r} has no table of peers in the terminal UI yet")
    return table


def offline_app(name: str) -> OfflineApp:
    """Rule set ``name``'s app against in-process bots; ValueError if it has none."""
    offline = game_ui(name).offline
    if offline is None:
        raise ValueError(f"{name!r} has no offline table in the terminal UI")
    return offline
