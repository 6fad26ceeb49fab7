"""One game between two policies, and the arithmetic of many: what a bench, a test or a
tournament needs to pit bots against each other without a table.

Pure: the setup comes from a seed, each policy gets its own ``random.Random`` derived from it,
and time is measured only by the clocks inside the budgets passed in.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from druids_p2p.games.druids2016.board import Board, default_board
from druids_p2p.games.druids2016.game import Game, Options, Result
from druids_p2p.games.druids2016.policy import Budget, Policy
from druids_p2p.games.druids2016.setup import Setup, random_setup


def seeded_setup(seed: int, first: int, board: Board) -> Setup:
    """The setup ``random_setup`` draws from ``seed``, with player ``first`` at row 1: the
    same tiles and the same Druids on each row whoever sits there, so a pair of games with
    ``first`` 0 and 1 plays one position from both chairs."""
    setup = random_setup(random.Random(seed), board)
    if setup.first == first:
        return setup
    placements = setup.placements
    return Setup(first, setup.tiles, (placements[1], placements[0]))


@dataclass(frozen=True)
class Played:
    """A finished game: its ``result``, the player who moved ``first``, its length in moves
    (``plies``) and the engine's game (for its record)."""

    result: Result
    first: int
    plies: int
    game: Game


def play_game(
    policies: Sequence[Policy],
    budgets: Sequence[Budget],
    seed: int,
    first: int,
    board: Board | None = None,
    options: Options | None = None,
) -> Played:
    """Player ``p`` (0, 1) chooses with ``policies[p]`` within ``budgets[p]`` from the setup of
    :func:`seeded_setup`; ``first`` moves first. Each policy draws from its own seeded rng. A
    move a policy returns is checked (ValueError naming it if illegal)."""
    board = board or default_board()
    game = Game(seeded_setup(seed, first, board), board, options)
    rngs = [random.Random(f"druids2016 match {seed} {first} {p}") for p in (0, 1)]
    while game.result is None:
        player = game.player(game.side)
        move = policies[player](game, rngs[player], budgets[player])
        reason = game.check(move)
        if reason is not None:
            raise ValueError(f"player {player}'s policy chose {move.token()!r}: {reason}")
        game.play_code(move.code)
    return Played(game.result, first, game.ply, game)


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (Wilson 1927; z = 1.96 for 95%): unlike
    p ± z·se it stays inside [0, 1] and is honest near 0 and 1, where bots live."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    return max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator)
