"""A table screen that shows what its session tells it in the pacer's time (``game_ui.py``).

Both games' tables of peers take every message of the session into a :class:`Pacer` and show
them in order, each after the hold the last one asked for; a timer wakes the screen when the next
may be shown. That machinery is the same for every game, so it lives here once: a game's screen
says only how one message is shown (:meth:`PacedTableScreen.show`) and, if it keeps something
on show for the length of a hold, how that ends (:meth:`PacedTableScreen.drained`). The game
itself is never imported (import-linter's ``tui-through-the-seam`` contract checks it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypedDict

from textual.message import Message
from textual.timer import Timer

from druids_p2p.tui.game_ui import (
    NO_PREFS,
    UI_PACING,
    GameTableScreen,
    Pacer,
    Pacing,
    PeerEvent,
    Session,
    TablePrefs,
)
from druids_p2p.tui.widgets import CHAT_EVENTS, ChatBox, TableLog, chat_line

log = logging.getLogger(__name__)

MIN_WAKE_S = 0.02
"""The shortest timer the screen arms: a hold that is (nearly) over wakes it on the next tick,
never in a busy loop."""


class Paced(TypedDict, total=False):
    """The keywords every paced table screen takes (``TableUI.open`` passes both), which a
    game's screen hands on to :class:`PacedTableScreen` as they came."""

    pacing: Pacing
    clock: Callable[[], float]
    prefs: TablePrefs


class PacedTableScreen(GameTableScreen):
    """A game's table of peers over ``session``, shown through a pacer; a subclass shows each
    message (:meth:`show`) and tells a message it could not show (:meth:`display_error`)."""

    def __init__(
        self,
        session: Session,
        expected: tuple[str, ...] = (),
        *,
        pacing: Pacing = UI_PACING,
        clock: Callable[[], float] = time.monotonic,
        prefs: TablePrefs = NO_PREFS,
    ) -> None:
        """``expected``: the bots awaited before seating (shown until the table is seated);
        ``clock``: the pacer's (tests drive it by hand); ``prefs``: the person's."""
        super().__init__()
        self.session = session
        self.expected = expected
        self.prefs = prefs
        self.pacing = pacing
        self.pacer: Pacer[Message] = Pacer(clock)
        self._pace_timer: Timer | None = None
        self._draining = False
        self.record: str | None = session.record

    # ------------------------------------------------------------ the game's part
    async def show(self, message: Message) -> None:
        """Show one message of the session now (it may ask the pacer to hold the next)."""
        raise NotImplementedError

    def display_error(self, line: str) -> None:
        """Tell the person, in the table's log, that a message could not be shown."""
        raise NotImplementedError

    def drained(self) -> None:
        """Everything due is shown: the moment to end what a hold kept on show once it is
        over (the 2017 table's completed trick)."""

    # ------------------------------------------------------------ table talk
    def open_chat(self) -> None:
        """The chat box over whatever is on top (this table, a prompt, a summary): it takes
        every key until it is closed, and what is under it stays as it was."""
        if not isinstance(self.app.screen, ChatBox):
            self.app.push_screen(ChatBox(), self._said)

    def _said(self, text: str | None) -> None:
        """A line typed in the box: handed to the session (it shows in the log once signed),
        or the reason it cannot be sent."""
        if text is None:
            return
        refused = self.session.send_chat(text)
        if refused is not None:
            self.show_chat({"event": "chat_refused", "text": f"chat: {refused}"})

    def show_chat(self, event: dict[str, object]) -> None:
        """A chat line (or why ours was not sent) in the log, at once."""
        snapshot = self.snapshot
        mine = snapshot.my_seat if snapshot is not None else None
        for panel in self.query(TableLog):  # (one; none only on a screen not composed yet)
            panel.append_line(chat_line(event, mine))

    # ------------------------------------------------------------ the paced queue
    async def receive(self, message: Message) -> None:
        """A message from the session: queued, shown in its turn. Talk is shown at once: it
        changes nothing at the table, so it waits behind no hold and no summary."""
        if isinstance(message, PeerEvent) and message.event.get("event") in CHAT_EVENTS:
            self.show_chat(message.event)
            return
        self.pacer.push(message)
        await self.drain()

    async def drain(self) -> None:
        """Show everything whose time has come, then wake when the next may be shown."""
        if self._draining or not self.is_attached or getattr(self.app, "leaving", False):
            return  # (left: the app is closing, nothing more is shown)
        self._draining = True
        try:
            while (message := self.pacer.next_ready()) is not None:
                await self._show_safely(message)
            self.drained()
        finally:
            self._draining = False
        self._schedule()

    def _schedule(self) -> None:
        """Wake at the end of the current hold, even with nothing queued (what the hold kept
        on show is taken down then), or on the next tick if something is due; never while a
        block is on (its release drains)."""
        if self._pace_timer is not None:
            self._pace_timer.stop()
            self._pace_timer = None
        if self.pacer.blocked:
            return
        left = self.pacer.until - self.pacer.clock()
        if left > 0 or self.pacer.wait_s() is not None:
            self._pace_timer = self.set_timer(max(MIN_WAKE_S, left), self.drain)

    async def _show_safely(self, message: Message) -> None:
        """A bug in showing a message must not end the game (the peer plays on in its thread):
        it is logged and shown as one line."""
        try:
            await self.show(message)
        except Exception as exc:
            log.exception("the UI could not show %s", type(message).__name__)
            self.display_error(f"display error ({type(exc).__name__}: {exc}); see druids.log")
