"""The README's Druids (2016) screenshots: the board mid-game with a Druid focused and where it
may go, a forced tile move being chosen on the board, and the end screen.

Made with the rest by ``python -m druids_p2p.tui.screenshots docs/screenshots``: an offline table
on a fixed seed, the person's and the bot's moves chosen by the rule bot's policy (the same moves
on every run), the person's played through the screen as its keys play them.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from druids_p2p.games.druids2016.board import default_board, parse_square, square_name
from druids_p2p.games.druids2016.game import arranged
from druids_p2p.games.druids2016.policy import Budget, rule_move
from druids_p2p.tui.druids2016.session import Offline2016, rule_chooser
from druids_p2p.tui.druids2016.table import Druids2016App

SIZE = (100, 26)
SEED = 5
PLIES = 9
"""The person's moves before the first picture."""


async def _mid_game(out: Path) -> None:
    session = Offline2016(("alice", "rule-1"), {1: rule_chooser(SEED)}, seed=SEED)
    app = Druids2016App(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for square in session.place_choices()[-2:]:
            app.table.cursor = square
            await pilot.press("enter")
        await app.workers.wait_for_complete()
        rng = random.Random(SEED)
        for _ in range(PLIES):
            game = session.position()
            if game.result is not None:
                raise LookupError("the game ended before the picture")
            move = rule_move(game, rng, Budget(nodes=1))
            app.table._play(move)
            await app.workers.wait_for_complete()
            await pilot.pause()
        await pilot.press("tab")
        await pilot.pause()
        app.save_screenshot("board-2016.svg", str(out))


async def _tile_and_end(out: Path) -> None:
    board = default_board()
    tiles = {square_name(s): k for s, k in zip(board.starts, "CMFCR", strict=True)}
    druids = {"c1": "0s", "b1": "0s", "d7": "0e*", "a7": "1n*", "b6": "1w", "e4": "1n"}
    game = arranged(board, 0, druids, tiles, to_move=0)
    session = Offline2016(("alice", "rule-1"), {1: rule_chooser(SEED)}, setup=game.setup)
    session.game = game
    app = Druids2016App(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("tab", "n")  # b1 steps onto the Forest symbol on b2
        await pilot.pause()
        app.save_screenshot("tile-2016.svg", str(out))
        await pilot.press("escape", "escape")
        app.table.cursor = parse_square("d7")
        await pilot.press("enter", "w")  # the Master into the Temple on c7
        await pilot.pause()
        app.save_screenshot("end-2016.svg", str(out))


def make(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    asyncio.run(_mid_game(out))
    asyncio.run(_tile_and_end(out))
