"""The Druids (2004) table as one seat sees it: the place row, the hand and the score column.

Everything here is drawn from that seat's :class:`~druids_p2p.games.druids2004.view.SeatView`, so
a card the seat may not see cannot be drawn: the view holds it as ``HIDDEN``. A hidden card is a
back in its owner's colour (the backs of gems and servants differ, and a servant's back names its
owner, so both are public); the seat's own cards on the places are shown face up.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from druids_p2p.games.druids2004.cards import (
    KIND_NAMES,
    ROW_SLOTS,
    format_card,
    gem_kind,
    is_gem,
    is_servant,
    place_kind,
    servant_owner,
)
from druids_p2p.games.druids2004.view import HIDDEN, PlaceView, SeatView
from druids_p2p.tui.widgets import seat_colour

KIND_STYLES = ("bold grey62", "bold bright_white", "bold red", "bold dodger_blue1", "bold green3",
               "bold yellow")  # fmt: skip
"""Gem and place kinds K W R B G Y (the labels of docs/rules-2004.md, not the printed colours)."""

GEM_BACK = "▆"
SERVANT_BACK = "♟"
RITUAL_MARK = "★"
TURN_MARK = "▶"


def card_text(card: int) -> Text:
    """A face-up card: a gem or place in its kind's style, a servant in its owner's colour."""
    token = format_card(card)
    if is_gem(card):
        return Text(token, style=KIND_STYLES[gem_kind(card)])
    if is_servant(card):
        return Text(token, style=f"bold {seat_colour(servant_owner(card))}")
    return Text(token, style=KIND_STYLES[place_kind(card)])


def ritual_ready(place: PlaceView | None) -> bool:
    """A ritual may be announced on it (at least 3 cards, one a servant): the rule, not whose
    turn it is, so that every seat sees the same marks."""
    return place is not None and place.size >= 3 and bool(place.servants)


def _pile(items: Sequence[tuple[int, int]], back: str) -> Text:
    out = Text()
    for owner, card in items:
        if out:
            out.append(" ")
        if card == HIDDEN:
            out.append(back, style=seat_colour(owner))
        else:
            out.append_text(card_text(card))
    return out


def place_cell(slot: int, place: PlaceView | None) -> RenderableType:
    """One column of the row: number, place and kind, the gem pile above, the servants below."""
    if place is None:
        return Text(f"{slot + 1}\n(no place)", style="dim")
    head = Text(f"{slot + 1} ", style="bold")
    head.append_text(card_text(place.place))
    head.append(
        f" {KIND_NAMES[place_kind(place.place)]}", style=KIND_STYLES[place_kind(place.place)]
    )
    if ritual_ready(place):
        head.append(f" {RITUAL_MARK}", style="bold magenta")
    gems = Text(f"gems {len(place.gems)}: ", style="dim")
    gems.append_text(_pile(place.gems, GEM_BACK))
    servants = Text(f"servants {len(place.servants)}: ", style="dim")
    servants.append_text(_pile(place.servants, SERVANT_BACK))
    return Group(head, gems, servants)


def place_row(view: SeatView) -> Table:
    """The six slots side by side."""
    table = Table(box=None, expand=True, show_header=False, padding=(0, 1))
    for _ in range(ROW_SLOTS):
        table.add_column(ratio=1)
    table.add_row(*(place_cell(s, view.row[s]) for s in range(ROW_SLOTS)))
    return table


def hand_text(view: SeatView, cursor: int) -> Text:
    """The hand in a line, the selected card bracketed and reversed."""
    out = Text()
    for i, card in enumerate(view.hand):
        if out:
            out.append("  ")
        chip = card_text(card)
        if i == cursor:
            chip.stylize("reverse")
            out.append("[")
            out.append_text(chip)
            out.append("]")
        else:
            out.append_text(chip)
    if not view.hand:
        out.append("(empty)", style="dim")
    return out


def score_column(view: SeatView, names: Sequence[str], column_spaces: int) -> Table:
    """Score, hand (gems / servants), reserve and discards of every seat; the column's window."""
    table = Table(box=None, padding=(0, 1), show_edge=False)
    for label in ("", "seat", "player", "score", "hand", "reserve", "out"):
        table.add_column(label, no_wrap=True)
    for seat in range(view.players):
        name = "you" if seat == view.seat else names[seat]
        turn = TURN_MARK if seat == view.turn_seat and not view.game_over else ""
        gems = view.hand_gems[seat]
        hand = f"{view.hand_sizes[seat]} ({gems}g {view.hand_sizes[seat] - gems}s)"
        table.add_row(
            turn,
            Text(f"S{seat}", style=seat_colour(seat)),
            Text(
                name, style=f"bold {seat_colour(seat)}" + (" reverse" if seat == view.seat else "")
            ),
            str(view.scores[seat]),
            hand,
            str(view.reserve_sizes[seat]),
            str(view.discard_counts[seat]),
        )
    top = view.base + column_spaces - 1
    table.caption = (
        f"column {view.base}–{top} · gem pile {view.pile_size} · supply {view.supply_size}"
    )
    return table


class PlaceRow(Static):
    DEFAULT_CSS = "PlaceRow { height: auto; min-height: 5; border: round $primary-darken-2; }"

    def __init__(self) -> None:
        super().__init__(id="places")
        self.border_title = "Mystic places (★: a ritual may be announced)"

    def show(self, view: SeatView) -> None:
        self.update(place_row(view))


class HandLine(Static):
    DEFAULT_CSS = "HandLine { height: auto; min-height: 3; border: round $accent; }"

    def __init__(self, own: bool = True) -> None:
        """``own``: the person's hand (its title says which seat is theirs); a replay names the
        hand's owner itself."""
        super().__init__(id="hand")
        self.own = own
        self.border_title = "Your hand"

    def show(self, view: SeatView, cursor: int) -> None:
        if self.own:
            self.border_title = f"Your hand — you are S{view.seat}, your servants S{view.seat}:1–6"
        self.update(hand_text(view, cursor))


class ScoreColumn(Static):
    DEFAULT_CSS = """
    ScoreColumn { height: auto; width: auto; min-width: 48; border: round $primary-darken-2; }
    """

    def __init__(self, names: Sequence[str], column_spaces: int) -> None:
        super().__init__(id="scores")
        self.border_title = "Score column"
        self.names = tuple(names)
        self.column_spaces = column_spaces

    def show(self, view: SeatView, names: Sequence[str] | None = None) -> None:
        """``names``: the seats' names, once known (a table of peers learns them at seating)."""
        if names is not None:
            self.names = tuple(names)
        self.update(score_column(view, self.names, self.column_spaces))
