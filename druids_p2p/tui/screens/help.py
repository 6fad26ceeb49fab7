"""The help screen (key ``?``): a game's keys and its rules in brief, as that game's TUI package
gives them (each in its ``tui/<game>/``; the full text is the game's rules doc), and
for a game whose board has signs of its own (Druids 2004's ``@K2``, ``S3:6``, ``♟``) what each
means: the legend, shown the first time too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 92; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
        background: $surface; padding: 0 2;
    }
    HelpScreen .help-title { text-style: bold; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q,enter", "dismiss_help", "close", show=True),
    ]

    def __init__(
        self,
        keys: Sequence[tuple[str, str]],
        rules: Sequence[str],
        game: str,
        rules_doc: str,
        signs: Sequence[tuple[str, str]] = (),
        first_time: bool = False,
    ) -> None:
        """``keys``: (key, what it does) rows; ``rules``: the rules in brief, a line each;
        ``signs``: (sign, what it means) rows of the board's legend, shown first; ``first_time``:
        opened by itself as the table opens (it says so, and any key closes it)."""
        super().__init__()
        self.keys = tuple(keys)
        self.rules = tuple(rules)
        self.game = game
        self.rules_doc = rules_doc
        self.signs = tuple(signs)
        self.first_time = first_time

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            if self.signs:
                title = f"The signs on the board — {self.game}"
                if self.first_time:
                    title += " (shown once, the first time; ? shows it again)"
                yield Static(title, classes="help-title")
                yield Static(_rows(self.signs), id="help-signs")
            yield Static(f"Keys — {self.game}", classes="help-title")
            yield Static(_rows(self.keys), id="help-keys")
            yield Static("The rules in brief", classes="help-title")
            yield Static("\n".join(f"• {line}" for line in self.rules), id="help-rules")
            yield Static(f"escape or ? to close (the full rules: {self.rules_doc})", classes="dim")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)


def _rows(rows: Sequence[tuple[str, str]]) -> Table:
    """Two columns: the key or sign, then what it does or means."""
    table = Table(box=None, padding=(0, 2), show_header=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for key, what in rows:
        table.add_row(key, what)
    return table
