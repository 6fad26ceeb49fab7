"""The Druids (2016) board drawn as a grid (row 7 at the top, as the rulings draw it), and the
squares a click lands on. The game is of perfect information, so every seat draws the whole position
(a copy of the engine's :class:`Game`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from druids_p2p.games.druids2016.board import (
    COLS,
    COLUMN_NAMES,
    ROWS,
    STAR,
    TEMPLE,
    TERRAINS,
    square_name,
)
from druids_p2p.games.druids2016.game import KIND_LETTERS, Game
from druids_p2p.tui.game_ui import text_key
from druids_p2p.tui.widgets import seat_colour

CELL_W = 8
CELL_H = 3
LEFT = 3
"""Columns before the first square (the row numbers)."""
TOP = 1
"""Lines before the first row (the column letters)."""

ARROWS = "↑→↓←"
"""A Druid's facing: north (towards row 7, up the screen), east, south, west."""
MASTER = "★"
DRUID = "●"
TILE_GLYPHS = {"M": "▲", "F": "♣", "C": "☁", "R": "≈"}
TILE_STYLES = {
    "M": "bold #d7af87",
    "F": "bold #5fd75f",
    "C": "bold #e4e4e4",
    "R": "bold #5fafff",
}
TEMPLE_GLYPH = "⌂"
STAR_GLYPH = "✶"

GROUND = ("#262626", "#303030")
FOCUS_BG = "#005f87"
DEST_BG = "#005f00"
LANDING_BG = "#1c4f1c"
SOURCE_BG = "#5f5f00"
TARGET_BG = "#5f005f"
LAST_BG = "#4e3a1a"
CURSOR = "bold #ffff5f"


@dataclass(frozen=True)
class Marks:
    """What the board shows besides the position (sets of squares)."""

    cursor: int | None = None
    focus: int | None = None
    destinations: frozenset[int] = frozenset()
    landings: frozenset[int] = frozenset()
    sources: frozenset[int] = frozenset()
    targets: frozenset[int] = frozenset()
    last: frozenset[int] = field(default_factory=frozenset)


def last_move_squares(game: Game) -> frozenset[int]:
    """The squares of the last move: where the Druid left and where it ended, and, for a tile
    it forced, where the tile was and where it went."""
    if not game.history:
        return frozenset()
    _, druid, origin, _, _, moved, old_square, _, _ = game.history[-1]
    squares = {origin, game.pos[druid]}
    if moved >= 0:
        squares |= {old_square, game.tile_sq[moved]}
    return frozenset(s for s in squares if s >= 0)


def square_at(x: int, y: int) -> int | None:
    """The square under widget offset (``x``, ``y``), or None off the squares."""
    col, row_from_top = (x - LEFT) // CELL_W, (y - TOP) // CELL_H
    if x < LEFT or y < TOP or not (0 <= col < COLS and 0 <= row_from_top < ROWS):
        return None
    return (ROWS - 1 - row_from_top) * COLS + col


def _background(square: int, marks: Marks) -> str:
    if square in marks.targets:
        return TARGET_BG
    if square in marks.sources:
        return SOURCE_BG
    if square == marks.focus:
        return FOCUS_BG
    if square in marks.destinations:
        return DEST_BG
    if square in marks.landings:
        return LANDING_BG
    if square in marks.last:
        return LAST_BG
    row, col = divmod(square, COLS)
    return GROUND[(row + col) % 2]


def _printed(game: Game, square: int) -> Text:
    """Line 1 of a square: what is printed on it, then the tile lying on it."""
    cell = game.board.cells[square]
    out = Text()
    if cell == TEMPLE:
        out.append(f"{TEMPLE_GLYPH}T", style="bold #ffd75f")
    elif cell == STAR:
        out.append(STAR_GLYPH, style="#8a8a8a")
    elif cell in TERRAINS:
        out.append(f"({cell})", style=TILE_STYLES[cell].replace("bold ", ""))
    kind = KIND_LETTERS[game.tile[square]]
    if kind:
        pad = CELL_W - 2 - out.cell_len - 2
        out.append(" " * max(pad, 1))
        out.append(f"{TILE_GLYPHS[kind]}{kind}", style=TILE_STYLES[kind])
    return out


def _druid(game: Game, square: int) -> Text:
    """Line 2 of a square: the Druid standing on it, if any."""
    druid = game.occ[square]
    if druid < 0:
        return Text()
    side = druid // 3
    body = MASTER if druid == game.master[side] else DRUID
    return Text(f"{body}{ARROWS[game.face[druid]]}", style=f"bold {seat_colour(game.player(side))}")


def _line(inner: Text, bg: str, cursor: bool, edges: tuple[str, str], centre: bool) -> Text:
    width = CELL_W - 2
    inner = inner.copy()
    inner.truncate(width)
    if centre:
        left = (width - inner.cell_len) // 2
        inner = Text(" " * left) + inner
    inner.pad_right(width - inner.cell_len)
    line = Text()
    edge_style = CURSOR if cursor else ""
    line.append(edges[0] if cursor else " ", style=edge_style)
    line.append_text(inner)
    line.append(edges[1] if cursor else " ", style=edge_style)
    line.stylize(Style(bgcolor=bg))
    return line


def board_text(game: Game, marks: Marks) -> Text:
    """The whole board as text: column letters, then row 7 down to row 1."""
    out = Text(" " * LEFT)
    for letter in COLUMN_NAMES:
        out.append(letter.center(CELL_W), style="bold")
    for r in reversed(range(ROWS)):
        for k in range(CELL_H):
            out.append("\n")
            out.append(f"{r + 1:>2} " if k == 1 else " " * LEFT, style="bold")
            for c in range(COLS):
                square = r * COLS + c
                bg = _background(square, marks)
                cursor = square == marks.cursor
                if k == 0:
                    out.append_text(_line(_printed(game, square), bg, cursor, ("┌", "┐"), False))
                elif k == 1:
                    out.append_text(_line(_druid(game, square), bg, cursor, ("│", "│"), True))
                else:
                    name = Text(square_name(square).rjust(CELL_W - 2), style="#6c6c6c")
                    out.append_text(_line(name, bg, cursor, ("└", "┘"), False))
    return out


class BoardView(Widget):
    """The board; a click on a square posts :class:`BoardView.Clicked`."""

    DEFAULT_CSS = """
    BoardView { width: 43; height: 22; }
    """

    class Clicked(Message):
        def __init__(self, square: int) -> None:
            super().__init__()
            self.square = square

    def __init__(self, game: Game, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.game = game
        self.marks = Marks()
        self._text = board_text(game, self.marks)
        self._key = text_key(self._text)

    def show(self, game: Game, marks: Marks) -> None:
        """Draw ``game`` with ``marks``: rendered again only when the board's text changed (a
        redraw after a key that moved nothing, or after another seat's chat, renders nothing)."""
        self.game, self.marks = game, marks
        text = board_text(game, marks)
        key = text_key(text)
        if key != self._key:
            self._text, self._key = text, key
            self.refresh()

    def render(self) -> Text:
        return self._text

    def on_click(self, event: events.Click) -> None:
        square = square_at(event.x, event.y)
        if square is not None:
            event.stop()
            self.post_message(self.Clicked(square))
