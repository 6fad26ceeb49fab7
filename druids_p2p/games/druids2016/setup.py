"""What a game starts from: who sits at row 1 and moves first, where the tiles lie, where the
Druids stand (RULINGS-2016.md "Setup"). The table draws the first two jointly and commits the
placements; in process a ``random.Random`` passed in draws all three."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Final

from druids_p2p.games.druids2016.board import CLOUD, FOREST, MOUNTAIN, RIVER, Board, square_name

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
