"""The dialogs every game's UI shares (leaving, the help, rejoining a table left unfinished, a
joiner to seat, going on without a departed seat); a game's own prompts are in ``tui/<game>/``."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from druids_p2p.lan.seating import JoinRequest
from druids_p2p.peer.go_on import ASK_S
from druids_p2p.peer.session import ASK_S as REMATCH_ASK_S
from druids_p2p.tui.bots import SavedGame
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
    "ANSWER_S",
    "APP_KEYS",
    "BOTTOM_CSS",
    "ApproveJoin",
    "ConfirmJoin",
    "ConfirmQuit",
    "GoOnBridge",
    "GoOnPrompt",
    "GoOnQuestion",
    "RematchBridge",
    "dialog_css",
]


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


APPROVAL_TIMEOUT_S = 120.0
"""A joiner waits at most this long for the host's answer (the lobby waits with it)."""


class JoinApproval(Message):
    """Someone asks for a seat at the table this UI hosts: ``answer(True)`` seats them."""

    def __init__(self, request: JoinRequest, answer: Callable[[bool | None], None]) -> None:
        super().__init__()
        self.request = request
        self.answer = answer


class AskBridge:
    """A question a peer's thread asks the UI thread and blocks on: the message ``make(answer)``
    is posted, the first answer counts (True only for a yes), and no answer within
    ``timeout_s``, or the session closing, is no."""

    def __init__(self, post: Callable[[Message], object], timeout_s: float) -> None:
        self.post = post
        self.timeout_s = timeout_s
        self._closed = threading.Event()

    def ask(self, make: Callable[[Callable[[bool | None], None]], Message]) -> bool:
        if self._closed.is_set():
            return False
        answered = threading.Event()
        answers: list[bool] = []

        def answer(yes: bool | None) -> None:
            if not answered.is_set():
                answers.append(yes is True)
                answered.set()

        self.post(make(answer))
        step = 0.2
        for _ in range(int(self.timeout_s / step) + 1):  # bounded; wakes up to notice close()
            if answered.wait(step) or self._closed.is_set():
                break
        return bool(answers) and answers[0]

    def close(self) -> None:
        """No to the question waiting and every later one (the person left)."""
        self._closed.set()


class ApprovalBridge(AskBridge):
    """The lobby's approver (``PeerConfig.approve_join``) for a UI host."""

    def __init__(
        self,
        post: Callable[[Message], object],
        own_keys: Iterable[bytes] = (),
        timeout_s: float = APPROVAL_TIMEOUT_S,
    ) -> None:
        super().__init__(post, timeout_s)
        self.own_keys = frozenset(own_keys)

    def __call__(self, request: JoinRequest) -> bool:
        if request.key in self.own_keys:
            return True
        return self.ask(lambda answer: JoinApproval(request, answer))


ANSWER_S = ASK_S - 5.0
"""The person's time to answer: within the peer's, so a late yes never finds the others gone."""


class GoOnQuestion(Message):
    """A seat is gone for good: ``answer(True)`` goes on with a bot in its seat."""

    def __init__(self, offer: dict[str, Any], answer: Callable[[bool | None], None]) -> None:
        super().__init__()
        self.offer = offer
        self.answer = answer


class GoOnBridge(AskBridge):
    """``PeerConfig.go_on_ask`` for the UI's seat."""

    def __init__(self, post: Callable[[Message], object], timeout_s: float = ANSWER_S) -> None:
        super().__init__(post, timeout_s)

    def __call__(self, offer: dict[str, Any]) -> bool:
        return self.ask(lambda answer: GoOnQuestion(dict(offer), answer))


class RematchBridge:
    """``PeerConfig.rematch_ask`` for the UI's seat at a LAN table: yes once the person pressed
    ``r`` on the end screen (before or while the peer asks), no when the session closes or
    nobody pressed it within ``rematch.ASK_S``."""

    def __init__(self, timeout_s: float = REMATCH_ASK_S) -> None:
        self.timeout_s = timeout_s
        self._wanted = threading.Event()
        self._closed = threading.Event()

    def want(self) -> None:
        """The person pressed ``r``."""
        self._wanted.set()

    def __call__(self, offer: dict[str, Any]) -> bool:
        step = 0.2
        for _ in range(int(self.timeout_s / step) + 1):  # bounded; wakes up to notice close()
            if self._closed.is_set():
                return False
            if self._wanted.wait(step):
                self._wanted.clear()  # one key press, one rematch
                return not self._closed.is_set()
        return False

    def close(self) -> None:
        self._closed.set()
