"""The Druids (2016) table against a bot in this process, with its dialogs and app: the board, the
players and the moves so far; the person chooses on the board, square by square, and the bot moves
on a worker thread so that the screen stays live while it thinks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from druids_p2p.games.druids2016.board import COLS, ROWS
from druids_p2p.games.druids2016.game import Game
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.view import outcome as totals_of
from druids_p2p.tui.dialogs import HelpScreen
from druids_p2p.tui.druids2016.board import (
    ARROWS,
    DRUID,
    MASTER,
    STAR_GLYPH,
    TEMPLE_GLYPH,
    TILE_GLYPHS,
    BoardView,
    Marks,
    last_move_squares,
)
from druids_p2p.tui.druids2016.choice import Picker
from druids_p2p.tui.druids2016.session import BoardSeat, Offline2016, end_words
from druids_p2p.tui.game_ui import KeysFooter, show_text
from druids_p2p.tui.widgets import COACH_KEY, ask_coach, plain, seat_colour

# ---- formerly dialogs.py:
# The Druids (2016) table's dialogs: the end of the game, leaving, and the help (key ``?``)
# with the keys, the signs on the board and the rules in brief (docs/rules-2016.md in full).

KEYS: tuple[tuple[str, str], ...] = (
    ("← → ↑ ↓ / h j k l", "move the cursor over the board"),
    ("enter / space / click", "choose the square: a Druid, then where it goes, then the tile"),
    ("tab / shift+tab", "focus your next / previous Druid that can move"),
    ("n e s w", "step the focused Druid north (up) / east / south / west"),
    ("escape", "take back the last choice (the tile, the step, the Druid)"),
    (
        "a",
        "at a table of you and your bots (the coach on): what the strongest bot would play "
        "here, and why",
    ),
    ("?", "this help"),
    ("q", "leave the table"),
)
SIGNS: tuple[tuple[str, str], ...] = (
    (f"{DRUID}{ARROWS[0]}", "a Druid in its player's colour; the arrow is its facing"),
    (f"{MASTER}{ARROWS[2]}", "the Master Druid (into the other Temple wins; captured loses)"),
    (f"{TEMPLE_GLYPH}T", "a Temple (c1 for the player at row 1, c7 for the other)"),
    (STAR_GLYPH, "a Star (the tiles start on the middle one and beside the others)"),
    ("(M) (F) (C) (R)", "a terrain symbol printed on the board: ending a move on it moves a tile"),
    (f"{TILE_GLYPHS['M']}M", "the Mountain tile: no Druid may enter it"),
    (f"{TILE_GLYPHS['F']}F", "the Forest tile: a Druid on it cannot be captured"),
    (f"{TILE_GLYPHS['C']}C", "a Cloud tile: a Druid entering one moves on to the other"),
    (f"{TILE_GLYPHS['R']}R", "the River tile: a Druid entering it moves one square further"),
    ("colours", "blue: the focused Druid; green: where it may go; purple: where the tile may "
     "go; olive: the Cloud tiles to choose from; brown: the last move"),
)  # fmt: skip
RULES: tuple[str, ...] = (
    "Move one of your Druids one square, in any direction but the one it faces; it then faces "
    "the way it moved. Moving onto an opponent's Druid captures it.",
    "Ending a move on a terrain symbol moves a tile of that kind to a free square (you choose).",
    "You win with your Master Druid in the other player's Temple, or by capturing their Master; "
    "a player with no legal move loses.",
    "A position seen for the third time, or 200 moves without a capture, is a draw.",
)


def help_screen() -> HelpScreen:
    return HelpScreen(KEYS, RULES, "Druids (2016)", "docs/rules-2016.md", SIGNS)


_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 76; height: auto; max-height: 100%; border: thick $primary;
    background: $surface; padding: 0 2;
}}
{name} .title {{ text-style: bold; margin-bottom: 1; }}
{name} .hint {{ color: $text-muted; margin-top: 1; }}
"""


class GameOver2016(ModalScreen[None]):
    """Who won and why (or why it is a draw), in a few lines; enter leaves the table."""

    DEFAULT_CSS = _CSS.format(name="GameOver2016")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,escape,q", "close", "leave")]

    def __init__(self, headline: str, lines: Sequence[str]) -> None:
        super().__init__()
        self.headline = headline
        self.lines = tuple(lines)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.headline), classes="title", id="headline")  # names
            yield Static(plain("\n".join(self.lines)), id="game-over")
            yield Static("enter: leave the table", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmLeave2016(ModalScreen[bool]):
    DEFAULT_CSS = _CSS.format(name="ConfirmLeave2016")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "leave"),
        Binding("n,escape", "answer(False)", "stay"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Leave the game? (y / n)", classes="title")

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)


LOG_LINES = 16
CURSOR_STEPS = {"up": (1, 0), "down": (-1, 0), "left": (0, -1), "right": (0, 1)}


class Table2016Screen(Screen[None]):
    DEFAULT_CSS = """
    Table2016Screen #main { height: 1fr; }
    Table2016Screen #board { margin: 0 1; }
    Table2016Screen #side { width: 1fr; padding: 0 1; }
    Table2016Screen #players { height: auto; margin-bottom: 1; }
    Table2016Screen #hint { height: auto; text-style: bold; }
    Table2016Screen #message { height: auto; color: $warning; }
    Table2016Screen #moves { height: 1fr; margin-top: 1; border: round $primary-darken-2; }
    """
    AUTO_FOCUS = None
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor('up')", "cursor", show=False),
        Binding("down,j", "cursor('down')", "cursor", show=False),
        Binding("left,h", "cursor('left')", "cursor", show=False),
        Binding("right,l", "cursor('right')", "cursor", show=False),
        Binding("enter,space", "choose", "choose"),
        Binding("tab", "cycle(1)", "next Druid", priority=True),
        Binding("shift+tab", "cycle(-1)", "previous", show=False, priority=True),
        Binding("n", "go(0)", "north", show=False),
        Binding("e", "go(1)", "east", show=False),
        Binding("s", "go(2)", "south", show=False),
        Binding("w", "go(3)", "west", show=False),
        Binding("escape", "back", "back"),
        Binding("question_mark", "help", "help"),
        Binding("q", "leave", "quit"),
        Binding("ctrl+c", "leave", "quit", show=False, priority=True),
    ]

    def __init__(self, session: Offline2016, on_end: Callable[[dict[str, Any]], None]) -> None:
        super().__init__()
        self._start(session, on_end)

    def _start(self, seat: BoardSeat, on_end: Callable[[dict[str, Any]], None]) -> None:
        """What the screen holds: the seat it plays (``BoardSeat``: this process's table, or a
        peer's seat at a table of peers, ``lan_table.py``) and what to do once the end is read."""
        self.board_seat = seat
        self.on_end = on_end
        self.shown: Game = seat.position()
        self.picker: Picker | None = None
        self.cursor = self._start_cursor()
        self.message = ""
        self.busy = False
        self.end_shown = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield BoardView(self.shown, id="board")
            with Vertical(id="side"):
                yield Static(id="players")
                yield Static(id="hint")
                yield Static(id="message")
                moves = Static(id="moves")
                moves.border_title = "Moves"
                yield moves
        yield KeysFooter()

    def on_mount(self) -> None:
        self.refresh_table()
        self._run_bot()

    # ----------------------------------------------------------------- drawing
    def _start_cursor(self) -> int:
        game = self.shown
        side = game.setup.side_of(self.board_seat.seat)
        return game.pos[game.master[side]]

    def refresh_table(self) -> None:
        """Draw the position as it stands now; a new choice when it is the person's move."""
        game = self.board_seat.position()
        moved = game.ply != self.shown.ply or self.picker is None
        self.shown = game
        if self.board_seat.placing:
            self.picker = None
        elif self.board_seat.my_move and game.to_move == self.board_seat.seat and not self.busy:
            if moved:
                self.picker = Picker(game, game.legal_moves())
                if self.cursor not in self.picker.movable and self.picker.movable:
                    self.cursor = self.picker.movable[0]
        else:
            self.picker = None
        self.draw()
        if game.result is not None and not self.end_shown and self.end_ready():
            self.end_shown = True
            self.app.push_screen(GameOver2016(*self.end_lines()), self._game_over_read)

    def end_ready(self) -> bool:
        """The end may be shown (at a table of peers: once the table has told its result)."""
        return True

    def marks(self) -> Marks:
        last = last_move_squares(self.shown)
        p = self.picker
        if self.board_seat.placing:
            return Marks(
                cursor=self.cursor, destinations=frozenset(self.board_seat.place_choices())
            )
        if p is None:
            return Marks(cursor=self.cursor, last=last)
        landing = frozenset({p.step.final}) if p.step is not None else p.landings()
        return Marks(
            cursor=self.cursor,
            focus=p.focus,
            destinations=frozenset(p.destinations()),
            landings=landing,
            sources=p.tile_sources(),
            targets=p.tile_targets(),
            last=last,
        )

    def draw(self) -> None:
        game, s = self.shown, self.board_seat
        self.query_one(BoardView).show(game, self.marks())
        players = Text()
        for player in (0, 1):
            side = game.setup.side_of(player)
            left = sum(game.pos[d] >= 0 for d in range(3 * side, 3 * side + 3))
            turn = "▶ " if game.to_move == player else "  "
            players.append(turn, style="bold")
            players.append_text(plain(s.names[player], f"bold {seat_colour(player)}"))
            you = " (you)" if player == s.seat else ""
            players.append(f"{you}: row {1 if side == 0 else 7}, {left} Druid(s)\n")
        players.append(f"move {game.ply + 1}, {game.quiet} since the last capture", style="dim")
        show_text(self.query_one("#players", Static), players)
        show_text(self.query_one("#hint", Static), plain(self.hint()))
        show_text(self.query_one("#message", Static), plain(self.message))
        show_text(self.query_one("#moves", Static), plain("\n".join(s.log[-LOG_LINES:])))

    def hint(self) -> str:
        game = self.shown
        if game.result is not None:
            return f"Game over: {end_words(game, self.board_seat.name)}"
        if self.board_seat.placing:
            row = 1 if game.setup.side_of(self.board_seat.seat) == 0 else 7
            left = 2 - len(self.board_seat.placed)
            if not self.board_seat.place_choices():
                return self.board_seat.waiting_words()
            return (
                f"place your Druids: choose {left} more square(s) of row {row} "
                "(your Master ★ stands on your Temple)"
            )
        if self.picker is None:
            return self.board_seat.waiting_words()
        return self.picker.hint()

    def end_lines(self) -> tuple[str, list[str]]:
        game, s = self.shown, self.board_seat
        result = game.result
        assert result is not None
        if result.winner is None:
            headline = "Game over: a draw"
        elif result.winner == s.seat:
            headline = "Game over: you won"
        else:
            headline = f"Game over: {s.names[result.winner]} won"
        words = end_words(game, s.name)
        played = "1 move was" if game.ply == 1 else f"{game.ply} moves were"
        lines = [f"{words[:1].upper()}{words[1:]}.", f"{played} played."]
        if game.history:
            last = Move.from_code(game.history[-1][0]).token()
            lines.append(f"The last move: {last}.")
        return headline, lines

    def outcome(self) -> dict[str, Any]:
        result = self.shown.result
        totals, winners = totals_of(result)
        told = {"finished": True, "totals": list(totals), "winners": list(winners or ())}
        return {
            "game": "druids2016",
            "names": list(self.board_seat.names),
            "my_seat": self.board_seat.seat,
            "result": None if result is None else {**result.json(), **told},
            "moves": self.shown.ply,
        }

    def _game_over_read(self, _: None) -> None:
        self.on_end(self.outcome())

    # ----------------------------------------------------------------- choosing
    def action_cursor(self, way: str) -> None:
        dr, dc = CURSOR_STEPS[way]
        row, col = divmod(self.cursor, COLS)
        row, col = min(max(row + dr, 0), ROWS - 1), min(max(col + dc, 0), COLS - 1)
        self.cursor = row * COLS + col
        self.draw()

    def _ready(self) -> Picker | None:
        if self.picker is None:
            self.message = (
                "place your Druids first"
                if self.board_seat.placing
                else "the game is over"
                if self.shown.result
                else "wait: it is not your move"
            )
            self.app.bell()
            self.draw()
        return self.picker

    def action_choose(self) -> None:
        self._chose(self.cursor)

    def on_board_view_clicked(self, event: BoardView.Clicked) -> None:
        self.cursor = event.square
        self._chose(event.square)

    def _chose(self, square: int) -> None:
        if self.board_seat.placing:
            self._place(square)
            return
        picker = self._ready()
        if picker is not None:
            self._outcome(picker, picker.choose(square))

    def _place(self, square: int) -> None:
        reason = self.board_seat.place(square)
        self.message = reason or ""
        if reason is not None:
            self.app.bell()
        self.refresh_table()
        if reason is None and not self.board_seat.placing:
            self._run_bot()

    def action_cycle(self, delta: int) -> None:
        if self.board_seat.placing:
            choices = self.board_seat.place_choices()
            later = [s for s in choices if (s - self.cursor) * delta > 0]
            self.cursor = (
                (min(later) if delta > 0 else max(later))
                if later
                else choices[0 if delta > 0 else -1]
            )
            self.draw()
            return
        picker = self._ready()
        if picker is not None:
            square = picker.cycle(delta)
            if square is not None:
                self.cursor = square
            self.message = ""
            self.draw()

    def action_go(self, direction: int) -> None:
        picker = self._ready()
        if picker is not None:
            self._outcome(picker, picker.go(direction))

    def action_back(self) -> None:
        if self.picker is not None and self.picker.back():
            self.message = ""
            self.draw()

    def _outcome(self, picker: Picker, outcome: Move | str | None) -> None:
        if isinstance(outcome, str):
            self.message = outcome
            self.app.bell()
        elif isinstance(outcome, Move):
            self._play(outcome)
            return
        else:
            self.message = ""
        self.draw()

    def _play(self, move: Move) -> None:
        reason = self.board_seat.submit(move)
        self.message = "" if reason is None else f"{move.token()}: {reason}"
        if reason is not None:
            self.app.bell()
        self.picker = None
        self.refresh_table()
        if reason is None:
            self._run_bot()

    # ----------------------------------------------------------------- the bot
    def _run_bot(self) -> None:
        if self.board_seat.bot_to_move:
            self.busy = True
            self.refresh_table()
            self.run_worker(self._bot, thread=True, exclusive=True, group="bot")

    def _bot(self) -> None:
        worker = get_current_worker()
        while not worker.is_cancelled and self.board_seat.bot_step():
            pass
        if not worker.is_cancelled:
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                self.app.call_from_thread(self._bot_done)

    def _bot_done(self) -> None:
        self.busy = False
        self.refresh_table()

    def action_help(self) -> None:
        self.app.push_screen(help_screen())

    def action_leave(self) -> None:
        if self.shown.result is not None:
            self.on_end(self.outcome())
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self.on_end({**self.outcome(), "stopped": "you left the table"})

        self.app.push_screen(ConfirmLeave2016(), answered)


# ---- formerly app.py:
# The Textual application for a Druids (2016) table against a bot in this process: the table
# screen, then its end. The game file (``druids replay --game druids2016``) is written into the
# game folder when the table closes, finished or not (once the Druids are placed):
# ``record-2016.json``.

RECORD_NAME = "record-2016.json"


class Druids2016App(App[dict[str, Any] | None]):
    TITLE = "Druids (2016)"
    BINDINGS: ClassVar[list[BindingType]] = [COACH_KEY]
    """You and a bot on this machine: the coach is on (``a``)."""

    def __init__(self, session: Offline2016, folder: Path | None = None) -> None:
        super().__init__()
        self.session = session
        self.folder = folder
        self.table = Table2016Screen(session, self.finish)

    def on_mount(self) -> None:
        self.push_screen(self.table)

    def action_coach(self) -> None:
        """``a``: the coach on the position on show, once the Druids are placed, on your move."""
        table = self.table

        def show(line: str) -> None:
            table.message = f"coach: {line}"
            table.draw()

        ask_coach(table, None if table.busy else self.session.my_view(), show)

    def finish(self, outcome: dict[str, Any]) -> None:
        """Write the record (when there is a folder and a game) and leave with the outcome."""
        text = self.session.record_text()
        if self.folder is not None and text is not None:
            path = self.folder / RECORD_NAME
            path.write_text(text, encoding="utf-8")
            outcome = {**outcome, "record": str(path), "folder": str(self.folder)}
        self.exit(outcome)
