"""The panels of Druids (2017)'s table screen: every player's state, piles and points, the round
scores, the trick on the table and every trick of the round so far."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Column, Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    DOMAINS,
    N_DOMAIN_CARDS,
    N_VALUES,
    PLAY_MISTLETOE,
)
from druids_p2p.games.druids2017.notation import MOVES
from druids_p2p.tui.druids2017.cards import DOMAIN_COLOURS, card_text, domain_text, move_text
from druids_p2p.tui.druids2017.snapshot import TableSnapshot
from druids_p2p.tui.game_ui import show_once, text_key
from druids_p2p.tui.widgets import name_text, who


def content_key(content: object) -> object:
    """Everything ``content`` (text, a group of it, a table of text cells) is shown with, to
    give a panel its content again only when it changed: most table updates change no panel
    but one, and each update renders (and lays out) a panel afresh. Any other renderable gets
    a key equal to nothing else, so it is always shown."""
    if isinstance(content, Text):
        return text_key(content)
    if isinstance(content, str | int | float | bool | Style | None):
        return content
    if isinstance(content, list | tuple):
        return tuple(map(content_key, content))
    if isinstance(content, Group):
        return ("group", content.fit, content_key(content.renderables))
    if isinstance(content, Table):
        t = content
        shape = (t.expand, t.width, t.min_width, t.box, t.padding, t.style, tuple(t.row_styles))
        shown = (t.show_header, t.show_edge, t.show_lines, t.header_style)
        columns = [content_key([getattr(c, name) for name in _COLUMN_FIELDS]) for c in t.columns]
        rows = [(r.style, r.end_section) for r in t.rows]
        titles = content_key((t.title, t.caption))
        return ("table", shape, shown, titles, tuple(columns), tuple(rows))
    return object()


_COLUMN_FIELDS = tuple(f.name for f in fields(Column))


def show_content(panel: Static, content: RenderableType) -> None:
    """``panel.update(content)`` unless it shows the same content already."""
    show_once(panel, content_key(content), lambda: content)


def score_text(score: int) -> str:
    """A score as the summaries write it: ``−3`` with a true minus sign."""
    return str(score).replace("-", "−")


def round_points(snapshot: TableSnapshot, seat: int) -> int:
    """This round's points so far: the sum of the pile tops — once the round has ended, its
    score (a five-domain end scores −3 for its taker, whatever the piles)."""
    view = snapshot.view
    assert view is not None
    index = snapshot.round_number - 1  # carried rounds first (a table that went on)
    if view.round_over and index < len(snapshot.round_scores):
        return snapshot.round_scores[index][seat]
    return sum(t % N_VALUES + 1 for t in view.pile_tops[seat] if t is not None)


def players_table(snapshot: TableSnapshot | None, states: Mapping[int, Text]) -> Table:
    """Seat, name, state, cards in hand, the top card and size of each pile, points."""
    table = Table(expand=True, box=None, padding=(0, 1), header_style="bold")
    table.add_column("", width=1)
    table.add_column("player", ratio=2, no_wrap=True)
    table.add_column("state", ratio=2, no_wrap=True, min_width=10)
    table.add_column("cards", justify="right")
    for d, colour in zip(DOMAINS, DOMAIN_COLOURS, strict=True):
        table.add_column(Text(d, style=f"bold {colour}"), min_width=6, no_wrap=True)
    table.add_column("points", justify="right")  # this round so far: the sum of the tops
    table.add_column("total", justify="right")
    if snapshot is None:
        return table
    view = snapshot.view
    for seat in range(len(snapshot.names)):
        me = seat == snapshot.my_seat
        to_move = view is not None and view.to_move == seat and not view.round_over
        marker = Text("▶", style="bold green") if to_move else Text("")
        who = name_text(snapshot, seat, you=False)
        if me:
            who.append(" (you)", style="dim")
        cells: list[Text | str] = [marker, who, states.get(seat, Text(""))]
        if view is not None:
            cells.append(str(view.hand_sizes[seat]))
            tops, sizes = view.pile_tops[seat], view.pile_sizes[seat]
            cells += [
                card_text(t, s) if t is not None else card_text(None)
                for t, s in zip(tops, sizes, strict=True)
            ]
            cells.append(score_text(round_points(snapshot, seat)))
        else:
            cells += ["", *("" for _ in DOMAINS), ""]
        total = snapshot.totals[seat] if seat < len(snapshot.totals) else 0
        cells.append(Text(score_text(total), style="bold"))
        table.add_row(*cells)
    return table


class PlayersPanel(Static):
    DEFAULT_CSS = """
    PlayersPanel { height: auto; border: round $primary; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__(id="players")
        self.border_title = "Players and piles (top card, size)"

    def show(self, snapshot: TableSnapshot | None, states: Mapping[int, Text]) -> None:
        show_content(self, players_table(snapshot, states))


def scores_table(snapshot: TableSnapshot | None, winners: tuple[int, ...] = ()) -> Table:
    table = Table(expand=True, box=None, padding=(0, 1), header_style="bold")
    table.add_column("player", no_wrap=True)
    rounds = snapshot.rounds if snapshot is not None else 5
    for r in range(rounds):
        table.add_column(f"R{r + 1}", justify="right")
    table.add_column("total", justify="right")
    if snapshot is None:
        return table
    for seat in range(len(snapshot.names)):
        name = name_text(snapshot, seat, you=False)
        if seat == snapshot.my_seat:
            name.append(" (you)", style="dim")
        cells: list[Text | str] = [name]
        for r in range(rounds):
            scores = snapshot.round_scores[r] if r < len(snapshot.round_scores) else None
            cells.append("" if scores is None else str(scores[seat]).replace("-", "−"))
        total = snapshot.totals[seat] if seat < len(snapshot.totals) else 0
        style = "bold green" if seat in winners else "bold"
        total_text = str(total).replace("-", "−") + (" ★" if seat in winners else "")
        cells.append(Text(total_text, style=style))
        table.add_row(*cells)
    return table


class ScoresPanel(Static):
    DEFAULT_CSS = """
    ScoresPanel { height: auto; min-height: 6; border: round $primary; padding: 0 1; width: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__(id="scores")
        self.border_title = "Scores"

    def show(self, snapshot: TableSnapshot | None) -> None:
        winners = snapshot.winners if snapshot is not None and snapshot.winners else ()
        show_content(self, scores_table(snapshot, tuple(winners)))


NAME_WIDTH = 14


def led_domain(plays: tuple[tuple[int, int], ...]) -> int:
    """The domain a completed trick was led in (-1: none): its first domain card or Gaia's."""
    for _, move in plays:
        if move < N_DOMAIN_CARDS:
            return move // N_VALUES
        if move < PLAY_MISTLETOE:
            return (move - N_DOMAIN_CARDS) % 5
    return -1


def _play_line(snapshot: TableSnapshot, seat: int, move: int, mark: str = "") -> Text:
    line = Text("  ")
    name = name_text(snapshot, seat)
    name.pad_right(max(0, NAME_WIDTH - len(name.plain)))
    line.append_text(name)
    line.append(" ")
    line.append_text(move_text(MOVES[move], snapshot.variant))
    if mark:
        line.append(mark, style="bold")
    return line


def held_trick_lines(snapshot: TableSnapshot, go_on: bool = True) -> list[Text]:
    """The trick just completed, whole: every card with its player, and who took it
    (``go_on``: and that a key goes on, as at the table; a replay steps by its own keys)."""
    view = snapshot.view
    assert view is not None and view.tricks
    _, plays, winner, removed = view.tricks[-1]
    head = Text(f"Trick {len(view.tricks)}", style="bold")
    led = led_domain(plays)
    if led >= 0:
        head.append(" · led ")
        head.append_text(domain_text(led))
    head.append(" — taken by ")
    head.append_text(name_text(snapshot, winner))
    lines = [head]
    for seat, move in plays:
        lines.append(_play_line(snapshot, seat, move, "  ← takes it" if seat == winner else ""))
    if removed:
        gone = ", ".join(COLOUR_NAMES[d] for d in removed)
        verb = "lose" if winner == snapshot.my_seat else "loses"
        lines.append(Text(f"  Sickle: {who(snapshot, winner)} {verb} the {gone} pile"))
    if go_on:
        lines.append(Text("  (any key: go on)", style="italic dim"))
    return lines


def plays_text(snapshot: TableSnapshot, plays: Sequence[tuple[int, int]]) -> Text:
    """``you R6 · rule-1 R9 · …``: a trick's cards in the order played, each after its player
    (the last-trick line and the trick history write a trick the same way)."""
    text = Text()
    for i, (seat, move) in enumerate(plays):
        if i:
            text.append(" · ")
        text.append_text(name_text(snapshot, seat))
        text.append(" ")
        text.append_text(move_text(MOVES[move], snapshot.variant))
    return text


def last_trick_line(snapshot: TableSnapshot) -> Text | None:
    """``Last trick: rule-2 took it — you R6 · rule-1 R9 · …`` (with the Sickle's effect)."""
    view = snapshot.view
    if view is None or not view.tricks:
        return None
    _, plays, winner, removed = view.tricks[-1]
    last = Text("Last trick: ", style="bold")
    last.append_text(name_text(snapshot, winner))
    last.append(" took it — ")
    last.append_text(plays_text(snapshot, plays))
    if removed:
        gone = ", ".join(COLOUR_NAMES[d] for d in removed)
        last.append(f"; Sickle removed the {gone} pile")
    return last


def trick_lines(snapshot: TableSnapshot | None, held: bool = False, go_on: bool = True) -> Group:
    """The trick on the table; ``held``: the one just completed instead, whole (``go_on``: with
    the table's "any key" hint)."""
    view = snapshot.view if snapshot is not None else None
    if snapshot is None or view is None:
        return Group(Text("no cards on the table yet", style="dim"))
    if held and view.tricks and not view.trick:
        return Group(*held_trick_lines(snapshot, go_on))
    lines: list[Text] = []
    number = len(view.tricks) + (1 if view.trick or not view.round_over else 0)
    head = Text(f"Trick {number}" if not view.round_over else "Round over", style="bold")
    if view.lead_domain >= 0:
        head.append(" · led ")
        head.append_text(domain_text(view.lead_domain))
    lines.append(head)
    for seat, move in view.trick:
        lines.append(_play_line(snapshot, seat, move))
    if view.to_move is not None and not view.round_over:
        what = "to choose a pile" if view.pending_pile_choice else "to play"
        line = Text("  ")
        name = name_text(snapshot, view.to_move)
        name.pad_right(max(0, NAME_WIDTH - len(name.plain)))
        line.append_text(name)
        line.append(f" … {what}", style="italic dim")
        lines.append(line)
    last = last_trick_line(snapshot)
    if last is not None:
        lines.append(last)
    return Group(*lines)


class TrickPanel(Static):
    DEFAULT_CSS = """
    TrickPanel { height: auto; min-height: 9; border: round $primary; padding: 0 1; width: 1fr; }
    TrickPanel.held { border: round $warning; }
    """

    def __init__(self) -> None:
        super().__init__(id="trick")
        self.border_title = "Trick"

    def show(
        self, snapshot: TableSnapshot | None, held: bool = False, replay: bool = False
    ) -> None:
        """``replay``: a step of a replay, which shows the trick it is after whole (the step
        "trick 2" is the table after trick 2, whose next trick has no card yet)."""
        self.set_class(held and not replay, "held")
        show_content(self, trick_lines(snapshot, held or replay, go_on=not replay))


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
