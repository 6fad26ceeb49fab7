"""The question asked when a table was left unfinished: rejoin it, start a new one, or quit.

What is found, and what rejoining means, is :mod:`druids_p2p.tui.resume`'s; this is only the
dialog, beside the other dialogs it shares its look with.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from druids_p2p.tui.resume import SavedGame
from druids_p2p.tui.screens.dialogs import dialog_css
from druids_p2p.tui.widgets import plain


class ResumeTable(ModalScreen[str | None]):
    """Rejoin the unfinished table (r), start a new one beside it (n), or quit (q/escape)."""

    DEFAULT_CSS = dialog_css("ResumeTable")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "answer('resume')", "rejoin it"),
        Binding("n", "answer('new')", "new table"),
        Binding("q,escape", "answer('quit')", "quit"),
    ]

    def __init__(self, saved: SavedGame) -> None:
        super().__init__()
        self.saved = saved

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("An unfinished table is saved", classes="title")
            for line in self.saved.lines():  # the table's name, as announced: never markup
                yield Static(plain(line))
            with Horizontal():
                yield Button("Rejoin it (r)", id="resume", variant="success")
                yield Button("New table (n)", id="new", variant="primary")
                yield Button("Quit (q)", id="quit")

    def on_mount(self) -> None:
        self.query_one("#resume", Button).focus()

    def action_answer(self, choice: str) -> None:
        self.dismiss(choice)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id)
