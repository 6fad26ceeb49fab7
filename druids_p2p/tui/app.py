"""The Textual application: the lobby (``--lan``) or straight to a local table.

The shell knows no game: the table screen and the snapshots its sessions post are the game's
(:class:`~druids_p2p.tui.game_ui.TableUI`, from that game's TUI package, which its spec names)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message

from druids_p2p.peer.homes import SET_ASIDE
from druids_p2p.tui.bots import SavedGame
from druids_p2p.tui.dialogs import (
    ApproveJoin,
    ConfirmQuit,
    GoOnPrompt,
    GoOnQuestion,
    HelpScreen,
    JoinApproval,
    ResumeTable,
)
from druids_p2p.tui.game_ui import (
    NO_PREFS,
    UI_PACING,
    Evening,
    GameTableScreen,
    MoveRejected,
    Pacing,
    PeerEvent,
    Session,
    SessionEnded,
    TablePrefs,
    TableUI,
    TurnRequest,
)
from druids_p2p.tui.lobby import LanSetup, LobbyScreen
from druids_p2p.tui.player import NetSession, TableSpec
from druids_p2p.wire import Identity

log = logging.getLogger(__name__)

SessionFactory = Callable[[Callable[[Message], object]], Session]


class DruidsApp(App[dict[str, Any] | None]):
    """``make_session`` opens a table at once; ``lan`` shows the lobby first. ``table_ui``: the
    game the tables here play (its table screen and snapshots)."""

    TITLE = "Druids"
    CSS = """
    .dim { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "help"),
        Binding("q", "request_quit", "quit"),
        Binding("ctrl+q", "request_quit", "quit", show=False, priority=True),
        # Ctrl-C is quitting too, asked first as q is (Textual's own ctrl+c only hints ctrl+q).
        Binding("ctrl+c", "request_quit", "quit", show=False, priority=True),
    ]

    def __init__(
        self,
        *,
        table_ui: TableUI,
        make_session: SessionFactory | None = None,
        expected: tuple[str, ...] = (),
        lan: LanSetup | None = None,
        identity: Identity | None = None,
        folder: Path | None = None,
        saved: SavedGame | None = None,
        pacing: Pacing = UI_PACING,
        clock: Callable[[], float] = time.monotonic,
        plugins_dirs: tuple[Path, ...] = (),
        prefs: TablePrefs = NO_PREFS,
    ) -> None:
        """``saved``: a table this seat left unfinished (the person is asked first: rejoin or start
        anew). ``pacing``: how long a move and a completed trick stay in view. ``plugins_dirs``:
        where a rejoined local table's bots find plugins. ``prefs``: the person's preferences, for
        every table opened here.
        """
        super().__init__()
        self.table_ui = table_ui
        self.prefs = prefs
        self.pacing = pacing
        self.clock = clock
        self.leaving = False
        """The person left: what the table still reports is no longer shown."""
        self.saved = saved
        self.make_session = make_session
        self.expected = expected
        self.lan = lan
        self.identity = identity
        self.folder = folder
        self.plugins_dirs = lan.plugins_dirs if lan is not None else plugins_dirs
        self.session: Session | None = None
        self.table: GameTableScreen | None = None
        self.evening = Evening()
        """The games of this session and the running scores over them (tui/game_ui.py)."""
        self.generation = 0
        """Which session's messages are shown: a table left for a rematch posts on unheard."""
        self.rematchable = False
        """The table on show was made by ``make_session``, which makes its rematch too."""

    def on_mount(self) -> None:
        if self.saved is not None:
            self.push_screen(ResumeTable(self.saved), self._resume_answered)
            return
        self._begin()

    def _begin(self) -> None:
        if self.lan is not None:
            self.push_screen(LobbyScreen(self.lan))
        elif self.make_session is not None:
            self.open_session(self.make_session(self._poster()), self.expected)
            self.rematchable = True

    def _resume_answered(self, choice: str | None) -> None:
        if choice == "resume" and self.saved is not None:
            self.resume_saved(self.saved)
        elif choice == "new":
            if self.saved is not None:  # set aside: asked no more, its record kept
                self.saved.state.mark_stopped(SET_ASIDE)
            self._begin()
        else:
            self.exit(None)

    def resume_saved(self, saved: SavedGame) -> None:
        """Rejoin the saved table in its own game folder (its bots rejoin with it)."""
        assert self.identity is not None
        self.folder = saved.folder
        self.rematchable = False  # the command's table, not the saved one, is what it makes
        info = saved.state.info()
        spec = TableSpec(
            resume_folder=saved.state.folder,
            bind=str(info.get("bind") or "127.0.0.1"),
            plugins_dirs=self.plugins_dirs,
        )
        snapshots = self.table_ui.snapshots
        session = NetSession(self._poster(), self.identity, saved.folder, spec, snapshots)
        session.title = f"rejoining table '{info.get('name') or '?'}'"
        self.open_session(session)

    # ------------------------------------------------------------------ tables
    def open_table(
        self, spec: TableSpec, expected: tuple[str, ...], title: str | None = None
    ) -> None:
        """From the lobby: seat this peer at ``spec``'s table."""
        assert self.identity is not None and self.folder is not None
        snapshots = self.table_ui.snapshots
        session = NetSession(self._poster(), self.identity, self.folder, spec, snapshots)
        if title:
            session.title = title
        self.open_session(session, expected)

    def open_session(self, session: Session, expected: tuple[str, ...] = ()) -> None:
        self.session = session
        self.table = self.table_ui.open(session, expected, self.pacing, self.clock, self.prefs)
        if self.lan is not None and len(self.screen_stack) > 1:
            self.switch_screen(self.table)
        else:
            self.push_screen(self.table)
        session.start()

    def _poster(self) -> Callable[[Message], object]:
        """How a new session posts to the app: its messages are shown only while it is the
        session on show (a table left for a rematch may still report its lingering end)."""
        self.generation += 1
        generation = self.generation

        def post(message: Message) -> object:
            if generation != self.generation:
                return False
            return self.post_message(message)

        return post

    # ------------------------------------------------------------------ the evening
    @property
    def can_rematch(self) -> bool:
        """A rematch is offered: the table on show is one ``make_session`` made (you and your
        bots on this machine), which seats the same players with the same options again; or a
        LAN table, whose peers play the rematch among themselves (peer/session.py)."""
        local = self.make_session is not None and self.rematchable
        return local or getattr(self.session, "rematch", None) is not None

    def action_rematch(self) -> None:
        """The end screen's ``r``: the same people, the same options, a new table (a bot
        process for every bot seat, started afresh: one that died is replaced); the evening's
        running scores go on. Only once the table on show has ended."""
        table = self.table
        if not self.can_rematch or table is None:
            self.bell()
            return
        if table.ended is None and not table.finished and table.stopped is None:
            self.bell()  # the game is on: leaving it is the quit key's question
            return
        want = getattr(self.session, "want_rematch", None)
        if getattr(self.session, "rematch", None) is not None and callable(want):
            want()  # a LAN table: the peer asks the others (peer/session.py)
            self.notify(
                "Rematch: waiting for the others (a bot sits for anyone who does not come "
                "within 30 s)",
                timeout=10,
            )
            return
        if self.make_session is None:
            self.bell()
            return
        while len(self.screen_stack) > 1 and self.screen is not table:
            self.pop_screen()
        old = self.session
        retire = getattr(old, "retire", None)
        if callable(retire):
            retire()  # its bots finish their lingering first, then it is closed
        session = self.make_session(self._poster())
        self.session = session
        self.table = self.table_ui.open(session, self.expected, self.pacing, self.clock)
        self.switch_screen(self.table)
        session.start()

    async def on_peer_event(self, message: PeerEvent) -> None:
        kind = message.event.get("event")
        if kind in ("going_on", "rematching"):  # what follows is the next table's
            await self._next_table(forget=kind == "going_on")
        await self._forward(message)

    def on_go_on_question(self, message: GoOnQuestion) -> None:
        """A seat is gone for good: the person says whether to go on with a bot in its seat."""
        if self.leaving:
            message.answer(False)
            return
        self.push_screen(GoOnPrompt(str(message.offer.get("text"))), message.answer)

    async def _next_table(self, forget: bool) -> None:
        """The session goes on at a next table (peer/go_on.py, ``forget``: the stopped table's
        game goes on there, counted once as it ends; peer/session.py: a new game): a fresh table
        screen over it, the ended one's prompts taken down."""
        old, session = self.table, self.session
        if old is None or session is None or self.leaving:
            return
        while len(self.screen_stack) > 1 and self.screen is not old:
            self.pop_screen()
        if forget:
            self.evening.forget(old)
        self.table = self.table_ui.open(session, (), self.pacing, self.clock)
        await self.switch_screen(self.table)  # composed before it is handed anything

    async def on_turn_request(self, message: TurnRequest) -> None:
        await self._forward(message)

    async def on_move_rejected(self, message: MoveRejected) -> None:
        await self._forward(message)

    async def on_session_ended(self, message: SessionEnded) -> None:
        await self._forward(message)

    def on_join_approval(self, message: JoinApproval) -> None:
        """Hosting: the lobby waits for the person to seat or refuse a joiner."""
        request = message.request
        lines = [
            request.describe(),
            "Seat them only if this is the fingerprint of the player you expect "
            "(they see theirs with 'druids id').",
        ]
        self.push_screen(ApproveJoin(lines, request.fingerprint), message.answer)

    async def _forward(self, message: Message) -> None:
        """Hand a table message to the table screen, which shows it in turn (paced). After the
        person left, the peer still reports the table it stops (aborted, result): nothing of it
        is shown over a closing app (that raised NoMatches from a half-made GameOver)."""
        table = self.table
        if table is None or self.leaving:
            return
        await table.receive(message)

    # ------------------------------------------------------------------ keys
    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(self.table_ui.help())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The coach's key (``COACH_KEY``) is there only at a table with the coach on."""
        if action == "coach":
            return self.table is not None and self.table.coach_on
        return True

    def action_coach(self) -> None:
        """``a`` at a table with the coach on (its screen and every prompt over it)."""
        if self.table is not None and self.table.coach_on and not self.leaving:
            self.table.ask_coach()

    def action_chat(self) -> None:
        """``c`` at a table (``CHAT_KEY``: its screen and every prompt over it): the chat box."""
        if self.table is not None and not self.leaving:
            self.table.open_chat()

    def action_request_quit(self) -> None:
        if isinstance(self.screen, ConfirmQuit):
            return
        table = self.table
        playing = (
            table is not None
            and table.ended is None
            and not table.finished
            and table.stopped is None
        )
        if not playing:
            self.leave()
            return
        record = table.record if table is not None else None
        self.push_screen(ConfirmQuit(record), self._confirmed)

    def _confirmed(self, leave: bool | None) -> None:
        if leave:
            self.leave()

    def outcome(self) -> dict[str, Any] | None:
        """What the command prints after the UI closes: the record and the result."""
        if self.session is None:
            return None
        table = self.table
        record = (table.record if table is not None else None) or self.session.record
        snap = table.snapshot if table is not None else None
        return {
            "record": record,
            "result": (table.result if table is not None else None) or self.session.result,
            "stopped": table.stopped if table is not None else None,
            "folder": str(self.folder) if self.folder is not None else None,
            "names": list(snap.names) if snap is not None else None,
            "my_seat": snap.my_seat if snap is not None else None,
            "evening": self.evening.to_json(),
        }

    def leave(self) -> None:
        self.leaving = True
        if self.session is not None:
            self.session.close()
        self.exit(self.outcome())

    def on_unmount(self) -> None:
        if self.session is not None:
            self.session.close()
