"""The Textual application for a Druids (2016) table against a bot in this process: the table
screen, then its end. The game file (``druids replay --game druids2016``) is written into the
game folder when the table closes, finished or not (once the Druids are placed):
``record-2016.json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App

from druids_p2p.tui.druids2016.session import Offline2016
from druids_p2p.tui.druids2016.table import Table2016Screen

RECORD_NAME = "record-2016.json"


class Druids2016App(App[dict[str, Any] | None]):
    TITLE = "Druids (2016)"

    def __init__(self, session: Offline2016, folder: Path | None = None) -> None:
        super().__init__()
        self.session = session
        self.folder = folder
        self.table = Table2016Screen(session, self.finish)

    def on_mount(self) -> None:
        self.push_screen(self.table)

    def finish(self, outcome: dict[str, Any]) -> None:
        """Write the record (when there is a folder and a game) and leave with the outcome."""
        text = self.session.record_text()
        if self.folder is not None and text is not None:
            path = self.folder / RECORD_NAME
            path.write_text(text, encoding="utf-8")
            outcome = {**outcome, "record": str(path), "folder": str(self.folder)}
        self.exit(outcome)
