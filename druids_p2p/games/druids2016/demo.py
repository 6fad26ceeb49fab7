"""A whole game told move by move (what ``druids demo --game druids2016`` prints): the board,
the setup, every move with what it did (River, Cloud, captures, the tile it moved), the end.

The policy choosing the moves is passed in (a seeded random one here; bots come from outside),
so the same seed tells the same game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from druids_p2p.games.druids2016.board import Board, square_name
from druids_p2p.games.druids2016.game import (
    DRAW,
    MASTER_CAPTURED,
    MASTER_IN_TEMPLE,
    MOVE_LIMIT,
    NO_LEGAL_MOVE,
    REPETITION,
    Game,
)
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.setup import random_setup
from druids_p2p.games.druids2016.view import position_lines

Policy = Callable[[Game], int]
"""Chooses the code of a legal move in a game that is not over."""

ENDS = {
    MASTER_IN_TEMPLE: "its Master Druid reached the opponent's Temple",
    MASTER_CAPTURED: "it captured the opponent's Master Druid",
    NO_LEGAL_MOVE: "the opponent has no legal move",
    REPETITION: "the same position occurred for the third time",
    MOVE_LIMIT: "200 moves were played without a capture",
}


def random_policy(rng: random.Random) -> Policy:
    """A legal move uniformly at random from ``rng``."""
    return lambda game: rng.choice(game.legal_codes())


def play_out(game: Game, policy: Policy) -> Game:
    """Play ``game`` to its end with ``policy`` choosing every move (bounded by the rules)."""
    while game.result is None:
        game.play_code(policy(game))
    return game


def _move_line(game: Game, number: int, code: int) -> str:
    """Play ``code`` on ``game`` and tell it."""
    move = Move.from_code(code)
    side = game.side
    player = game.player(side)
    game.play_code(code)
    _, druid, origin, _, caps, _, _, _, _ = game.history[-1]
    final = game.pos[druid]
    master = " (Master)" if druid == game.master[side] else ""
    text = f"{number:4}. P{player} {move.token():<12} Druid{master} {square_name(origin)}"
    text += f" -> {square_name(final)}"
    for captured, square in caps:
        what = "Master" if captured == game.master[1 - side] else "Druid"
        text += f", captures P{1 - player}'s {what} on {square_name(square)}"
    return text


def game_lines(game: Game) -> Iterator[str]:
    """``game`` (played or not) from its setup on, one line a move, the board at the end."""
    setup, board = game.setup, game.board
    fresh = Game(setup, board, game.options)
    yield (
        f"Druids (2016), Terrain Only: P{setup.first} sits at row 1 and moves first; "
        f"tiles {setup.tiles} on {' '.join(square_name(s) for s in board.starts)}"
    )
    yield from position_lines(fresh)
    for number, entry in enumerate(game.history, 1):
        yield _move_line(fresh, number, entry[0])
    yield from position_lines(fresh)
    result = fresh.result
    if result is None:
        yield f"The game goes on; P{fresh.to_move} is to move."
    elif result.status == DRAW:
        yield f"Drawn after {fresh.ply} moves: {ENDS[result.reason]}."
    else:
        yield f"P{result.winner} wins after {fresh.ply} moves: {ENDS[result.reason]}."


def demo_lines(seed: int, board: Board, policy: Policy | None = None) -> Iterator[str]:
    """A game set up at random from ``seed`` and played by ``policy`` (random by default)."""
    rng = random.Random(seed)
    game = Game(random_setup(rng, board), board)
    yield from game_lines(play_out(game, policy or random_policy(rng)))
