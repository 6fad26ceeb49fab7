"""The Textual application for a Druids (2004) table against in-process bots: one screen, the
game, then its outcome; a rematch (key ``r`` on the end screen) plays another game with the same
players on a fresh deal, the evening's running scores kept (``tui/game_ui.py``).

Kept apart from :class:`~druids_p2p.tui.app.DruidsApp` (the tables of peers, the lobby and
resumption): this table is in one process, without mental cards. Each game's record (the 2004
notation, ``druids replay --game druids2004``) is written into the game folder when the next one
starts or the table closes, finished or not: ``record-2004.json``, then ``record-2004-2.json``…
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App

from druids_p2p.tui.druids2004.session import Offline2004
from druids_p2p.tui.druids2004.table import Table2004Screen
from druids_p2p.tui.game_ui import NO_PREFS, Evening, TablePrefs

RECORD_NAME = "record-2004.json"


class Druids2004App(App[dict[str, Any] | None]):
    TITLE = "Druids (2004)"

    def __init__(
        self,
        session: Offline2004,
        folder: Path | None = None,
        pause_s: float = 0.0,
        rematch: Callable[[int], Offline2004] | None = None,
        prefs: TablePrefs = NO_PREFS,
    ) -> None:
        """``pause_s``: each bot's finished turn stays in view this long (``--move-pause``);
        ``rematch``: a new game of the same players from a seed (None: no rematch offered);
        ``prefs``: the person's (the legend the first time, ``--confirm-plays``)."""
        super().__init__()
        self.session = session
        self.folder = folder
        self.pause_s = pause_s
        self.prefs = prefs
        self.rematch = rematch
        self.evening = Evening()
        self.games = 1
        self.table = Table2004Screen(session, self.finish, pause_s, prefs)

    @property
    def can_rematch(self) -> bool:
        return self.rematch is not None

    def on_mount(self) -> None:
        self.push_screen(self.table)

    def _record(self) -> Path | None:
        """Write this game's record (when there is a folder); its path."""
        if self.folder is None:
            return None
        name = RECORD_NAME if self.games == 1 else f"record-2004-{self.games}.json"
        path = self.folder / name
        path.write_text(self.session.record_text(), encoding="utf-8")
        return path

    def action_rematch(self) -> None:
        """The end screen's ``r``: this game's record kept, a new game of the same players."""
        if self.rematch is None or not self.table.ended:
            self.bell()
            return
        self._record()
        while len(self.screen_stack) > 1 and self.screen is not self.table:
            self.pop_screen()
        self.games += 1
        self.session = self.rematch(random.SystemRandom().randrange(2**32))
        self.table = Table2004Screen(self.session, self.finish, self.pause_s, self.prefs)
        self.switch_screen(self.table)

    def finish(self, outcome: dict[str, Any]) -> None:
        """Write the record (when there is a folder) and leave with the outcome."""
        path = self._record()
        if path is not None:
            outcome = {**outcome, "record": str(path), "folder": str(self.folder)}
        self.exit({**outcome, "evening": self.evening.to_json()})
