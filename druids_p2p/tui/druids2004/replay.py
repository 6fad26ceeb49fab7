"""A Druids (2004) table's moves in words (the log of a table of peers) and ``druids replay
RECORD`` stepping through them, both read from the tokens the moves' messages carried."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from druids_p2p.audit.replay import ReplayedGame
from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import format_card, is_gem
from druids_p2p.games.druids2004.hidden import YES
from druids_p2p.games.druids2004.ruleset import ENDS
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.tui.druids2004.places import HandLine, PlaceRow, ScoreColumn
from druids_p2p.tui.druids2004.session import place_name
from druids_p2p.tui.game_ui import KeysFooter
from druids_p2p.tui.widgets import WrapLog, plain

_PLAY = re.compile(r"play slot:(\d)$")


def _back(slot: int, before: SeatView | None, after: SeatView | None) -> str:
    """Which back went onto place ``slot``: the pile that grew between the two views."""
    if before is None or after is None:
        return "a card"
    old, new = before.row[slot], after.row[slot]
    if new is None:
        return "a card"
    if old is None or old.place != new.place:  # a ritual turned a new place there meanwhile
        gems, servants = 0, 0
    else:
        gems, servants = len(old.gems), len(old.servants)
    if len(new.gems) > gems:
        return "a gem"
    return "a servant" if len(new.servants) > servants else "a card"


def move_line(
    seat: int,
    token: str,
    name: Callable[[int], str],
    *,
    me: int | None,
    before: SeatView | None,
    after: SeatView | None,
    sent: int | None,
) -> str | None:
    """The line for ``seat``'s move ``token``; ``before``/``after``: this seat's views around
    it (None if not known), ``sent``: the move this seat's person chose last. None for this
    seat's draw, which is told once its card is in the hand (:func:`drawn_lines`)."""
    mine = seat == me
    who = name(seat)

    def says(you: str, they: str) -> str:
        return f"{who} {you if mine else they}"

    own = mv.decode(sent) if mine and sent is not None else None
    play = _PLAY.match(token)
    if play is not None:
        slot = int(play[1])
        what = (
            format_card(own.card)
            if own is not None and own.kind == mv.KIND_PLAY
            else _back(slot, before, after)
        )
        return says(f"play {what} onto place {slot + 1}", f"plays {what} onto place {slot + 1}")
    if token == "play discards":
        what = format_card(own.card) if own is not None and own.kind == mv.KIND_DISCARD else "a gem"
        return says(f"discard {what} face down", f"discards {what} face down")
    if token.startswith("Word:"):
        word = "yes" if token == YES else "no"
        return says(
            f"give your word on your face-down gems: {word}",
            f"gives its word on its face-down gems: {word}",
        )
    try:
        move = mv.Move.from_token(token)  # the token is read once, here, where it enters
    except ValueError:
        return f"{who}: {token}"
    if move.kind == mv.KIND_DRAW:
        if mine:
            return None
        source = "the gem pile" if move.source == "gem" else "its reserve"
        return f"{who} draws from {source}"
    if move.kind == mv.KIND_RITUAL:
        place = before.row[move.slot] if before is not None else None
        where = f"place {move.slot + 1}" + (f", {place_name(place.place)}" if place else "")
        return says(f"announce a ritual on {where}", f"announces a ritual on {where}")
    if move.kind == mv.KIND_STOP:
        return says("end the turn", "ends the turn")
    return f"{who}: {token}"


def drawn_lines(before: SeatView | None, after: SeatView) -> list[str]:
    """This seat's hand as first dealt, or each card it gained since ``before`` (a draw: a gem
    from the gem pile, a servant from its reserve; a hand gains cards no other way)."""
    if before is None:
        hand = " ".join(format_card(c) for c in after.hand) or "empty"
        return [f"your hand: {hand}"]
    gained = [c for c in after.hand if c not in before.hand]
    return [
        f"you draw {format_card(c)} from {'the gem pile' if is_gem(c) else 'your reserve'}"
        for c in gained
    ]


LOG_MOVES = 40
"""The moves up to the step shown in the log (the latest last)."""


@dataclass(frozen=True)
class Step2004:
    """One position of the replay: before the first move, or after one."""

    caption: str
    view: SeatView | None
    seat: int | None
    """Who made the move that led here (None: the start)."""
    moves: int
    """How many moves the record holds up to here."""


def move_text(
    game: ReplayedGame,
    index: int,
    viewer: int,
    before: SeatView | None = None,
    after: SeatView | None = None,
) -> str:
    """Move ``index`` as the viewer ("you") saw it, in the live table's words (places 1-6, as
    every screen numbers them): the card of its own face-down plays, the back of the others'
    (``before`` / ``after``: the viewer's views around the move, when known)."""
    played = game.card_table
    assert played is not None
    p = played.plays[index]

    def name(seat: int) -> str:
        return "you" if seat == viewer else game.names[seat]

    own = p.card if p.seat == viewer else None
    sent = None
    if own is not None and p.token.startswith("play slot:"):
        sent = mv.play_move(own, int(p.token.rpartition(":")[2]))
    elif own is not None and p.token == "play discards":
        sent = mv.discard_move(own)
    line = move_line(p.seat, p.token, name, me=viewer, before=before, after=after, sent=sent)
    if line is None:  # the viewer's draw (the live table tells its card once it is in)
        source = "the gem pile" if p.token == "Draw:gem" else "your reserve"
        line = f"you draw from {source}"
    return line


def build_steps(game: ReplayedGame) -> list[Step2004]:
    """Every step of the record, in order: the start, then one after each move."""
    played = game.card_table
    if played is None:
        raise TypeError(f"a {game.ruleset} record is not read move by move at a card table")
    viewer = game.owner if game.owner is not None else 0
    views = played.views

    def view(k: int) -> SeatView | None:
        seen: Any = views[k][viewer] if k < len(views) else None
        return seen if isinstance(seen, SeatView) else None

    if not played.plays and not views:
        return [Step2004("no move in the record: the table never played", None, None, 0)]
    start = "The table is set: before the first move"
    if not views:
        start += " — the record holds no final reveal, so no card can be shown"
    steps = [Step2004(start, view(0), None, 0)]
    last = len(played.plays)
    for k in range(1, last + 1):
        caption = f"Move {k}: {move_text(game, k - 1, viewer, view(k - 1), view(k))}"
        if k == last and played.complete:
            how = ENDS.get(played.ended_by or "", played.ended_by or "")
            won = ", ".join(game.names[w] for w in played.winners or ())
            caption += f" — game over: {how}; totals {played.totals}, won by {won}"
        elif k == last and game.stopped is not None:
            caption += f" — the table stopped: {game.stopped}"
        steps.append(Step2004(caption, view(k), played.plays[k - 1].seat, k))
    return steps


class Replay2004Screen(Screen[None]):
    DEFAULT_CSS = """
    Replay2004Screen { layout: vertical; }
    Replay2004Screen #title { height: 1; background: $primary; color: $text; padding: 0 1; }
    Replay2004Screen #step { height: auto; padding: 0 1; text-style: bold; }
    Replay2004Screen #log { height: 1fr; min-height: 3; border: round $primary-darken-2; }
    """
    AUTO_FOCUS = None  # the keys step the replay; nothing here is played

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", "next move", priority=True),
        Binding("left,p", "step(-1)", "previous move", priority=True),
        Binding("pagedown", "turn(1)", "next turn"),
        Binding("pageup", "turn(-1)", "previous turn"),
        Binding("home", "go(0)", "first", show=False),
        Binding("end", "go(-1)", "last", show=False),
        Binding("q,escape,ctrl+c", "leave", "quit"),
    ]

    def __init__(self, game: ReplayedGame) -> None:
        super().__init__()
        self.game = game
        self.steps = build_steps(game)
        self.viewer = game.owner if game.owner is not None else 0
        self.index = 0

    def compose(self) -> ComposeResult:
        game = self.game
        who = game.names[self.viewer] if game.names else "?"
        seen = f"as {who} saw it" if game.owner is not None else f"from seat 0 ({who}; --seat N)"
        verdict = "audit ok" if game.audit.ok else f"audit: {game.audit.problem}"
        # The names (and the audit's words about them) are the players' own: never markup.
        title = f"Druids (2004) — replay of {game.path.name}, {seen} · {verdict}"
        yield Static(plain(title), id="title")
        yield Static("", id="step")
        yield PlaceRow()
        hand = HandLine(own=False)
        hand.border_title = plain(f"{who}'s hand")
        yield hand
        options = game.rules.make_options(game.options.players)
        yield ScoreColumn(game.names, int(getattr(options, "column_spaces", 0)))
        log = WrapLog()
        log.border_title = "Moves"
        log.can_focus = False
        yield log
        yield KeysFooter()

    def on_mount(self) -> None:
        self.show_step()

    @property
    def step(self) -> Step2004:
        return self.steps[self.index]

    def show_step(self) -> None:
        step = self.step
        where = f"[{self.index}/{len(self.steps) - 1}] "
        self.query_one("#step", Static).update(plain(where + step.caption))
        view = step.view
        for widget in (PlaceRow, HandLine, ScoreColumn):
            self.query_one(widget).display = view is not None
        if view is not None:
            self.query_one(PlaceRow).show(view)
            self.query_one(HandLine).show(view, -1)
            self.query_one(ScoreColumn).show(view, self.game.names)
        log = self.query_one(WrapLog)
        log.forget()
        first = max(0, step.moves - LOG_MOVES)
        for k in range(first, step.moves):
            around = self.steps[k].view, self.steps[k + 1].view  # before and after move k+1
            log.add(plain(f"{k + 1:4d}. {move_text(self.game, k, self.viewer, *around)}"))

    def action_step(self, delta: int) -> None:
        self.action_go(max(0, min(len(self.steps) - 1, self.index + delta)))

    def action_turn(self, delta: int) -> None:
        """To the first move of the next turn (another seat's), or of this / the previous one."""
        steps, i = self.steps, self.index
        if delta > 0:
            later = [j for j in range(i + 1, len(steps)) if steps[j].seat != steps[i].seat]
            self.action_go(later[0] if later else len(steps) - 1)
            return
        start = self._turn_start(i)
        if start == i:
            start = self._turn_start(i - 1) if i > 1 else 0
        self.action_go(start)

    def _turn_start(self, i: int) -> int:
        """The first step of the turn step ``i`` is in (the start stands alone)."""
        seat = self.steps[i].seat
        while i > 1 and self.steps[i - 1].seat == seat:
            i -= 1
        return i

    def action_go(self, index: int) -> None:
        self.index = index % len(self.steps)
        self.show_step()

    def action_leave(self) -> None:
        self.app.exit()


class Replay2004App(App[None]):
    TITLE = "Druids (2004) replay"

    def __init__(self, game: ReplayedGame) -> None:
        super().__init__()
        self.game = game

    def on_mount(self) -> None:
        self.push_screen(Replay2004Screen(self.game))
