"""Every player at the table: state (to move, away, rejoined…), cards left, piles, points."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from druids_p2p.games.druids2017.cards import DOMAINS, N_VALUES
from druids_p2p.tui.druids2017.cards import DOMAIN_COLOURS, card_text
from druids_p2p.tui.druids2017.snapshot import TableSnapshot
from druids_p2p.tui.widgets import name_text


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
        self.update(players_table(snapshot, states))
