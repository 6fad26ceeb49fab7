"""The bridge to the peer: this seat's :class:`UIPlayer` and the :class:`NetSession` that runs the
peer on a worker thread and the bots as processes. The peer's thread owns the table and posts
snapshots; the UI thread only puts chosen moves on the queue ``UIPlayer.choose`` waits on.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.message import Message

from druids_p2p.games.registry import default_game, table_options
from druids_p2p.lan.discovery import DEFAULT_PORT
from druids_p2p.lan.peer_config import (
    ChatOutbox,
    ChatRefused,
    HostSpec,
    PeerConfig,
    PeerError,
    Player,
    PlayerMove,
    TableView,
)
from druids_p2p.peer.session import run_peer
from druids_p2p.tui.bots import BotSeat, LocalBots
from druids_p2p.tui.dialogs import ApprovalBridge, GoOnBridge, RematchBridge
from druids_p2p.tui.game_ui import (
    MoveRejected,
    PeerEvent,
    Session,
    SessionEnded,
    Snapshots,
    TurnRequest,
)
from druids_p2p.tui.widgets import in_your_words
from druids_p2p.wire import Identity

log = logging.getLogger(__name__)

Post = Callable[[Message], object]

REMATCH_BOTS = 99
"""At a LAN table the person's bots say yes to every rematch (the person's own yes decides
whether they are seated: a bot sits in for a seat that does not come)."""
RETIRE_S = 15.0
"""How long a table left for a rematch may linger before its bots are stopped (the net layer's
longest linger after a game is 10 s)."""


class LeftTable(PeerError):
    """The person left the table (raised on the peer's thread to stop it)."""


class UIPlayer(Player):
    """This seat's player: asks the UI and waits for the person's move. ``snapshots`` is the
    game's picture of the table (its TUI package's), posted with every request."""

    def __init__(self, post: Post, snapshots: Snapshots) -> None:
        self.post = post
        self.snapshots = snapshots
        self.table: TableView | None = None
        """The peer's read-only view of the table (snapshots for the UI are taken from it)."""
        self.moves: queue.Queue[tuple[int, int]] = queue.Queue()
        self.turn = 0
        self.asking = 0
        self.leaving = threading.Event()
        self.moving_on = threading.Event()
        """The person asked for a rematch: the ended table holds the peer no longer."""

    def attach(self, table: TableView) -> None:
        self.table = table

    def choose(self, table: TableView) -> int:
        self.turn += 1
        self.post(TurnRequest(self.snapshots(table, self.turn)))
        while True:
            if self.leaving.is_set():
                raise LeftTable("you left the table")
            try:
                move, asked = self.moves.get(timeout=0.2)
            except queue.Empty:
                continue
            if asked == self.turn:  # else an answer to an earlier request (a double key press)
                return move

    def wants_to_leave(self) -> bool:
        return self.leaving.is_set()

    def stays_for_talk(self) -> bool:
        """The person is at the table until they leave it (its end screen open): chat goes on;
        not once they asked for a rematch (the next table is where talk goes on)."""
        return not self.leaving.is_set() and not self.moving_on.is_set()

    def poll(self, table: TableView) -> int | None:
        """Non-blocking: the table keeps serving the network while the person thinks."""
        if self.asking != self.turn or self.turn == 0:
            self.turn += 1
            self.asking = self.turn
            self.post(TurnRequest(self.snapshots(table, self.turn)))
        while True:
            try:
                move, asked = self.moves.get_nowait()
            except queue.Empty:
                return None
            if asked == self.turn:  # else an answer to an earlier request (a double key press)
                self.asking = 0  # the next poll is a new turn
                return move

    def refused(self, move: PlayerMove, reason: str) -> None:
        """The table refused the person's move (it checks every move, once): told why in their
        words; the next poll asks again."""
        seat = self.table.seat if self.table is not None else None
        move = move if isinstance(move, int) else move.id  # this UI submits ids: it is told one
        self.post(MoveRejected(move, in_your_words(reason, -1 if seat is None else seat) or reason))

    def submit(self, move: int, turn: int) -> None:
        self.moves.put((move, turn))


@dataclass
class TableSpec:
    """Which table the UI's peer plays at and which bots it brings."""

    bots: list[BotSeat] = field(default_factory=list)
    host: HostSpec | None = None
    """Host this table (else join ``announcement``)."""
    announcement: bytes | None = None
    lobby_id: str | None = None
    """Of the announced table (bots brought to it find it by this)."""
    host_fingerprint: str | None = None
    """Of the announced table's host: bots brought to it join only that host's table."""
    bind: str = "127.0.0.1"
    announce: bool = False
    beacon_port: int = DEFAULT_PORT
    budget_ms: float = 100.0
    gone_after_s: float = 300.0
    step_deadline_s: float = 10.0
    rejoin_time_s: float = 30.0
    """The step deadline and rejoin time of the UI's peer and its bots (``PeerConfig``'s)."""
    plugins_dirs: tuple[Path, ...] = ()
    resume_folder: Path | None = None
    """Rejoin this saved table (``<game>/me/tables/<id>``) instead; the bots rejoin theirs."""

    @property
    def lan(self) -> bool:
        """A table on the LAN (hosted with beacons, or joined from one), not you and your bots
        alone: its rematch is the peers' own (peer/session.py)."""
        return self.announce or self.announcement is not None

    @property
    def title(self) -> str:
        if self.host is not None:
            where = "local table" if not self.announce else f"LAN table on {self.bind}"
            return f"{where} '{self.host.name}'"
        return "LAN table"


def local_table(
    bots: list[BotSeat],
    rounds: int = 5,
    variant: bool = False,
    budget_ms: float = 100.0,
    game: str | None = None,
    coach: bool = True,
) -> TableSpec:
    """You and ``bots`` on this machine over loopback; nothing announced. The options are the
    rule set ``game``'s, checked as a seat message's are (ValueError says what is wrong); the
    coach is on (you are its one person: key ``a`` asks it)."""
    players = len(bots) + 1
    game = game if game is not None else default_game()
    fields = {"ruleset": game, "players": players, "variant": variant, "rounds": rounds}
    fields["coach"] = coach
    _, options = table_options(fields)
    return TableSpec(bots=bots, host=HostSpec("local", options, game), budget_ms=budget_ms)


class _LogToUI(logging.Handler):
    """The net layer's warnings ("dropped a bad message…") go to the table's log, not stderr."""

    def __init__(self, post: Post) -> None:
        super().__init__(logging.WARNING)
        self.post = post

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:
            return
        self.post(PeerEvent({"event": "warning", "text": text}, None))


class NetSession(Session):
    """The UI's seat at a real table: ``run_peer`` on a thread, bots as local processes;
    ``snapshots`` is the game's picture of the table (``GameUI.table.snapshots``)."""

    def __init__(
        self, post: Post, identity: Identity, folder: Path, spec: TableSpec, snapshots: Snapshots
    ) -> None:
        self.post = post
        self.snapshots = snapshots
        self.identity = identity
        self.folder = folder
        self.spec = spec
        self.title = spec.title
        self.player = UIPlayer(post, snapshots)
        self.bots = LocalBots(
            folder / "bots",
            spec.bots,
            bind=spec.bind,
            budget_ms=spec.budget_ms,
            plugins_dirs=spec.plugins_dirs,
            rematches=REMATCH_BOTS if spec.lan else 0,
            deadlines=(
                *("--step-deadline", str(spec.step_deadline_s)),
                *("--rejoin-time", str(spec.rejoin_time_s)),
            ),
        )
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self.record: str | None = None
        self._thread: threading.Thread | None = None
        self._watcher: threading.Thread | None = None
        self._stop = threading.Event()
        self._log_handler = _LogToUI(post)
        self.approval: ApprovalBridge | None = None
        """Asks the person before seating a joiner at a table this UI hosts (not its own bots)."""
        self.chat = ChatOutbox()
        """Lines the person types, sent by the peer's thread once seated (lan/peer_config.py)."""
        self.go_on = GoOnBridge(post)
        """Asks the person whether to go on without a seat gone for good (peer/go_on.py)."""
        self.rematch = RematchBridge() if spec.lan else None
        """At a LAN table: the end screen's ``r`` answers the peer's rematch question."""
        self._bots_joined = False
        """The bots were sent to the first table's lobby (a next table's has its stand-in)."""

    def config(self) -> PeerConfig:
        spec = self.spec
        if spec.host is not None:
            self.approval = ApprovalBridge(self.post, self.bots.identity_keys())
        return PeerConfig(
            home=self.folder / "me",
            identity=self.identity,
            bind=spec.bind,
            host=spec.host,
            announcement=spec.announcement,
            announce=spec.announce,
            beacon_port=spec.beacon_port,
            budget_ms=spec.budget_ms,
            gone_after_s=spec.gone_after_s,
            step_deadline_s=spec.step_deadline_s,
            rejoin_time_s=spec.rejoin_time_s,
            plugins_dirs=spec.plugins_dirs,
            emit=self._emit,
            custom_player=self.player,
            approve_join=self.approval,
            resume_folder=spec.resume_folder,
            new=spec.resume_folder is None,
            chat=self.chat,
            go_on=False,  # a coin flip stopped by a seat stops the session's table
            go_on_ask=self.go_on,  # a seat gone for good: the person is asked
            rematch_ask=self.rematch,  # a LAN table's rematch: the end screen's r
        )

    def start(self) -> None:
        if self.spec.resume_folder is not None:
            self.bots.rejoin_saved()
        logging.getLogger("druids_p2p").addHandler(self._log_handler)
        self._thread = threading.Thread(target=self._run, name="druids-peer", daemon=True)
        self._thread.start()
        self._watcher = threading.Thread(target=self._watch, name="druids-bots", daemon=True)
        self._watcher.start()

    def _run(self) -> None:
        try:
            self.result = run_peer(self.config())
        except LeftTable:
            self.error = None
        except PeerError as exc:
            self.error = str(exc)
        except OSError as exc:
            self.error = f"network: {exc}"
        except Exception as exc:  # never a traceback on the screen: one line, and the log
            log.debug("the peer failed", exc_info=exc)
            self.error = f"the peer stopped: {type(exc).__name__}: {exc}"
        finally:
            self._stop.set()
        self.post(SessionEnded(self.result, self.error))

    def _watch(self) -> None:
        while not self._stop.wait(0.5):
            for line in self.bots.failures():
                self.post(PeerEvent({"event": "bot_failed", "text": line}, None))

    def _emit(self, event: dict[str, Any]) -> None:
        """``config.emit``: runs on the peer's thread, which owns the table."""
        kind = event.get("event")
        if kind in ("chat", "chat_refused"):  # talk changes nothing at the table: no snapshot,
            self.post(PeerEvent(dict(event), None))  # which would take back a turn being asked
            return
        if kind == "lobby" and self.spec.host is not None and not self._bots_joined:
            self._bots_joined = True  # only the first table's lobby: a next table's is invited
            self.bots.join_lobby(str(event["lobby"]))
        elif kind == "joining" and self.spec.lobby_id and self.spec.bots and not self._bots_joined:
            self._bots_joined = True
            fp = self.spec.host_fingerprint
            self.bots.join_announced(self.spec.lobby_id, self.spec.beacon_port, fp)
        if kind in ("seated", "result") and event.get("record"):
            self.record = str(event["record"])
        if kind in ("going_on", "rematching"):
            self.player.table = None  # the ended table's view: no snapshot until the next one
            self.player.moving_on.clear()  # at the next table's end, talk holds the peer again
        table = self.player.table
        snapshot = None
        if table is not None:
            self.coach_on = bool(getattr(table.options, "coach", False))  # the signed options'
            try:
                snapshot = self.snapshots(table, None)
            except Exception as exc:  # a snapshot must never stop the peer
                log.debug("snapshot failed", exc_info=exc)
        self.post(PeerEvent(dict(event), snapshot))

    def submit(self, move: int, turn: int) -> None:
        self.player.submit(move, turn)

    def send_chat(self, text: str) -> str | None:
        if self._stop.is_set():  # queued now, it would wait for ever: nobody would hear it
            return "the table is closed: nobody hears chat any more"
        try:
            self.chat.say(text)
        except ChatRefused as exc:
            return str(exc)
        return None

    def close(self) -> None:
        """Leave: stop the peer's thread (at its next tick) and kill the bots."""
        self.player.leaving.set()  # the runner stops at its next tick, recording why
        self.go_on.close()  # a question waiting is answered no
        if self.rematch is not None:
            self.rematch.close()
        if self.approval is not None:
            self.approval.close()  # a joiner waiting for the person's answer is refused
        self._stop.set()  # before the bots are killed: leaving is not a bot failure
        self.bots.close()
        logging.getLogger("druids_p2p").removeHandler(self._log_handler)

    def want_rematch(self) -> None:
        """The end screen's ``r`` at a LAN table: the peer stops lingering for talk and answers
        yes to its rematch question (peer/session.py)."""
        if self.rematch is not None:
            self.player.moving_on.set()
            self.rematch.want()

    def retire(self, timeout: float = RETIRE_S) -> None:
        """Left for a rematch, its table over: let the peer and its bots finish lingering (a
        slower bot still needs the others' last messages), then close it; on a thread of its
        own, so that the next table starts at once."""

        def finish() -> None:
            deadline = time.monotonic() + timeout
            self.wait(timeout)
            for peer in self.bots.peers:
                if peer.proc is not None:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        peer.proc.wait(max(0.1, deadline - time.monotonic()))
            self.close()

        threading.Thread(target=finish, name="druids-retire", daemon=True).start()

    def wait(self, timeout: float = 5.0) -> None:
        """Let the peer's thread finish (it lingers a moment to help slower peers)."""
        deadline = time.monotonic() + timeout
        for thread in (self._thread, self._watcher):
            if thread is not None:
                thread.join(max(0.0, deadline - time.monotonic()))
