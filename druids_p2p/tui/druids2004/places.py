"""The Druids (2004) table as one seat sees it (the place row, the hand, the score column) and
in words a newcomer can learn from: every sign, why each servant of a ritual took what it took,
why the game ended as it did."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from druids_p2p.games.druids2004.cards import (
    KIND_NAMES,
    KINDS,
    ROW_SLOTS,
    format_card,
    gem_kind,
    is_gem,
    is_servant,
    place_kind,
    servant_owner,
    servant_value,
)
from druids_p2p.games.druids2004.setup import (
    ENDED_COLUMN,
    TAKE_LAST,
    TAKE_NO_AMULETS,
    TAKE_NONE_LEFT,
    TAKE_SHORT,
    TIE_AFTER_ANNOUNCER,
    TIE_STARTING_PLAYER,
    RitualDone,
    Share,
)
from druids_p2p.games.druids2004.view import HIDDEN, PlaceView, SeatView
from druids_p2p.tui.game_ui import show_once, show_text
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
        show_once(self, view.row, lambda: place_row(view))


class HandLine(Static):
    DEFAULT_CSS = "HandLine { height: auto; min-height: 3; border: round $accent; }"

    def __init__(self, own: bool = True) -> None:
        """``own``: the person's hand (its title says which seat is theirs); a replay names the
        hand's owner itself."""
        super().__init__(id="hand")
        self.own = own
        self.border_title = self._title = "Your hand"

    def show(self, view: SeatView, cursor: int) -> None:
        title = f"Your hand — you are S{view.seat}, your servants S{view.seat}:1–6"
        if self.own and title != self._title:  # (setting it, even unchanged, renders it again)
            self.border_title = self._title = title
        show_text(self, hand_text(view, cursor))


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
        key = (view, self.names, self.column_spaces)
        show_once(self, key, lambda: score_column(view, self.names, self.column_spaces))


Name = Callable[[int], str]
"""Names a seat (``you`` for this one)."""


def whose(name: str) -> str:
    """``your`` for ``you``, else ``rule-1's``."""
    return "your" if name == "you" else f"{name}'s"


def verb(name: str, third: str, plain_form: str) -> str:
    """The verb for ``name``: ``you win``, ``rule-1 wins``."""
    return f"{name} {plain_form if name == 'you' else third}"


KIND_LETTERS = ", ".join(f"{k} {n}" for k, n in zip(KINDS, KIND_NAMES, strict=True))


def signs(seat: int | None) -> tuple[tuple[str, str], ...]:
    """Every sign the 2004 board shows, with what it means (``seat``: this seat, if known)."""
    yours = (
        f"your servants are S{seat}:1 to S{seat}:6, and your seat is marked “you”"
        if seat is not None
        else "your own seat is marked “you”"
    )
    return (
        ("@K2", f"a mystic place: its kind ({KIND_LETTERS}) and its series, 1 or 2"),
        ("K7", "a gem: its kind and a number; only the kind scores, the number plays no part"),
        ("S3:6", f"a servant: S, the seat it belongs to (S0–S3), then its value 1–6; {yours}"),
        ("S0 … S3", "the seats, in play order: each has its colour and its servant series"),
        (GEM_BACK, "a face-down gem, in the colour of the player who played it"),
        (SERVANT_BACK, "a face-down servant, in its owner's colour (its value is hidden)"),
        (RITUAL_MARK, "a ritual may be announced on this place (3 cards or more, one a servant)"),
        (TURN_MARK, "whose turn it is"),
        ("[K7]", "the card chosen in your hand (← → choose)"),
        ("gems / servants", "the cards on a place: gems above it, servants below it"),
        ("score", "points so far: each amulet is 1 point"),
        ("hand 5 (3g 2s)", "cards in that hand: how many are gems (g) and servants (s)"),
        ("reserve", "servants still in that player's reserve (a draw takes one at random)"),
        ("out", "gems that player discarded face down: out of the game"),
        ("column 0–11", "the scores the score column shows now; it moves up as pawns pass it"),
        ("gem pile", "gems left to draw"),
        ("supply", "places left to turn face up when a ritual ends a place"),
    )


def tie_words(ritual: RitualDone, name: Name) -> str:
    """Where equal servants start taking, and why there (the ritual's tie-order option)."""
    first = ritual.tie_first if ritual.tie_first is not None else ritual.seat
    if ritual.tie_order == TIE_AFTER_ANNOUNCER:
        why = "the player after the one who announced the ritual"
    elif ritual.tie_order == TIE_STARTING_PLAYER:
        why = "the player who started the game"
    else:
        why = "who announced the ritual"
    return f"equal servants take in turn order, starting with {name(first)} ({why})"


def share_line(
    index: int, share: Share, ritual: RitualDone, name: Name, earlier: Sequence[Share]
) -> str:
    """Step ``index`` of the ritual: one servant, what it took and why; ``earlier``: the shares
    taken before it (a tie is explained at its first servant)."""
    who = name(share.owner)
    value = servant_value(share.servant)
    head = f"{index + 1}. {format_card(share.servant)} ({who}, value {value})"
    if share.tied:
        others = " ".join(format_card(c) for c in share.tied)
        if any(s.servant in share.tied for s in earlier):
            head += f" — tied with {others}: it takes after them in turn order"
        else:
            head += f" — tied with {others}: {tie_words(ritual, name)}"
    cards = " ".join(format_card(a) for a in share.amulets)
    n = len(share.amulets)
    if share.why == TAKE_NO_AMULETS:
        kind = KIND_NAMES[place_kind(ritual.place)]
        line = f"{head} takes none: {who} +0 — no gem here was {kind}, so there is no amulet"
    elif share.why == TAKE_NONE_LEFT:
        line = f"{head} finds no amulet left: takes none, {who} +0 (those before it took all)"
    elif share.why == TAKE_LAST:
        rule = (
            "the only servant takes every amulet"
            if len(ritual.shares) == 1 and not ritual.ended
            else "the last servant takes all that remain"
        )
        line = f"{head} takes {n} amulet(s) {cards} — {rule}: {who} +{share.points}"
    elif share.why == TAKE_SHORT:
        line = (
            f"{head} takes {n} amulet(s) {cards}, all that were left (fewer than its "
            f"value): {who} +{share.points}"
        )
    else:
        line = f"{head} takes {n} amulet(s) {cards}, as many as its value: {who} +{share.points}"
    if share.blocked_by:
        line += (
            f" only — the score column could not move on ({column_words(share, name)}): "
            f"{whose(who)} pawn stops at its top and the game ends: {verb(who, 'wins', 'win')} "
            "alone"
        )
    return line


def column_words(share: Share, name: Name) -> str:
    """Why the column could not move on: whose pawns stood on its bottom card."""
    blockers = " and ".join(name(q) for q in share.blocked_by)
    stood = {1: "stood", 2: "both stood"}.get(len(share.blocked_by), "all stood")
    return f"{blockers} {stood} on its bottom card, which moves to the top only when it is free"


def end_lines(view: SeatView, name: Name) -> list[str]:
    """Why the winners are the winners: the score column's sole winner (even on a tie) or a
    tie sharing the win. Empty while the game is on."""
    winners = tuple(view.winners or ())
    if not view.game_over or not winners:
        return []
    if view.ended_by == ENDED_COLUMN and view.rituals and view.rituals[-1].shares:
        last = view.rituals[-1].shares[-1]
        mover = name(last.owner)
        lines = [
            f"The score column could not move on: {whose(mover)} pawn had to pass its top while "
            f"{column_words(last, name)}. The game ends at once and "
            f"{verb(mover, 'wins', 'win')} alone."
        ]
        best = view.scores[last.owner]
        level = [q for q in range(view.players) if q != last.owner and view.scores[q] == best]
        if level:
            others = " and ".join(name(q) for q in level)
            share = "does not" if len(level) == 1 and others != "you" else "do not"
            lines.append(
                f"{others} also scored {best} but {share} share the win: the pawn that ends "
                "the game at the top of the column wins alone (a ruling)."
            )
        return lines
    if len(winners) > 1:
        return [f"A tie shares the win: {' and '.join(name(w) for w in winners)} won together."]
    return []
