"""The terminal UI's answer to a table left unfinished (the UI or its machine crashed): rejoin it,
start a new table (the old one set aside, its record kept), or quit. Only a table still playing is
offered (``peer/homes.py`` decides).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path

from druids_p2p.peer.homes import HomeTable, playing_tables

ME = "me"
"""The UI seat's home inside a game folder (the bots' are under ``bots/``)."""


@dataclass(frozen=True)
class SavedGame:
    """A game folder whose UI seat was still playing its table."""

    folder: Path
    state: HomeTable

    def lines(self) -> list[str]:
        info = self.state.info()
        name = info.get("name") or "?"
        role = "you hosted" if info.get("role") == "host" else "you joined"
        return [
            f"Table {name!r} ({role}) was left unfinished: your seat never finished or stopped it.",
            f"Its game folder: {self.folder}",
            "Rejoin it, or start a new table (the old one is set aside; its record is kept).",
        ]


def saved_game(workdir: Path | None, data: Path | None = None, *, game: str) -> SavedGame | None:
    """The most recent game folder (``workdir``, or any under ``<data>/games``) whose UI seat's
    table of rule set ``game`` is still playing: a table of another game is not offered, as
    rejoining it would seat the person at the wrong game's table screen (homes.py keeps which
    game each table plays)."""
    if workdir is not None:
        folders = [workdir]
    else:
        if data is None:
            from druids_p2p.wire import data_dir

            data = data_dir()
        games = data / "games"
        folders = sorted(games.iterdir()) if games.is_dir() else []
    found: list[SavedGame] = []
    for folder in folders:
        playing = playing_tables(folder / ME)
        found += [SavedGame(folder, state) for state in playing if state.game == game]
    found.sort(key=lambda g: _mtime(g.state))
    return found[-1] if found else None


def _mtime(state: HomeTable) -> float:
    try:
        return state.record.stat().st_mtime
    except OSError:
        return 0.0


def saved_bots(bots: Path) -> list[tuple[Path, HomeTable]]:
    """The bots (homes under a game folder's ``bots/``) whose table is still playing."""
    if not bots.is_dir():
        return []
    out = []
    for home in sorted(bots.iterdir()):
        playing = playing_tables(home)
        if playing:
            out.append((home, playing[-1]))
    return out


def port_in_use(bind: str, port: int) -> bool:
    """True if something (a bot process that outlived the UI) still holds this inbox port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # As ZeroMQ binds: connections of a dead process lingering in TIME_WAIT do not count,
        # only a live listener does.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((bind, port))
        except OSError:
            return True
    return False
