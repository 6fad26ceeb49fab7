"""Every trick of the round so far (key ``t``): who led, who played what, who took it, and what
a Sickle removed. Read from this seat's view, so it shows only what was played in the open."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from druids_p2p.games.druids2017.cards import COLOUR_NAMES
from druids_p2p.tui.druids2017.cards import domain_text
from druids_p2p.tui.druids2017.snapshot import TableSnapshot
from druids_p2p.tui.druids2017.trick import led_domain, plays_text
from druids_p2p.tui.widgets import name_text


def trick_history(snapshot: TableSnapshot | None) -> Table | Text:
    """One row per completed trick of the round: number, led domain, plays, taker, Sickle."""
    view = snapshot.view if snapshot is not None else None
    if snapshot is None or view is None or not view.tricks:
        return Text("No trick has been completed in this round yet.", style="dim")
    table = Table(box=None, padding=(0, 1), header_style="bold", expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("led", no_wrap=True)
    table.add_column("cards, in the order played")
    table.add_column("taken by", no_wrap=True)
    for number, (_, plays, winner, removed) in enumerate(view.tricks, start=1):
        cards = plays_text(snapshot, plays)
        if removed:
            gone = ", ".join(COLOUR_NAMES[d] for d in removed)
            cards.append(f" (Sickle: the {gone} pile removed)", style="italic")
        led = led_domain(plays)
        table.add_row(
            str(number),
            domain_text(led) if led >= 0 else Text("—", style="dim"),
            cards,
            name_text(snapshot, winner),
        )
    return table


class TrickHistory(ModalScreen[None]):
    DEFAULT_CSS = """
    TrickHistory { align: center middle; background: $background 40%; }
    TrickHistory > VerticalScroll {
        width: 110; max-width: 100%; height: auto; max-height: 100%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    TrickHistory .title { text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,t,enter,space", "close", "back to the table"),
        Binding("question_mark", "app.help", "help"),
        Binding("q", "app.request_quit", "quit"),
    ]

    def __init__(self, snapshot: TableSnapshot | None) -> None:
        super().__init__()
        self.snapshot = snapshot

    def compose(self) -> ComposeResult:
        view = self.snapshot.view if self.snapshot is not None else None
        snap = self.snapshot
        rnd = f"round {snap.round_number}" if view is not None and snap else "this round"
        with VerticalScroll():
            yield Static(f"Tricks of {rnd}", classes="title")
            yield Static(trick_history(self.snapshot), id="trick-list")
            yield Static("escape or t: back to the table", classes="dim")

    def action_close(self) -> None:
        self.dismiss(None)
