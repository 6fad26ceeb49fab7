"""The table log: one timestamped line per thing that happened, the newest always in view.

A plain ``RichLog`` kept its scroll offset when the panels above it grew (a longer trick, a
warning line): the log got shorter and its newest lines slid out of view below. This one goes
back to its end whenever its size changes and after every line, unless the person scrolled up
with the mouse wheel to read (then it stays there until they scroll back down to the end).
"""

from __future__ import annotations

import time
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


class TableLog(RichLog):
    DEFAULT_CSS = """
    TableLog { height: 1fr; min-height: 3; border: round $primary-darken-2; }
    """

    def __init__(self, max_lines: int = 500) -> None:
        super().__init__(id="log", wrap=True, markup=False, max_lines=max_lines)
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
        self.write(line, scroll_end=False)
        self._follow()

    def _follow(self) -> None:
        if self.following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def on_resize(self, event: events.Resize) -> None:
        self._follow()
        self.call_after_refresh(self._follow)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.following = False

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.call_after_refresh(self._back_at_end)

    def _back_at_end(self) -> None:
        if self.scroll_y >= self.max_scroll_y:
            self.following = True
