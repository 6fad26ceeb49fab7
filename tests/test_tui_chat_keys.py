"""No key ever plays a card the person did not choose (issue 28, item 1): chat has its own input,
which takes every key while it is open, and a key that ends a hold does nothing else.

"Trick 1 taken by you — any key to go on" on screen: ``c`` only ended the hold, no chat box
opened, and the ``hi all⏎`` typed next went to the table, which played a card (its space and
enter play the focused card). Here ``c``, ``hi all``, Enter are typed during a held trick, during
another's turn and over a prompt (Gaia's domain, a Sickle's pile, a round's summary), at Druids
2017's table (an :class:`OfflineSession` on exact positions, the pacing on a fake clock); the
2004 table's are ``test_tui_chat_keys2004.py``. Each time the line is sent and no move is made.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from offline2017 import OfflineSession, find_position, pile_choice
from textual import events
from textual.pilot import Pilot
from textual.widgets import RichLog

from druids_p2p.games.druids2017 import Game, GameOptions
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.druids2017.dialogs import GaiaPrompt, PilePrompt, RoundSummary
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, Pacing, PeerEvent
from druids_p2p.tui.widgets import ChatBox, ChatInput

NAMES = ("alice", "rule-1", "rule-2", "rule-3")
SIZE = (120, 44)
TYPED = "hi all"
MAX_STEPS = 200
"""More clock steps than the moves before any position here (each loop is bounded by it)."""


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Talk(OfflineSession):
    """The offline table, keeping every line the person sent."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.said: list[str] = []

    def send_chat(self, text: str) -> str | None:
        self.said.append(text)
        return super().send_chat(text)


def _app(
    seed: int, prefix: list[int], pacing: Pacing = NO_PACING, clock: FakeClock | None = None
) -> DruidsApp:
    def make(post: Callable[[Any], object]) -> Talk:
        return Talk(post, NAMES, options=GameOptions(players=4, rounds=1), seed=seed, prefix=prefix)

    return DruidsApp(
        table_ui=TABLE_UI, make_session=make, pacing=pacing, clock=clock or FakeClock()
    )


def _run(app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await body(pilot)

    asyncio.run(main())


def _table(app: DruidsApp) -> TableScreen:
    assert isinstance(app.table, TableScreen)
    return app.table


def _session(app: DruidsApp) -> Talk:
    assert isinstance(app.session, Talk)
    return app.session


def _my_plays(app: DruidsApp) -> list[int]:
    """Every move this seat has made in the round so far (what the engine took)."""
    rnd = _session(app).game.round
    assert rnd is not None
    return [move for seat, move in rnd.plays if seat == 0]


def _log(app: DruidsApp) -> list[str]:
    lines = [line.text for line in _table(app).query_one("#log", RichLog).lines]
    return [re.sub(r"^\d\d:\d\d:\d\d ", "", line) for line in lines]


async def _say(pilot: Pilot[Any], app: DruidsApp, text: str = TYPED) -> None:
    """``c``, the line and Enter, as a person types them; the box was open while they typed."""
    await pilot.press("c")
    await pilot.pause()
    assert isinstance(app.screen, ChatBox), app.screen
    await pilot.press(*text)
    assert app.screen.query_one(ChatInput).value == text
    await pilot.press("enter")
    await pilot.pause()
    assert not isinstance(app.screen, ChatBox)


def _bot_trick_then_my_lead(game: Game) -> bool:
    """Seat 0 leads the next trick, the one before completed by a bot's card: at the table the
    completed trick is held ("any key to go on"), then seat 0 is asked for its lead."""
    rnd = game.round
    if rnd is None or rnd.to_move != 0 or rnd.trick or rnd.pending_sickles or not rnd.tricks:
        return False
    return rnd.tricks[-1].plays[-1][0] != 0 and len(rnd.hand(0)) > 2


async def _until_trick_held(
    pilot: Pilot[Any], table: TableScreen, clock: FakeClock, last: bool = False
) -> None:
    """Move the table's clock on, a move at a time, until a completed trick is held (``last``:
    the one after which no move waits to be shown, only this seat's turn)."""
    for _ in range(MAX_STEPS):
        await pilot.pause()
        moves = [m for m in table.pacer.queue if isinstance(m, PeerEvent)]
        if table.pacer.key_ends_hold and table.pacer.holding and not (last and moves):
            return
        clock.now += 1.0
        await table.drain()
    raise AssertionError("no completed trick was held")


def test_chat_during_a_held_trick_opens_the_box_and_plays_nothing() -> None:
    """The issue's case: the trick a bot completed is held, this seat leads next. ``c`` opens the
    chat box (the hold goes on), the line is sent, no card is played; then a key ends the hold
    and does nothing else."""
    seed, prefix = find_position(_bot_trick_then_my_lead)
    clock = FakeClock()
    app = _app(seed, prefix, Pacing(move_s=1.0, trick_s=5.0), clock)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        await _until_trick_held(pilot, table, clock, last=True)
        before = _my_plays(app)
        await _say(pilot, app)
        assert _session(app).said == [TYPED] and f"you: {TYPED}" in _log(app)
        assert _my_plays(app) == before and table.pacer.holding  # nothing played, still held
        for key in ("space", "enter"):  # the first ends the hold, the second is the person's
            await pilot.press(key)
            await pilot.pause()
            if key == "space":
                assert not table.pacer.holding and _my_plays(app) == before
        assert len(_my_plays(app)) == len(before) + 1  # the enter on the person's turn played

    _run(app, body)


def test_chat_during_another_seats_turn_keeps_every_key_while_a_trick_and_the_turn_come() -> None:
    """The box opened while the bots' moves are shown; a trick completes (and is held) while the
    line is typed, then this seat's turn comes: the keys typed meanwhile (space and enter play
    a card at the table, any key ends a held trick) are the line's, and nothing is played."""
    seed, prefix = find_position(_bot_trick_then_my_lead)
    clock = FakeClock()
    app = _app(seed, prefix, Pacing(move_s=1.0, trick_s=5.0), clock)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        snap = table.snapshot
        assert snap is None or not snap.my_turn  # the bots' moves are being shown
        before = _my_plays(app)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ChatBox)
        await pilot.press(*TYPED)
        await _until_trick_held(pilot, table, clock)  # meanwhile, under the open box
        await pilot.press("enter")  # the line's, not the held trick's "any key"
        await pilot.pause()
        assert _session(app).said == [TYPED] and f"you: {TYPED}" in _log(app)
        assert table.pacer.holding and table.pacer.key_ends_hold
        await _say(pilot, app, "gg ")  # over the held trick: its space is the line's too
        assert table.pacer.holding and table.pacer.key_ends_hold
        await pilot.press("c", *"so")
        for _ in range(MAX_STEPS):  # then this seat's turn comes, the box still open
            snap = table.snapshot
            if snap is not None and snap.my_turn and not table.pacer.queue:
                break
            clock.now += 1.0
            await table.drain()
            await pilot.pause()
        assert isinstance(app.screen, ChatBox)
        await pilot.press("space", *"far", "enter")
        await pilot.pause()
        assert _session(app).said == [TYPED, "gg", "so far"]
        assert not isinstance(app.screen, ChatBox)
        assert _my_plays(app) == before and table.snapshot is not None
        assert table.snapshot.my_turn  # the turn is still the person's to play

    _run(app, body)


def _gaia_lead(game: Game) -> bool:
    rnd = game.round
    return rnd is not None and not rnd.plays and rnd.to_move == 0


@pytest.mark.parametrize(
    ("wanted", "prompt"), [(_gaia_lead, GaiaPrompt), (pile_choice(0), PilePrompt)]
)
def test_chat_over_a_prompt_leaves_the_prompt_open_and_plays_nothing(
    wanted: Callable[[Game], bool], prompt: type
) -> None:
    """Over Gaia's domain prompt and a Sickle's pile prompt (their space and enter choose, their
    digits too): the line and an Escape-closed one go to the box, the prompt stays open."""
    seed, prefix = find_position(wanted)
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        asked = app.screen
        assert isinstance(asked, prompt), asked
        before = _my_plays(app)
        await _say(pilot, app, f"{TYPED} 1 2 l d")
        assert app.screen is asked and _my_plays(app) == before
        await pilot.press("c", *"never 1 mind", "escape")
        await pilot.pause()
        assert app.screen is asked and _my_plays(app) == before
        assert _session(app).said == [f"{TYPED} 1 2 l d"]
        assert f"you: {TYPED} 1 2 l d" in _log(app)
        assert not any("never" in line for line in _log(app))
        await pilot.press("1")  # the prompt still answers its own keys
        await pilot.pause()
        assert len(_my_plays(app)) == len(before) + 1

    _run(app, body)


def test_chat_over_a_round_summary_leaves_it_open() -> None:
    """A round's summary waits for a key (space, enter, escape close it): the chat box opened
    over it takes the line, and the summary is still there to close."""
    seed, prefix = find_position(lambda g: g.round is not None and len(g.round.plays) == 0)
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        for _ in range(MAX_STEPS):  # enter plays this seat's card until the round's end
            if isinstance(app.screen, RoundSummary):
                break
            if isinstance(app.screen, GaiaPrompt | PilePrompt):
                await pilot.press("1")
            elif table.snapshot is not None and table.snapshot.my_turn:
                await pilot.press("enter")
            await pilot.pause()
        summary = app.screen
        assert isinstance(summary, RoundSummary)
        await _say(pilot, app)
        assert app.screen is summary and _session(app).said == [TYPED]

    _run(app, body)


async def _burst(app: DruidsApp, keys: list[str]) -> None:
    """The keys as one burst (a fast typist, a laggy SSH link): no pause between them."""
    driver = app._driver
    assert driver is not None
    for key in keys:
        char = {"space": " "}.get(key, key if len(key) == 1 else None)
        event = events.Key(key, char)
        event.set_sender(app)
        driver.send_message(event)


def test_chat_typed_in_one_burst_on_ones_turn_is_all_text() -> None:
    """``c`` and the line in one burst on this seat's turn: the keys behind ``c`` reach the box,
    not the hand (space and enter play there, g y r b v s jump to a row)."""
    seed, prefix = find_position(_bot_trick_then_my_lead)
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        assert table.snapshot is not None and table.snapshot.my_turn
        before = _my_plays(app)
        await _burst(app, ["c", *"gg rvs", "space", *"b", "enter"])
        for _ in range(MAX_STEPS):
            await pilot.pause(0.02)
            if _session(app).said:
                break
        assert _session(app).said == ["gg rvs b"] and _my_plays(app) == before
        assert not isinstance(app.screen, ChatBox)

    _run(app, body)
