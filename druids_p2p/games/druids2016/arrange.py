"""A position set up by hand rather than played to: what a rule's test, a puzzle or a screen
shot starts from. Every piece is named by square, in the notation's words::

    arranged(board, first=0, druids={"c1": "0s*", "b3": "1n"}, tiles={"c4": "C", ...})

puts player 0's Master (``*``) on c1 facing south and a Druid of player 1 on b3 facing north.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from druids_p2p.games.druids2016.board import (
    DIRECTION_NAMES,
    SQUARES,
    Board,
    parse_square,
)
from druids_p2p.games.druids2016.game import K_MOUNTAIN, KIND_LETTERS, NO_TILE, Game, Options
from druids_p2p.games.druids2016.setup import TILE_SET, InvalidSetup, Setup


def arranged(
    board: Board,
    first: int,
    druids: Mapping[str, str],
    tiles: Mapping[str, str],
    to_move: int | None = None,
    options: Options | None = None,
) -> Game:
    """A game in the position given (``to_move``: the player to move, ``first`` by default);
    InvalidSetup if it breaks an invariant (one Master and at most 3 Druids a player, the five
    tiles, none on a symbol, Star or Temple row unless it started there)."""
    if Counter(tiles.values()) != Counter(TILE_SET):
        raise InvalidSetup(f"the tiles must be C, C, M, F, R, not {sorted(tiles.values())}")
    placed: list[list[tuple[int, int, bool]]] = [[], []]
    for name, spec in druids.items():
        square = parse_square(name)
        if len(spec) not in (2, 3) or spec[0] not in "01" or spec[1] not in DIRECTION_NAMES:
            raise InvalidSetup(f"{name}: {spec!r} is no Druid (player, facing, '*' for Master)")
        master = spec[2:] == "*"
        if spec[2:] not in ("", "*"):
            raise InvalidSetup(f"{name}: {spec!r} is no Druid (player, facing, '*' for Master)")
        placed[int(spec[0])].append((square, DIRECTION_NAMES.index(spec[1]), master))
    for player in (0, 1):
        if len(placed[player]) > 3 or sum(m for _, _, m in placed[player]) != 1:
            raise InvalidSetup(f"player {player} needs 1 to 3 Druids, exactly one the Master")
    game = _blank(board, first, options)
    for player in (0, 1):
        side = game.setup.side_of(player)
        for i, (square, facing, master) in enumerate(placed[player]):
            druid = 3 * side + i
            game.pos[druid], game.face[druid], game.occ[square] = square, facing, druid
            if master:
                game.master[side] = druid
    for index, (name, letter) in enumerate(sorted(tiles.items())):
        square = parse_square(name)
        if not board.tile_ok[square] and square not in board.starts:
            raise InvalidSetup(f"{name}: no tile may lie on a symbol, Star or Temple row")
        game.tile_sq[index], game.tile_kind[index] = square, KIND_LETTERS.index(letter)
        game.tile[square] = game.tile_kind[index]
    if any(game.tile[s] == K_MOUNTAIN for s in game.pos if s >= 0):
        raise InvalidSetup("no Druid may stand on the Mountain tile")
    if to_move is not None:
        game.side = game.setup.side_of(to_move)
    game.counts = {game.key(): 1}
    return game


def _blank(board: Board, first: int, options: Options | None) -> Game:
    """A legal game from ``board``'s start, emptied of every Druid and tile."""
    placements: list[tuple[int, int, int]] = []
    for player in (0, 1):
        side = player ^ first
        temple = board.temples[side]
        others = [s for s in board.back_row(side) if s != temple]
        placements.append((temple, others[0], others[1]))
    game = Game(Setup(first, "".join(TILE_SET), (placements[0], placements[1])), board, options)
    game.pos = [-1] * 6
    game.occ = [-1] * SQUARES
    game.tile = [NO_TILE] * SQUARES
    return game
