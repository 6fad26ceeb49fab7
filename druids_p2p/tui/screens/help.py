"""The help screen (key ``?``): a game's keys and its rules in brief, as that game's TUI package
gives them (Druids 2017's: ``tui/druids2017/help.py``; the full text is the game's rules doc)."""

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
        width: 92; height: auto; max-height: 100%; border: thick $primary;
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
    ) -> None:
        """``keys``: (key, what it does) rows; ``rules``: the rules in brief, a line each."""
        super().__init__()
        self.keys = tuple(keys)
        self.rules = tuple(rules)
        self.game = game
        self.rules_doc = rules_doc

    def compose(self) -> ComposeResult:
        table = Table(box=None, padding=(0, 2), show_header=False)
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, what in self.keys:
            table.add_row(key, what)
        with VerticalScroll():
            yield Static(f"Keys — {self.game}", classes="help-title")
            yield Static(table, id="help-keys")
            yield Static("The rules in brief", classes="help-title")
            yield Static("\n".join(f"• {line}" for line in self.rules), id="help-rules")
            yield Static(f"escape or ? to close (the full rules: {self.rules_doc})", classes="dim")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
