"""The past games a data folder keeps, newest first: ``druids history``.

Every seat's table lives under some home's ``tables/<id24>/`` (``homes.py``), so the history is
each such table once, read from what its seats kept. A folder that cannot be read is an entry
saying why (``malformed``): a crash or a hand-edited file never hides the rest of the list.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from druids_p2p.games.registry import ruleset_of
from druids_p2p.lan.seating import seat_order
from druids_p2p.peer.homes import FINISHED, PLAYING, STOPPED, HomeTable
from druids_p2p.wire import Message, MsgType, WireError, decode
from druids_p2p.wire.msgtypes import RecordError
from druids_p2p.wire.record import MAGIC, iter_record

MALFORMED = "malformed"
MAX_DEPTH = 6
"""How deep under the data folder ``tables`` folders are looked for (a UI bot's home is
``games/<game>/bots/<name>/tables``: 4)."""
MAX_FOLDERS = 100_000
"""Folders looked at, at most: a data folder holding something else entirely ends the walk."""


@dataclass
class PastSeat:
    name: str
    total: int | None = None
    won: bool = False


@dataclass
class PastGame:
    """One table as this machine kept it."""

    folder: Path
    when: float
    game: str | None = None
    status: str = MALFORMED
    """``finished``, ``stopped``, ``playing`` (left unfinished: a crash) or ``malformed``."""
    players: list[PastSeat] = field(default_factory=list)
    """In play order once the seating is known (the totals' order), else the seat list's."""
    reason: str | None = None
    """Why it stopped, or what is wrong with the folder."""
    seen_from: int = 1
    """How many seats of this table this machine kept."""
    went_on_from: str | None = None
    """A table that went on without a departed seat: the previous table's id (24 hex digits,
    its folder's name) and who stood in for whom (protocol.md §4, "Going on")."""

    @property
    def record(self) -> Path:
        return self.folder / "record.druids"

    def result(self) -> str:
        """One line: who won and the totals, why it stopped, or what is wrong."""
        if self.status == FINISHED:
            won = [p.name for p in self.players if p.won]
            verb = "won" if len(won) == 1 else "share the win"
            scores = ", ".join(f"{p.name} {p.total}" for p in self.players)
            return f"{' and '.join(won) or 'nobody'} {verb} — {scores}"
        if self.status == STOPPED:
            return f"stopped: {self.reason or 'no reason kept'}"
        if self.status == PLAYING:
            return "unfinished (its peer stopped without ending it: a crash, or still playing)"
        return f"malformed: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return {
            "when": datetime.fromtimestamp(self.when).isoformat(timespec="seconds"),
            "game": self.game,
            "status": self.status,
            "players": [{"name": p.name, "total": p.total, "won": p.won} for p in self.players],
            "result": self.result(),
            "record": str(self.record),
            "folder": str(self.folder),
            "seen_from": self.seen_from,
            "problem": self.reason if self.status == MALFORMED else None,
            "went_on_from": self.went_on_from,
        }


def table_folders(data: Path) -> Iterator[Path]:
    """Every folder directly under a ``tables`` folder below ``data`` (bounded walk; links are
    not followed)."""
    looked = 0
    stack: list[tuple[Path, int]] = [(data, 0)]
    while stack and looked < MAX_FOLDERS:
        folder, depth = stack.pop()
        try:
            children = [e for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        looked += len(children)
        for entry in children:
            path = Path(entry.path)
            if entry.name == "tables":
                try:
                    yield from sorted(
                        Path(t.path) for t in os.scandir(path) if t.is_dir(follow_symlinks=False)
                    )
                except OSError:
                    continue
            elif depth + 1 < MAX_DEPTH:
                stack.append((path, depth + 1))


def read_game(folder: Path) -> PastGame:
    """What one table folder says of its game; never raises (see the module docstring)."""
    game = PastGame(folder, _when(folder))
    seat_path = folder / "seat.msg"
    try:
        seat = decode(seat_path.read_bytes())
    except OSError as exc:
        game.reason = f"no seat message ({exc.strerror or exc})"
        return game
    except WireError as exc:
        game.reason = f"its seat message does not decode ({exc})"
        return game
    if seat.type is not MsgType.SEAT:
        game.reason = f"its seat message is a {seat.type.label}"
        return game
    names = [str(n) for n in seat.body["names"]]
    game.players = [PastSeat(n) for n in names]
    account, stand_in = seat.body.get("continues"), seat.body.get("stand_in")
    if account is not None and isinstance(stand_in, int) and 0 <= stand_in < len(names):
        game.went_on_from = f"{bytes(account['table']).hex()[:24]} ({names[stand_in]})"
    try:
        game.game = str(ruleset_of(seat.body["options"]))
    except (ValueError, KeyError, TypeError) as exc:
        game.reason = f"its seat message names no game this program plays ({exc})"
        return game
    try:
        info = json.loads((folder / "state.json").read_text())
    except OSError as exc:
        game.reason = f"no state.json ({exc.strerror or exc})"
        return game
    except ValueError as exc:
        game.reason = f"state.json is not JSON ({exc})"
        return game
    if not isinstance(info, dict):
        game.reason = "state.json is not a map"
        return game
    status = HomeTable(folder).status  # a playing table whose record ends in an abort: stopped
    info = HomeTable(folder).info() or info
    if status == FINISHED:
        problem = _take_result(game, seat, info.get("result"))
        if problem is not None:
            game.reason = problem
            return game
    elif status == STOPPED:
        game.reason = str(info.get("stopped") or "") or None
    elif status != PLAYING:
        game.reason = f"state.json says {status!r}"
        return game
    game.status = status
    return game


def _take_result(game: PastGame, seat: Message, result: object) -> str | None:
    """The finished game's totals and winners, in play order with its names; or what is wrong."""
    if not isinstance(result, dict):
        return "state.json keeps no result for a finished table"
    totals, winners = result.get("totals"), result.get("winners")
    players = len(seat.body["seats"])
    if not (
        isinstance(totals, list)
        and len(totals) == players
        and all(isinstance(t, int) for t in totals)
        and isinstance(winners, list)
        and all(isinstance(w, int) and 0 <= w < players for w in winners)
    ):
        return "state.json's result is not one total per seat and winners among them"
    names = result.get("names")
    if not (isinstance(names, list) and len(names) == players):
        names = play_order_names(game.record, seat)
    if names is None:
        return "its record does not say the play order (its seating is cut short)"
    game.players = [
        PastSeat(str(name), int(total), i in winners)
        for i, (name, total) in enumerate(zip(names, totals, strict=True))
    ]
    return None


def play_order_names(record: Path, seat: Message) -> list[str] | None:
    """The names in play order, from the seat nonces at the start of ``record`` (the coin flip,
    protocol.md §4); None if the record does not hold them all. Reads only the seating."""
    keys = list(seat.body["seats"])
    nonces: dict[bytes, bytes] = {}
    try:
        with open(record, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                return None
            for count, (_, raw) in enumerate(iter_record(f)):
                if count > 2 * len(keys) + 1:
                    break
                try:
                    msg = decode(raw)
                except WireError:
                    return None
                if msg.type is MsgType.SEAT_NONCE and msg.sender in keys:
                    nonces[msg.sender] = bytes(msg.body["nonce"])
    except (OSError, RecordError):
        return None
    if len(nonces) != len(keys):
        return None
    names = dict(zip(keys, seat.body["names"], strict=True))
    return [str(names[k]) for k in seat_order(seat.table_id, keys, nonces)]


def _when(folder: Path) -> float:
    """When the table was seated: its seat message's time, else the folder's."""
    for path in (folder / "seat.msg", folder):
        try:
            return path.stat().st_mtime
        except OSError:
            continue
    return 0.0


def _kept_for_a_person(game: PastGame) -> bool:
    """A seat the person played (the UI's ``me``, a ``human`` seat), not a bot's home."""
    info = HomeTable(game.folder).info()
    return "bots" not in game.folder.parts and info.get("player", "human") == "human"


def past_games(data: Path) -> list[PastGame]:
    """Every table kept under ``data``, newest first; a table several of whose seats are kept
    here is listed once (the person's seat if one is, else the first found)."""
    by_table: dict[str, list[PastGame]] = {}
    for folder in table_folders(data):
        by_table.setdefault(folder.name, []).append(read_game(folder))
    games = []
    for seen in by_table.values():
        readable = [g for g in seen if g.status != MALFORMED] or seen
        person = [g for g in readable if _kept_for_a_person(g)]
        chosen = (person or readable)[0]
        chosen.seen_from = len(seen)
        games.append(chosen)
    games.sort(key=lambda g: (g.when, str(g.folder)), reverse=True)
    return games


__all__ = ["MALFORMED", "PastGame", "past_games", "play_order_names", "read_game"]
