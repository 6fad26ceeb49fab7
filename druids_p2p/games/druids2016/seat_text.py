"""A seat's view as a person at a plain terminal reads it, and the moves as it types them."""

from __future__ import annotations

import re

from druids_p2p.games.druids2016.board import COLS, ROWS, TERRAINS, square_name
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.view import ARROWS, PLACING, SeatView


def _cell(view: SeatView, square: int, tiles: dict[int, str]) -> str:
    cell = view.board.cells[square]
    ground = tiles.get(square) or (cell.lower() if cell in TERRAINS else cell)
    druid = next((d for d in view.druids if d.square == square), None)
    if druid is None:
        mine = square in view.placed
        return f"{ground}{view.seat}? " if mine else f" {ground}  "
    return f"{ground}{druid.player}{ARROWS[druid.facing]}{'*' if druid.master else ' '}"


def seat_lines(view: SeatView) -> list[str]:
    """The board (row 7 on top; a tile in capitals, a bare symbol in small letters, a Druid as
    its player, its facing and ``*`` for the Master), then whose move it is and the legal
    moves."""
    tiles = dict(view.tiles)
    lines = [
        f"  {r + 1} " + " ".join(_cell(view, r * COLS + c, tiles) for c in range(COLS))
        for r in reversed(range(ROWS))
    ]
    lines.append("     " + "    ".join("abcde"))
    if view.first is not None:
        lines.append(f"P{view.first} sits at row 1 and moved first; you are P{view.seat}")
    if view.phase == PLACING and view.placed:
        lines.append("your Druids so far: " + " ".join(square_name(s) for s in view.placed))
    if view.legal:
        lines.append("legal: " + " ".join(Move.of(m).token() for m in view.legal))
    if view.result is not None:
        lines.append(f"game over: {view.ended_by}, winners {list(view.winners or ())}")
    return lines


def parse_typed_move(text: str) -> Move:
    """A move as typed: its token, or a bare square (``b1``) for a placement."""
    token = " ".join(text.split())
    if re.fullmatch(r"[a-e][1-7]", token):
        token = "@" + token
    return Move.from_token(token)
