"""Reading a board file: the one module of the engine that touches the file system.

The default layout ships as package data (``default.board``), so a pip install carries it; any
other file is checked by :func:`druids_p2p.games.druids2016.board.parse_board` the same way.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from druids_p2p.games.druids2016.board import Board, BoardError, parse_board

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
