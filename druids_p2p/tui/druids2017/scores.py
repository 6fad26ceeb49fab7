"""Round scores and totals."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from druids_p2p.tui.druids2017.snapshot import TableSnapshot
from druids_p2p.tui.widgets import name_text


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
        self.update(scores_table(snapshot, tuple(winners)))
