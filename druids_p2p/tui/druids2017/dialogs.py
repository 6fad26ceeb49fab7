"""Druids (2017)'s prompts and summaries over the table (Gaia's domain, the Sickle's pile, a
round's and the game's end) and its help: every key and the rules in brief."""

from __future__ import annotations

from collections.abc import Sequence
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
from druids_p2p.tui.dialogs import APP_KEYS, BOTTOM_CSS, HelpScreen, dialog_css
from druids_p2p.tui.druids2017.cards import DOMAIN_COLOURS, card_text
from druids_p2p.tui.druids2017.panels import score_text, scores_table
from druids_p2p.tui.druids2017.snapshot import TableSnapshot
from druids_p2p.tui.widgets import CHAT_KEY, COACH_KEY, name_text, plain, who

KEYS: tuple[tuple[str, str], ...] = (
    ("← →", "previous / next card in your hand"),
    ("↑ ↓", "card in the domain row above / below"),
    ("tab / shift+tab", "move the focus (cards, buttons, fields)"),
    ("g y r b v s", "jump to your green, yellow, red, blue, violet or special cards"),
    (
        "enter / space",
        "play the focused card (Gaia: name a domain first); with --confirm-plays "
        "the first press marks it, a second plays it, any other key cancels",
    ),
    ("mouse click", "play a card, press a button"),
    ("1-5", "in the Gaia prompt: name green, yellow, red, blue or violet"),
    ("l / d", "in the Gaia prompt (variant tables): light or dark side"),
    ("1-5", "in the Sickle prompt: the tied pile to remove"),
    ("p", "open the Gaia or Sickle prompt again"),
    ("t", "every trick of this round: who played what, who took it"),
    (
        "a",
        "at a table of you and your bots (the coach on): what the strongest bot would play "
        "here, and why",
    ),
    (
        "c",
        "chat, also over a prompt or summary: every key is the line's until enter says it "
        "or escape closes the box",
    ),
    (
        "any key",
        "while a finished trick is held on the table: go on at once (that key does nothing else)",
    ),
    ("escape", "close a prompt, this help or a summary"),
    ("?", "this help"),
    ("q / ctrl+q / ctrl+c", "quit (asks first while a game is on; the record is kept)"),
    ("end screen: r", "rematch: the same players and options at a new table (running scores)"),
    ("lobby: enter / j", "join the selected table (bringing the bots chosen below it)"),
    ("lobby: h", "host a new table with the settings below the list"),
)


RULES: tuple[str, ...] = (
    "A round: each player plays one card per trick; the trick's winner leads the next.",
    "The Gaia holder leads Gaia first and names a domain: Gaia is a 0 of it.",
    "You must follow the led domain if you can — Mistletoe and Sickle may always be played.",
    "The highest card of the led domain takes the trick; off-domain cards never win.",
    "The taker stacks each domain's cards on its pile of that domain (the lowest on top).",
    "Take piles of all five domains and the round ends at once: −3 for you this round.",
    "A Golden Sickle in a trick removes the taker's pile with the highest top card.",
    "A round also ends when the hands are empty: you score the sum of your pile tops.",
    "Five rounds make a game; the highest total wins (a tie shares the win).",
)


def help_screen() -> HelpScreen:
    """The help shown over the lobby and the Druids (2017) table."""
    return HelpScreen(KEYS, RULES, "Druids", "docs/rules.md")


class GaiaPrompt(ModalScreen[int | None]):
    """You lead Gaia: name the domain it counts as (and, with the variant, the side)."""

    DEFAULT_CSS = dialog_css(
        "GaiaPrompt",
        BOTTOM_CSS.format(name="GaiaPrompt")
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
        CHAT_KEY,
        COACH_KEY,
        *APP_KEYS,
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

    DEFAULT_CSS = dialog_css("PilePrompt", BOTTOM_CSS.format(name="PilePrompt"))
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(i + 1), f"pick({i})", show=False) for i in range(5)),
        Binding("escape", "cancel", "back to the table"),
        CHAT_KEY,
        COACH_KEY,
        *APP_KEYS,
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
        CHAT_KEY,
        *APP_KEYS,
    ]

    def __init__(self, snapshot: TableSnapshot, scores: list[int], ended_by: str | None) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.scores = scores
        self.ended_by = ended_by

    def compose(self) -> ComposeResult:
        view = self.snapshot.view
        r = self.snapshot.round_number if view is not None else len(self.snapshot.round_scores)
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
        Binding("r", "rematch", "rematch"),
        Binding("escape", "stay", "look at the table"),
        CHAT_KEY,
        Binding("question_mark", "app.help", "help"),
    ]

    def __init__(
        self,
        snapshot: TableSnapshot | None,
        record: str | None,
        stopped: str | None = None,
        winners: tuple[int, ...] = (),
        evening: Sequence[str] = (),
        rematch: bool = False,
    ) -> None:
        """``evening``: the running scores over this session's games (tui/game_ui.py);
        ``rematch``: the app can seat the same players again (key ``r``)."""
        super().__init__()
        self.snapshot = snapshot
        self.record = record
        self.stopped = stopped
        self.winners = winners
        self.evening = tuple(evening)
        self.rematch = rematch

    def compose(self) -> ComposeResult:
        snap = self.snapshot
        with Vertical(id="game-over"):
            if self.stopped is not None:
                yield Static("The table stopped", classes="title")
                yield Static(plain(self.stopped), classes="stopped")  # a peer's reason
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
                yield Static(plain(f"Game over — {head}"), classes="title")
            yield Static(scores_table(snap, self.winners))
            if len(self.evening) > 1:
                yield Static(plain("\n" + "\n".join(self.evening)), id="evening")  # names
            yield Static("\nGame record (check it any time with: druids audit RECORD):")
            yield Static(self.record or "(none)", id="record-path", markup=False)
            with Horizontal():
                if self.rematch:
                    yield Button("Rematch (r)", id="rematch", variant="success")
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

    def action_rematch(self) -> None:
        """The same players, the same options, a new table (the app's rematch)."""
        rematch = getattr(self.app, "action_rematch", None)
        if self.rematch and callable(rematch):
            rematch()
        else:
            self.app.bell()

    def action_stay(self) -> None:
        self.dismiss(False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "rematch":
            self.action_rematch()
            return
        self.dismiss(event.button.id == "leave")
