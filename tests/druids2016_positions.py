"""Hand-set Druids (2016) positions on the default board for the rule tests: one helper, so each
test says only the pieces that matter (player 0 sits at row 1 and moves first)."""

from __future__ import annotations

from druids_p2p.games.druids2016.board import default_board, parse_square
from druids_p2p.games.druids2016.game import Game, Options, arranged
from druids_p2p.games.druids2016.moves import Move

BOARD = default_board()
TILES = {"c4": "R", "a6": "M", "e6": "F", "e2": "C", "a2": "C"}
"""Tiles out of the way of most tests (the River on the middle Star)."""
MASTERS = {"a1": "0e*", "e7": "1w*"}
"""Masters parked in corners, each with a free step."""


def position(
    druids: dict[str, str],
    tiles: dict[str, str] | None = None,
    to_move: int = 0,
    options: Options | None = None,
    masters: bool = True,
) -> Game:
    """``druids`` (plus the parked Masters unless ``masters`` is False) on ``tiles``."""
    pieces = {**MASTERS, **druids} if masters else dict(druids)
    return arranged(BOARD, 0, pieces, tiles or TILES, to_move, options)


def tokens(game: Game, prefix: str = "") -> list[str]:
    """The legal moves' tokens that start with ``prefix``."""
    return [m.token() for m in game.legal_moves() if m.token().startswith(prefix)]


def play(game: Game, *moves: str) -> Game:
    """Play checked moves by token."""
    for token in moves:
        game.play(Move.from_token(token))
    return game


def druid_at(game: Game, square: str) -> str | None:
    """``"0n"`` / ``"1s*"``-style spec of the Druid on ``square``, None if empty."""
    druid = game.occ[parse_square(square)]
    if druid < 0:
        return None
    side = druid // 3
    mark = "*" if game.master[side] == druid else ""
    return f"{game.player(side)}{'nesw'[game.face[druid]]}{mark}"


def tile_at(game: Game, square: str) -> str:
    return " MFCR"[game.tile[parse_square(square)]].strip()
