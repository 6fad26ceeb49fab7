"""The help screen (key ``?``): every key of the table and the lobby."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str], ...] = (
    ("← →", "previous / next card in your hand"),
    ("↑ ↓", "card in the domain row above / below"),
    ("tab / shift+tab", "move the focus (cards, buttons, fields)"),
    ("g y r b v s", "jump to your green, yellow, red, blue, violet or special cards"),
    ("enter / space", "play the focused card (Gaia: name a domain first)"),
    ("mouse click", "play a card, press a button"),
    ("1-5", "in the Gaia prompt: name green, yellow, red, blue or violet"),
    ("l / d", "in the Gaia prompt (variant tables): light or dark side"),
    ("1-5", "in the Sickle prompt: the tied pile to remove"),
    ("p", "open the Gaia or Sickle prompt again"),
    ("escape", "close a prompt, this help or a summary"),
    ("?", "this help"),
    ("q / ctrl+q", "quit (asks first while a game is on; the record is kept)"),
    ("lobby: enter / j", "join the selected table (bringing the bots chosen below it)"),
    ("lobby: h", "host a new table with the settings below the list"),
)


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 84; height: auto; border: thick $primary; background: $surface; padding: 1 2;
    }
    HelpScreen #help-title { text-style: bold; margin-bottom: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q,enter", "dismiss_help", "close", show=True),
    ]

    def compose(self) -> ComposeResult:
        table = Table(box=None, padding=(0, 2), show_header=False)
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, what in KEYS:
            table.add_row(key, what)
        with Vertical():
            yield Static("Keys — Druids", id="help-title")
            yield Static(table, id="help-keys")
            yield Static("escape or ? to close", classes="dim")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
