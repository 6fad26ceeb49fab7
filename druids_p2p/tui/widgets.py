"""The pieces every game's table screen is built of, and the table screen paced by them.

Text from other peers shown literally, one colour per seat, the chat box, the log; a paced table
shows what its session tells it in the pacer's time."""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar, TypedDict

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Input, RichLog, Static

from druids_p2p.games.registry import games
from druids_p2p.tui.game_ui import (
    NO_PREFS,
    UI_PACING,
    GameTableScreen,
    KeysFooter,
    Pacer,
    Pacing,
    PeerEvent,
    SeatSnapshot,
    Session,
    TablePrefs,
)
from druids_p2p.wire.schema import MAX_CHAT_TEXT, shown

# The pieces every game's table screen is built of: text from other peers shown literally (never
# as markup), one colour per seat, the chat box, the table log and the too-small-terminal banner.


def _lines_shown(text: str) -> str:
    """:func:`shown` line by line: the line breaks the UI puts between lines stay breaks."""
    return "\n".join(shown(line) for line in text.split("\n"))


def plain(text: object, style: str = "") -> Text:
    """``text`` (``str()`` of it) as a ``Text`` no markup parser reads, unprintables replaced
    (line breaks kept: a dialog's lines are joined with them)."""
    return Text(_lines_shown(str(text)), style=style)


def plain_text(text: Text) -> Text:
    """A styled ``Text`` with its unprintable characters replaced (its spans stay in place)."""
    cleaned = _lines_shown(text.plain)
    if cleaned == text.plain:
        return text
    copy = text.copy()
    copy.plain = cleaned
    return copy


SEAT_COLOURS: tuple[str, ...] = ("#5fd7ff", "#ff87d7", "#ffaf5f", "#afafff", "#d7d787")
"""Cyan, pink, orange, lavender, khaki: seats 0..4 in play order."""


def seat_colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def who(snapshot: SeatSnapshot | None, seat: int | None) -> str:
    """``you`` for this seat, else the seat's name."""
    if snapshot is None or seat is None:
        return "?"
    return "you" if seat == snapshot.my_seat else snapshot.name(seat)


def name_text(snapshot: SeatSnapshot | None, seat: int | None, you: bool = True) -> Text:
    """The seat's name (or ``you``) in its colour."""
    if snapshot is None or seat is None or not 0 <= seat < len(snapshot.names):
        return Text("?")
    label = who(snapshot, seat) if you else snapshot.name(seat)
    bold = " bold" if seat == snapshot.my_seat else ""
    return plain(label, f"{seat_colour(seat)}{bold}")


def in_your_words(reason: str | None, seat: int) -> str | None:
    """A refusal told to ``seat``'s player: "seat 2's hand" becomes "your hand", "seat 2" "you"."""
    if reason is None:
        return None
    reason = re.sub(rf"\bseat {seat}'s\b", "your", reason)
    return re.sub(rf"\bseat {seat}\b", "you", reason)


CHAT_EVENTS = ("chat", "chat_refused")

CHAT_KEY = Binding("c", "app.chat", "chat", priority=True)
"""``c`` opens the chat box: on a table screen and on every prompt, summary and end screen over
it (a modal screen hides the table's own bindings). The app (``DruidsApp.action_chat``) opens it
over whatever is on top. A priority binding is run as the app takes the key, before it hands on
the next: the keys typed behind ``c`` in one burst go to the box, not to the hand (a plain one
ran only once ``c`` had bubbled up from the focused card, after the keys behind it had been
handed to that card). None of these screens has an input that ``c`` could be text for."""


COACH_KEY = Binding("a", "app.coach", "coach")
"""``a`` asks the coach what the strongest bot would play here and why: at a table with the coach
on (one person, the rest bots; absent elsewhere), on its screen and on a prompt over it (Gaia's
lead, a Sickle's pile), as ``c`` is (the app, ``DruidsApp.action_coach``, hands it to the
table). No game's table or prompt has another use for it."""


def chat_line(event: dict[str, Any], my_seat: int | None = None) -> Text:
    """A chat event as a log line: the speaker in bold (``you`` for this seat), then the text;
    the coach's advice (``coach``) in its own colour."""
    if event.get("event") == "coach":
        return Text(f"coach: {event.get('text', '')}", style="bold green")
    if event.get("event") == "chat_refused":
        return Text(str(event.get("text", "chat: not sent")), style="yellow")
    seat = event.get("seat")
    who = "you" if seat is not None and seat == my_seat else str(event.get("name", "?"))
    line = Text(f"{who}: ", style="bold cyan")
    line.append(str(event.get("text", "")))
    return line


class ChatInput(Input):
    """The line being typed (at most a chat line's bytes' worth of characters)."""

    DEFAULT_CSS = """
    ChatInput { height: 3; border: round $accent; }
    """

    def __init__(self) -> None:
        super().__init__(
            placeholder="say something to the table — Enter sends, Escape closes",
            id="chat",
            max_length=MAX_CHAT_TEXT,
        )


class ChatBox(ModalScreen[str | None]):
    """The chat's own input at the bottom, the table still in view above: dismissed with the
    line to send, or None when closed without one (Escape, an empty line)."""

    DEFAULT_CSS = """
    ChatBox { align: center bottom; background: $background 0%; }
    ChatBox > ChatInput { width: 100%; margin-bottom: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "close chat")]

    def compose(self) -> ComposeResult:
        yield ChatInput()
        yield KeysFooter()

    def on_mount(self) -> None:
        self.set_focus(self.query_one(ChatInput))  # now, not on the next refresh

    def on_key(self, event: events.Key) -> None:
        """A key handed to the box before its input had the focus (``c`` and the line typed in
        one burst, or over a laggy link) is the input's all the same: a character (the input
        takes those it is given itself, so one here was not), or Enter."""
        try:
            chat = self.query_one(ChatInput)
        except NoMatches:
            return
        if event.is_printable and event.character is not None:
            event.stop()
            event.prevent_default()
            chat.insert_text_at_cursor(event.character)
            self.set_focus(chat)
        elif event.key == "enter" and self.focused is not chat:
            event.stop()
            event.prevent_default()
            self._say(chat.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._say(event.value)

    def _say(self, text: str) -> None:
        self.dismiss(text.strip() or None)

    def action_close(self) -> None:
        self.dismiss(None)


FIXED_TIME: list[float] = []
"""A UTC time every new log shows instead of the clock's (screenshots.py: the same picture on
every run); empty in play."""


def _stamp() -> str:
    if FIXED_TIME:
        return time.strftime("%H:%M:%S ", time.gmtime(FIXED_TIME[0]))
    return time.strftime("%H:%M:%S ")


class WrapLog(RichLog):
    """A ``RichLog`` whose lines wrap at words to its width, now and after every resize."""

    def __init__(self, max_lines: int = 500, id: str | None = "log") -> None:
        super().__init__(id=id, wrap=True, markup=False, max_lines=max_lines, min_width=1)
        self.written: deque[Text] = deque(maxlen=max_lines)
        """What was written, to wrap again at a new width."""
        self._wrapped_at = 0

    def add(self, line: Text) -> None:
        """Write one line (kept, to wrap again after a resize)."""
        self.written.append(line)
        self.write(line, scroll_end=False)

    def forget(self) -> None:
        """Clear the log and what it keeps."""
        self.written.clear()
        self.clear()

    def on_resize(self, event: events.Resize) -> None:
        """The lines wrapped again at the new width. (Textual calls each class's handler in
        turn, RichLog's after this one: on the first size it writes what came before.)"""
        width = self.scrollable_content_region.width
        if width and self._size_known and width != self._wrapped_at:
            self._wrapped_at = width
            self.clear()
            for line in self.written:
                self.write(line, scroll_end=False)


class TableLog(WrapLog):
    DEFAULT_CSS = """
    TableLog { height: 1fr; min-height: 3; border: round $primary-darken-2; }
    """

    def __init__(self, max_lines: int = 500) -> None:
        super().__init__(max_lines)
        self.border_title = "Table log"
        self.can_focus = False
        self.stamp: Callable[[], str] = _stamp
        """The time shown before each line."""

        self.following = True
        """False while the person has scrolled up to read (with the mouse wheel)."""

    def append_line(self, text: Text | str, style: str = "") -> None:
        """Add one line (a Rich ``Text`` keeps its colours; a ``str`` takes ``style``). Lines quote
        other peers' names, chat and reasons, so they are never read as markup and unprintables show
        as U+FFFD.
        """
        line = Text(self.stamp(), style="dim")
        line.append_text(plain_text(text) if isinstance(text, Text) else plain(text, style))
        self.add(line)
        self._follow()

    def _follow(self) -> None:
        if self.following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def on_resize(self, event: events.Resize) -> None:
        """(Textual calls every class's handler: WrapLog's wraps the lines again after.)"""
        self._follow()
        self.call_after_refresh(self._follow)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.following = False

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.call_after_refresh(self._back_at_end)

    def _back_at_end(self) -> None:
        if self.scroll_y >= self.max_scroll_y:
            self.following = True


class SizeWarning(Static):
    """Shown while the terminal is smaller than ``min_width`` × ``min_height`` (``check``)."""

    DEFAULT_CSS = """
    SizeWarning { dock: top; height: auto; background: $error; color: $text;
        text-style: bold; padding: 0 1; }
    """

    def __init__(self, what: str, min_width: int, min_height: int) -> None:
        """``what``: the screen, as the banner names it ("the table", "the lobby")."""
        super().__init__("", id="too-small")
        self.what = what
        self.min_width = min_width
        self.min_height = min_height
        self.display = False

    def check(self, width: int, height: int) -> None:
        small = width < self.min_width or height < self.min_height
        self.display = small
        if small:
            self.update(
                f"This terminal is {width}×{height}: {self.what} needs at least "
                f"{self.min_width}×{self.min_height}. Make the window larger (or the font "
                "smaller) to see all of it."
            )


# A table screen that shows what its session tells it in the pacer's time (``game_ui.py``).
#
# Both games' tables of peers take every message of the session into a :class:`Pacer` and show
# them in order, each after the hold the last one asked for; a timer wakes the screen when the next
# may be shown. That machinery is the same for every game, so it lives here once: a game's screen
# says only how one message is shown (:meth:`PacedTableScreen.show`) and, if it keeps something
# on show for the length of a hold, how that ends (:meth:`PacedTableScreen.drained`). The game
# itself is never imported (import-linter's ``tui-through-the-seam`` contract checks it).


log = logging.getLogger(__name__)

MIN_WAKE_S = 0.02
"""The shortest timer the screen arms: a hold that is (nearly) over wakes it on the next tick,
never in a busy loop."""


def ask_coach(screen: Screen[Any], view: Any, show: Callable[[str], None]) -> None:
    """Ask the game's coach (``GameSpec.coach``) about ``view``, this seat's own on its move
    (None: not its move), on a thread of ``screen``: a search takes a moment and the table
    stays live. ``show`` gets the line on the UI thread. One path for every game's screen, at a
    table of peers and offline."""
    if view is None or not getattr(view, "legal", ()):
        show("ask me when it is your move")
        return
    spec = next((s for s in games().values() if isinstance(view, s.view)), None)
    coach = spec.coach if spec is not None else None
    if coach is None:
        show("this game has no coach")
        return

    def work() -> None:
        try:
            _, line = coach(view)
        except Exception as exc:  # advice must never take the table down
            log.exception("the coach failed")
            line = f"no advice: the coach failed ({type(exc).__name__})"
        with contextlib.suppress(RuntimeError):  # the app closed meanwhile
            screen.app.call_from_thread(show, line)

    screen.run_worker(work, thread=True, group="coach", exclusive=True)


class Paced(TypedDict, total=False):
    """The keywords every paced table screen takes (``TableUI.open`` passes both), which a
    game's screen hands on to :class:`PacedTableScreen` as they came."""

    pacing: Pacing
    clock: Callable[[], float]
    prefs: TablePrefs


class PacedTableScreen(GameTableScreen):
    """A game's table of peers over ``session``, shown through a pacer; a subclass shows each
    message (:meth:`show`) and tells a message it could not show (:meth:`display_error`)."""

    BINDINGS: ClassVar[list[BindingType]] = [COACH_KEY]

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

    # ------------------------------------------------------------ the coach
    @property
    def coach_on(self) -> bool:
        return self.session.coach_on

    def ask_coach(self) -> None:
        """The strongest bot's move for the position on show, and why, in the log: worked out
        on a thread (a search takes a moment), from this seat's own view only."""
        snapshot = self.snapshot
        mine = getattr(snapshot, "my_turn", False)
        ask_coach(self, getattr(snapshot, "view", None) if mine else None, self._coach_said)

    def _coach_said(self, line: str) -> None:
        """In the log, and for a moment over whatever prompt is open on the table."""
        self.show_chat({"event": "coach", "text": line})
        if self.app.screen is not self:
            self.app.notify(line, title="coach", timeout=12)

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
