"""Prompts and summaries shown over the table: Gaia's domain, the Sickle's pile, the end of a
round, the end of the game, a stopped table, leaving; and in the lobby, joining a host not pinned
and (hosting) seating a joiner."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    DOMAINS,
    GAIA_DARK,
    GAIA_LIGHT,
    PILE,
)
from druids_p2p.games.druids2017.rules import ENDED_FIVE_DOMAINS
from druids_p2p.tui.cards import DOMAIN_COLOURS, card_text
from druids_p2p.tui.names import name_text, who
from druids_p2p.tui.snapshot import TableSnapshot
from druids_p2p.tui.widgets.piles import score_text
from druids_p2p.tui.widgets.scores import scores_table

_DIALOG_CSS = """
{name} {{ align: center middle; background: $background 40%; }}
{name} > Vertical {{
    width: 76; height: auto; border: thick $primary; background: $surface; padding: 1 2;
}}
{name} .title {{ text-style: bold; margin-bottom: 1; }}
{name} Horizontal {{ height: auto; margin-top: 1; }}
{name} Button {{ margin-right: 1; min-width: 10; }}
"""


_APP_KEYS: tuple[Binding, ...] = (
    Binding("question_mark", "app.help", "help"),
    Binding("q", "app.request_quit", "quit"),
)
"""A modal screen hides the app's own bindings: these keys work over every prompt too."""


_BOTTOM_CSS = """
{name} {{ align: center bottom; background: $background 0%; }}
{name} > Vertical {{ width: 96; padding: 0 2; margin-bottom: 1; }}
{name} .title {{ margin-bottom: 0; }}
{name} Horizontal {{ margin-top: 0; }}
"""
"""A prompt about your hand sits at the bottom, over the log: the hand above stays in view."""


def dialog_css(name: str, extra: str = "") -> str:
    """A dialog's CSS: centred in a bordered box, as every dialog of the UI looks."""
    return _DIALOG_CSS.format(name=name) + extra


class GaiaPrompt(ModalScreen[int | None]):
    """You lead Gaia: name the domain it counts as (and, with the variant, the side)."""

    DEFAULT_CSS = dialog_css(
        "GaiaPrompt",
        _BOTTOM_CSS.format(name="GaiaPrompt")
        + "".join(
            f"GaiaPrompt #gaia-{d} {{ background: {c}; color: #101010; }}\n"
            for d, c in zip(DOMAINS, DOMAIN_COLOURS, strict=True)
        ),
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(i + 1), f"name({i})", show=False) for i in range(5)),
        Binding("l", "side(True)", "light side", show=False),
        Binding("d", "side(False)", "dark side", show=False),
        Binding("escape", "cancel", "back to the table"),
        *_APP_KEYS,
    ]

    def __init__(self, variant: bool) -> None:
        super().__init__()
        self.variant = variant
        self.light = False

    def compose(self) -> ComposeResult:
        with Vertical(id="gaia-box"):
            yield Static("You hold Gaia and lead it: name a domain (1-5)", classes="title")
            yield Static(
                "Gaia counts as a 0 of that domain: it wins only if nobody follows.",
                classes="dim",
            )
            with Horizontal():
                for i, d in enumerate(DOMAINS):
                    yield Button(f"{i + 1} {COLOUR_NAMES[i]}", id=f"gaia-{d}", compact=True)
            if self.variant:
                yield Static(self._side_text(), id="side")
                with Horizontal():
                    yield Button("d dark side", id="side-dark", compact=True)
                    yield Button("l light side", id="side-light", compact=True)

    def _side_text(self) -> str:
        if self.light:
            return "Side: LIGHT — the highest card of each domain ends on top of the piles"
        return "Side: DARK — the lowest card of each domain ends on top of the piles"

    def on_mount(self) -> None:
        self.query_one("#gaia-G", Button).focus()

    def action_name(self, domain: int) -> None:
        self.dismiss((GAIA_LIGHT if self.light else GAIA_DARK) + domain)

    def action_side(self, light: bool) -> None:
        if not self.variant:
            return
        self.light = light
        self.query_one("#side", Static).update(self._side_text())

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        bid = event.button.id or ""
        if bid.startswith("gaia-"):
            self.action_name(DOMAINS.index(bid[5]))
        elif bid == "side-light":
            self.action_side(True)
        elif bid == "side-dark":
            self.action_side(False)


class PilePrompt(ModalScreen[int | None]):
    """Your Sickle removes one of your tied highest piles: which one."""

    DEFAULT_CSS = dialog_css("PilePrompt", _BOTTOM_CSS.format(name="PilePrompt"))
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(i + 1), f"pick({i})", show=False) for i in range(5)),
        Binding("escape", "cancel", "back to the table"),
        *_APP_KEYS,
    ]

    def __init__(self, snapshot: TableSnapshot) -> None:
        super().__init__()
        view = snapshot.view
        assert view is not None
        self.choices = view.pending_pile_choice
        self.tops = view.pile_tops[view.seat]
        self.sizes = view.pile_sizes[view.seat]

    def compose(self) -> ComposeResult:
        with Vertical(id="pile-box"):
            yield Static(
                "Your trick held a Sickle and your highest piles tie: which pile goes?",
                classes="title",
            )
            with Horizontal():
                for i, d in enumerate(self.choices):
                    top = self.tops[d]
                    label = Text(f"{i + 1} Pile:{DOMAINS[d]} — top ")
                    label.append_text(card_text(top))
                    label.append(f", {self.sizes[d]} cards")
                    yield Button(label, id=f"pile-{DOMAINS[d]}", compact=True)

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def action_pick(self, index: int) -> None:
        if index < len(self.choices):
            self.dismiss(PILE + self.choices[index])

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        bid = event.button.id or ""
        if bid.startswith("pile-"):
            self.dismiss(PILE + DOMAINS.index(bid[5]))


def round_summary(snapshot: TableSnapshot, scores: list[int], ended_by: str | None) -> Group:
    """What happened in the round: how it ended, each player's piles, score and total."""
    view = snapshot.view
    lines: list[Table | Text] = []
    if ended_by == ENDED_FIVE_DOMAINS:
        seat = view.tricks[-1][2] if view is not None and view.tricks else None
        who_ = who(snapshot, seat)
        took = who_.capitalize() if who_ == "you" else who_
        lines.append(Text(f"{took} took a fifth domain: the round ends at once, −3 for {who_}."))
    else:
        tricks = len(view.tricks) if view is not None else 0
        lines.append(Text(f"Every card was played ({tricks} tricks)."))
    table = Table(box=None, padding=(0, 1), header_style="bold", expand=True)
    table.add_column("player", no_wrap=True)
    for d, colour in zip(DOMAINS, DOMAIN_COLOURS, strict=True):
        table.add_column(Text(d, style=f"bold {colour}"))
    table.add_column("round", justify="right")
    table.add_column("total", justify="right")
    for seat in range(len(snapshot.names)):
        name = name_text(snapshot, seat, you=False)
        if seat == snapshot.my_seat:
            name.append(" (you)", style="dim")
        cells: list[Text | str] = [name]
        if view is not None:
            tops = view.pile_tops[seat]
            sizes = view.pile_sizes[seat]
            cells += [card_text(t, s) for t, s in zip(tops, sizes, strict=True)]
        else:
            cells += ["" for _ in DOMAINS]
        score = scores[seat] if seat < len(scores) else 0
        cells.append(Text(score_text(score), style="bold"))
        cells.append(score_text(snapshot.totals[seat]) if seat < len(snapshot.totals) else "")
        table.add_row(*cells)
    lines.append(table)
    return Group(*lines)


class RoundSummary(ModalScreen[None]):
    DEFAULT_CSS = dialog_css("RoundSummary", "RoundSummary > Vertical { width: 96; }")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,space", "close", "continue"),
        *_APP_KEYS,
    ]

    def __init__(self, snapshot: TableSnapshot, scores: list[int], ended_by: str | None) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.scores = scores
        self.ended_by = ended_by

    def compose(self) -> ComposeResult:
        view = self.snapshot.view
        r = (view.round_index + 1) if view is not None else len(self.snapshot.round_scores)
        with Vertical(id="round-summary"):
            yield Static(f"Round {r} of {self.snapshot.rounds} is over", classes="title")
            yield Static(round_summary(self.snapshot, self.scores, self.ended_by))
            with Horizontal():
                yield Button("Continue (enter)", id="continue", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#continue", Button).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)


class GameOver(ModalScreen[bool]):
    """The final table (or why the table stopped) and where the game record is."""

    DEFAULT_CSS = dialog_css(
        "GameOver",
        "GameOver > Vertical { width: 96; max-width: 100%; padding: 1 1; }\n"
        "GameOver .stopped { color: $error; text-style: bold; }\n"
        "GameOver #record-path { width: auto; text-wrap: nowrap; text-style: bold; }",
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "leave", "quit"),
        Binding("escape", "stay", "look at the table"),
        Binding("question_mark", "app.help", "help"),
    ]

    def __init__(
        self,
        snapshot: TableSnapshot | None,
        record: str | None,
        stopped: str | None = None,
        winners: tuple[int, ...] = (),
    ) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.record = record
        self.stopped = stopped
        self.winners = winners

    def compose(self) -> ComposeResult:
        snap = self.snapshot
        with Vertical(id="game-over"):
            if self.stopped is not None:
                yield Static("The table stopped", classes="title")
                yield Static(self.stopped, classes="stopped")
            else:
                names = [snap.name(s) for s in self.winners] if snap is not None else []
                me = snap.my_seat if snap is not None else None
                if me is not None and me in self.winners:
                    head = "You win!" if len(self.winners) == 1 else "You share the win!"
                else:
                    head = (
                        f"Winner: {', '.join(names)}"
                        if len(names) == 1
                        else (f"Winners (tie): {', '.join(names)}")
                    )
                yield Static(f"Game over — {head}", classes="title")
            yield Static(scores_table(snap, self.winners))
            yield Static("\nGame record (check it any time with: druids audit RECORD):")
            yield Static(self.record or "(none)", id="record-path", markup=False)
            with Horizontal():
                yield Button("Quit (q)", id="leave", variant="primary")
                yield Button("Look at the table (escape)", id="stay")

    def on_mount(self) -> None:
        # The record's path is copied from here: the box widens so it never wraps mid-hash.
        width = max(96, len(self.record or "") + 4)
        for box in self.query("#game-over"):
            box.styles.width = width
        for button in self.query("#leave"):  # query, not query_one: never raise over a close
            button.focus()

    def action_leave(self) -> None:
        self.dismiss(True)

    def action_stay(self) -> None:
        self.dismiss(False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "leave")


class ConfirmQuit(ModalScreen[bool]):
    DEFAULT_CSS = dialog_css(
        "ConfirmQuit",
        "ConfirmQuit > Vertical { max-width: 100%; padding: 1 1; }\n"
        "ConfirmQuit #quit-record { width: auto; text-wrap: nowrap; text-style: bold; }",
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
        for box in self.query("#confirm-quit"):  # the path on one line: it is copied from here
            box.styles.width = max(76, len(self.record or "") + 4)
        for button in self.query("#no"):
            button.focus()

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class _YesNo(ModalScreen[bool]):
    """A question about a key: its lines, then y (yes) or n / escape (no, the default focus)."""

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
            for line in self.lines:
                yield Static(line)
            yield Static(f"fingerprint {self.fingerprint}", classes="fingerprint", id="fingerprint")
            if self.warning:
                yield Static(self.warning, classes="fingerprint", id="warning")
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


__all__ = [
    "ApproveJoin",
    "ConfirmJoin",
    "ConfirmQuit",
    "GaiaPrompt",
    "GameOver",
    "PilePrompt",
    "RoundSummary",
]
