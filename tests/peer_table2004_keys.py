"""Pilot helpers of the tests that seat a person at a Druids (2004) table of real peer
processes in the terminal UI (the local table of bots, the LAN lobby's tables): run the app
and close its sessions, wait for what the screen shows, and play the person's whole game by
keys, the rule policy choosing each move.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from board_keys import press_keys, read_ritual_steps
from textual.pilot import Pilot

from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.druids2004.dialogs import GameOver2004, RitualSteps
from druids_p2p.tui.druids2004.lan_table import LanTable2004Screen
from druids_p2p.tui.game_ui import Session

WAIT_S = 180.0
"""A bound on a wait for real peer processes, not a speed check: loaded cores are slow."""


async def until(pilot: Pilot[Any], check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def table_screen(app: DruidsApp) -> LanTable2004Screen:
    """The app's table screen, which at a 2004 table of peers is the 2004 one."""
    table = app.table
    assert isinstance(table, LanTable2004Screen), table
    return table


def my_turn(table: LanTable2004Screen) -> bool:
    return table.my_turn and table.app.screen is table


async def play_by_keys(pilot: Pilot[Any], app: DruidsApp, players: int, rng: random.Random) -> int:
    """Every turn of the person by the rule policy, pressed as keys, and every ritual read step
    by step, until the game-over screen (asserted to be a finished game): the rituals read."""
    table = table_screen(app)
    rituals = 0
    deadline = time.monotonic() + WAIT_S * 2
    while not isinstance(app.screen, GameOver2004):
        assert time.monotonic() < deadline, f"no game over: {table.stopped}"
        screen = app.screen
        if isinstance(screen, RitualSteps):
            rituals += 1
            await read_ritual_steps(pilot, screen)
        elif my_turn(table):
            view = table.shown
            assert isinstance(view, SeatView)
            await press_keys(pilot, table, rule_move(view, Options(players=players), rng))
        await pilot.pause(0.02)
    assert table.stopped is None and table.finished
    return rituals


def run_app(
    app: DruidsApp,
    size: tuple[int, int],
    body: Callable[[Pilot[Any]], Awaitable[None]],
    sessions: Sequence[Session] = (),
) -> None:
    """Run ``body`` in the app under Pilot, then close every table session it opened (the
    ``sessions`` made for it and the one the lobby opened), waiting for their peers to stop."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await body(pilot)

    try:
        asyncio.run(main())
    finally:
        opened = [*sessions, *([app.session] if app.session not in sessions else [])]
        for session in opened:
            if session is None:
                continue
            session.close()
            wait = getattr(session, "wait", None)
            if callable(wait):
                wait(5)
