"""The trick on the table: who played what, who is to play, and how the last trick went."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from druids_p2p.engine.cards import COLOUR_NAMES
from druids_p2p.tui.cards import domain_text, move_text
from druids_p2p.tui.snapshot import TableSnapshot


def trick_lines(snapshot: TableSnapshot | None) -> Group:
    view = snapshot.view if snapshot is not None else None
    if snapshot is None or view is None:
        return Group(Text("no cards on the table yet", style="dim"))
    lines: list[Text] = []
    number = len(view.tricks) + (1 if view.trick or not view.round_over else 0)
    head = Text(f"Trick {number}" if not view.round_over else "Round over", style="bold")
    if view.lead_domain >= 0:
        head.append(" · led ")
        head.append_text(domain_text(view.lead_domain))
    lines.append(head)
    for seat, move in view.trick:
        line = Text(f"  {snapshot.name(seat):<14} ")
        line.append_text(move_text(move))
        lines.append(line)
    if view.to_move is not None and not view.round_over:
        who = "you" if view.to_move == snapshot.my_seat else snapshot.name(view.to_move)
        what = "to choose a pile" if _choosing(snapshot) else "to play"
        lines.append(Text(f"  {who:<14} … {what}", style="italic dim"))
    if view.tricks:
        _, plays, winner, removed = view.tricks[-1]
        last = Text("Last trick: ", style="bold")
        last.append(f"{snapshot.name(winner)} won ")
        for i, (_, move) in enumerate(plays):
            if i:
                last.append(" ")
            last.append_text(move_text(move))
        if removed:
            gone = ", ".join(COLOUR_NAMES[d] for d in removed)
            last.append(f" — Sickle removed {snapshot.name(winner)}'s {gone} pile")
        lines.append(last)
    return Group(*lines)


def _choosing(snapshot: TableSnapshot) -> bool:
    view = snapshot.view
    return view is not None and bool(view.pending_pile_choice)


class TrickPanel(Static):
    DEFAULT_CSS = """
    TrickPanel { height: auto; min-height: 6; border: round $primary; padding: 0 1; width: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__(id="trick")
        self.border_title = "Trick"

    def show(self, snapshot: TableSnapshot | None) -> None:
        self.update(trick_lines(snapshot))
