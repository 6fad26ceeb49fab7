"""The README's Druids (2004) screenshots: the table mid-game, its legend (key ``?``), a ritual
told step by step, and the table screen of peers (``table2004-lan.svg``).

Made with the rest by ``tools/screenshots.py``: an offline table
on a fixed seed with rule bots (which play the same moves on every run), the person's moves chosen
by the same rule policy and played through the table screen, as its keys play them. A mental-card
table deals differently on every run, so the picture of the table screen of peers is that same
fixed position handed to it as a peer hands it: the seat's view in snapshots, the moves as the
peer's move events (:class:`_FixedTable`).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

from textual.message import Message

from druids_p2p.bots import BuiltinBots
from druids_p2p.bots.local_game import make_bot
from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.setup import Discarded, Drew, Played, Record, RitualDone, Stopped
from druids_p2p.games.druids2004.view import HIDDEN, SeatView
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.druids2004.dialogs import RitualSteps
from druids_p2p.tui.druids2004.lan_table import TABLE_UI, LanTable2004Screen, Snapshot2004
from druids_p2p.tui.druids2004.session import Offline2004
from druids_p2p.tui.druids2004.table import Druids2004App
from druids_p2p.tui.game_ui import NO_PACING, PeerEvent, Session, TurnRequest

SIZE = (112, 36)
NAMES = ("alice", "rule-1", "pimc-2")
SEED = 11
MAX_MOVES = 2000
LOBBY_SVG = "lobby-2004.svg"
LOBBY_TABLES = (("gems at noon", "hana", "192.168.1.62", 3, ["ivo"], False),)


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
        await pilot.press("question_mark")
        await pilot.pause()
        app.save_screenshot("legend-2004.svg", str(out))
        await pilot.press("escape")
        await pilot.pause()
        slot = next(m - mv.RITUAL for m in app.table.view.legal if mv.RITUAL <= m < mv.DISCARD)
        await pilot.press("r", str(slot + 1))
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, RitualSteps)
        while dialog.shown < len(dialog.steps) - 1:
            await pilot.press("space")
        await pilot.pause()
        app.save_screenshot("ritual-2004.svg", str(out))


def _token(record: Record) -> tuple[int, str] | None:
    """A record as the peer's move event tells it (a card put down: its zone only)."""
    if isinstance(record, Played):
        return record.seat, f"play slot:{record.slot}"
    if isinstance(record, Discarded):
        return record.seat, "play discards"
    if isinstance(record, Drew):
        return record.seat, f"Draw:{record.source}"
    if isinstance(record, RitualDone):
        return record.seat, f"Ritual:{record.slot}"
    if isinstance(record, Stopped):
        return record.seat, "Stop"
    return None


class _FixedTable(Session):
    """The fixed position's last moves and then the seat's move request, as a peer posts them."""

    title = "local table 'local' (a fixed position, for this screenshot)"
    record = "~/.local/share/druids-p2p/games/20250101-120000-4242/me/tables/7a1e…/record.druids"

    def __init__(self, post: Callable[[Message], object], session: Offline2004) -> None:
        self.post, self.session = post, session

    def start(self) -> None:
        view = self.session.view()
        snap = Snapshot2004(self.session.names, view.seat, "play", view)
        seated = "seat order fixed by coin flip — " + ", ".join(self.session.names)
        self.post(PeerEvent({"event": "seated", "text": seated, "record": self.record}, snap))
        for record in self.session.game.log[-12:]:
            told = _token(record)
            if told is not None:
                seat, token = told
                self.post(PeerEvent({"event": "move", "seat": seat, "move": token}, snap))
        self.post(TurnRequest(Snapshot2004(snap.names, view.seat, "play", view, True, 1)))

    def submit(self, move: int, turn: int) -> None:
        """Nothing is played in a picture."""


async def _lan_shot(out: Path) -> None:
    session = _session()
    rng = random.Random(SEED)
    session.start()
    for _ in range(MAX_MOVES):
        view = session.view()
        if _busy_row(view):
            break
        move = rule_move(view, session.game.options, rng)
        if mv.RITUAL <= move < mv.DISCARD:
            move = next(m for m in view.legal if not mv.RITUAL <= m < mv.DISCARD)
        assert session.submit(move) is None
    else:
        raise LookupError("no such position on this seed")
    app = DruidsApp(
        table_ui=TABLE_UI,
        make_session=lambda post: _FixedTable(post, session),
        expected=session.names[1:],
        pacing=NO_PACING,
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(MAX_MOVES):  # the rituals so far, each read (they open as they come)
            if not isinstance(app.screen, RitualSteps):
                break
            await pilot.press("escape", "escape")
        table = app.table
        assert isinstance(table, LanTable2004Screen) and table.my_turn
        await pilot.press("right")
        await pilot.pause()
        app.save_screenshot("table2004-lan.svg", str(out))


def make(out: Path) -> None:
    asyncio.run(_shots(out))
    asyncio.run(_lan_shot(out))
