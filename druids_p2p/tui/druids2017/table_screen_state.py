"""What the table screen's event log and status line read and write on the screen: its state.

:mod:`.table_events` and :mod:`.table_status` are handed the screen, but they only need these
fields and three helpers. Naming them here as a protocol lets those modules stand below
:mod:`.table` (which imports them) instead of importing it back: no import cycle.
"""

from __future__ import annotations

from typing import Any, Protocol

from druids_p2p.tui.druids2017.snapshot import TableSnapshot


class TableScreenState(Protocol):
    """The table screen as its event log and status line see it (``TableScreen`` is one)."""

    snapshot: TableSnapshot | None
    expected: tuple[str, ...]
    """Names of the players waited for before seating (local bots)."""
    joined: list[str]
    players: int
    away: dict[str, float]
    """Who is away, and since when (``time.monotonic``)."""
    rejoined: dict[str, float]
    slow: set[str]
    """Who keeps sending its automatic messages late (the peer's ``slow`` event)."""
    turn_since: float
    record: str | None
    result: dict[str, Any] | None
    stopped: str | None
    blame: int | None
    finished: bool
    awaiting: bool
    """A move was sent; waiting for the peer to take it."""
    trick_held: bool
    phase_text: str

    def seat_name(self, seat: object) -> str:
        """A seat's name, ``you`` for this seat."""
        ...

    def by_name(self, values: object) -> str:
        """Per-seat values (scores, totals) as ``name value`` pairs."""
        ...

    def show_end(self, result: dict[str, Any]) -> None:
        """Show the end of the game (or queue it behind the round's summary)."""
        ...
