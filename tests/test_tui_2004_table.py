"""The Druids (2004) table screen of peers (issue 18) over a real table in this process: the
table machines, their seat copies and mental card decks of ``tests/table2004_session.py``,
driven by key presses (Textual's Pilot). The same screen at a table of bot peer processes is
``test_tui_2004_lan.py``'s."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from board_keys import press_keys, read_ritual_steps, synced
from table2004_session import Table2004Session
from textual.pilot import Pilot

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import format_card, is_gem
from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.games.druids2004.view import HIDDEN
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.druids2004.dialogs import GameOver2004, RitualSteps
from druids_p2p.tui.druids2004.lan_table import TABLE_UI, LanTable2004Screen
from druids_p2p.tui.game_ui import NO_PACING
from druids_p2p.tui.widgets import TableLog
from druids_p2p.wire import MsgType

SIZE = (112, 40)
MAX_KEYS = 3000
"""More key presses than any test game needs (each loop below is bounded by it)."""


@asynccontextmanager
async def seated(
    players: int = 2, seed: int = 3
) -> AsyncIterator[tuple[Pilot[Any], LanTable2004Screen, Table2004Session]]:
    sessions: list[Table2004Session] = []

    def make(post: Callable[[Any], object]) -> Table2004Session:
        sessions.append(Table2004Session(post, players, seed))
        return sessions[0]

    app = DruidsApp(table_ui=TABLE_UI, make_session=make, pacing=NO_PACING)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.table
        assert isinstance(table, LanTable2004Screen)
        await read_rituals(pilot, table)
        assert table.my_turn or table.finished
        yield pilot, table, sessions[0]


async def read_rituals(pilot: Pilot[Any], table: LanTable2004Screen) -> int:
    for read in range(MAX_KEYS):
        screen = table.app.screen
        if not isinstance(screen, RitualSteps):
            return read
        await read_ritual_steps(pilot, screen)
        await pilot.pause()
    raise AssertionError("ritual dialogs did not end")


def log_text(table: LanTable2004Screen) -> str:
    return "\n".join(str(line.text) for line in table.query_one(TableLog).lines)


def my_moves(session: Table2004Session, seen_by: int) -> list[Any]:
    """The person's moves (plays and public moves) in another peer's transcript."""
    me = session.me.me
    record = session.table.machines[seen_by].transcript.messages
    return [m for m in record if m.sender == me and m.type in (MsgType.MOVE, MsgType.TABLE_PLAY)]


@synced
async def test_a_play_and_a_draw_by_keys_reach_the_other_seats_copy() -> None:
    async with seated() as (pilot, table, session):
        me, them = session.me.my_seat, session.table.machines[1].my_seat  # by coin flip
        assert me is not None and them is not None
        other = session.table.machines[1].card_play.copy
        view = table.shown
        assert view is not None and len(view.hand) == 7 and HIDDEN not in view.hand
        for _ in range(view.plays_left):
            view = table.shown
            assert view is not None
            play = next(m for m in view.legal if mv.decode(m).kind == mv.KIND_PLAY)
            card, slot = mv.decode(play).card, mv.decode(play).slot
            before = other.view(them).row[slot]
            await press_keys(pilot, table, play)
            await pilot.pause()
            await read_rituals(pilot, table)
            after = table.shown
            assert after is not None and table.my_turn and card not in after.hand
            place = other.view(them).row[slot]  # the other seat sees the card as our back
            assert place is not None and before is not None
            pile = place.gems if is_gem(card) else place.servants
            old = before.gems if is_gem(card) else before.servants
            assert list(pile) == [*old, (me, HIDDEN)]
            assert f"you play {format_card(card)} onto place {slot + 1}" in log_text(table)
        view = table.shown
        assert view is not None
        draw = mv.DRAW_GEM if mv.DRAW_GEM in view.legal else mv.DRAW_SERVANT
        await press_keys(pilot, table, draw)
        await pilot.pause()
        drawn = table.shown
        assert drawn is not None and len(drawn.hand) == len(view.hand) + 1
        (new,) = set(drawn.hand) - set(view.hand)
        assert new in session.known() and is_gem(new) == (draw == mv.DRAW_GEM)
        assert other.view(them).hand_sizes[me] == len(drawn.hand)
        where = "the gem pile" if draw == mv.DRAW_GEM else "your reserve"
        assert f"you draw {format_card(new)} from {where}" in log_text(table)
        tokens = [m.body.get("move", "play") for m in my_moves(session, seen_by=1)]
        assert tokens == ["play", "play", mv.format_move(draw)]


@synced
async def test_the_table_refuses_a_move_its_rules_forbid_and_the_screen_says_why() -> None:
    """The screen checks nothing itself: a draw before the turn's two cards goes to the table,
    whose copy of the rules refuses it; the reason is shown, nothing is sent, the turn stays."""
    async with seated() as (pilot, table, session):
        sent = len(my_moves(session, seen_by=1))
        view = table.shown
        assert view is not None and view.plays_left == 2
        await pilot.press("g")
        await pilot.pause()
        message = str(table.query_one("#message").render())
        assert message.startswith("Not allowed: ") and len(message) > len("Not allowed: ")
        assert table.my_turn and table.shown is view
        assert len(my_moves(session, seen_by=1)) == sent


@pytest.mark.slow  # a whole game's mental-card operations, in one process
@synced
async def test_a_whole_game_by_keys_never_shows_a_card_not_opened_to_the_seat() -> None:
    """Every snapshot's hand holds only cards the seat's deck had opened to it then (a drawn
    card's stand-in in the copy is never shown), and on the places this seat's cards face up,
    every other seat's as a back; the game ends with the table's result."""
    async with seated(players=3, seed=5) as (pilot, table, session):
        rng = random.Random(5)
        for _ in range(MAX_KEYS):
            if isinstance(table.app.screen, GameOver2004):
                break
            await read_rituals(pilot, table)
            if table.my_turn:
                view = table.shown
                assert view is not None
                await press_keys(pilot, table, rule_move(view, Options(players=3), rng))
            await pilot.pause()
        else:
            raise AssertionError("no game over")
        assert table.finished and table.result is not None and table.stopped is None
        view = table.shown
        assert view is not None and list(view.scores) == list(table.result["totals"])
        shown = [(s.view, known) for s, known in session.snapshots if s.view is not None]
        assert shown and all(set(v.hand) <= known for v, known in shown)
        on_row = [
            (owner, card)
            for v, _ in shown
            for place in v.row
            if place is not None
            for owner, card in (*place.gems, *place.servants)
        ]
        me = session.me.my_seat
        assert {owner == me for owner, _ in on_row} == {True, False}
        assert all((card == HIDDEN) == (owner != me) for owner, card in on_row), "only backs"
        unsettled = [s for s, _ in session.snapshots[1:] if s.my_seat is not None and not s.view]
        assert unsettled, "some snapshot fell while the table was dealing (the case this checks)"
