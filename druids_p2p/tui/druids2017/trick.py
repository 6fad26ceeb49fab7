"""The trick on the table: who played what, who is to play, and who took the last trick.

A completed trick is *held* a moment (tui/game_ui.py): then the panel shows that trick whole —
each player's card and who took it — instead of the next, empty one.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from druids_p2p.games.druids2017.cards import COLOUR_NAMES, N_DOMAIN_CARDS, N_VALUES, PLAY_MISTLETOE
from druids_p2p.games.druids2017.notation import MOVES
from druids_p2p.tui.druids2017.cards import domain_text, move_text
from druids_p2p.tui.druids2017.snapshot import TableSnapshot
from druids_p2p.tui.widgets import name_text, who

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
        self.update(trick_lines(snapshot, held or replay, go_on=not replay))
