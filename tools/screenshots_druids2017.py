"""Druids (2017)'s screenshots for the README: the table, a held trick, the Gaia prompt and a
round's summary, each an offline session on a fixed deal (so the picture is the same every time:
a dimmed card with its reason and a warning; a finished trick held on a clock that does not move).
``tools/screenshots.py`` makes them with every other game's."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from offline2017 import OfflineSession, find_position, must_follow

from druids_p2p.games.druids2017 import Game, GameOptions
from druids_p2p.games.druids2017.cards import card_domain
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.druids2017.cards import CardChip, warnings
from druids_p2p.tui.druids2017.dialogs import GaiaPrompt, PilePrompt, RoundSummary
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, Pacing

SIZE = (112, 42)
NAMES = ("alice", "rule-1", "pimc-2", "rule-3")
LOBBY_SVG = "lobby.svg"


class _StoppedClock:
    """The pacing's clock for a picture: a held trick stays held."""

    def __call__(self) -> float:
        return 0.0


def _offline_app(seed: int, moves: list[int], rounds: int = 1) -> DruidsApp:
    options = GameOptions(players=4, rounds=rounds)
    record = "~/.local/share/druids-p2p/games/20250101-120000-4242/me/tables/3f9c…/record.druids"

    def make(post: Callable[[Any], object]) -> OfflineSession:
        return OfflineSession(
            post,
            NAMES,
            options=options,
            seed=seed,
            prefix=moves,
            record=record,
            title="local table (a fixed deal, for this screenshot)",
        )

    return DruidsApp(table_ui=TABLE_UI, make_session=make, pacing=NO_PACING, clock=_StoppedClock())


def _warned(game: Game) -> bool:
    """Seat 0 must follow, late in the round, and someone holds four domains."""
    view = game.view(0) if game.round is not None else None
    return must_follow(0, min_tricks=5)(game) and view is not None and bool(warnings(view))


async def _table(out: Path) -> None:
    seed, moves = find_position(_warned)
    app = _offline_app(seed, moves)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.table
        assert isinstance(table, TableScreen) and table.snapshot is not None
        view = table.snapshot.view
        assert view is not None
        dimmed = next(c for c in view.hand if card_domain(c) not in (-1, view.lead_domain))
        await pilot.press("gyrbv"[card_domain(dimmed)])
        assert isinstance(app.focused, CardChip)
        await pilot.pause()
        app.save_screenshot("table.svg", str(out))


def _last_to_play(game: Game) -> bool:
    rnd = game.round
    return rnd is not None and rnd.to_move == 0 and len(rnd.trick) == 3 and len(rnd.tricks) >= 3


async def _trick(out: Path) -> None:
    """The trick just finished, held on the table: each card with its player, who took it."""
    seed, moves = find_position(_last_to_play)
    app = _offline_app(seed, moves)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.table
        assert isinstance(table, TableScreen) and table.snapshot is not None
        assert table.snapshot.my_turn
        table.pacing = Pacing(move_s=0.0, trick_s=60.0)  # from now on: our trick stays
        await pilot.press("enter")
        await pilot.pause()
        assert table.trick_held
        app.save_screenshot("trick.svg", str(out))


def _holds_gaia(game: Game) -> bool:
    rnd = game.round
    return rnd is not None and not rnd.plays and rnd.to_move == 0


def _late(game: Game) -> bool:
    rnd = game.round
    return rnd is not None and rnd.to_move == 0 and len(rnd.tricks) >= 10


async def _gaia(out: Path) -> None:
    seed, moves = find_position(_holds_gaia)
    app = _offline_app(seed, moves)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GaiaPrompt)
        app.save_screenshot("gaia.svg", str(out))


async def _summary(out: Path) -> None:
    seed, moves = find_position(_late)
    app = _offline_app(seed, moves)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(100):
            await pilot.pause()
            screen = app.screen
            if isinstance(screen, RoundSummary):
                app.save_screenshot("round-summary.svg", str(out))
                return
            if isinstance(screen, PilePrompt):
                await pilot.press("1")
            elif isinstance(screen, TableScreen) and screen.snapshot and screen.snapshot.my_turn:
                await pilot.press("enter")


def make(out: Path) -> None:
    """table.svg, trick.svg, gaia.svg and round-summary.svg into ``out``."""
    asyncio.run(_table(out))
    asyncio.run(_trick(out))
    asyncio.run(_gaia(out))
    asyncio.run(_summary(out))
