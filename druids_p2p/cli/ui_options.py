"""What ``druids play`` (without ``--headless``) was asked, as one value every game's UI reads.

The terminal UI's entry (``cli/play_ui.py``) takes the same command line for every game and
refuses, by the flag the user typed, what the game has no use for; one record keeps the flags in
one place instead of one keyword list per entry point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from druids_p2p.tui.prefs import TablePrefs

TRICK_PAUSE_S = 3.0
"""``--trick-pause``'s default: seconds a finished trick stays shown."""

MOVE_PAUSE_S = 0.6
"""``--move-pause``'s default: seconds each move stays shown before the next."""


@dataclass(frozen=True, slots=True)
class UiOptions:
    """The UI flags of ``druids play`` as typed (checked by the entry point that reads them)."""

    game: str
    lan: bool
    seats: str | None
    bots: str | None
    players: int | None
    rounds: int | None
    """``--rounds`` if given (None: the game's whole game)."""
    variant: bool
    budget_ms: float
    workdir: Path | None
    name: str | None
    interface: str | None
    address: str | None
    beacon_port: int
    plugins_dir: list[Path] = field(default_factory=list)
    as_json: bool = False
    fingerprints: list[str] = field(default_factory=list)
    trick_pause: float = TRICK_PAUSE_S
    move_pause: float = MOVE_PAUSE_S
    offline: bool = False
    """The engine and in-process bots in this process, no table of peers (a game whose UI has
    an offline table)."""
    confirm_plays: bool = False
    """A card is played by a second key (the first marks it): a guard against misplays."""

    @property
    def lan_flags(self) -> bool:
        """Whether a flag that chooses the LAN (--interface, --address, --fingerprint) was given."""
        return bool(self.interface or self.address or self.fingerprints)


def table_prefs(opts: UiOptions) -> TablePrefs:
    """The person's preferences at the tables this command opens: ``--confirm-plays``, and the
    game's legend the first time this data folder sits at that game (remembered there)."""
    from druids_p2p.tui.game_ui import game_ui
    from druids_p2p.tui.prefs import TablePrefs, first_time
    from druids_p2p.wire import data_dir

    legend = game_ui(opts.game).legend and first_time(data_dir(), f"legend-{opts.game}")
    return TablePrefs(confirm_plays=opts.confirm_plays, legend=legend)


def seat_words(seats: str) -> list[str]:
    """``--seats`` split into its comma-separated entries, blanks dropped."""
    return [s.strip() for s in seats.split(",") if s.strip()]
