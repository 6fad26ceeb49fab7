"""No key ever plays a move the person did not choose, at Druids 2004's table of peers (issue 28,
item 1; the 2017 table's are ``test_tui_chat_keys.py``): ``c``, a line and Enter typed on this
seat's turn, during another's and over a ritual's dialog send the line and make no move.

The table's keys are letters and digits (``g`` / ``s`` draw, ``x`` discards, ``r`` and a digit
announce a ritual, a digit plays the chosen card, Enter ends the turn, ``l`` lists the rituals)
and before the chat box the 2004 table had no chat at all: a line typed there was moves. The
table is a real one in this process (``tests/table2004_session.py``), the pacing on a fake clock.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from board_keys import press_keys, synced
from table2004_session import Table2004Session
from textual.pilot import Pilot

from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.druids2004.dialogs import RitualSteps
from druids_p2p.tui.druids2004.lan_table import TABLE_UI, LanTable2004Screen
from druids_p2p.tui.game_ui import NO_PACING, Pacing, PeerEvent
from druids_p2p.tui.widgets import ChatBox, ChatInput, TableLog
from druids_p2p.wire import MsgType

SIZE = (112, 40)
MAX_STEPS = 3000
"""More key presses or clock steps than any test here needs (each loop is bounded by it)."""
MOVE_KEYS = "hi all: g s x 1 r2 l"
"""A line made of the table's move keys (and ``l``, the rituals' list)."""


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class TalkTable(Table2004Session):
    """The in-process table of peers, keeping every line the person sent (shown as signed)."""

    def __init__(self, post: Callable[[Any], object], players: int, seed: int) -> None:
        super().__init__(post, players, seed)
        self.said: list[str] = []

    def send_chat(self, text: str) -> str | None:
        self.said.append(text)
        seat = self.me.my_seat
        self.post(PeerEvent({"event": "chat", "seat": seat, "name": "me", "text": text}, None))
        return None

    def sent_moves(self) -> int:
        """The person's moves in the other seat's transcript."""
        me = self.me.me
        record = self.table.machines[1].transcript.messages
        kinds = (MsgType.MOVE, MsgType.TABLE_PLAY)
        return sum(m.sender == me and m.type in kinds for m in record)


@asynccontextmanager
async def table_app(
    seed: int = 3, pacing: Pacing = NO_PACING, clock: FakeClock | None = None
) -> AsyncIterator[tuple[Pilot[Any], LanTable2004Screen, TalkTable]]:
    sessions: list[TalkTable] = []

    def make(post: Callable[[Any], object]) -> TalkTable:
        sessions.append(TalkTable(post, 2, seed))
        return sessions[0]

    app = DruidsApp(table_ui=TABLE_UI, make_session=make, pacing=pacing, clock=clock or FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.table
        assert isinstance(table, LanTable2004Screen)
        yield pilot, table, sessions[0]


def _log(table: LanTable2004Screen) -> str:
    return "\n".join(str(line.text) for line in table.query_one(TableLog).lines)


async def _say(pilot: Pilot[Any], table: LanTable2004Screen, text: str) -> None:
    """``c``, the line and Enter; the box was open, holding the line, while it was typed."""
    app = table.app
    await pilot.press("c")
    await pilot.pause()
    assert isinstance(app.screen, ChatBox), app.screen
    await pilot.press(*text)
    assert app.screen.query_one(ChatInput).value == text
    await pilot.press("enter")
    await pilot.pause()
    assert not isinstance(app.screen, ChatBox)
    assert f"you: {text}" in _log(table)


@synced
async def test_chat_on_ones_turn_sends_the_line_and_plays_nothing() -> None:
    async with table_app() as (pilot, table, session):
        for _ in range(MAX_STEPS):  # the rituals of the deal read, this seat asked
            if table.my_turn and table.app.screen is table:
                break
            if isinstance(table.app.screen, RitualSteps):
                await pilot.press("escape", "enter")
            await pilot.pause()
        assert table.my_turn
        sent, cursor, shown = session.sent_moves(), table.cursor, table.shown
        await _say(pilot, table, MOVE_KEYS)
        assert session.said == [MOVE_KEYS]
        assert session.sent_moves() == sent and table.shown is shown and table.cursor == cursor
        assert table.my_turn and not table.ritual_mode
        await pilot.press("c", *"gg 1", "escape")  # closed without a word, nothing played
        await pilot.pause()
        assert session.said == [MOVE_KEYS] and session.sent_moves() == sent


@synced
async def test_chat_during_another_seats_turn_sends_the_line_and_plays_nothing() -> None:
    """This seat plays a turn by keys; while the other seat's moves are shown (each held a
    moment), the line is typed: it is sent, and Enter (end the turn) did not reach the table."""
    clock = FakeClock()
    rng = random.Random(3)
    async with table_app(pacing=Pacing(move_s=1.0, trick_s=0.0), clock=clock) as (
        pilot,
        table,
        session,
    ):
        played = False
        for _ in range(MAX_STEPS):
            view = table.shown
            others = view is not None and view.to_move != view.seat and not view.game_over
            if played and others and table.pacer.holding and table.app.screen is table:
                break
            if isinstance(table.app.screen, RitualSteps):
                await pilot.press("escape", "enter")
            elif table.my_turn and table.app.screen is table and view is not None:
                await press_keys(pilot, table, rule_move(view, Options(players=2), rng))
                played = True
            else:
                clock.now += 1.0
                await table.drain()
            await pilot.pause()
        else:
            raise AssertionError("the other seat's turn was never on show")
        sent = session.sent_moves()
        await _say(pilot, table, "hi all")
        assert session.said == ["hi all"] and session.sent_moves() == sent
        assert table.message == ""  # no key reached the table: nothing refused either


@synced
async def test_chat_over_a_ritual_dialog_leaves_it_on_its_step() -> None:
    """A ritual's dialog shows one step per space or Enter: the line typed in the box over it
    moves it on by none, and the dialog answers its own keys once the box is closed."""
    rng = random.Random(5)
    async with table_app(seed=5) as (pilot, table, session):
        for _ in range(MAX_STEPS):
            screen = table.app.screen
            if isinstance(screen, RitualSteps):
                break
            view = table.shown
            if table.my_turn and screen is table and view is not None:
                await press_keys(pilot, table, rule_move(view, Options(players=2), rng))
            await pilot.pause()
        else:
            raise AssertionError("no ritual")
        dialog = table.app.screen
        assert isinstance(dialog, RitualSteps) and not dialog.complete
        step, sent = dialog.shown, session.sent_moves()
        await _say(pilot, table, "hi all")
        assert dialog.shown == step and dialog.is_current
        assert session.said == ["hi all"] and session.sent_moves() == sent
        await pilot.press("space")
        await pilot.pause()
        assert dialog.shown == step + 1
