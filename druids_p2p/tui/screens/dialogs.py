"""The dialogs of every game's UI: how a dialog looks (:func:`dialog_css`), leaving a table, and in
the lobby joining a host not pinned and (hosting) seating a joiner. A game's own prompts and
summaries are in its TUI package (``tui/<game>/``)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from druids_p2p.tui.widgets import plain

_DIALOG_CSS = """
{name} {{ align: center middle; background: $background 40%; }}
{name} > Vertical {{
    width: 76; height: auto; border: thick $primary; background: $surface; padding: 1 2;
}}
{name} .title {{ text-style: bold; margin-bottom: 1; }}
{name} Horizontal {{ height: auto; margin-top: 1; }}
{name} Button {{ margin-right: 1; min-width: 10; }}
"""


APP_KEYS: tuple[Binding, ...] = (
    Binding("question_mark", "app.help", "help"),
    Binding("q", "app.request_quit", "quit"),
)
"""A modal screen hides the app's own bindings: these keys work over every prompt too."""


BOTTOM_CSS = """
{name} {{ align: center bottom; background: $background 0%; }}
{name} > Vertical {{ width: 96; padding: 0 2; margin-bottom: 1; }}
{name} .title {{ margin-bottom: 0; }}
{name} Horizontal {{ margin-top: 0; }}
"""
"""A prompt about your hand sits at the bottom, over the log: the hand above stays in view."""


def dialog_css(name: str, extra: str = "") -> str:
    """A dialog's CSS: centred in a bordered box, as every dialog of the UI looks."""
    return _DIALOG_CSS.format(name=name) + extra


class ConfirmQuit(ModalScreen[bool]):
    DEFAULT_CSS = dialog_css(
        "ConfirmQuit",
        "ConfirmQuit > Vertical { max-width: 100%; padding: 1 1; }\n"
        "ConfirmQuit #quit-record { width: 100%; text-wrap: wrap; text-overflow: fold;"
        " text-style: bold; }",
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "yes, leave"),
        Binding("n,escape", "answer(False)", "no, stay"),
    ]

    def __init__(self, record: str | None) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-quit"):
            yield Static("Leave the table?", classes="title")
            yield Static(
                "The game is not over: the other players cannot finish it without you. "
                "Your record so far is kept:"
            )
            yield Static(self.record or "(not started yet)", id="quit-record", markup=False)
            with Horizontal():
                yield Button("Yes, leave (y)", id="yes", variant="error")
                yield Button("No, stay (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        """The path on one line where the terminal is wide enough (it is copied from here),
        else folded: every character shown, never cut at the terminal's edge."""
        for box in self.query("#confirm-quit"):
            box.styles.width = max(76, len(self.record or "") + 4)
        for button in self.query("#no"):
            button.focus()

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class _YesNo(ModalScreen[bool]):
    """A question about a key: its lines, then y (yes) or n / escape (no, the default focus).

    The lines quote names another peer chose: shown as plain text, so none is a link or a style
    (a name ``[@click=screen.answer(True)]B`` would otherwise answer yes when clicked)."""

    DEFAULT_CSS = dialog_css("_YesNo", "_YesNo .fingerprint { text-style: bold; color: $warning; }")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]
    heading = ""
    yes_label = "Yes (y)"
    no_label = "No (n)"

    def __init__(self, lines: list[str], fingerprint: str, warning: str | None = None) -> None:
        super().__init__()
        self.lines = lines
        self.fingerprint = fingerprint
        self.warning = warning

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.heading, classes="title")
            for line in self.lines:  # names and table names from the wire: never markup
                yield Static(plain(line))
            yield Static(f"fingerprint {self.fingerprint}", classes="fingerprint", id="fingerprint")
            if self.warning:
                yield Static(plain(self.warning), classes="fingerprint", id="warning")
            with Horizontal():
                yield Button(self.yes_label, id="yes", variant="success")
                yield Button(self.no_label, id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class ConfirmJoin(_YesNo):
    """Joining a table whose host was not pinned: is this the host you mean?"""

    DEFAULT_CSS = dialog_css("ConfirmJoin", "ConfirmJoin .fingerprint { text-style: bold; }")
    heading = "Join this table?"
    yes_label = "Yes, join (y)"


class ApproveJoin(_YesNo):
    """Hosting: someone asks for a seat. Only the fingerprint tells a friend from an impostor."""

    DEFAULT_CSS = dialog_css("ApproveJoin", "ApproveJoin .fingerprint { text-style: bold; }")
    heading = "Someone wants to join your table"
    yes_label = "Seat them (y)"
    no_label = "Refuse (n)"


class GoOnPrompt(ModalScreen[bool]):
    """A seat is gone for good: go on without it, a bot in its seat, the scores carried?"""

    DEFAULT_CSS = dialog_css("GoOnPrompt")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "go on"),
        Binding("n,escape", "answer(False)", "stop here"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Go on with a bot?", classes="title")
            yield Static(plain(self.question), id="go-on-question")  # it names a player
            with Horizontal():
                yield Button("Yes, go on (y)", id="yes", variant="success")
                yield Button("No, stop here (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


__all__ = [
    "APP_KEYS",
    "BOTTOM_CSS",
    "ApproveJoin",
    "ConfirmJoin",
    "ConfirmQuit",
    "GoOnPrompt",
    "dialog_css",
]
