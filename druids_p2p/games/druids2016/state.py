"""A whole game in one process, placements included, for the in-process loop (tournaments, benches,
``druids demo``): neither player sees the other's placement until both are in (RULINGS-2016.md
"Setup" 3).
"""

from __future__ import annotations

import random

from druids_p2p.games.druids2016.board import TILE_SET, Board, Setup, square_name
from druids_p2p.games.druids2016.game import Game, Options
from druids_p2p.games.druids2016.moves import PLACE, Move
from druids_p2p.games.druids2016.view import SeatView, outcome, seat_view
from druids_p2p.games.seam import IllegalMove

PLACED = 2
"""Druids a player places besides the Master (which stands on its Temple)."""


def draw_start(rng: random.Random) -> tuple[int, str]:
    """The first player and the tiles' order, at random from ``rng``."""
    first = rng.randrange(2)
    tiles = list(TILE_SET)
    rng.shuffle(tiles)
    return first, "".join(tiles)


def place_choices(board: Board, side: int, placed: tuple[int, ...] | list[int]) -> list[int]:
    """The squares a player on ``side`` may still place a Druid on: its back row but the
    Temple (the Master's), not chosen already."""
    temple = board.temples[side]
    return [s for s in board.back_row(side) if s != temple and s not in placed]


def placer(first: int, placed: list[list[int]] | tuple[tuple[int, ...], ...]) -> int | None:
    """Who places next: the first player, then the other; None once both have placed."""
    for player in (first, 1 - first):
        if len(placed[player]) < PLACED:
            return player
    return None


def setup_of(board: Board, first: int, tiles: str, placed: list[list[int]]) -> Setup:
    """The engine's setup once both players have placed (the Master on each Temple)."""
    squares = [(board.temples[p ^ first], *placed[p]) for p in (0, 1)]
    return Setup(first, tiles, ((squares[0][0], squares[0][1], squares[0][2]),
                                (squares[1][0], squares[1][1], squares[1][2])))  # fmt: skip


def check_place(
    board: Board, first: int, placed: list[list[int]], player: int, move: Move
) -> str | None:
    """Why ``player``'s placement ``move`` is refused now, or None."""
    if placer(first, placed) != player:
        return f"it is not P{player}'s turn to place a Druid"
    if not move.placement:
        return f"{move.token()} is a step: P{player} must first place its Druids (e.g. @b1)"
    side = player ^ first
    if move.square not in place_choices(board, side, placed[player]):
        row = 1 if side == 0 else 7
        temple = square_name(board.temples[side])
        return (
            f"P{player} may not place a Druid on {square_name(move.square)}: its Druids go on "
            f"free squares of row {row} (the Master on the Temple {temple})"
        )
    return None


class Druids2016State:
    """The seam's ``CommonGameState`` of one game: the draw done, the placements, the play."""

    players = 2

    def __init__(self, board: Board, rules: Options, first: int, tiles: str) -> None:
        self.board, self.rules, self.first, self.tiles = board, rules, first, tiles
        self.placed: list[list[int]] = [[], []]
        self.game: Game | None = None

    @property
    def to_move(self) -> int | None:
        if self.game is None:
            return placer(self.first, self.placed)
        return self.game.to_move

    @property
    def game_over(self) -> bool:
        return self.game is not None and self.game.result is not None

    @property
    def ended_by(self) -> str | None:
        return None if self.game is None or self.game.result is None else self.game.result.reason

    @property
    def totals(self) -> list[int]:
        return list(outcome(None if self.game is None else self.game.result)[0])

    @property
    def winners(self) -> list[int] | None:
        won = outcome(None if self.game is None else self.game.result)[1]
        return None if won is None else list(won)

    def legal_moves(self) -> list[int]:
        if self.game is not None:
            return self.game.legal_codes()
        player = placer(self.first, self.placed)
        if player is None:
            return []
        side = player ^ self.first
        return [PLACE + s for s in place_choices(self.board, side, self.placed[player])]

    def check(self, move: int) -> str | None:
        try:
            value = Move.of(move)
        except ValueError as exc:
            return str(exc)
        if self.game is not None:
            return self.game.check(value)
        player = placer(self.first, self.placed)
        if player is None:
            return "the Druids are placed"
        return check_place(self.board, self.first, self.placed, player, value)

    def play(self, move: int) -> None:
        reason = self.check(move)
        if reason is not None:
            raise IllegalMove(reason)
        if self.game is not None:
            self.game.play_code(move)
            return
        player = placer(self.first, self.placed)
        assert player is not None
        self.placed[player].append(Move.of(move).square)
        if placer(self.first, self.placed) is None:
            setup = setup_of(self.board, self.first, self.tiles, self.placed)
            self.game = Game(setup, self.board, self.rules)

    def view(self, seat: int) -> SeatView:
        """``seat``'s view: while placing, its own placement only."""
        legal = tuple(self.legal_moves()) if self.to_move == seat else ()
        own = tuple(self.placed[seat]) if self.game is None else ()
        return seat_view(
            seat, self.board, self.rules, self.first, self.tiles, own, self.game,
            self.to_move, legal,
        )  # fmt: skip
