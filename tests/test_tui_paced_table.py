"""The paced table screen (tui/widgets.py) that both games' tables of peers stand on, over a
screen of no game: messages shown in order after each hold, a message that cannot be shown told
in one line while the rest play on, nothing past a block, the hook after each drain."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from test_tui_pacing import FakeClock
from textual.app import App
from textual.message import Message

from druids_p2p.tui.game_ui import Pacing, Session
from druids_p2p.tui.widgets import PacedTableScreen


class Said(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class Notes(PacedTableScreen):
    """Shows each message by noting its text; ``boom`` cannot be shown."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(Session(), ("bot",), pacing=Pacing(move_s=1.0, trick_s=0.0), clock=clock)
        self.seen: list[str] = []
        self.errors: list[str] = []
        self.drains = 0

    async def show(self, message: Message) -> None:
        assert isinstance(message, Said)
        if message.text == "boom":
            raise ValueError("no such card")
        self.seen.append(message.text)
        self.pacer.hold(self.pacing.move_s)

    def display_error(self, line: str) -> None:
        self.errors.append(line)

    def drained(self) -> None:
        self.drains += 1


def _run(body: Callable[[Notes, FakeClock], Awaitable[None]]) -> None:
    clock = FakeClock()
    screen = Notes(clock)

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(screen)

    async def main() -> None:
        async with Host().run_test() as pilot:
            await pilot.pause()
            await body(screen, clock)

    asyncio.run(main())


def test_each_message_waits_out_the_hold_and_one_that_fails_is_told_not_fatal() -> None:
    async def body(screen: Notes, clock: FakeClock) -> None:
        assert screen.expected == ("bot",) and screen.record is None
        for text in ("a", "boom", "b", "c"):
            await screen.receive(Said(text))
        assert screen.seen == ["a"] and len(screen.pacer.queue) == 3
        assert screen._pace_timer is not None  # it wakes when the hold is over
        drains = screen.drains
        clock.now += 0.5
        await screen.drain()
        assert screen.seen == ["a"] and screen.drains == drains + 1
        clock.now += 0.5
        await screen.drain()  # boom holds nothing: b follows it at once, then holds c
        assert screen.errors == ["display error (ValueError: no such card); see druids.log"]
        assert screen.seen == ["a", "b"] and len(screen.pacer.queue) == 1
        clock.now += 1.0
        await screen.drain()
        assert screen.seen == ["a", "b", "c"] and not screen.pacer.queue

    _run(body)


def test_nothing_is_shown_past_a_block_and_no_timer_waits_on_it() -> None:
    async def body(screen: Notes, clock: FakeClock) -> None:
        screen.pacer.block()  # a round's summary being read
        await screen.receive(Said("a"))
        clock.now += 1e6
        await screen.drain()
        assert screen.seen == [] and screen._pace_timer is None
        screen.pacer.release()
        await screen.drain()
        assert screen.seen == ["a"]

    _run(body)
