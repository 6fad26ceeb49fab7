"""The README's Druids (2004) screenshots: the table mid-game and a ritual told step by step.

Made with the rest by ``python -m druids_p2p.tui.screenshots docs/screenshots``: an offline table
on a fixed seed with rule bots (which play the same moves on every run), the person's moves chosen
by the same rule policy and played through the table screen, as its keys play them.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from druids_p2p.bots import BuiltinBots
from druids_p2p.bots.local_game import make_bot
from druids_p2p.games.druids2004 import moves as mv
from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.view import HIDDEN, SeatView
from druids_p2p.tui.druids2004.app import Druids2004App
from druids_p2p.tui.druids2004.dialogs import RitualSteps
from druids_p2p.tui.druids2004.session import Offline2004

SIZE = (112, 36)
NAMES = ("alice", "rule-1", "pimc-2")
SEED = 11
MAX_MOVES = 2000


def _session() -> Offline2004:
    bots = {
        1: make_bot("rule", BuiltinBots(), "druids2004")[1],
        2: make_bot("pimc", BuiltinBots(), "druids2004")[1],
    }
    return Offline2004(NAMES, bots, seed=SEED)


def _ritual_ready(view: SeatView) -> bool:
    return view.to_move == view.seat and any(mv.RITUAL <= m < mv.DISCARD for m in view.legal)


def _busy_row(view: SeatView) -> bool:
    """Your turn, a place marked for a ritual, your cards and others' backs on the row."""
    cards = [(o, c) for p in view.row if p is not None for o, c in p.gems + p.servants]
    return (
        _ritual_ready(view)
        and view.plays_left > 0
        and sum(c == HIDDEN for _, c in cards) >= 5
        and any(c != HIDDEN for _, c in cards)
    )


async def _shots(out: Path) -> None:
    app = Druids2004App(_session())
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        rng = random.Random(SEED)
        for _ in range(MAX_MOVES):
            if isinstance(app.screen, RitualSteps):
                await pilot.press("escape", "escape")
                await app.workers.wait_for_complete()
                continue
            view = app.table.view
            if _busy_row(view):
                break
            move = rule_move(view, app.session.game.options, rng)
            if mv.RITUAL <= move < mv.DISCARD:
                move = next(m for m in view.legal if not mv.RITUAL <= m < mv.DISCARD)
            app.table._submit(move)
            await app.workers.wait_for_complete()
            await pilot.pause()
        else:
            raise LookupError("no such position on this seed")
        await pilot.press("right")
        await pilot.pause()
        app.save_screenshot("table-2004.svg", str(out))
        slot = next(m - mv.RITUAL for m in app.table.view.legal if mv.RITUAL <= m < mv.DISCARD)
        await pilot.press("r", str(slot + 1))
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, RitualSteps)
        while dialog.shown < len(dialog.steps) - 1:
            await pilot.press("space")
        await pilot.pause()
        app.save_screenshot("ritual-2004.svg", str(out))


def make_2004_screenshots(out: Path) -> None:
    asyncio.run(_shots(out))
