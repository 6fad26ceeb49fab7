"""The tables a peer's home keeps, and which one (if any) a new command resumes.

Tables are kept forever under ``<home>/tables/<id>/``. Only a *playing* table is resumed, and only
when the command asks for it (``--resume`` or the same request that seated it); any other request
is refused in one line saying how to resume or start beside it (``--new``): no surprise resumes.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from druids_p2p.games.registry import ruleset_of
from druids_p2p.table.table_state import write_private
from druids_p2p.wire import MsgType, WireError, decode
from druids_p2p.wire.msgtypes import RecordError
from druids_p2p.wire.record import read_record, sync_dir

PLAYING = "playing"
FINISHED = "finished"
STOPPED = "stopped"
EVENTS_LOG = "events.jsonl"
"""Every event the peer reported, one JSON line each, beside the record (a closed stdout loses
nothing)."""


GAMES = "games"
"""The data folder's folder of games: one folder per game played on this machine, holding the
homes of the seats started here (the terminal UI's, its bots', a headless table's)."""


def game_folder(data: Path, workdir: Path | None = None) -> Path:
    """``workdir``, or a new folder ``<data>/games/<date-time>-<pid>`` (made): where a game's
    peers keep their homes, beside every other game, so that a reboot loses none."""
    if workdir is not None:
        folder = workdir
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        folder = data / GAMES / f"{stamp}-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class TableChoiceNeeded(Exception):
    """A table is still playing in this home and the command neither resumes it nor asks for a
    new one: one line for the user, naming both flags."""


@dataclass
class HomeTable:
    """What a peer keeps on disk to rejoin its table after a crash, and how that table ended."""

    folder: Path

    @property
    def record(self) -> Path:
        return self.folder / "record.druids"

    @property
    def events_log(self) -> Path:
        return self.folder / EVENTS_LOG

    @property
    def table_id(self) -> str:
        return self.folder.name

    def save(
        self,
        seat_raw: bytes,
        curve_public: bytes,
        curve_secret: bytes,
        port: int,
        about: dict[str, Any] | None = None,
    ) -> None:
        """``about``: how this peer came to the table (role, table name, lobby address, lobby
        id), so that the same command finds it again after a crash. The game the seat message
        names is kept beside it (``game``): a UI offers to rejoin only a table of its game."""
        self.folder.mkdir(parents=True, exist_ok=True)
        sync_dir(self.folder.parent)  # the table's folder survives a power cut
        write_private(self.folder / "seat.msg", seat_raw)
        write_private(self.folder / "curve.key", curve_public + b"\n" + curve_secret)
        game = seat_game(seat_raw)
        kept = {"game": game} if game is not None else {}
        self._write({"port": port, "status": PLAYING, "finished": False, **kept, **(about or {})})

    def info(self) -> dict[str, Any]:
        try:
            data = json.loads((self.folder / "state.json").read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    @property
    def game(self) -> str | None:
        """The rule set this table plays: as ``state.json`` keeps it, else (a table saved before
        it did) as its seat message names it; None if neither can be read (nothing to rejoin)."""
        game = self.info().get("game")
        if isinstance(game, str):
            return game
        try:
            return seat_game((self.folder / "seat.msg").read_bytes())
        except OSError:
            return None

    def _write(self, info: dict[str, Any]) -> None:
        write_private(self.folder / "state.json", json.dumps(info).encode())

    def mark_finished(self, result: dict[str, Any]) -> None:
        self._write({**self.info(), "status": FINISHED, "finished": True, "result": result})

    def mark_stopped(self, reason: str) -> None:
        """Never resumed automatically again (its folder and record stay)."""
        self._write({**self.info(), "status": STOPPED, "finished": False, "stopped": reason})

    def load(self) -> tuple[bytes, bytes, bytes, int]:
        seat_raw = (self.folder / "seat.msg").read_bytes()
        public, secret = (self.folder / "curve.key").read_bytes().split(b"\n")
        return seat_raw, public, secret, int(self.info()["port"])

    @property
    def status(self) -> str:
        """``playing``, ``finished`` or ``stopped``; a playing table whose record ends in an abort
        is marked stopped here, once (the crash came after the abort was written)."""
        info = self.info()
        if not info:
            return STOPPED  # no readable state: nothing that could be rejoined
        status = info.get("status")
        if status is None:  # written before tables could be stopped
            status = FINISHED if info.get("finished") else PLAYING
        if status == PLAYING:
            reason = _ending_abort(self.record)
            if reason is not None:
                self.mark_stopped(reason)
                return STOPPED
        return str(status)

    @property
    def finished(self) -> bool:
        return self.status == FINISHED

    def describe(self) -> str:
        info = self.info()
        name = info.get("name")
        what = f"table {name!r}" if name else "table"
        how = {"host": "hosted", "join": "joined"}.get(str(info.get("role")), "seated")
        return f"{what} (id {self.table_id[:8]}, {how} from here)"


def seat_game(seat_raw: bytes) -> str | None:
    """The rule set a seat message's options name (absent in protocol version 1, whose tables
    were all the default game's); None if it does not decode."""
    try:
        options = decode(seat_raw).body["options"]
    except (WireError, KeyError, TypeError):
        return None
    if not isinstance(options, dict):
        return None
    return str(ruleset_of(options))


def _ending_abort(record: Path) -> str | None:
    """The reason of the abort that ends ``record``, if it ends in one."""
    if not record.exists():
        return None
    try:
        read = read_record(record)
    except RecordError:
        return None
    if not read.messages:
        return None
    try:
        last = decode(read.messages[-1])
    except WireError:
        return None
    if last.type is not MsgType.ABORT:
        return None
    return str(last.body.get("reason", "aborted"))


def saved_tables(home: Path) -> list[HomeTable]:
    """Every table kept in ``home``, oldest first."""
    root = home / "tables"
    if not root.is_dir():
        return []
    folders = [f for f in root.iterdir() if (f / "state.json").exists()]
    return [HomeTable(f) for f in sorted(folders, key=_started)]


def _started(folder: Path) -> tuple[float, str]:
    try:
        return (folder / "seat.msg").stat().st_mtime, folder.name
    except OSError:
        return 0.0, folder.name


def playing_tables(home: Path) -> list[HomeTable]:
    """The tables in ``home`` that are neither finished nor stopped (a crash left them)."""
    return [t for t in saved_tables(home) if t.status == PLAYING]


def unfinished_table(home: Path) -> HomeTable | None:
    """The most recent table in ``home`` still playing, if any."""
    playing = playing_tables(home)
    return playing[-1] if playing else None


@dataclass(frozen=True)
class Request:
    """What a command asks for, as far as choosing a saved table goes."""

    role: str | None = None
    """``host`` or ``join``; None for a bare ``--resume``."""
    name: str | None = None
    """The table name hosted or typed (``join NAME``: a name or a lobby id prefix)."""
    lobby: str | None = None
    """``join HOST:PORT``: the lobby address typed."""
    lobby_id: str | None = None
    """The announced table joined (hex lobby id)."""
    resume: bool = False
    new: bool = False


def matches(state: HomeTable, request: Request) -> bool:
    """True if ``request`` is the one that seated this peer at ``state`` (run again)."""
    info = state.info()
    if request.role is None or info.get("role") != request.role:
        return False
    if request.lobby is not None:
        return info.get("lobby") == request.lobby
    if request.lobby_id is not None:
        return info.get("lobby_id") == request.lobby_id
    if request.name is not None:
        name = request.name
        if name in (info.get("name"), info.get("typed")):
            return True
        lobby_id = str(info.get("lobby_id") or "")
        return request.role == "join" and len(name) >= 4 and lobby_id.startswith(name.lower())
    return False


def choose_table(home: Path, request: Request) -> HomeTable | None:
    """The saved table this command resumes, or None to start (host or join) a new one.

    Raises :class:`TableChoiceNeeded` when a table is still playing here and the command is
    another one, without ``--resume`` or ``--new``; ``--resume`` with nothing to resume too."""
    if request.new:
        return None
    playing = playing_tables(home)
    if request.resume:
        if not playing:
            raise TableChoiceNeeded(f"no unfinished table to resume in {home}")
        same = [t for t in playing if matches(t, request)]
        return (same or playing)[-1]
    same = [t for t in playing if matches(t, request)]
    if same:
        return same[-1]
    if playing:
        raise TableChoiceNeeded(
            f"an unfinished {playing[-1].describe()} is saved in {playing[-1].folder.parent}: "
            "add --resume to rejoin it, or --new to start a new table beside it (its record is "
            "kept)"
        )
    return None


SET_ASIDE = "set aside for a new table (--new)"


def set_aside(home: Path, keep: HomeTable) -> list[HomeTable]:
    """``--new``, once the new table is seated: every other table still playing in ``home`` is
    marked stopped (kept on disk with its record), so it asks no more; those set aside."""
    old = [t for t in playing_tables(home) if t.folder != keep.folder]
    for state in old:
        state.mark_stopped(SET_ASIDE)
    return old


def about(request: Request, name: str | None, lobby_id: str | None) -> dict[str, Any]:
    """What ``state.json`` keeps of the request that seated this peer (see :func:`matches`)."""
    info: dict[str, Any] = {"role": request.role, "name": name, "lobby_id": lobby_id}
    if request.lobby is not None:
        info["lobby"] = request.lobby
    if request.role == "join" and request.name is not None and request.name != name:
        info["typed"] = request.name
    return info


class EventLog:
    """Tees a peer's events into ``events.jsonl`` in its table's folder.

    Events reported before the table is known (the lobby) are held and written once it is."""

    def __init__(self) -> None:
        self.held: list[dict[str, Any]] = []
        self.file: Any = None

    def open(self, state: HomeTable) -> None:
        state.folder.mkdir(parents=True, exist_ok=True)
        try:
            self.file = open(state.events_log, "a", buffering=1)  # noqa: SIM115 - kept open
        except OSError:
            self.file = None
            return
        for event in self.held:
            self.write(event)
        self.held = []

    def write(self, event: dict[str, Any]) -> None:
        if self.file is None:
            if len(self.held) < 256:
                self.held.append(event)
            return
        try:
            self.file.write(json.dumps(event, default=str) + "\n")
        except (OSError, ValueError):
            self.close()

    def close(self) -> None:
        if self.file is not None:
            with contextlib.suppress(OSError):
                self.file.close()
            self.file = None


__all__ = [
    "EVENTS_LOG",
    "FINISHED",
    "GAMES",
    "PLAYING",
    "STOPPED",
    "EventLog",
    "HomeTable",
    "Request",
    "TableChoiceNeeded",
    "about",
    "choose_table",
    "game_folder",
    "matches",
    "playing_tables",
    "saved_tables",
    "seat_game",
    "set_aside",
    "unfinished_table",
]
