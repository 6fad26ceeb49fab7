"""The board as data (RULINGS-2016.md "Board", "Fine points: Neighbours") and the notation.

The default layout ships as package data and is the rulings' drawing; every constraint a board
file must meet refuses a file that breaks it with one line naming the file and the constraint.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from druids_p2p.games.druids2016 import board as board_module
from druids_p2p.games.druids2016.board import (
    BoardError,
    default_board,
    load_board,
    parse_board,
    square_name,
)
from druids_p2p.games.druids2016.moves import Move

ROOT = Path(__file__).resolve().parent.parent
GOOD = ". . T . .\n. M . F .\n. . R . .\n* C * C *\n. . R . .\n. F . M .\n. . T . .\n"


def test_board_the_default_layout_is_the_rulings_drawing() -> None:
    board = default_board()
    assert board.lines()[:7] == [
        "row 7   .   .   T   .   .",
        "row 6   .   M   .   F   .",
        "row 5   .   .   R   .   .",
        "row 4   *   C   *   C   *",
        "row 3   .   .   R   .   .",
        "row 2   .   F   .   M   .",
        "row 1   .   .   T   .   .",
    ]
    assert [square_name(s) for s in board.starts] == ["c4", "a3", "a5", "e3", "e5"]
    assert [square_name(s) for s in board.temples] == ["c1", "c7"]
    # symmetric under a half turn, as the rulings say
    assert all(board.cells[s] == board.cells[34 - s] for s in range(35))


def test_board_the_default_file_is_package_data_that_pip_ships() -> None:
    path = Path(board_module.__file__).with_name(board_module.DEFAULT_BOARD_NAME)
    assert load_board(path).cells == default_board().cells
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    shipped = data["tool"]["setuptools"]["package-data"]["druids_p2p"]
    assert any(path.match(f"druids_p2p/{pattern}") for pattern in shipped)


def test_board_a_board_file_is_read_with_comments_and_compact_rows(tmp_path: Path) -> None:
    f = tmp_path / "mine.board"
    f.write_text("# my printed board\n" + GOOD.replace(" ", "") + "\n")
    assert load_board(f).cells == default_board().cells


BAD = [
    (GOOD.replace(". . T . .\n", "", 1), "7"),
    (GOOD.replace(". M . F .", ". M . F"), "a row has 5"),
    (GOOD.replace(". M . F .", ". M . X ."), "one of T * . M F C R"),
    (GOOD.replace(". . T . .", ". . . . .", 1), "one Temple on each back row"),
    (GOOD.replace(". . R . .\n. F", "T . R . .\n. F"), "one Temple on each back row"),
    (GOOD.replace("* C * C *", ". C * C *"), "exactly three Stars"),
    (GOOD.replace(". M . F .", ". M * F ."), "exactly three Stars"),
    (GOOD.replace("* C * C *", "* * C C *"), "middle of the three Stars must be in column c"),
    (GOOD.replace(". . T . .\n", ". M T . .\n", 1), "terrain symbol on a Temple row"),
    (GOOD.replace(". . R . .\n* C", "M . R . .\n* C"), "exactly 4"),
]


@pytest.mark.parametrize(("text", "constraint"), BAD)
def test_board_a_bad_board_file_is_refused_naming_file_and_constraint(
    tmp_path: Path, text: str, constraint: str
) -> None:
    f = tmp_path / "bad.board"
    f.write_text(text)
    with pytest.raises(BoardError) as caught:
        load_board(f)
    message = str(caught.value)
    assert "\n" not in message and str(f) in message and constraint in message


def test_board_a_missing_file_is_one_line_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"nowhere\.board.*cannot be read"):
        load_board(tmp_path / "nowhere.board")


def test_board_stars_on_a_temple_row_are_refused() -> None:
    text = "* . T * *\n" + GOOD.split("\n", 1)[1].replace("* C * C *", ". C . C .")
    with pytest.raises(BoardError, match="in one row that is no Temple row"):
        parse_board(text, "x")


# --- Notation -------------------------------------------------------------------------------
@pytest.mark.parametrize("token", ["b1e", "b1n Fd3", "b3n Ca5>d3", "e7w Mc6", "a4s Ra2"])
def test_notation_tokens_round_trip_through_move_and_code(token: str) -> None:
    move = Move.from_token(token)
    assert move.token() == token
    assert Move.from_code(move.code) == move
    assert Move.from_code(move.code).token() == token


@pytest.mark.parametrize(
    "token", ["b1", "b1x", "f1n", "b8n", "b1n  Fd3", "b1n Cd3", "b1n Fa5>d3", "B1N", "b1n Fd3 "]
)
def test_notation_only_the_canonical_token_is_a_move(token: str) -> None:
    with pytest.raises(ValueError, match="is no move"):
        Move.from_token(token)


def test_notation_codes_are_distinct_for_distinct_moves() -> None:
    moves = {Move(s, d) for s in range(35) for d in range(4)}
    moves |= {
        Move(s, d, k, None, t) for s in (0, 34) for d in (0, 3) for k in "MFR" for t in (0, 34)
    }
    moves |= {Move(2, 1, "C", f, t) for f in range(35) for t in range(35)}
    assert len({m.code for m in moves}) == len(moves)
    assert all(Move.from_code(m.code) == m for m in moves)
    with pytest.raises(ValueError):
        Move.from_code(140 * 5 * 36 * 37)
