"""Who is who at the table: one colour per seat, and "you" for this seat.

Names are unique at a table (the host suffixes a colliding joiner's: ``root-2``), but two
similar names still read alike in a fast log; a colour per seat, the same in every panel, tells
them apart at a glance. The colours avoid the five domain colours' exact hues.
"""

from __future__ import annotations

import re

from rich.text import Text

from druids_p2p.tui.plain import plain
from druids_p2p.tui.session import SeatSnapshot

SEAT_COLOURS: tuple[str, ...] = ("#5fd7ff", "#ff87d7", "#ffaf5f", "#afafff", "#d7d787")
"""Cyan, pink, orange, lavender, khaki: seats 0..4 in play order."""


def seat_colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def who(snapshot: SeatSnapshot | None, seat: int | None) -> str:
    """``you`` for this seat, else the seat's name."""
    if snapshot is None or seat is None:
        return "?"
    return "you" if seat == snapshot.my_seat else snapshot.name(seat)


def name_text(snapshot: SeatSnapshot | None, seat: int | None, you: bool = True) -> Text:
    """The seat's name (or ``you``) in its colour."""
    if snapshot is None or seat is None or not 0 <= seat < len(snapshot.names):
        return Text("?")
    label = who(snapshot, seat) if you else snapshot.name(seat)
    bold = " bold" if seat == snapshot.my_seat else ""
    return plain(label, f"{seat_colour(seat)}{bold}")


def in_your_words(reason: str | None, seat: int) -> str | None:
    """A refusal told to ``seat``'s player: "seat 2's hand" becomes "your hand", "seat 2" "you"."""
    if reason is None:
        return None
    reason = re.sub(rf"\bseat {seat}'s\b", "your", reason)
    return re.sub(rf"\bseat {seat}\b", "you", reason)
