"""The board as data: squares, symbols, Temples and Stars, checked against the seed's constraints.
The printed board is not public, so the layout is a file anyone may replace; reading it is the
engine's one touch of the file system. What a game starts from (who moves first, where the tiles
lie and the Druids stand) is drawn here too, from randomness passed in.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Final

# The board as data: squares, symbols, Temples and Stars, checked against the seed's constraints.
# The printed board is not public, so the layout is a file anyone may replace; reading it is the
# engine's one touch of the file system.
COLS: Final = 5
ROWS: Final = 7
SQUARES: Final = COLS * ROWS
COLUMN_NAMES: Final = "abcde"

NORTH: Final = 0
EAST: Final = 1
SOUTH: Final = 2
WEST: Final = 3
DIRECTION_NAMES: Final = "nesw"
STEP: Final = ((1, 0), (0, 1), (-1, 0), (0, -1))
"""(row, column) change of one step in each direction; north is towards row 7."""

TEMPLE: Final = "T"
STAR: Final = "*"
PLAIN: Final = "."
MOUNTAIN: Final = "M"
FOREST: Final = "F"
CLOUD: Final = "C"
RIVER: Final = "R"
TERRAINS: Final = (MOUNTAIN, FOREST, CLOUD, RIVER)
CELLS: Final = frozenset((TEMPLE, STAR, PLAIN, *TERRAINS))


def square_name(square: int) -> str:
    """``a1`` .. ``e7`` of a square index (row-major from a1)."""
    return f"{COLUMN_NAMES[square % COLS]}{square // COLS + 1}"


def parse_square(text: str) -> int:
    """The index of ``a1`` .. ``e7``; ValueError naming the text otherwise."""
    if (
        not isinstance(text, str)
        or len(text) != 2
        or text[0] not in COLUMN_NAMES
        or text[1] not in "1234567"
    ):
        raise ValueError(f"{text!r} is no square (a1 to e7)")
    return (int(text[1]) - 1) * COLS + COLUMN_NAMES.index(text[0])


def _neighbour(square: int, direction: int) -> int:
    row, col = divmod(square, COLS)
    dr, dc = STEP[direction]
    row, col = row + dr, col + dc
    return row * COLS + col if 0 <= row < ROWS and 0 <= col < COLS else -1


NEIGHBOURS: Final[tuple[tuple[int, int, int, int], ...]] = tuple(
    (_neighbour(s, 0), _neighbour(s, 1), _neighbour(s, 2), _neighbour(s, 3)) for s in range(SQUARES)
)
"""``NEIGHBOURS[square][direction]``: the square one step away, -1 off the board."""


@dataclass(frozen=True)
class Board:
    """A checked layout. ``cells[square]`` is one of ``T * . M F C R``; ``temples[side]`` is the
    Temple on row 1 (side 0) and row 7 (side 1); ``starts`` the five squares the tiles start on
    (the middle Star, then the side Stars' open neighbours by column and row); ``tile_ok`` the
    squares a moved tile may go to (no symbol, Star or Temple, not on a Temple row)."""

    cells: tuple[str, ...]
    temples: tuple[int, int]
    stars: tuple[int, int, int]
    starts: tuple[int, int, int, int, int]
    tile_ok: tuple[bool, ...]
    text: str

    def symbol(self, square: int) -> str | None:
        """The terrain symbol printed on ``square`` (M, F, C or R), or None."""
        cell = self.cells[square]
        return cell if cell in TERRAINS else None

    def back_row(self, side: int) -> tuple[int, ...]:
        """Side 0's back row is row 1, side 1's is row 7."""
        row = 0 if side == 0 else ROWS - 1
        return tuple(range(row * COLS, row * COLS + COLS))

    def lines(self) -> list[str]:
        """The layout drawn as in a board file, row 7 at the top, with row and column names."""
        out = [
            f"row {r + 1}   " + "   ".join(self.cells[r * COLS + c] for c in range(COLS))
            for r in reversed(range(ROWS))
        ]
        out.append("        " + "   ".join(COLUMN_NAMES))
        return out


class BoardError(ValueError):
    """A board file that breaks a constraint of the seed or the rulings (one line, naming both)."""


def _rows(text: str, name: str) -> list[str]:
    rows: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        cells = line.replace(" ", "").replace("\t", "")
        if len(cells) != COLS:
            raise BoardError(
                f"{name}: row {ROWS - len(rows)} has {len(cells)} squares; "
                f"a row has {COLS} (a to e)"
            )
        bad = sorted(set(cells) - CELLS)
        if bad:
            raise BoardError(
                f"{name}: row {ROWS - len(rows)} has {bad[0]!r}; a square is one of T * . M F C R"
            )
        rows.append(cells)
        if len(rows) > ROWS:
            break
    if len(rows) != ROWS:
        raise BoardError(f"{name}: {len(rows)} rows; a board has {ROWS} (row 7 first)")
    return rows


def parse_board(text: str, name: str) -> Board:
    """Check a board file's text (``name`` is how errors name it) against every constraint of
    the seed and RULINGS-2016.md "Fine points"; BoardError (a ValueError) names the broken one."""
    rows = _rows(text, name)
    cells = tuple(rows[ROWS - 1 - (s // COLS)][s % COLS] for s in range(SQUARES))
    temple_rows = (0, ROWS - 1)
    temples = [s for s in range(SQUARES) if cells[s] == TEMPLE]
    per_row = [[s for s in temples if s // COLS == r] for r in temple_rows]
    if len(temples) != 2 or any(len(t) != 1 for t in per_row):
        raise BoardError(
            f"{name}: a board has one Temple on each back row (rows 1 and 7), no other"
        )
    stars = [s for s in range(SQUARES) if cells[s] == STAR]
    star_rows = {s // COLS for s in stars}
    if len(stars) != 3 or len(star_rows) != 1 or star_rows & set(temple_rows):
        raise BoardError(
            f"{name}: a board has exactly three Stars, in one row that is no Temple row"
        )
    middle = COLS // 2
    if sorted(s % COLS for s in stars)[1] != middle:
        raise BoardError(f"{name}: the middle of the three Stars must be in column c")
    for s in range(SQUARES):
        if cells[s] in TERRAINS and s // COLS in temple_rows:
            raise BoardError(
                f"{name}: {square_name(s)} has a terrain symbol on a Temple row; none may"
            )
    middle_star = next(s for s in stars if s % COLS == middle)
    open_squares = {
        n
        for s in stars
        if s != middle_star
        for n in NEIGHBOURS[s]
        if n >= 0 and cells[n] == PLAIN and n // COLS not in temple_rows
    }
    if len(open_squares) != 4:
        raise BoardError(
            f"{name}: the side Stars have {len(open_squares)} open neighbours; the tiles need "
            "exactly 4 (squares next to them with no symbol, off the Temple rows)"
        )
    starts = (middle_star, *sorted(open_squares, key=lambda s: (s % COLS, s // COLS)))
    tile_ok = tuple(cells[s] == PLAIN and s // COLS not in temple_rows for s in range(SQUARES))
    return Board(
        cells=cells,
        temples=(per_row[0][0], per_row[1][0]),
        stars=(stars[0], stars[1], stars[2]),
        starts=(starts[0], starts[1], starts[2], starts[3], starts[4]),
        tile_ok=tile_ok,
        text="\n".join(rows) + "\n",
    )


# ---- formerly board_file.py:
# Reading a board file: the one module of the engine that touches the file system.
#
# The default layout ships as package data (``default.board``), so a pip install carries it; any
# other file is checked by :func:`druids_p2p.games.druids2016.board.parse_board` the same way.

DEFAULT_BOARD_NAME = "default.board"


def load_board(path: str | Path) -> Board:
    """The board in the file at ``path``; BoardError (one line, naming the file) if it cannot be
    read or breaks a constraint."""
    name = f"board file {str(path)!r}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BoardError(f"{name}: cannot be read ({reason})") from None
    return parse_board(text, name)


@cache
def default_board() -> Board:
    """The project's layout (RULINGS-2016.md "Board"), read once from the package's data."""
    text = resources.files(__package__).joinpath(DEFAULT_BOARD_NAME).read_text(encoding="utf-8")
    return parse_board(text, f"the default board ({DEFAULT_BOARD_NAME})")


# What a game starts from: who sits at row 1 and moves first, where the tiles lie, where the
# Druids stand (RULINGS-2016.md "Setup"). The table draws the first two jointly and commits the
# placements; in process a ``random.Random`` passed in draws all three.
TILE_SET: Final = (CLOUD, CLOUD, MOUNTAIN, FOREST, RIVER)
"""The five Terrain tiles: two Clouds, one Mountain, one Forest, one River."""


class InvalidSetup(ValueError):
    """A setup the rulings forbid (one line, saying which rule)."""


@dataclass(frozen=True)
class Setup:
    """``first``: the player (0 or 1) who sits at row 1 and moves first. ``tiles``: the kinds put
    on the board's five start squares in order (on the default board c4, a3, a5, e3, e5), e.g.
    ``"CMFCR"``. ``placements[player]``: that player's three back-row squares; the one on its
    own Temple holds the Master Druid."""

    first: int
    tiles: str
    placements: tuple[tuple[int, int, int], tuple[int, int, int]]

    def side_of(self, player: int) -> int:
        """Side 0 sits at row 1 (the first player), side 1 at row 7."""
        return player ^ self.first

    def check(self, board: Board) -> None:
        """InvalidSetup if this setup breaks a rule of the variant on ``board``."""
        # exactly the int 0 or 1: 1.0 == 1, but a float (or bool) first would break side_of
        if type(self.first) is not int or self.first not in (0, 1):
            raise InvalidSetup(f"'first' must be 0 or 1, not {self.first!r}")
        if not isinstance(self.tiles, str) or Counter(self.tiles) != Counter(TILE_SET):
            raise InvalidSetup(
                f"'tiles' must be the five tiles C, C, M, F, R in some order, not {self.tiles!r}"
            )
        for player in (0, 1):
            side = self.side_of(player)
            squares = self.placements[player]
            row = board.back_row(side)
            names = ", ".join(square_name(s) for s in squares)
            if len(squares) != 3 or len(set(squares)) != 3 or not set(squares) <= set(row):
                raise InvalidSetup(
                    f"player {player} must place 3 Druids on 3 squares of row "
                    f"{1 if side == 0 else 7}, not {names}"
                )
            if board.temples[side] not in squares:
                raise InvalidSetup(
                    f"player {player} must place a Druid (the Master) on its Temple "
                    f"{square_name(board.temples[side])}, not only on {names}"
                )


def random_setup(rng: random.Random, board: Board) -> Setup:
    """A setup drawn from ``rng``: first player, tile order and both placements at random."""
    first = rng.randrange(2)
    tiles = list(TILE_SET)
    rng.shuffle(tiles)
    placements: list[tuple[int, int, int]] = []
    for player in (0, 1):
        side = player ^ first
        temple = board.temples[side]
        others = rng.sample([s for s in board.back_row(side) if s != temple], 2)
        placements.append((temple, others[0], others[1]))
    return Setup(first, "".join(tiles), (placements[0], placements[1]))
