"""The table: players and piles, the trick, scores, your hand, the log; prompts on your turn."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, RichLog, Static

from druids_p2p.engine.cards import COLOUR_NAMES, GAIA, is_gaia_move, move_for_card
from druids_p2p.engine.notation import parse_move
from druids_p2p.engine.rules import ENDED_FIVE_DOMAINS
from druids_p2p.tui.cards import domain_text, move_text
from druids_p2p.tui.screens.dialogs import GaiaPrompt, GameOver, PilePrompt, RoundSummary
from druids_p2p.tui.session import MoveRejected, PeerEvent, Session, SessionEnded, TurnRequest
from druids_p2p.tui.snapshot import TableSnapshot
from druids_p2p.tui.widgets.hand import CardChip, Hand
from druids_p2p.tui.widgets.piles import PlayersPanel
from druids_p2p.tui.widgets.scores import ScoresPanel
from druids_p2p.tui.widgets.trick import TrickPanel

from druids_p2p.tui.widgets.chat import CHAT_EVENTS, ChatInput, chat_line  # isort: skip

REJOINED_SHOWN_S = 10.0


def clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class TableScreen(Screen[None]):
    DEFAULT_CSS = """
    TableScreen { layout: vertical; }
    TableScreen #title { height: 1; background: $primary; color: $text; padding: 0 1; }
    TableScreen #status { height: 1; padding: 0 1; text-style: bold; }
    TableScreen #status.my-turn { background: $success 30%; }
    TableScreen #status.stopped { background: $error 40%; }
    TableScreen #middle { height: auto; }
    TableScreen #log { height: 1fr; min-height: 3; border: round $primary-darken-2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "prompt", "Gaia/Sickle prompt", show=False),
        Binding("c", "chat", "chat"),
    ]

    def __init__(self, session: Session, expected: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.session = session
        self.expected = expected
        """Names of the players we wait for before seating (local bots): shown as connecting."""
        self.snapshot: TableSnapshot | None = None
        self.joined: list[str] = []
        self.players = len(expected) + 1 if expected else 0
        self.away: dict[str, float] = {}
        self.rejoined: dict[str, float] = {}
        self.turn_key: tuple[Any, ...] | None = None
        self.turn_since = time.monotonic()
        self.record: str | None = session.record
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

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(f"Druids — {self.session.title}", id="title")
        yield Static(self.phase_text, id="status")
        yield PlayersPanel()
        with Horizontal(id="middle"):
            yield TrickPanel()
            yield ScoresPanel()
        yield Hand()
        log = RichLog(id="log", wrap=True, markup=False, max_lines=500)
        log.border_title = "Table log"
        log.can_focus = False
        yield log
        yield ChatInput()
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh_status)
        self.refresh_all()

    # ------------------------------------------------------------------ messages from the table
    async def handle_peer_event(self, message: PeerEvent) -> None:
        event = message.event
        kind = str(event.get("event"))
        if message.snapshot is not None:
            self.snapshot = message.snapshot
        text = self._describe(kind, event)
        if text is not None:
            self.log_line(text, style=_EVENT_STYLE.get(kind, ""))
        if kind == "round_ended" and message.snapshot is not None:
            scores = [int(s) for s in event.get("scores", [])]
            summary = RoundSummary(message.snapshot, scores, event.get("ended_by"))
            self.summary_open = True
            self.app.push_screen(summary, self._summary_closed)
        await self.refresh_table()

    async def handle_turn(self, message: TurnRequest) -> None:
        self.snapshot = message.snapshot
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
                self._show_end({"aborted": message.error})
        await self.refresh_table()

    def _describe(self, kind: str, event: dict[str, Any]) -> Text | str | None:
        snap = self.snapshot
        if kind in CHAT_EVENTS:
            return chat_line(event, snap.my_seat if snap is not None else None)
        if kind == "lobby":
            self.players = int(event.get("players", self.players))
            self.joined = []
            self.phase_text = "Waiting for players to join…"
            return f"table open; lobby at {event.get('lobby')} — waiting for players"
        if kind == "joined":
            self.joined.append(str(event.get("name")))
            return f"{event.get('name')} joined ({event.get('seats')}/{self.players})"
        if kind == "refused":
            return f"refused {event.get('name')} (fingerprint {event.get('fingerprint')})"
        if kind == "joining":
            self.phase_text = "Asking the host for a seat…"
            return f"asking for a seat at '{event.get('table')}' (host {event.get('host')})"
        if kind == "rejoining":
            return f"rejoining the unfinished table in {event.get('folder')}"
        if kind == "seated" and "record" in event:
            self.record = str(event["record"])
            self.phase_text = "Seated: fixing the seat order by coin flip…"
            return f"seated; game record: {self.record}"
        if kind == "round_started":
            r = int(event.get("round", 0)) + 1
            rounds = snap.rounds if snap is not None else "?"
            self.phase_text = f"Round {r} of {rounds}: shuffling and dealing (mental cards)…"
            return f"round {r}: shuffling and dealing"
        if kind == "move":
            seat = event.get("seat")
            name = snap.name(int(seat)) if snap is not None and seat is not None else "?"
            line = Text(f"{name} plays ")
            try:
                line.append_text(move_text(parse_move(str(event.get("move")))))
            except ValueError:
                line.append(str(event.get("move")))
            return line
        if kind == "round_ended":
            r = int(event.get("round", 0)) + 1
            how = "five domains" if event.get("ended_by") == ENDED_FIVE_DOMAINS else "all played"
            self.phase_text = f"Round {r} over ({how}): revealing and auditing the deal…"
            return f"round {r} over ({how}) — scores: {self._by_name(event.get('scores'))}"
        if kind == "game_over":
            self.finished = True
            winners = ", ".join(self.seat_name(w) for w in event.get("winners") or ())
            return f"game over — totals: {self._by_name(event.get('totals'))}; won by {winners}"
        if kind == "away":
            name = str(event.get("name"))
            self.away[name] = time.monotonic() - float(event.get("seconds", 0.0))
            self.rejoined.pop(name, None)
            return f"{name} is away (silent for {event.get('seconds')} s); the table waits"
        if kind == "rejoined":
            name = str(event.get("name"))
            since = self.away.pop(name, None)
            self.rejoined[name] = time.monotonic()
            gone = f" after {clock(time.monotonic() - since)}" if since is not None else ""
            return f"{name} is back{gone}"
        if kind == "aborted":
            reason = str(event.get("reason"))
            blame = event.get("blame")
            self.blame = int(blame) if isinstance(blame, int) else None
            who = ""
            if self.blame is not None and snap is not None:
                who = f" — blamed: seat {self.blame} ({snap.name(self.blame)})"
            self.stopped = f"{reason}{who}"
            return f"TABLE STOPPED: {reason}{who}"
        if kind == "result":
            self.result = {k: v for k, v in event.items() if k != "event"}
            if event.get("record"):
                self.record = str(event["record"])
            self.finished = bool(event.get("finished"))
            self._show_end(event)
            return f"game record: {self.record}"
        if kind in ("warning", "bot_failed"):
            return str(event.get("text"))
        text = event.get("text")
        return str(text) if text else None

    def seat_name(self, seat: object) -> str:
        snap = self.snapshot
        return snap.name(seat) if snap is not None and isinstance(seat, int) else str(seat)

    def _by_name(self, values: object) -> str:
        if not isinstance(values, list):
            return str(values)
        return ", ".join(f"{self.seat_name(seat)} {value}" for seat, value in enumerate(values))

    def _show_end(self, result: dict[str, Any]) -> None:
        winners = tuple(result.get("winners") or ())
        if self.stopped is not None or result.get("aborted"):
            stopped = self.stopped or str(result.get("aborted"))
            screen = GameOver(self.snapshot, self.record, stopped=stopped)
        elif result.get("finished"):
            screen = GameOver(self.snapshot, self.record, winners=winners)
        else:
            return
        self.end_shown = True
        if self.summary_open:
            self.pending_end = screen  # after the last round's summary
        else:
            self.app.push_screen(screen, self._end_closed)

    def _summary_closed(self, _: None) -> None:
        self.summary_open = False
        if self.pending_end is not None:
            screen, self.pending_end = self.pending_end, None
            self.app.push_screen(screen, self._end_closed)

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
        self.query_one(TrickPanel).show(snap)
        self.query_one(ScoresPanel).show(snap)
        self.refresh_status()

    def _turn_key(self) -> tuple[Any, ...] | None:
        view = self.snapshot.view if self.snapshot is not None else None
        if view is None:
            return None
        return (view.round_index, view.to_move, len(view.tricks), len(view.trick))

    def states(self) -> dict[int, Text]:
        snap = self.snapshot
        if snap is None:
            return {}
        now = time.monotonic()
        out: dict[int, Text] = {}
        view = snap.view
        for seat, name in enumerate(snap.names):
            if self.stopped is not None and seat == self.blame:
                out[seat] = Text("blamed", style="bold red")
            elif name in self.away:
                out[seat] = Text(f"away {clock(now - self.away[name])}", style="bold yellow")
            elif name in self.rejoined and now - self.rejoined[name] < REJOINED_SHOWN_S:
                out[seat] = Text("rejoined", style="bold cyan")
            elif view is not None and view.to_move == seat and not view.round_over:
                out[seat] = Text(f"to move {clock(now - self.turn_since)}", style="green")
            else:
                out[seat] = Text("connected", style="dim")
        return out

    def refresh_status(self) -> None:
        key = self._turn_key()
        if key != self.turn_key:
            self.turn_key = key
            self.turn_since = time.monotonic()
        status = self.query_one("#status", Static)
        status.set_class(False, "my-turn")
        status.set_class(self.stopped is not None, "stopped")
        status.update(self.status_text())
        snap = self.snapshot
        if snap is not None and snap.my_turn and not self.awaiting and self.stopped is None:
            status.set_class(True, "my-turn")
        if snap is not None:
            self.query_one(PlayersPanel).show(snap, self.states())
        elif self.expected:
            self.query_one(PlayersPanel).update(self._connecting())

    def _connecting(self) -> Text:
        """Before the seat order is fixed: who has joined, who is still connecting."""
        text = Text("Players: ")
        named = [n for n in self.expected if not n.startswith("(")]
        for name in named:
            if name in self.joined:
                text.append(f"{name} (joined)  ", style="green")
            else:
                text.append(f"{name} (connecting…)  ", style="yellow")
        for name in self.joined:
            if name not in named:
                text.append(f"{name} (joined)  ", style="green")
        waiting_bots = sum(1 for n in named if n not in self.joined)
        open_seats = self.players - 1 - len(self.joined) - waiting_bots if self.players else 0
        if open_seats > 0:
            text.append(f"{open_seats} seat(s) open for LAN players", style="bold")
        return text

    def status_text(self) -> Text:
        snap = self.snapshot
        if self.stopped is not None:
            return Text(f"■ Table stopped: {self.stopped}")
        if self.finished and snap is not None:
            names = ", ".join(snap.name(s) for s in snap.winners or ())
            return Text(f"Game over — winner{'s' if len(snap.winners or ()) > 1 else ''}: {names}")
        view = snap.view if snap is not None else None
        if snap is None or view is None or view.round_over or snap.phase != "play":
            return Text(self.phase_text)
        elapsed = clock(time.monotonic() - self.turn_since)
        rnd = f"Round {view.round_index + 1}/{snap.rounds} · "
        if snap.my_turn and not self.awaiting:
            text = Text(f"{rnd}▶ Your turn ({elapsed})", style="bold")
            if view.pending_pile_choice:
                text.append(" — your Sickle won: choose the pile it removes (p)")
            elif any(is_gaia_move(m) for m in view.legal):
                text.append(" — lead Gaia and name a domain (p)")
            elif view.lead_domain >= 0:
                text.append(" — led: ")
                text.append_text(domain_text(view.lead_domain))
            return text
        if self.awaiting:
            return Text(f"{rnd}sending your move…")
        if view.to_move is None:
            return Text(f"{rnd}waiting for the Gaia holder to lead ({elapsed})")
        who = snap.name(view.to_move)
        text = Text(f"{rnd}Waiting for {who} ({elapsed})")
        if view.lead_domain >= 0:
            text.append(f" — led: {COLOUR_NAMES[view.lead_domain]}")
        return text

    def log_line(self, text: Text | str, style: str = "") -> None:
        stamp = time.strftime("%H:%M:%S ")
        line = Text(stamp, style="dim")
        line.append_text(text if isinstance(text, Text) else Text(text, style=style))
        self.query_one("#log", RichLog).write(line)

    # ------------------------------------------------------------------ playing
    def maybe_prompt(self) -> None:
        """Open the Gaia or Sickle prompt on our turn (once this screen is on top)."""
        snap = self.snapshot
        if snap is None or not snap.my_turn or self.awaiting or snap.view is None:
            return
        if self.app.screen is not self or self.query_one(ChatInput).has_class("open"):
            self.prompt_wanted = True  # not over a chat line being typed: once it is closed
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

    def action_chat(self) -> None:
        self.query_one(ChatInput).open()

    def on_chat_input_said(self, message: ChatInput.Said) -> None:
        """A line typed at the table: sent (it shows in the log once signed), or why not."""
        if message.text is not None:
            refused = self.session.send_chat(message.text)
            if refused is not None:
                self.log_line(f"chat: {refused}", style="yellow")
        self.query_one(Hand).focus_hand()
        if self.prompt_wanted:
            self.maybe_prompt()

    def action_prompt(self) -> None:
        self.prompt_wanted = True
        self.maybe_prompt()

    def _chosen(self, move: int | None) -> None:
        if move is not None:
            self.submit(move)

    def submit(self, move: int) -> None:
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
        self.submit(move_for_card(message.card))


_EVENT_STYLE = {
    "aborted": "bold red",
    "bot_failed": "bold red",
    "warning": "yellow",
    "away": "yellow",
    "rejoined": "cyan",
    "round_ended": "bold",
    "game_over": "bold green",
}
