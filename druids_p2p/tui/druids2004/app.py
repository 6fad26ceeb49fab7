"""The Textual application for a Druids (2004) table: one screen, the game, then its outcome.

Kept apart from :class:`~druids_p2p.tui.app.DruidsApp` (the 2017 game's lobby, peers and
resumption): the 2004 table is offline until the LAN table deals that game. The game's record
(the 2004 notation, ``druids replay --game druids2004``) is written into the game folder when the
table closes, finished or not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App

from druids_p2p.tui.druids2004.session import Offline2004
from druids_p2p.tui.druids2004.table import Table2004Screen
from druids_p2p.tui.prefs import NO_PREFS, TablePrefs

RECORD_NAME = "record-2004.json"


class Druids2004App(App[dict[str, Any] | None]):
    TITLE = "Druids (2004)"

    def __init__(
        self,
        session: Offline2004,
        folder: Path | None = None,
        pause_s: float = 0.0,
        prefs: TablePrefs = NO_PREFS,
    ) -> None:
        """``pause_s``: each bot's finished turn stays in view this long (``--move-pause``);
        ``prefs``: the person's (the legend the first time, ``--confirm-plays``)."""
        super().__init__()
        self.session = session
        self.folder = folder
        self.table = Table2004Screen(session, self.finish, pause_s, prefs)

    def on_mount(self) -> None:
        self.push_screen(self.table)

    def finish(self, outcome: dict[str, Any]) -> None:
        """Write the record (when there is a folder) and leave with the outcome."""
        if self.folder is not None:
            path = self.folder / RECORD_NAME
            path.write_text(self.session.record_text(), encoding="utf-8")
            outcome = {**outcome, "record": str(path), "folder": str(self.folder)}
        self.exit(outcome)
