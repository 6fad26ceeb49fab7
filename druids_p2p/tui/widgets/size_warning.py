"""A banner over a screen that does not fit the terminal: how large the terminal is and how large
it must be, instead of widgets cut off without a word (the table screens and the lobby)."""

from __future__ import annotations

from textual.widgets import Static


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
