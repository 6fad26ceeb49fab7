"""``druids replay RECORD`` of a Druids (2016) table: the game stepped through move by move.

Each step is a seat's view from the audit's own replay (``audit/replay.py``), drawn on the live
table's board; a record without every seat's secret has no views, so its moves are listed alone.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static

from druids_p2p.audit.replay import ReplayedGame
from druids_p2p.games.druids2016.view import SeatView
from druids_p2p.tui.druids2016.board import BoardView, Marks, last_move_squares
from druids_p2p.tui.druids2016.session import view_position
from druids_p2p.tui.game_ui import KeysFooter
from druids_p2p.tui.widgets import plain

LOG_MOVES = 30
"""The moves up to the step shown (the latest last)."""


class Replay2016Screen(Screen[None]):
    DEFAULT_CSS = """
    Replay2016Screen #main { height: 1fr; }
    Replay2016Screen #board { margin: 0 1; }
    Replay2016Screen #side { width: 1fr; padding: 0 1; }
    Replay2016Screen #caption { height: auto; text-style: bold; }
    Replay2016Screen #moves { height: 1fr; margin-top: 1; border: round $primary-darken-2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", "next"),
        Binding("left,p", "step(-1)", "previous"),
        Binding("home", "jump(0)", "first"),
        Binding("end", "jump(-1)", "last"),
        Binding("q,escape", "app.quit", "quit"),
    ]

    def __init__(self, game: ReplayedGame) -> None:
        super().__init__()
        self.game = game
        played = game.card_table
        self.plays = played.plays if played is not None else ()
        self.views = played.views if played is not None else ()
        self.seat = game.owner if game.owner is not None else 0
        self.index = max(0, len(self.views) - 1)
        """The step shown: the view after ``index`` moves."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield BoardView(view_position(self.view(), self.seat), id="board")
            with Vertical(id="side"):
                yield Static(id="caption")
                moves = Static(id="moves")
                moves.border_title = "Moves"
                yield moves
        yield KeysFooter()

    def on_mount(self) -> None:
        self.draw()

    def view(self) -> SeatView | None:
        if not self.views:
            return None
        view = self.views[self.index][self.seat]
        return view if isinstance(view, SeatView) else None

    def player(self, seat: int) -> str:
        names = self.game.names
        mine = " (you)" if seat == self.seat else ""
        return (names[seat] if 0 <= seat < len(names) else f"seat {seat}") + mine

    def caption(self) -> str:
        played = self.game.card_table
        if not self.views:
            return "this record holds no views (it stopped before its final reveal): the moves"
        total = len(self.views) - 1
        if self.index == 0:
            text = f"the start (of {total} moves)"
        else:
            play = self.plays[self.index - 1]
            text = f"move {self.index} of {total}: {self.player(play.seat)} {play.token}"
        if self.index == total and played is not None and played.ended_by:
            text += f" — the game ended: {played.ended_by}"
        elif self.index == total and self.game.stopped:
            text += f" — the table stopped: {self.game.stopped}"
        return text

    def draw(self) -> None:
        game = view_position(self.view(), self.seat)
        self.query_one(BoardView).show(game, Marks(last=last_move_squares(game)))
        self.query_one("#caption", Static).update(plain(self.caption()))
        upto = self.index if self.views else len(self.plays)
        lines = [
            f"{k + 1:3d}. {self.player(p.seat)} {p.token}" for k, p in enumerate(self.plays[:upto])
        ]
        self.query_one("#moves", Static).update(plain("\n".join(lines[-LOG_MOVES:])))

    def action_step(self, delta: int) -> None:
        if self.views:
            self.index = min(max(self.index + delta, 0), len(self.views) - 1)
            self.draw()

    def action_jump(self, where: int) -> None:
        if self.views:
            self.index = where % len(self.views)
            self.draw()


class Replay2016App(App[None]):
    TITLE = "Druids (2016) — replay"

    def __init__(self, game: ReplayedGame) -> None:
        super().__init__()
        self.game = game

    def on_mount(self) -> None:
        self.push_screen(Replay2016Screen(self.game))
