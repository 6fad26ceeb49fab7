"""Pilot helper of the LAN lobby tests: the lobby screen, once the app has shown it."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.pilot import Pilot

from druids_p2p.tui.lobby import LobbyScreen

SHOWN_WITHIN = 400
"""Pauses of 50 ms before the app must show its lobby (a bound, not a speed check)."""


async def shown_lobby(app: App[Any], pilot: Pilot[Any]) -> LobbyScreen:
    for _ in range(SHOWN_WITHIN):
        if isinstance(app.screen, LobbyScreen):
            break
        await pilot.pause(0.05)
    lobby = app.screen
    assert isinstance(lobby, LobbyScreen), lobby
    return lobby
