"""The position as data and as text: what a replay prints and what a demo draws.

The game is one of perfect information, so every player's view is the whole position.
"""

from __future__ import annotations

from typing import Any

from druids_p2p.games.druids2016.board import (
    COLS,
    DIRECTION_NAMES,
    ROWS,
    SQUARES,
    TERRAINS,
    square_name,
)
from druids_p2p.games.druids2016.game import KIND_LETTERS, Game

ARROWS = "^>v<"
"""A Druid's facing drawn: north (towards row 7), east, south, west."""


def druids_json(game: Game, player: int) -> list[dict[str, Any]]:
    """``player``'s Druids on the board: square, facing, and which is the Master."""
    side = game.setup.side_of(player)
    return [
        {
            "square": square_name(game.pos[d]),
            "facing": DIRECTION_NAMES[game.face[d]],
            "master": d == game.master[side],
        }
        for d in range(3 * side, 3 * side + 3)
        if game.pos[d] >= 0
    ]


def position_json(game: Game) -> dict[str, Any]:
    """The whole position: who sits at row 1, who is to move, the moves played and those since
    the last capture (the 200-move rule), every Druid and every tile."""
    return {
        "first": game.setup.first,
        "to_move": game.to_move,
        "moves": game.ply,
        "since_capture": game.quiet,
        "druids": {str(p): druids_json(game, p) for p in (0, 1)},
        "tiles": {
            square_name(s): KIND_LETTERS[game.tile[s]] for s in range(SQUARES) if game.tile[s]
        },
    }


def _cell(game: Game, square: int) -> str:
    druid = game.occ[square]
    cell = game.board.cells[square]
    ground = KIND_LETTERS[game.tile[square]] or (cell.lower() if cell in TERRAINS else cell)
    if druid < 0:
        return f" {ground}  "
    side = druid // 3
    mark = "*" if druid == game.master[side] else " "
    return f"{ground}{game.player(side)}{ARROWS[game.face[druid]]}{mark}"


def position_lines(game: Game) -> list[str]:
    """The board drawn, row 7 at the top: a tile in capitals (M F C R), a bare symbol in small
    letters, a Druid as its player, an arrow for its facing and ``*`` for the Master."""
    lines = [
        f"  {r + 1} " + " ".join(_cell(game, r * COLS + c) for c in range(COLS))
        for r in reversed(range(ROWS))
    ]
    lines.append("     " + "    ".join("abcde"))
    return lines
