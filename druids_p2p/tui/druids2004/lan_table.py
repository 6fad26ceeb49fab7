"""The Druids (2004) table screen at a table of peers: the shared board over frozen pictures of
the table, each taken on the peer's thread, which owns the table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Unpack

from rich.text import Text
from textual.binding import BindingType
from textual.message import Message

from druids_p2p.games.druids2004.ruleset import ENDS
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.tui.druids2004.board import Board2004, help_screen, in_ui_words
from druids_p2p.tui.druids2004.dialogs import (
    TalkGameOver2004,
    TalkRitualHistory,
    TalkRitualSteps,
)
from druids_p2p.tui.druids2004.places import ScoreColumn, end_lines
from druids_p2p.tui.druids2004.replay import drawn_lines, move_line
from druids_p2p.tui.game_ui import (
    MoveRejected,
    PeerEvent,
    PlayedGame,
    SeatSnapshot,
    Session,
    SessionEnded,
    TableUI,
    TurnRequest,
)
from druids_p2p.tui.widgets import CHAT_KEY, Paced, PacedTableScreen

if TYPE_CHECKING:
    from druids_p2p.lan.peer_config import TableView


@dataclass(frozen=True)
class Snapshot2004:
    names: tuple[str, ...]
    """By play seat once the seat order is fixed (before: in seat-message order)."""
    my_seat: int | None
    phase: str
    """seating, play, done."""
    view: SeatView | None
    """This seat's view; None before the deal is complete or while the table is not settled
    (the screen keeps showing the last settled view)."""
    my_turn: bool = False
    """The peer asks this seat for a move now (only then is a move taken)."""
    turn: int = 0
    """Which request for a move this is: a move is submitted with it, so a stale one is
    ignored."""

    def name(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(self.names):
            return "?"
        return self.names[seat]


def snapshot_from_table(table: TableView, turn: int | None = None) -> Snapshot2004:
    """A snapshot of a peer's 2004 table; call it only on the peer's own thread. ``turn`` is
    given when the peer asks this seat for a move (its number); otherwise the snapshot never
    offers a move."""
    seat = table.seat
    view = table.player_view() if seat is not None and table.settled else None
    if view is not None and not isinstance(view, SeatView):
        raise TypeError(f"a Druids (2004) table's view is a {type(view).__name__}")
    my_turn = turn is not None and view is not None and view.to_move == seat and bool(view.legal)
    return Snapshot2004(
        names=table.names,
        my_seat=seat,
        phase="done" if view is not None and view.game_over else table.phase,
        view=view,
        my_turn=my_turn,
        turn=0 if turn is None else turn,
    )


def own(snapshot: SeatSnapshot | None) -> Snapshot2004 | None:
    """A session's snapshot as this game's table reads it (TypeError for another game's: a
    wiring mistake)."""
    if snapshot is None or isinstance(snapshot, Snapshot2004):
        return snapshot
    raise TypeError(f"a Druids (2004) table was handed a {type(snapshot).__name__}")


QUIET_EVENTS = frozenset({"result", "round_ended", "game_over", "move"})
"""Events whose text the screen tells in its own words (moves, the end) or not at all (talk is
shown as it comes: ``PacedTableScreen.receive``)."""


class LanTable2004Screen(Board2004, PacedTableScreen):
    BINDINGS: ClassVar[list[BindingType]] = [CHAT_KEY]
    ritual_dialog = TalkRitualSteps
    history_dialog = TalkRitualHistory

    def __init__(
        self, session: Session, expected: tuple[str, ...] = (), **paced: Unpack[Paced]
    ) -> None:
        """``expected``: the bots awaited before seating (shown until the table is seated)."""
        super().__init__(
            expected,
            column_spaces=0,  # the column's size once seated (_take)
            session=session,
            expected=expected,
            **paced,
        )
        self.snapshot: Snapshot2004 | None = None
        self.request: Snapshot2004 | None = None
        """The peer's request for this seat's move, until it is answered (other snapshots that
        arrive meanwhile update the view, never take the turn back)."""
        self.shown: SeatView | None = None
        """The last settled view (what is drawn)."""
        self.awaiting = False
        """A move was sent; waiting for the peer to take it (or refuse it)."""
        self.sent: int | None = None
        self.rituals_seen = 0
        self.end_shown = False
        self.draws_owed = 0
        """This seat's draws taken by the table whose card is not shown yet."""
        self.held: list[tuple[Text | str, int | None]] = []
        """Other seats' log lines held meanwhile (shown once the drawn cards are)."""

    def on_mount(self) -> None:
        waiting = ", ".join(self.expected) or "the other players"
        self.log_line(f"Druids (2004) — {self.session.title}: waiting for {waiting}")
        self.draw()

    # ------------------------------------------------------------ the board's part
    def current_view(self) -> SeatView | None:
        return self.shown

    @property
    def my_turn(self) -> bool:
        """The peer waits for this seat's move and none is on its way."""
        return self.request is not None and not self.awaiting and self.stopped is None

    def status_line(self, view: SeatView | None) -> str:
        if self.stopped is not None:
            return f"The table stopped: {self.stopped}"
        line = super().status_line(view)
        if view is not None and view.to_move == view.seat and not view.game_over:
            if self.awaiting:
                return "Sent — waiting for the table…"
            if not self.my_turn:
                return "One moment: the table is dealing…"
        return line

    def submit_move(self, move: int) -> None:
        request = self.request
        if self.stopped is not None or self.finished:
            self.refuse("the table is over: nothing more is played")
        elif request is None or not self.my_turn:
            view = self.shown
            dealing = view is not None and view.to_move == view.seat
            self.refuse(
                "sent: wait for the table"
                if self.awaiting
                else "one moment: the table is still dealing"
                if dealing
                else "it is not your turn"
            )
        else:
            self.awaiting, self.sent, self.message = True, move, ""
            self.session.submit(move, request.turn)
            self.draw()

    def rituals_read(self) -> None:
        """Once every ritual is read: the end, when the table has told it (its result, or why
        it stopped)."""
        if self.end_shown or (self.stopped is None and not self.finished):
            return
        self.end_shown = True
        result = self.result or {}
        snap = self.snapshot
        me = snap.name(snap.my_seat) if snap is not None and snap.my_seat is not None else None
        if self.stopped is not None or not result.get("totals"):
            game = PlayedGame(self.names, None, me=me, stopped=self.stopped)
        else:
            totals = tuple(int(t) for t in result["totals"])
            game = PlayedGame(self.names, totals, tuple(result.get("winners") or ()), me)
        screen = TalkGameOver2004(
            self.final_lines(), self.evening_lines(game), self.rematch_offered
        )
        self.app.push_screen(screen, self._end_closed)

    def final_lines(self) -> list[str]:
        if self.stopped is not None:
            lines = [f"The table stopped: {self.stopped}"]
        else:
            view = self.shown
            ended = view.ended_by if view is not None else None
            lines = [f"The game ended: {ENDS.get(ended or '', ended)}."]
        totals = list((self.result or {}).get("totals") or [])
        winners = set((self.result or {}).get("winners") or ())
        for seat in sorted(range(len(totals)), key=lambda q: -totals[q]):
            mark = "  ← won" if seat in winners else ""
            lines.append(f"{self.seat_name(seat):>12}: {totals[seat]:3} points{mark}")
        if self.stopped is None and self.shown is not None:
            lines += end_lines(self.shown, self.seat_name)
        if self.record:
            lines.append(f"record: {self.record}")
        return lines

    def _end_closed(self, _: None) -> None:
        leave = getattr(self.app, "leave", None)
        if callable(leave):
            leave()

    # ------------------------------------------------------------ the paced queue
    async def show(self, message: Message) -> None:
        if isinstance(message, PeerEvent):
            self._event(message)
        elif isinstance(message, TurnRequest):
            self.request = own(message.snapshot)
            self._take(self.request)
            self.awaiting = False
        elif isinstance(message, MoveRejected):
            self.awaiting = False
            seat = self.snapshot.my_seat if self.snapshot is not None else None
            reason = in_ui_words(message.reason, -1 if seat is None else seat)
            self.message = f"Not allowed: {reason}"
            self.app.bell()
        elif isinstance(message, SessionEnded):
            self._ended(message)
        self.draw()

    def log_line(self, text: Text | str, seat: int | None = None) -> None:
        """A line of the log; another seat's (or the table's) waits while this seat's drawn
        card is still to be told."""
        mine = self.snapshot.my_seat if self.snapshot is not None else None
        if self.draws_owed > 0 and (seat is None or seat != mine):
            self.held.append((text, seat))
            return
        super().log_line(text, seat)

    def _release_held(self) -> None:
        """Show the lines held behind this seat's draws (all told, or the table over)."""
        self.draws_owed = 0
        held, self.held = self.held, []
        for text, seat in held:
            super().log_line(text, seat)

    def display_error(self, line: str) -> None:
        self.log_line(line)
        self.draw()  # what was shown before the error, and the board as it stands

    # ------------------------------------------------------------ what the table said
    def _take(self, snapshot: Snapshot2004 | None) -> None:
        """A newer snapshot: the names, and its view if settled (the hand's new cards logged,
        the new rituals queued)."""
        if snapshot is None:
            return
        self.snapshot = snapshot
        if snapshot.my_seat is not None:
            self.names = snapshot.names
        view = snapshot.view
        if view is None:
            return
        if self.shown is None:
            self.query_one(ScoreColumn).column_spaces = Options(view.players).column_spaces
        for line in drawn_lines(self.shown, view):
            self.log_line(line, view.seat)
        if self.draws_owed:  # a settled view holds every card drawn so far: all are told
            self._release_held()
        self.shown = view
        self.rituals_waiting.extend(view.rituals[self.rituals_seen :])
        self.rituals_seen = len(view.rituals)

    def _event(self, message: PeerEvent) -> None:
        event, kind = message.event, str(message.event.get("event"))
        before = self.shown
        snapshot = own(message.snapshot)
        if kind not in QUIET_EVENTS and event.get("text"):
            self.log_line(str(event["text"]))  # before what it brought (the hand, once dealt)
        self._take(snapshot)
        if kind == "move" and isinstance(event.get("seat"), int):
            seat = int(event["seat"])
            mine = self.snapshot.my_seat if self.snapshot is not None else None
            token = str(event.get("move"))
            if seat == mine and token.startswith("Draw:") and self.shown is before:
                self.draws_owed += 1  # its card is told once a settled view brings it
            line = move_line(
                seat,
                str(event.get("move")),
                self.seat_name,
                me=mine,
                before=before,
                after=self.shown if snapshot is not None and snapshot.view else None,
                sent=self.sent,
            )
            if line is not None:
                self.log_line(line, seat)
            if seat != mine:
                self.pacer.hold(self.pacing.move_s)
            return
        if kind in ("seated", "result") and event.get("record"):
            self.record = str(event["record"])
        if kind == "aborted":
            self._release_held()
            blame = event.get("blame")
            blamed = f" — blamed: {self.seat_name(blame)}" if isinstance(blame, int) else ""
            self.stopped = f"{event.get('reason')}{blamed}"
            self.log_line(f"the table stopped: {self.stopped}")
        if kind == "game_over":  # every seat signed the same result
            self.result = {"finished": True, **{k: event[k] for k in ("totals", "winners")}}
            self.finished = True
            self.log_line(self._totals_line())
        if kind == "result":  # the peer's own account (its record), once it stops
            self.result = {
                **(self.result or {}),
                **{k: v for k, v in event.items() if k != "event"},
            }
            self.finished = self.finished or bool(event.get("finished"))

    def _totals_line(self) -> str:
        result = self.result or {}
        totals = ", ".join(f"{self.seat_name(s)} {t}" for s, t in enumerate(result["totals"]))
        won = " and ".join(self.seat_name(w) for w in result.get("winners") or ())
        return f"game over — totals: {totals}; won by {won or 'nobody'}"

    def _ended(self, message: SessionEnded) -> None:
        self._release_held()
        self.ended = message
        result = message.result or {}
        if result:
            self.result = self.result or dict(result)
            self.finished = self.finished or bool(result.get("finished"))
        if result.get("record"):
            self.record = str(result["record"])
        if message.error and self.stopped is None:
            self.stopped = message.error
            self.log_line(f"stopped: {message.error}")


TABLE_UI = TableUI(screen=LanTable2004Screen, snapshots=snapshot_from_table, help=help_screen)
"""Druids (2004) at a table of peers: this screen over the peer's snapshots."""
