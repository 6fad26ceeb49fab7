"""A frozen picture of a Druids (2016) table of peers for the UI, taken on the peer's thread.

The peer's thread owns the table; the UI thread never reads it. So each time something happens
the peer takes a :class:`Snapshot2016` — this seat's view from its copy of the game (which
shows the other seat's placement only once both are in) and the names — and posts it; the view
is taken only once the table is settled (``TableView.settled``: no card on its way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from druids_p2p.games.druids2016.view import SeatView
from druids_p2p.tui.game_ui import SeatSnapshot

if TYPE_CHECKING:
    from druids_p2p.lan.peer_config import TableView


@dataclass(frozen=True)
class Snapshot2016:
    names: tuple[str, ...]
    """By play seat once the seat order is fixed (before: in seat-message order)."""
    my_seat: int | None
    phase: str
    view: SeatView | None
    """This seat's view; None before the table is dealt or while it is not settled."""
    my_turn: bool = False
    """The peer asks this seat for a move now (only then is a move taken)."""
    turn: int = 0
    """Which request for a move this is: a move is submitted with it."""

    def name(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(self.names):
            return "?"
        return self.names[seat]


def snapshot_from_table(table: TableView, turn: int | None = None) -> Snapshot2016:
    """A snapshot of a peer's 2016 table; call it only on the peer's own thread (``turn``: the
    number of the peer's request for this seat's move, if it asks for one)."""
    seat = table.seat
    view = table.player_view() if seat is not None and table.settled else None
    if view is not None and not isinstance(view, SeatView):
        raise TypeError(f"a Druids (2016) table's view is a {type(view).__name__}")
    my_turn = turn is not None and view is not None and view.to_move == seat and bool(view.legal)
    return Snapshot2016(
        names=table.names,
        my_seat=seat,
        phase="done" if view is not None and view.game_over else table.phase,
        view=view,
        my_turn=my_turn,
        turn=0 if turn is None else turn,
    )


def own(snapshot: SeatSnapshot | None) -> Snapshot2016 | None:
    """A session's snapshot as this game's table reads it (TypeError for another game's)."""
    if snapshot is None or isinstance(snapshot, Snapshot2016):
        return snapshot
    raise TypeError(f"a Druids (2016) table was handed a {type(snapshot).__name__}")
