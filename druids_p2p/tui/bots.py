"""Bots that sit at the UI's table: separate ``druids`` peer processes on this machine, each with
its own data folder under the game's; it joins this UI's lobby socket, or another host's table
by its beacon. A table left unfinished (the UI or its machine crashed) is offered here too:
rejoin it, start anew, or quit.
"""

from __future__ import annotations

import atexit
import contextlib
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from druids_p2p.peer.homes import HomeTable, playing_tables
from druids_p2p.peer.local_table import PeerProcess, peer_argv

# The terminal UI's answer to a table left unfinished (the UI or its machine crashed): rejoin it,
# start a new table (the old one set aside, its record kept), or quit. Only a table still playing
# is offered (``peer/homes.py`` decides).
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


# Bots that sit at the UI's table: separate ``druids`` peer processes on this machine, each with
# its own data folder under the game's; it joins this UI's lobby socket, or another host's table
# by its beacon.
BOT_GONE_AFTER_S = 3600.0
"""How long a bot waits for a silent player: a person may think (or read the help) for a while."""


@dataclass(frozen=True)
class BotSeat:
    bot: str
    """Registered bot name (``rule``, ``random``, ``pimc``, a plugin's)."""
    name: str
    """Display name at the table."""


def bot_seats(bots: list[str]) -> list[BotSeat]:
    """Display names for a list of bots: ``rule-1``, ``rule-2``, ``pimc-3``."""
    return [BotSeat(bot, f"{bot}-{i}"[:32]) for i, bot in enumerate(bots, start=1)]


class LocalBots:
    """Start, watch and stop the bot processes of one table."""

    def __init__(
        self,
        folder: Path,
        seats: list[BotSeat],
        *,
        bind: str = "127.0.0.1",
        budget_ms: float = 100.0,
        beacon_port: int | None = None,
        plugins_dirs: tuple[Path, ...] = (),
        rematches: int = 0,
        deadlines: tuple[str, ...] = (),
    ) -> None:
        """``rematches``: how many rematches the bots say yes to (``--rematch``, a LAN
        table's: peer/session.py). ``deadlines``: the table's ``--step-deadline`` and
        ``--rejoin-time`` flags, as the person's own peer keeps them."""
        self.rematches = rematches
        self.deadlines = deadlines
        self.folder = folder
        self.seats = seats
        self.bind = bind
        self.budget_ms = budget_ms
        self.beacon_port = beacon_port
        self.plugins_dirs = plugins_dirs
        self.peers: list[PeerProcess] = []
        self._reported: set[int] = set()
        atexit.register(self.close)

    def _common(self) -> list[str]:
        # The person's bots go on with the person when a seat is gone for good (peer/go_on.py):
        # the person's own answer decides whether there is a next table for them to join.
        argv = ["--gone-after", str(BOT_GONE_AFTER_S), "--go-on", *self.deadlines]
        if self.rematches:
            argv += ["--rematch", str(self.rematches)]
        for folder in self.plugins_dirs:
            argv += ["--plugins-dir", str(folder)]
        return argv

    def join_lobby(self, lobby: str) -> None:
        """Seat every bot at the table whose lobby socket is ``HOST:PORT`` (a table we host)."""
        for index, seat in enumerate(self.seats):
            options = ["--bind", self.bind, "--no-announce", "--join", lobby, "--new"]
            options += self._common()
            argv = peer_argv(f"bot:{seat.bot}", seat.name, self.budget_ms, options)
            self._start(index, seat, argv)

    def identity_keys(self) -> list[bytes]:
        """The bots' public keys, their identities made now if need be (each process then loads
        its own): a table this UI hosts seats them without asking the person."""
        from druids_p2p.wire import IdentityError, rename_identity

        keys = []
        for seat in self.seats:
            with contextlib.suppress(IdentityError):  # the process reports it itself
                keys.append(rename_identity(seat.name, self._home(seat)).public_key)
        return keys

    def join_announced(
        self, lobby_id: str, beacon_port: int, fingerprint: str | None = None
    ) -> None:
        """Seat every bot at an announced LAN table, found by its lobby id's beacon and, given
        its host's fingerprint, only at that host's (anyone can announce a copied lobby id)."""
        from druids_p2p.wire import IdentityError, rename_identity

        for index, seat in enumerate(self.seats):
            home = self._home(seat)
            with contextlib.suppress(IdentityError):  # the process reports it itself
                rename_identity(seat.name, home)  # ``join`` has no --name: name the bot first
            argv = [
                sys.executable,
                "-m",
                "druids_p2p",
                "join",
                lobby_id,
                "--bot",
                seat.bot,
                "--address",
                self.bind,
                "--beacon-port",
                str(beacon_port),
                "--json",
                *(["--fingerprint", fingerprint] if fingerprint else []),
                "--new",  # a table of this game folder left unfinished never blocks this one
                *self._common(),
            ]
            self._start(index, seat, argv)

    def rejoin_saved(self) -> list[str]:
        """Restart each bot of this game folder whose table is still playing and whose process
        is gone (one that outlived a crashed UI still holds its inbox port and plays on); the
        names of those restarted."""
        from druids_p2p.tui.bots import port_in_use, saved_bots

        started = []
        for home, state in saved_bots(self.folder):
            info = state.info()
            bind = str(info.get("bind") or self.bind)
            if port_in_use(bind, int(info.get("port", 0))):
                continue
            player = str(info.get("player") or "bot:rule")
            argv = peer_argv(player, home.name, self.budget_ms, ["--resume", *self._common()])
            self.seats.append(BotSeat(player.removeprefix("bot:"), home.name))
            peer = PeerProcess(len(self.seats) - 1, home, argv, human=False)
            self.peers.append(peer)
            peer.start()
            started.append(home.name)
        return started

    def _home(self, seat: BotSeat) -> Path:
        return self.folder / seat.name

    def _start(self, index: int, seat: BotSeat, argv: list[str]) -> None:
        peer = PeerProcess(index, self._home(seat), argv, human=False)
        self.peers.append(peer)
        peer.start()

    def failures(self) -> list[str]:
        """One line per bot process that stopped without a result (each reported once)."""
        out = []
        for peer in self.peers:
            if peer.index in self._reported or peer.proc is None:
                continue
            code = peer.proc.poll()
            if code is None or peer.result() is not None:
                continue
            self._reported.add(peer.index)
            name = self.seats[peer.index].name
            out.append(f"bot {name} stopped (exit {code}): {peer.tail_log()}")
        return out

    def close(self) -> None:
        """Kill every bot process still running (idempotent)."""
        for peer in self.peers:
            peer.kill()
