"""The person's own preferences at a table, the same for every game's table screen: whether a
play takes a second key (``--confirm-plays``), and whether the game's legend opens as the table
does (the first time this data folder sits at that game).

They change nothing at the table (no peer sees them), so they travel beside the session, from
the command line to the screen, not in the table's options.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SEEN_FOLDER = "seen"
"""Under the data folder: one empty file per thing shown once (``legend-<game>``)."""


@dataclass(frozen=True)
class TablePrefs:
    confirm_plays: bool = False
    """The first key on a card marks it; the same key (or enter) again plays it; any other key
    cancels (a guard against misplays: without it the key plays at once)."""
    legend: bool = False
    """Open the game's legend (every sign of the board) as the table opens."""


NO_PREFS = TablePrefs()


def first_time(home: Path, topic: str) -> bool:
    """True the first time ``topic`` is asked about in the data folder ``home`` (it is then
    remembered there: a file under ``seen/``); False after, and when the folder cannot be
    written (nothing is shown rather than shown every time)."""
    marker = home / SEEN_FOLDER / topic
    if marker.exists():
        return False
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        return False
    return True
