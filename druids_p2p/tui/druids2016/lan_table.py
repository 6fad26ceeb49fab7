"""The Druids (2016) table screen at a table of peers: the offline table's board and keys over the
snapshots a :class:`~druids_p2p.tui.game_ui.Session` posts. The chosen move goes to the session; the
table alone judges it, and a refusal comes back as :class:`MoveRejected` with its reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Unpack

from textual.binding import BindingType
from textual.message import Message

from druids_p2p.games.druids2016.board import default_board
from druids_p2p.games.druids2016.game import Game, Options
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.view import DRAWING, PLACING, SeatView
from druids_p2p.games.spec import Bot
from druids_p2p.tui.druids2016.replay import Replay2016App
from druids_p2p.tui.druids2016.session import (
    Offline2016,
    bot_chooser,
    bot_placement,
    start_bot,
    view_position,
)
from druids_p2p.tui.druids2016.table import (
    Druids2016App,
    GameOver2016,
    Table2016Screen,
    help_screen,
)
from druids_p2p.tui.game_ui import (
    NO_PREFS,
    GameUI,
    MoveRejected,
    PeerEvent,
    SeatSnapshot,
    Session,
    SessionEnded,
    TablePrefs,
    TableUI,
    TurnRequest,
)
from druids_p2p.tui.widgets import CHAT_KEY, Paced, PacedTableScreen, chat_line

if TYPE_CHECKING:
    from druids_p2p.lan.peer_config import TableView


# ---- formerly snapshot.py:
# A frozen picture of a Druids (2016) table of peers for the UI, taken on the peer's thread.
#
# The peer's thread owns the table; the UI thread never reads it. So each time something happens
# the peer takes a :class:`Snapshot2016` — this seat's view from its copy of the game (which
# shows the other seat's placement only once both are in) and the names — and posts it; the view
# is taken only once the table is settled (``TableView.settled``: no card on its way).


@dataclass(frozen=True)
class Snapshot2016:
    names: tuple[str, ...]
    """By play seat once the seat order is fixed (before: in seat-message order)."""
    my_seat: int | None
    phase: str
    view: SeatView | None
    """This seat's view; None before the table is dealt or while it is not settled."""
    my_turn: bool = False
    """The peer asks this seat for a move now (only then is a move taken)."""
    turn: int = 0
    """Which request for a move this is: a move is submitted with it."""

    def name(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(self.names):
            return "?"
        return self.names[seat]


def snapshot_from_table(table: TableView, turn: int | None = None) -> Snapshot2016:
    """A snapshot of a peer's 2016 table; call it only on the peer's own thread (``turn``: the
    number of the peer's request for this seat's move, if it asks for one)."""
    seat = table.seat
    view = table.player_view() if seat is not None and table.settled else None
    if view is not None and not isinstance(view, SeatView):
        raise TypeError(f"a Druids (2016) table's view is a {type(view).__name__}")
    my_turn = turn is not None and view is not None and view.to_move == seat and bool(view.legal)
    return Snapshot2016(
        names=table.names,
        my_seat=seat,
        phase="done" if view is not None and view.game_over else table.phase,
        view=view,
        my_turn=my_turn,
        turn=0 if turn is None else turn,
    )


def own(snapshot: SeatSnapshot | None) -> Snapshot2016 | None:
    """A session's snapshot as this game's table reads it (TypeError for another game's)."""
    if snapshot is None or isinstance(snapshot, Snapshot2016):
        return snapshot
    raise TypeError(f"a Druids (2016) table was handed a {type(snapshot).__name__}")


QUIET_EVENTS = frozenset({"result", "round_ended", "game_over", "move", "round_started"})
"""Events the screen tells in its own words (moves, the end) or not at all."""


class PeerSeat2016:
    """This peer's seat as the board screen plays it (``session.BoardSeat``): the last settled
    view, the peer's open request for a move, and the moves told so far."""

    bot_to_move = False

    def __init__(self, send: Callable[[int, int], None]) -> None:
        self.send = send
        self.names: tuple[str, str] = ("?", "?")
        self.seat = 0
        self.log: list[str] = []
        self.view: SeatView | None = None
        self.request: int | None = None
        """The number of the peer's request for this seat's move, until it is answered."""
        self.awaiting = False
        """A move was sent: waiting for the peer to take it (or refuse it)."""

    def name(self, player: int) -> str:
        return "you" if player == self.seat else self.names[player]

    @property
    def placing(self) -> bool:
        return self.view is None or self.view.phase in (DRAWING, PLACING)

    @property
    def placed(self) -> Sequence[int]:
        return () if self.view is None else self.view.placed

    @property
    def my_move(self) -> bool:
        return self.request is not None and not self.awaiting

    def place_choices(self) -> list[int]:
        view = self.view
        if view is None or view.phase != PLACING or not self.my_move:
            return []
        return [m.square for m in map(Move.of, view.legal) if m.placement]

    def place(self, square: int) -> str | None:
        if square not in self.place_choices():
            return (
                "wait: it is not your turn to place"
                if not self.my_move
                else ("a Druid is placed on a free square of your back row, not there")
            )
        self._send(Move.place(square).code)
        return None

    def position(self) -> Game:
        return view_position(self.view, self.seat)

    def submit(self, move: Move) -> str | None:
        if not self.my_move:
            return "wait: it is not your move"
        self._send(move.code)
        return None

    def _send(self, code: int) -> None:
        assert self.request is not None
        self.awaiting = True
        self.send(code, self.request)

    def bot_step(self) -> bool:
        return False

    def waiting_words(self) -> str:
        view, other = self.view, self.names[1 - self.seat]
        if self.awaiting:
            return "sent — waiting for the table…"
        if view is None or view.phase == DRAWING:
            return "waiting for the table: keys, shuffles, the draw of the first player and tiles"
        if view.phase == PLACING:
            return f"{other} places its Druids (face down)…"
        return f"{other} is thinking…"


class LanTable2016Screen(Table2016Screen, PacedTableScreen):
    BINDINGS: ClassVar[list[BindingType]] = [CHAT_KEY]

    def __init__(
        self, session: Session, expected: tuple[str, ...] = (), **paced: Unpack[Paced]
    ) -> None:
        """``expected``: the bots awaited before seating (shown until the table is seated)."""
        PacedTableScreen.__init__(self, session, expected, **paced)
        self.peer_seat = PeerSeat2016(self.session.submit)
        self._start(self.peer_seat, self._end_read)

    def on_mount(self) -> None:
        waiting = ", ".join(self.expected) or "the other player"
        self.peer_seat.log.append(f"Druids (2016) — {self.session.title}: waiting for {waiting}")
        self.refresh_table()

    def end_ready(self) -> bool:
        return self.finished or self.stopped is not None

    def end_lines(self) -> tuple[str, list[str]]:
        headline, lines = super().end_lines()
        return headline, lines + ([f"record: {self.record}"] if self.record else [])

    def _end_read(self, _: dict[str, Any]) -> None:
        leave = getattr(self.app, "leave", None)
        if callable(leave):
            leave()

    def _stop_read(self, _: None) -> None:
        self._end_read({})

    def action_leave(self) -> None:
        quit_asked = getattr(self.app, "action_request_quit", None)
        if callable(quit_asked):
            quit_asked()

    def show_chat(self, event: dict[str, object]) -> None:
        snapshot = self.snapshot
        mine = snapshot.my_seat if snapshot is not None else None
        self.peer_seat.log.append(chat_line(dict(event), mine).plain)
        if self.is_mounted:
            self.draw()

    def display_error(self, line: str) -> None:
        self.peer_seat.log.append(line)
        self.draw()

    # ------------------------------------------------------------ the paced queue
    async def show(self, message: Message) -> None:
        seat = self.peer_seat
        if isinstance(message, PeerEvent):
            self._event(message)
        elif isinstance(message, TurnRequest):
            snapshot = own(message.snapshot)
            self._take(snapshot)
            if snapshot is not None and snapshot.my_turn:
                seat.request, seat.awaiting = snapshot.turn, False
        elif isinstance(message, MoveRejected):
            seat.awaiting = False
            self.message = f"Not allowed: {message.reason}"
            self.app.bell()
        elif isinstance(message, SessionEnded):
            self._ended(message)
        self.refresh_table()
        if self.stopped is not None and not self.end_shown:
            self.end_shown = True
            lines = [f"The table stopped: {self.stopped}"]
            lines += [f"record: {self.record}"] if self.record else []
            self.app.push_screen(GameOver2016("The table stopped", lines), self._stop_read)

    def _take(self, snapshot: Snapshot2016 | None) -> None:
        if snapshot is None:
            return
        self.snapshot = snapshot
        seat = self.peer_seat
        if snapshot.my_seat is not None:
            seat.seat = snapshot.my_seat
            if len(snapshot.names) == 2:
                seat.names = (snapshot.names[0], snapshot.names[1])
        if snapshot.view is not None:
            seat.view = snapshot.view

    def _event(self, message: PeerEvent) -> None:
        event, kind = message.event, str(message.event.get("event"))
        seat = self.peer_seat
        if kind not in QUIET_EVENTS and event.get("text"):
            seat.log.append(str(event["text"]))
        self._take(own(message.snapshot))
        if kind == "move" and isinstance(event.get("seat"), int):
            mover = int(event["seat"])
            if mover == seat.seat:
                seat.request, seat.awaiting = None, False
            view = seat.view
            ply = f"{view.ply:3d}. " if view is not None and view.ply else "  "
            seat.log.append(f"{ply}{seat.name(mover)} {event.get('move')}")
            if mover != seat.seat:
                self.pacer.hold(self.pacing.move_s)
        if kind in ("seated", "result") and event.get("record"):
            self.record = str(event["record"])
        if kind == "aborted":
            blame = event.get("blame")
            blamed = f" — blamed: {seat.name(blame)}" if isinstance(blame, int) else ""
            self.stopped = f"{event.get('reason')}{blamed}"
            seat.log.append(f"the table stopped: {self.stopped}")
        if kind == "game_over":  # every seat signed the same result
            self.result = {"finished": True, **{k: event[k] for k in ("totals", "winners")}}
            self.finished = True
        if kind == "result":  # the peer's own account (its record), once it stops
            self.result = {
                **(self.result or {}),
                **{k: v for k, v in event.items() if k != "event"},
            }
            self.finished = self.finished or bool(event.get("finished"))

    def _ended(self, message: SessionEnded) -> None:
        self.ended = message
        result = message.result or {}
        if result:
            self.result = self.result or dict(result)
            self.finished = self.finished or bool(result.get("finished"))
        if result.get("record"):
            self.record = str(result["record"])
        if message.error and self.stopped is None:
            self.stopped = message.error
            self.peer_seat.log.append(f"stopped: {message.error}")


TABLE_UI = TableUI(screen=LanTable2016Screen, snapshots=snapshot_from_table, help=help_screen)
"""Druids (2016) at a table of peers: this screen over the peer's snapshots."""


def offline_app(
    names: Sequence[str],
    bots: Mapping[int, Bot],
    *,
    seat: int,
    seed: int,
    budget_ms: float,
    folder: Path | None,
    pause_s: float = 0.0,
    prefs: TablePrefs = NO_PREFS,
) -> Druids2016App:
    """You at ``seat`` (0 or 1) and the bot in the other seat on this machine; the game file
    kept in ``folder``. (``pause_s`` and ``prefs`` are the other games': the board shows the
    last move lit until the next, and has no preference yet.)"""
    if len(names) != 2 or seat not in (0, 1) or set(bots) != {1 - seat}:
        raise ValueError("Druids (2016) is played by you and one bot")
    board, rules, other = default_board(), Options(), 1 - seat
    bot = bots[other]
    faults: list[str] = []
    start_bot(bot, other, rules, seed, budget_ms)
    session = Offline2016(
        (names[0], names[1]),
        {other: bot_chooser(bot, other, board, rules)},
        seat=seat,
        seed=seed,
        board=board,
        options=rules,
        bot_places=bot_placement(bot, other, board, rules, faults),
        faults=faults,
    )
    return Druids2016App(session, folder)


UI = GameUI(
    name="druids2016",
    table=TABLE_UI,
    offline=offline_app,
    replay=Replay2016App,
)
