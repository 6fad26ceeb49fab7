"""What the two Druids (2004) table screens share: the layout, one seat's view, rituals told step by
step, and the keys that choose a move (``?`` lists them). The offline table and the table of peers
differ only in where the view comes from and where a chosen move goes (:meth:`submit_move`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import ROW_SLOTS, format_card, is_gem
from druids_p2p.games.druids2004.ruleset import ENDS
from druids_p2p.games.druids2004.setup import RitualDone
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.tui.dialogs import HelpScreen
from druids_p2p.tui.druids2004.dialogs import KEYS, RULES, RitualHistory, RitualSteps
from druids_p2p.tui.druids2004.places import HandLine, PlaceRow, ScoreColumn, signs
from druids_p2p.tui.game_ui import NO_PREFS, KeysFooter, TablePrefs, show_text
from druids_p2p.tui.widgets import TableLog, plain, seat_colour

MARKED_KINDS = frozenset({mv.KIND_PLAY, mv.KIND_DISCARD})
"""Moves that put a card down: with ``--confirm-plays`` a second key plays them."""
PASS_KEYS = frozenset({"question_mark", "q", "ctrl+q", "ctrl+c", "c"})
"""Keys that keep their meaning while a move is marked (help, quit, chat)."""


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


class Board2004(Screen[None]):
    """One seat's view of a 2004 table and the keys that choose its moves; a subclass holds the
    view (:meth:`current_view`) and plays what is chosen (:meth:`submit_move`)."""

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
    ]

    ritual_dialog: ClassVar[type[RitualSteps]] = RitualSteps
    """The dialog a ritual is told in (the table of peers': with the chat key)."""
    history_dialog: ClassVar[type[RitualHistory]] = RitualHistory
    prefs: TablePrefs = NO_PREFS

    def __init__(
        self,
        names: Sequence[str],
        column_spaces: int,
        prefs: TablePrefs | None = None,
        **screen: Any,
    ) -> None:
        """``screen``: what the next class of a subclass takes (the table of peers' paced
        screen: its session, pacing and clock); ``prefs``: the person's (the legend the first
        time, ``--confirm-plays``)."""
        super().__init__(**screen)
        if prefs is not None:
            self.prefs = prefs  # (after the paced screen's own, which does not get them)
        self.names = tuple(names)
        self.column_spaces = column_spaces
        self.cursor = 0
        self.ritual_mode = False
        self.message = ""
        self.rituals_waiting: list[RitualDone] = []
        self.showing_ritual = False
        self.marked: int | None = None
        """With ``--confirm-plays``: the move the first key marked (a play or a discard)."""
        self.confirm_keys: frozenset[str] = frozenset()
        """The keys that play it: its own key again, or enter."""

    # ------------------------------------------------------------ the subclass's part
    def current_view(self) -> SeatView | None:
        """This seat's view as last drawn (None: nothing dealt yet)."""
        raise NotImplementedError

    def submit_move(self, move: int) -> None:
        """Play the move the keys chose (the table checks it and says why it refuses)."""
        raise NotImplementedError

    def seat_name(self, seat: int) -> str:
        """A seat's name, ``you`` for this seat."""
        view = self.current_view()
        if view is not None and seat == view.seat:
            return "you"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def status_line(self, view: SeatView | None) -> str:
        if view is None:
            return "Waiting for the table: keys, shuffles and the deal"
        return what_now(view, self.ritual_mode, self.seat_name)

    def rituals_read(self) -> None:
        """Every ritual shown so far has been read (the offline table then shows the end)."""

    # ------------------------------------------------------------------ layout
    def on_mount(self) -> None:
        """The first time at this game: the legend, before anything else."""
        if self.prefs.legend:
            view = self.current_view()
            seat = view.seat if view is not None else None
            self.app.push_screen(help_screen(seat, first_time=True))

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield PlaceRow()
        yield HandLine()
        yield Static(id="message")
        with Horizontal(id="lower"):
            yield ScoreColumn(self.names, self.column_spaces)
            yield TableLog()
        yield KeysFooter()

    def draw(self) -> None:
        """Draw the current view, then the next unread ritual."""
        view = self.current_view()
        if view is not None:
            self.cursor = max(0, min(self.cursor, len(view.hand) - 1))
            self.query_one(PlaceRow).show(view)
            self.query_one(HandLine).show(view, self.cursor)
            self.query_one(ScoreColumn).show(view, self.names)
        # Both may quote a player's name or a peer's reason: plain text, never markup.
        show_text(self.query_one("#status", Static), plain(self.status_line(view)))
        show_text(self.query_one("#message", Static), plain(self.message))
        self.next_dialog()

    def log_line(self, text: Text | str, seat: int | None = None) -> None:
        """One line of the table's log, in ``seat``'s colour if given."""
        style = "" if seat is None else seat_colour(seat)
        self.query_one(TableLog).append_line(text, style)

    def next_dialog(self) -> None:
        """The next unread ritual; once all are read, :meth:`rituals_read`."""
        if self.showing_ritual:
            return
        if self.rituals_waiting:
            self.showing_ritual = True
            ritual = self.rituals_waiting.pop(0)
            self.app.push_screen(self.ritual_dialog(ritual, self.seat_name), self._ritual_read)
            return
        self.rituals_read()

    def _ritual_read(self, _: None) -> None:
        self.showing_ritual = False
        self.next_dialog()

    def refuse(self, reason: str) -> None:
        self.message = reason
        self.app.bell()
        self.draw()

    # ------------------------------------------------------------------ keys
    def _chosen(self) -> int | None:
        view = self.current_view()
        hand = view.hand if view is not None else ()
        return hand[self.cursor] if hand else None

    def _choose(self, move: int) -> None:
        self.ritual_mode = False
        kind = mv.decode(move).kind
        view = self.current_view()
        legal = view is not None and move in view.legal  # (a refused move: its reason at once)
        if self.prefs.confirm_plays and kind in MARKED_KINDS and legal and self.marked != move:
            self._mark(move)
            return
        self.marked = None
        self.submit_move(move)

    def _mark(self, move: int) -> None:
        """``--confirm-plays``: the move waits for its key again (or enter)."""
        m = mv.decode(move)
        key = str(m.slot + 1) if m.kind == mv.KIND_PLAY else "x"
        what = (
            f"{format_card(m.card)} onto place {m.slot + 1}"
            if m.kind == mv.KIND_PLAY
            else f"discard {format_card(m.card)}"
        )
        self.marked, self.confirm_keys = move, frozenset({key, "enter"})
        self.message = f"{what}: press {key} again (or enter) to play it — any other key cancels"
        self.draw()

    def on_key(self, event: events.Key) -> None:
        """With a move marked, a key other than its own (or enter) cancels it, and does nothing
        else (help, quit and chat keep their meaning)."""
        if self.marked is None or event.key in self.confirm_keys | PASS_KEYS:
            return
        event.stop()
        event.prevent_default()
        self.marked = None
        self.message = "cancelled: nothing played"
        self.draw()

    def action_cursor(self, step: int) -> None:
        view = self.current_view()
        if view is not None and view.hand:
            self.cursor = (self.cursor + step) % len(view.hand)
        self.draw()

    def action_place(self, slot: int) -> None:
        if self.ritual_mode:
            self._choose(mv.ritual_move(slot))
            return
        card = self._chosen()
        if card is None:
            self.refuse("your hand is empty: nothing to play")
            return
        self._choose(mv.play_move(card, slot))

    def action_ritual(self) -> None:
        view = self.current_view()
        if view is None or view.to_move != view.seat:
            self.refuse("it is not your turn")
            return
        self.ritual_mode = True
        self.message = ""
        self.draw()

    def action_cancel(self) -> None:
        self.ritual_mode = False
        self.draw()

    def action_discard(self) -> None:
        card = self._chosen()
        if card is None:
            self.refuse("your hand is empty: nothing to discard")
        elif not is_gem(card):
            self.refuse(f"{format_card(card)} is a servant: only a gem can be discarded")
        else:
            self._choose(mv.discard_move(card))

    def action_draw(self, source: str) -> None:
        self._choose(mv.DRAW_GEM if source == "gem" else mv.DRAW_SERVANT)

    def action_stop(self) -> None:
        self._choose(mv.STOP if self.marked is None else self.marked)

    def action_rituals(self) -> None:
        view = self.current_view()
        rituals = view.rituals if view else ()
        self.app.push_screen(self.history_dialog(rituals, self.seat_name))

    def action_help(self) -> None:
        view = self.current_view()
        self.app.push_screen(help_screen(view.seat if view is not None else None))


def help_screen(seat: int | None = None, first_time: bool = False) -> HelpScreen:
    """The 2004 table's legend, keys and rules (key ``?``; ``seat``: this seat, if known)."""
    return HelpScreen(
        KEYS, RULES, "Druids (2004)", "docs/rules-2004.md", signs(seat), first_time=first_time
    )
