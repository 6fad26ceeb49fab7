"""The Druids (2004) table screen: the place row, your hand, the score column and the table log.

Every decision of a turn is a key (``?`` lists them): choose a card with ← →, a digit plays it onto
that place; ``r`` and a digit announces a ritual; ``x`` discards the chosen gem; ``g`` / ``s``
draws one card from the gem pile / your reserve, so each draw is chosen after seeing the card the
last one brought; enter ends the turn. A key the rules refuse is answered with the reason on the
message line, and nothing is played. Rituals — anyone's — open step by step in a dialog that stays
until read, in the order they happened; the game's end follows them.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from druids_p2p.games.druids2004 import moves as mv
from druids_p2p.games.druids2004.cards import ROW_SLOTS, format_card, is_gem
from druids_p2p.games.druids2004.demo import ENDS
from druids_p2p.games.druids2004.records import RitualDone
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.tui.druids2004.dialogs import (
    KEYS,
    RULES,
    ConfirmLeave,
    GameOver2004,
    RitualHistory,
    RitualSteps,
)
from druids_p2p.tui.druids2004.places import HandLine, PlaceRow, ScoreColumn
from druids_p2p.tui.druids2004.session import MAX_BOT_MOVES, Offline2004, TableEvent
from druids_p2p.tui.names import seat_colour
from druids_p2p.tui.screens.help import HelpScreen
from druids_p2p.tui.widgets.log import TableLog


def in_ui_words(reason: str, seat: int) -> str:
    """The engine's reason with the screen's numbers: places 1-6 (the engine's slots are 0-5)
    and "you" for this seat."""
    text = reason.replace("the place in slot", "slot")
    text = re.sub(r"\bslot (\d)", lambda m: f"place {int(m[1]) + 1}", text)
    return re.sub(rf"\bP{seat}\b('s)?", lambda m: "your" if m[1] else "you", text)


def what_now(view: SeatView, ritual_mode: bool, name: Callable[[int], str] = str) -> str:
    """The status line: what this seat may do now, by key (``name`` names a seat)."""
    if view.game_over:
        return f"Game over: {ENDS.get(view.ended_by or '', view.ended_by)}"
    if view.to_move != view.seat:
        return f"Waiting: {name(view.turn_seat)} is playing"
    if ritual_mode:
        return "Ritual: which place? 1-6 (★ marks those that may take one) · escape: cancel"
    legal = set(view.legal)
    ritual = " · r: a ritual first" if any(mv.RITUAL <= m < mv.DISCARD for m in legal) else ""
    if view.plays_left:
        servant = " (not a second servant)" if view.servant_played else ""
        return (
            f"Your turn: play {view.plays_left} more card(s){servant} — ← → choose a card, "
            f"1-6 play it onto that place{ritual}"
        )
    options = []
    if any(mv.DISCARD <= m < mv.DRAW_GEM for m in legal):
        options.append("x discard the chosen gem")
    if mv.DRAW_GEM in legal:
        options.append("g draw a gem")
    if mv.DRAW_SERVANT in legal:
        options.append("s draw a servant")
    options.append("enter end the turn")
    return f"Your turn ({len(view.hand)} cards): " + " · ".join(options) + ritual


class Table2004Screen(Screen[None]):
    DEFAULT_CSS = """
    #status { height: auto; padding: 0 1; text-style: bold; }
    #message { height: 1; padding: 0 1; color: $error; }
    #lower { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", "card", show=False),
        Binding("right", "cursor(1)", "card", show=False),
        *(Binding(str(i + 1), f"place({i})", "place", show=False) for i in range(ROW_SLOTS)),
        Binding("r", "ritual", "ritual"),
        Binding("x", "discard", "discard"),
        Binding("g", "draw('gem')", "draw gem"),
        Binding("s", "draw('servant')", "draw servant"),
        Binding("enter", "stop", "end turn"),
        Binding("escape", "cancel", "cancel", show=False),
        Binding("l", "rituals", "rituals"),
        Binding("question_mark", "help", "help"),
        Binding("q", "leave", "quit"),
    ]

    def __init__(
        self,
        session: Offline2004,
        on_end: Callable[[dict[str, Any]], None],
        pause_s: float = 0.0,
    ) -> None:
        """``pause_s``: how long each bot's finished turn stays in view before the next bot
        moves (``--move-pause``; 0 in tests)."""
        super().__init__()
        self.session = session
        self.on_end = on_end
        self.pause_s = pause_s
        self.busy = False
        """The bots are moving on the worker thread: keys that play are refused."""
        self.shown: SeatView | None = None
        self.cursor = 0
        self.ritual_mode = False
        self.message = ""
        self.rituals_waiting: list[RitualDone] = []
        self.showing_ritual = False
        self.ended = False

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        s = self.session
        yield Static(id="status")
        yield PlaceRow()
        yield HandLine()
        yield Static(id="message")
        with Horizontal(id="lower"):
            yield ScoreColumn(s.names, s.game.options.column_spaces)
            yield TableLog()
        yield Footer()

    def on_mount(self) -> None:
        self.session.start(then_bots=False)
        self.refresh_table()
        self._run_bots()

    @property
    def view(self) -> SeatView:
        """The view last drawn (the game may be moving on the worker thread)."""
        if self.shown is None:
            self.shown = self.session.view()
        return self.shown

    def refresh_table(self) -> None:
        """Draw the seat's view, write the new log lines, queue the new rituals."""
        self._log(self.session.take_events())
        view = self.shown = self.session.view()
        self.cursor = max(0, min(self.cursor, len(view.hand) - 1))
        self.query_one(PlaceRow).show(view)
        self.query_one(HandLine).show(view, self.cursor)
        self.query_one(ScoreColumn).show(view)
        self.query_one("#status", Static).update(
            what_now(view, self.ritual_mode, self.session.name)
        )
        self.query_one("#message", Static).update(self.message)
        self._next_dialog()

    def _log(self, events: list[TableEvent]) -> None:
        log = self.query_one(TableLog)
        for event in events:
            style = "" if event.seat is None else seat_colour(event.seat)
            log.append_line(Text(event.text, style=style))
            if event.ritual is not None:
                self.rituals_waiting.append(event.ritual)

    def _next_dialog(self) -> None:
        """The next unread ritual; once all are read, the end of the game if it has come."""
        if self.showing_ritual:
            return
        if self.rituals_waiting:
            self.showing_ritual = True
            ritual = self.rituals_waiting.pop(0)
            self.app.push_screen(RitualSteps(ritual, self.session.name), self._ritual_read)
            return
        if self.view.game_over and not self.ended:
            self.ended = True
            self.app.push_screen(GameOver2004(self.final_lines()), self._game_over_read)

    def _ritual_read(self, _: None) -> None:
        self.showing_ritual = False
        self._next_dialog()

    def final_lines(self) -> list[str]:
        view, s = self.view, self.session
        winners = view.winners or ()
        lines = [f"The game ended: {ENDS.get(view.ended_by or '', view.ended_by)}."]
        for seat in sorted(range(view.players), key=lambda q: -view.scores[q]):
            mark = "  ← won" if seat in winners else ""
            lines.append(f"{s.name(seat):>12}: {view.scores[seat]:3} points{mark}")
        return lines

    def outcome(self) -> dict[str, Any]:
        view = self.view
        return {
            "game": "druids2004",
            "names": list(self.session.names),
            "my_seat": self.session.seat,
            "result": {
                "finished": view.game_over,
                "totals": list(view.scores),
                "winners": list(view.winners or ()),
                "ended_by": view.ended_by,
            },
        }

    def _game_over_read(self, _: None) -> None:
        self.on_end(self.outcome())

    # ------------------------------------------------------------------- bots
    def _run_bots(self) -> None:
        """Let the bots move on a worker thread, so the screen stays live while they think."""
        if self.session.bots_to_move:
            self.busy = True
            self.refresh_table()
            self.run_worker(self._bots, thread=True, exclusive=True, group="bots")

    def _bots(self) -> None:
        worker = get_current_worker()
        session = self.session
        for _ in range(MAX_BOT_MOVES):
            if worker.is_cancelled:
                return
            seat = session.bot_step()
            if seat is None:
                break
            if self.pause_s > 0 and session.view().turn_seat != seat:
                self.app.call_from_thread(self.refresh_table)
                time.sleep(self.pause_s)
        if not worker.is_cancelled:
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                self.app.call_from_thread(self._bots_done)

    def _bots_done(self) -> None:
        self.busy = False
        self.refresh_table()

    # ----------------------------------------------------------------- playing
    def _submit(self, move: int) -> None:
        self.ritual_mode = False
        if self.busy:
            self._refuse("wait: the other players are still moving")
            return
        reason = self.session.submit(move, then_bots=False)
        self.message = "" if reason is None else in_ui_words(reason, self.session.seat)
        if reason is not None:
            self.app.bell()
        self.refresh_table()
        if reason is None:
            self._run_bots()

    def _refuse(self, reason: str) -> None:
        self.message = reason
        self.app.bell()
        self.refresh_table()

    def _chosen(self) -> int | None:
        hand = self.view.hand
        return hand[self.cursor] if hand else None

    def action_cursor(self, step: int) -> None:
        hand = self.view.hand
        if hand:
            self.cursor = (self.cursor + step) % len(hand)
        self.refresh_table()

    def action_place(self, slot: int) -> None:
        if self.ritual_mode:
            self._submit(mv.ritual_move(slot))
            return
        card = self._chosen()
        if card is None:
            self._refuse("your hand is empty: nothing to play")
            return
        self._submit(mv.play_move(card, slot))

    def action_ritual(self) -> None:
        if self.view.to_move != self.view.seat:
            self._refuse("it is not your turn")
            return
        self.ritual_mode = True
        self.message = ""
        self.refresh_table()

    def action_cancel(self) -> None:
        self.ritual_mode = False
        self.refresh_table()

    def action_discard(self) -> None:
        card = self._chosen()
        if card is None:
            self._refuse("your hand is empty: nothing to discard")
        elif not is_gem(card):
            self._refuse(f"{format_card(card)} is a servant: only a gem can be discarded")
        else:
            self._submit(mv.discard_move(card))

    def action_draw(self, source: str) -> None:
        self._submit(mv.DRAW_GEM if source == "gem" else mv.DRAW_SERVANT)

    def action_stop(self) -> None:
        self._submit(mv.STOP)

    def action_rituals(self) -> None:
        self.app.push_screen(RitualHistory(self.view.rituals, self.session.name))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(KEYS, RULES, "Druids (2004)", "docs/rules-2004.md"))

    def action_leave(self) -> None:
        if self.view.game_over:
            self.on_end(self.outcome())
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self.on_end({**self.outcome(), "stopped": "you left the table"})

        self.app.push_screen(ConfirmLeave(), answered)
