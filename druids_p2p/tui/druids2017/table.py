"""The table: players and piles, the trick, scores, warnings, your hand, the log; prompts on your
turn. Events are shown in order through a :class:`~druids_p2p.tui.game_ui.Pacer`, so log, trick and
hand always agree, and the person's turn (and clock) begins when it is shown.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar, Unpack

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from druids_p2p.games.druids2017.cards import GAIA, is_gaia_move, move_for_card
from druids_p2p.games.druids2017.notation import format_card
from druids_p2p.games.druids2017.ruleset import DruidsRuleset
from druids_p2p.tui.druids2017.cards import CardChip, Hand, warning_line, warnings
from druids_p2p.tui.druids2017.dialogs import (
    GaiaPrompt,
    GameOver,
    PilePrompt,
    RoundSummary,
    help_screen,
)
from druids_p2p.tui.druids2017.panels import (
    PlayersPanel,
    ScoresPanel,
    TrickHistory,
    TrickPanel,
    show_content,
)
from druids_p2p.tui.druids2017.replay import (
    EVENT_STYLE,
    ReplayApp,
    clock,
    connecting_text,
    describe,
    seat_states,
    status_text,
    took_line,
)
from druids_p2p.tui.druids2017.snapshot import TableSnapshot, own, snapshot_from_table
from druids_p2p.tui.game_ui import (
    GameUI,
    KeysFooter,
    MoveRejected,
    PeerEvent,
    PlayedGame,
    Session,
    SessionEnded,
    TableUI,
    TurnRequest,
    show_text,
)
from druids_p2p.tui.widgets import (
    CHAT_KEY,
    Paced,
    PacedTableScreen,
    SizeWarning,
    TableLog,
    plain,
    plain_text,
    who,
)

PASS_KEYS = frozenset({"question_mark", "q", "ctrl+q", "ctrl+c"})
"""Keys that keep their meaning while a trick is held or a card is marked (help, quit; and chat,
whose binding is taken before any key handler: the box then takes every key meanwhile)."""
CONFIRM_KEYS = frozenset({"enter", "space"})
"""With ``--confirm-plays``: the keys that play the marked card (any other cancels)."""

__all__ = ["TABLE_UI", "TableScreen", "clock"]


class TableScreen(PacedTableScreen):
    DEFAULT_CSS = """
    TableScreen { layout: vertical; }
    TableScreen #title { height: 1; background: $primary; color: $text; padding: 0 1; }
    TableScreen #status { height: 1; padding: 0 1; text-style: bold; }
    TableScreen #status.my-turn { background: $success 30%; }
    TableScreen #status.stopped { background: $error 40%; }
    TableScreen #middle { height: auto; }
    TableScreen #warnings { height: auto; padding: 0 1; color: $warning; text-style: bold; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "prompt", "Gaia/Sickle prompt", show=False),
        Binding("t", "tricks", "tricks"),
        CHAT_KEY,
    ]
    MIN_WIDTH = 100
    MIN_HEIGHT = 38
    """The smallest terminal that shows the whole table (five players, a full hand)."""

    def __init__(
        self, session: Session, expected: tuple[str, ...] = (), **paced: Unpack[Paced]
    ) -> None:
        """``expected``: names of the players we wait for before seating (local bots): shown as
        connecting."""
        super().__init__(session, expected, **paced)
        self.trick_held = False
        """The trick just completed is on show (the trick panel shows it whole)."""
        self._tricks_seen: tuple[int, int] | None = None
        self.snapshot: TableSnapshot | None = None
        self.joined: list[str] = []
        self.players = len(expected) + 1 if expected else 0
        self.away: dict[str, float] = {}
        self.rejoined: dict[str, float] = {}
        self.slow: set[str] = set()
        self.turn_key: tuple[Any, ...] | None = None
        self.turn_since = time.monotonic()
        self.stopped: str | None = None
        self.blame: int | None = None
        self.finished = False
        self.ended: SessionEnded | None = None
        self.awaiting = False
        """A move was sent; waiting for the peer to take it."""
        self.prompt_wanted = False
        self.phase_text = "starting…"
        self.summary_open = False
        self.pending_end: GameOver | None = None
        self.result: dict[str, Any] | None = None
        self.end_shown = False
        self.marked: int | None = None
        """With ``--confirm-plays``: the card the first key marked, played by a second."""

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(plain(f"Druids — {self.session.title}"), id="title")  # a table's name
        yield SizeWarning("the table", self.MIN_WIDTH, self.MIN_HEIGHT)
        yield Static(self.phase_text, id="status")
        yield PlayersPanel()
        with Horizontal(id="middle"):
            yield TrickPanel()
            yield ScoresPanel()
        yield Static("", id="warnings")
        yield Hand()
        yield TableLog()
        yield KeysFooter()

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh_status)
        self._check_size(self.app.size.width, self.app.size.height)
        self.refresh_all()

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        """A terminal too small for the table says so, and how large it must be."""
        self.query_one(SizeWarning).check(width, height)

    # ------------------------------------------------------------------ the paced queue
    async def show(self, message: Message) -> None:
        self.trick_held = False  # its time is over once the next thing shows
        if isinstance(message, PeerEvent):
            await self.handle_peer_event(message)
        elif isinstance(message, TurnRequest):
            await self.handle_turn(message)
        elif isinstance(message, MoveRejected):
            await self.handle_rejected(message)
        elif isinstance(message, SessionEnded):
            await self.handle_ended(message)

    def display_error(self, line: str) -> None:
        self.log_line(line, "red")

    def drained(self) -> None:
        """A completed trick held whole is taken down once its hold is over."""
        if self.trick_held and not self.pacer.holding:
            self.trick_held = False
            self.refresh_all()

    def _trick_completed(self) -> bool:
        """True once per trick: the snapshot shows one trick more of the same round."""
        view = self.snapshot.view if self.snapshot is not None else None
        if view is None:
            return False
        seen, self._tricks_seen = self._tricks_seen, (view.round_index, len(view.tricks))
        return seen is not None and seen[0] == view.round_index and len(view.tricks) > seen[1]

    async def on_key(self, event: events.Key) -> None:
        """While a completed trick is held, a key (other than help and quit) ends the hold
        and does nothing else: it cannot play a card by accident."""
        if self.pacer.key_ends_hold and self.pacer.holding and event.key not in PASS_KEYS:
            event.stop()
            event.prevent_default()
            self.pacer.release()
            await self.drain()
        elif self.marked is not None and event.key not in CONFIRM_KEYS | PASS_KEYS:
            event.stop()  # --confirm-plays: another key cancels the mark, and does nothing else
            event.prevent_default()
            self._unmark("cancelled: nothing played")

    # ------------------------------------------------------------------ messages from the table
    async def handle_peer_event(self, message: PeerEvent) -> None:
        event = message.event
        kind = str(event.get("event"))
        snapshot = own(message.snapshot)
        if snapshot is not None:
            self.snapshot = snapshot
        text = describe(self, kind, event)
        if text is not None:
            self.log_line(text, style=EVENT_STYLE.get(kind, ""))
        completed = self._trick_completed() if snapshot is not None else False
        mine = self.snapshot.my_seat if self.snapshot is not None else None
        if kind == "move" and event.get("seat") == mine and mine is not None:
            self.awaiting = False  # taken: "sending your move…" is over
        if kind == "move":
            if completed:
                took = took_line(self)
                if took is not None:
                    self.log_line(took, style="bold")
                self.trick_held = self.pacing.trick_s > 0
                self.pacer.hold(self.pacing.trick_s, key_ends=True)
            else:
                self.pacer.hold(self.pacing.move_s)
        if kind == "round_ended" and snapshot is not None:
            scores = [int(s) for s in event.get("scores", [])]
            summary = RoundSummary(snapshot, scores, event.get("ended_by"))
            self.summary_open = True
            self.trick_held = False
            self.pacer.release()
            self.pacer.block()  # the next round is shown once this summary is closed
            self.app.push_screen(summary, self._summary_closed)
        await self.refresh_table()

    async def handle_turn(self, message: TurnRequest) -> None:
        self.snapshot = own(message.snapshot)
        self._trick_completed()
        self.awaiting = False
        self.prompt_wanted = True
        await self.refresh_table()
        self.maybe_prompt()

    async def handle_rejected(self, message: MoveRejected) -> None:
        self.awaiting = False
        self.query_one(Hand).hint(f"Not allowed: {message.reason}", error=True)
        self.app.bell()

    async def handle_ended(self, message: SessionEnded) -> None:
        self.ended = message
        result = message.result or {}
        if result.get("record"):
            self.record = str(result["record"])
        if message.error:
            self.stopped = message.error
            self.log_line(f"stopped: {message.error}", style="bold red")
            if not self.end_shown:
                self.show_end({"aborted": message.error})
        self.query_one(Hand).closed = True
        await self.refresh_table()

    def seat_name(self, seat: object) -> str:
        """A seat's name, ``you`` for this seat."""
        snap = self.snapshot
        return who(snap, seat) if snap is not None and isinstance(seat, int) else str(seat)

    def by_name(self, values: object) -> str:
        if not isinstance(values, list):
            return str(values)
        return ", ".join(f"{self.seat_name(seat)} {value}" for seat, value in enumerate(values))

    def show_end(self, result: dict[str, Any]) -> None:
        if getattr(self.app, "leaving", False):
            return  # the person left: the app is closing, nothing more is shown
        winners = tuple(result.get("winners") or ())
        snap = self.snapshot
        names = tuple(snap.names) if snap is not None else ()
        me = snap.name(snap.my_seat) if snap is not None and snap.my_seat is not None else None
        rematch = self.rematch_offered
        if self.stopped is not None or result.get("aborted"):
            stopped = self.stopped or str(result.get("aborted"))
            evening = self.evening_lines(PlayedGame(names, None, me=me, stopped=stopped))
            screen = GameOver(snap, self.record, stopped=stopped, evening=evening, rematch=rematch)
        elif result.get("finished"):
            totals = tuple(int(t) for t in result.get("totals") or ())
            evening = self.evening_lines(PlayedGame(names, totals, winners, me))
            screen = GameOver(snap, self.record, winners=winners, evening=evening, rematch=rematch)
        else:
            return
        self.end_shown = True
        self.query_one(Hand).closed = True
        if self.summary_open:
            self.pending_end = screen  # after the last round's summary
        else:
            self.app.push_screen(screen, self._end_closed)

    def _summary_closed(self, _: None) -> None:
        self.summary_open = False
        self.turn_since = time.monotonic()
        self.pacer.release()
        if self.pending_end is not None:
            screen, self.pending_end = self.pending_end, None
            self.app.push_screen(screen, self._end_closed)
        self.call_later(self.drain)

    def _end_closed(self, leave: bool | None) -> None:
        quit_app = getattr(self.app, "leave", None)
        if leave and callable(quit_app):
            quit_app()

    # ------------------------------------------------------------------ rendering
    async def refresh_table(self) -> None:
        await self.query_one(Hand).show(self.snapshot)
        self.refresh_all()

    def refresh_all(self) -> None:
        snap = self.snapshot
        self.query_one(PlayersPanel).show(snap, self.states())
        self.query_one(TrickPanel).show(snap, held=self.trick_held)
        self.query_one(ScoresPanel).show(snap)
        self._show_warnings()
        self.refresh_status()

    def _show_warnings(self) -> None:
        box = self.query_one("#warnings", Static)
        snap = self.snapshot
        view = snap.view if snap is not None else None
        lines = []
        if snap is not None and view is not None and snap.my_seat is not None:
            lines = [f"⚠ {warning_line(w, snap.names, snap.my_seat)}" for w in warnings(view)]
        box.display = bool(lines)
        show_text(box, plain("\n".join(lines)))  # they name players

    def _turn_key(self) -> tuple[Any, ...] | None:
        view = self.snapshot.view if self.snapshot is not None else None
        if view is None:
            return None
        return (view.round_index, view.to_move, len(view.tricks), len(view.trick))

    def states(self) -> dict[int, Text]:
        return seat_states(self)

    def refresh_status(self) -> None:
        key = self._turn_key()
        if key != self.turn_key:
            self.turn_key = key
            self.turn_since = time.monotonic()
        status = self.query_one("#status", Static)
        snap = self.snapshot
        # Each class set once (set off then on again, the line was restyled twice per draw).
        mine = snap is not None and snap.my_turn and not self.awaiting and self.stopped is None
        status.set_class(mine, "my-turn")
        status.set_class(self.stopped is not None, "stopped")
        show_text(status, plain_text(self.status_text()))  # it may quote a peer's reason
        if snap is not None:
            self.query_one(PlayersPanel).show(snap, self.states())
        elif self.expected:
            show_content(self.query_one(PlayersPanel), self._connecting())

    def _connecting(self) -> Text:
        return connecting_text(self)

    def status_text(self) -> Text:
        return status_text(self)

    def log_line(self, text: Text | str, style: str = "") -> None:
        self.query_one(TableLog).append_line(text, style)

    # ------------------------------------------------------------------ playing
    def maybe_prompt(self) -> None:
        """Open the Gaia or Sickle prompt on our turn (once this screen is on top)."""
        snap = self.snapshot
        if snap is None or not snap.my_turn or self.awaiting or snap.view is None:
            return
        if self.app.screen is not self:
            self.prompt_wanted = True  # not over the chat box (or help): once it is closed
            return
        view = snap.view
        if view.pending_pile_choice:
            self.prompt_wanted = False
            self.app.push_screen(PilePrompt(snap), self._chosen)
        elif view.legal and all(is_gaia_move(m) for m in view.legal):
            self.prompt_wanted = False
            self.app.push_screen(GaiaPrompt(snap.variant), self._chosen)
        else:
            self.prompt_wanted = False

    def on_screen_resume(self) -> None:
        snap = self.snapshot
        if snap is not None and snap.my_turn and not isinstance(self.focused, CardChip):
            self.query_one(Hand).focus_hand()
        if self.prompt_wanted:
            self.call_after_refresh(self.maybe_prompt)

    def action_prompt(self) -> None:
        self.prompt_wanted = True
        self.maybe_prompt()

    def action_tricks(self) -> None:
        self.app.push_screen(TrickHistory(self.snapshot))

    def _chosen(self, move: int | None) -> None:
        if move is not None:
            self.submit(move)

    def _unmark(self, why: str = "") -> None:
        """Forget the card marked for ``--confirm-plays`` (saying ``why``, if given)."""
        for chip in self.query(CardChip):
            chip.set_class(False, "marked")
        self.marked = None
        if why:
            self.query_one(Hand).hint(why)

    def submit(self, move: int) -> None:
        self._unmark()
        snap = self.snapshot
        if snap is None or not snap.my_turn or self.awaiting:
            return
        self.awaiting = True
        self.session.submit(move, snap.turn)
        self.query_one(Hand).hint("sent — waiting for the table…")
        self.refresh_status()

    def on_card_chip_chosen(self, message: CardChip.Chosen) -> None:
        snap = self.snapshot
        hand = self.query_one(Hand)
        if snap is None:
            return
        reason = snap.reason(message.card)
        if reason is not None:
            hand.hint(f"Cannot play that: {reason}", error=True)
            self.app.bell()
            return
        if message.card == GAIA:
            self.app.push_screen(GaiaPrompt(snap.variant), self._chosen)
            return
        if self.awaiting:
            return
        if self.prefs.confirm_plays and self.marked != message.card:
            self._unmark()
            self.marked = message.card
            for chip in self.query(CardChip):
                chip.set_class(chip.card == message.card, "marked")
            token = format_card(message.card)
            hand.hint(f"{token} marked: enter again to play it — any other key cancels")
            return
        self.submit(move_for_card(message.card))


TABLE_UI = TableUI(screen=TableScreen, snapshots=snapshot_from_table, help=help_screen)
"""Druids (2017) at a table of peers: this screen over the peer's snapshots (``tui/game_ui.py``)."""


UI = GameUI(
    name=DruidsRuleset.name,
    table=TABLE_UI,
    replay=ReplayApp,
    tricks=True,
)
