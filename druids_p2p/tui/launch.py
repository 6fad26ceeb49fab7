"""Starting the UI: from the command line, at a table left unfinished, with the bots it seats.

The bots are separate peer processes on this machine; a table a crash left unfinished is offered
again before anything else; a bad command line is caught before the screen opens."""

from __future__ import annotations

import atexit
import contextlib
import logging
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from druids_p2p.peer.homes import HomeTable, playing_tables
from druids_p2p.peer.local_table import PeerProcess, peer_argv
from druids_p2p.tui.game_ui import NO_PREFS, UI_PACING, Pacing, TablePrefs

# Bots that sit at the UI's table: separate ``druids`` peer processes on this machine.
#
# Each bot has its own data folder (identity, table secret, game record) under the game's folder.
# A bot for a table this UI hosts joins its lobby socket (``druids peer --join HOST:PORT``); a bot
# brought to someone else's LAN table finds it by its beacon (``druids join LOBBY_ID --bot NAME``).


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
    ) -> None:
        """``rematches``: how many rematches the bots say yes to (``--rematch``, a LAN
        table's: peer/session.py)."""
        self.rematches = rematches
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
        argv = ["--gone-after", str(BOT_GONE_AFTER_S), "--go-on"]
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


# The terminal UI's answer to a table left unfinished (the UI or its machine crashed).
#
# ``druids play`` (with or without ``--lan``) looks for a table of the game asked for (``--game``)
# this person's seat was still playing in a game folder (``--workdir``, else every folder under
# ``<data>/games``) and asks first: rejoin it (the same folder, the UI's peer rejoining its saved
# table at that game's table screen; its bots rejoin too if they are not still running), or start
# a new table (the old one is set aside: marked stopped, so it is not offered again, and kept with
# its record, never deleted), or quit.
# A stopped or finished table is never offered: homes.py decides what is still playing. The
# question itself is the ``ResumeTable`` dialog (:mod:`druids_p2p.tui.dialogs`).


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


# Start the UI from the command line: a local table (``druids play``) or the lobby (``--lan``).
#
# Everything that can be wrong with the command line is checked before the screen is taken over,
# so bad input is one line on stderr. The game's table screen is its UI's (``GameSpec.ui``, found
# by the game's name: ``game``, None for the default). The game's folder (this peer's record, the
# bots' data and a log) is kept after the UI closes, and its record path printed.


log = logging.getLogger(__name__)


def game_folder(workdir: Path | None) -> Path:
    """``--workdir`` or a new folder under the data directory: ``games/<date-time>-<pid>``."""
    from druids_p2p.peer.homes import game_folder as new_game_folder
    from druids_p2p.wire import data_dir

    return new_game_folder(data_dir(), workdir)


def _log_to_file(folder: Path) -> None:
    """The net layer's log goes to a file, never over the screen."""
    handler = logging.FileHandler(folder / "druids.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


def run_local(
    identity: Any,
    bots: list[BotSeat],
    *,
    rounds: int,
    variant: bool,
    budget_ms: float,
    folder: Path,
    plugins_dirs: tuple[Path, ...] = (),
    saved: Any = None,
    pacing: Pacing = UI_PACING,
    game: str | None = None,
    prefs: TablePrefs = NO_PREFS,
) -> dict[str, Any] | None:
    from druids_p2p.tui.app import DruidsApp
    from druids_p2p.tui.game_ui import table_ui
    from druids_p2p.tui.player import NetSession, local_table

    table = table_ui(game)
    _log_to_file(folder)
    spec = local_table(bots, rounds=rounds, variant=variant, budget_ms=budget_ms, game=game)
    spec.plugins_dirs = plugins_dirs
    sessions: list[NetSession] = []

    def make(post: Any) -> NetSession:
        session = NetSession(post, identity, folder, spec, table.snapshots)
        sessions.append(session)
        return session

    app = DruidsApp(
        table_ui=table,
        make_session=make,
        expected=tuple(b.name for b in bots),
        identity=identity,
        folder=folder,
        saved=saved,
        pacing=pacing,
        plugins_dirs=plugins_dirs,  # the saved table's bots, rejoining, find plugin bots too
        prefs=prefs,
    )
    try:
        return app.run()
    finally:
        if isinstance(app.session, NetSession) and app.session not in sessions:
            sessions.append(app.session)  # the saved table, rejoined
        for session in sessions:
            session.close()
            session.wait(3.0)


def run_lan(
    identity: Any,
    setup: Any,
    folder: Path,
    saved: Any = None,
    pacing: Pacing = UI_PACING,
    game: str | None = None,
    prefs: TablePrefs = NO_PREFS,
) -> dict[str, Any] | None:
    from druids_p2p.tui.app import DruidsApp
    from druids_p2p.tui.game_ui import table_ui

    table = table_ui(game)
    _log_to_file(folder)
    app = DruidsApp(
        table_ui=table,
        lan=setup,
        identity=identity,
        folder=folder,
        saved=saved,
        pacing=pacing,
        prefs=prefs,
    )
    try:
        return app.run()
    finally:
        session = app.session
        if session is not None:
            session.close()
            wait = getattr(session, "wait", None)
            if callable(wait):
                wait(3.0)
