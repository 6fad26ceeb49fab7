"""The table log: one timestamped line per thing that happened, the newest always in view.

A plain ``RichLog`` kept its scroll offset when the panels above it grew (a longer trick, a
warning line): the log got shorter and its newest lines slid out of view below. This one goes
back to its end whenever its size changes and after every line, unless the person scrolled up
with the mouse wheel to read (then it stays there until they scroll back down to the end).

A ``RichLog`` also renders each line once, at 78 columns at least: a narrower log cut its lines
(the words past its edge were off screen) and a resized one kept the old width. A
:class:`WrapLog` wraps each line at words to its own width and wraps them all again when that
width changes (it keeps what it was given, as many lines as it shows).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.widgets import RichLog

from druids_p2p.tui.plain import plain, plain_text

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
        """Add one line (a Rich ``Text`` keeps its colours; a ``str`` takes ``style``).

        Lines quote names, chat and reasons from other peers: never read as markup (the log is
        a ``RichLog`` without markup, a ``str`` becomes a ``Text``), unprintables shown as
        U+FFFD (tui/plain.py)."""
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
