"""Pilot helpers of the Druids (2004) table tests: the keys a person presses for one move on
either table screen (the offline table's or the table of peers', both the board of
``tui/druids2004/board.py``), and async tests run to their end."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

from textual.pilot import Pilot

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.tui.druids2004.board import Board2004
from druids_p2p.tui.druids2004.dialogs import RitualSteps


async def press_keys(pilot: Pilot[Any], screen: Board2004, move: int) -> None:
    """The cursor onto the move's card (a play or a discard), then the move's key."""
    m = mv.decode(move)
    view = screen.current_view()
    assert view is not None
    if m.kind in (mv.KIND_PLAY, mv.KIND_DISCARD):
        # The shorter way round (the cursor wraps): each key is a redraw, and a whole game by
        # keys is mostly cursor keys.
        steps = (view.hand.index(m.card) - screen.cursor) % len(view.hand)
        back = len(view.hand) - steps
        for _ in range(min(steps, back)):
            await pilot.press("right" if steps <= back else "left")
        assert view.hand[screen.cursor] == m.card
        await pilot.press(str(m.slot + 1) if m.kind == mv.KIND_PLAY else "x")
    elif m.kind == mv.KIND_RITUAL:
        await pilot.press("r", str(m.slot + 1))
    elif m.kind == mv.KIND_DRAW:
        await pilot.press("g" if m.source == "gem" else "s")
    else:
        await pilot.press("enter")


def synced(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test to its end (as tests/test_tui_table.py does, with asyncio.run)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


RITUAL_STEPS_MAX = 200
"""More space presses than any ritual has steps."""


async def read_ritual_steps(pilot: Pilot[Any], screen: RitualSteps) -> None:
    """Show a ritual dialog's every step (space) and close it (enter); a dialog that never
    completes fails the test instead of hanging it."""
    for _ in range(RITUAL_STEPS_MAX):
        if screen.complete:
            break
        await pilot.press("space")
    assert screen.complete, "a ritual's steps never completed"
    await pilot.press("enter")
