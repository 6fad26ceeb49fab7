"""Random legal play of whole games: the bench, the demo and the property tests drive this."""

from __future__ import annotations

import random

from druids_p2p.games.druids2004.setup import Options, random_setup
from druids_p2p.games.druids2004.state import Game2004

MAX_STEPS = 20_000
"""No game takes this many operations (each turn draws or plays, or counts toward the stall)."""


def advance(game: Game2004, rng: random.Random) -> None:
    """Give every due reserve a random new order (what the deck does at a table)."""
    while game.pending_reshuffle is not None:
        game.shuffle_reserve_random(rng)


def random_game(rng: random.Random, options: Options) -> Game2004:
    """A new game set up from ``rng``."""
    return Game2004(random_setup(rng, options.players), options)


def play_random(game: Game2004, rng: random.Random) -> int:
    """Play uniformly random legal moves to the end; returns the number of moves."""
    for moves in range(MAX_STEPS):
        advance(game, rng)
        if game.game_over:
            return moves
        game.play(rng.choice(game.legal_moves()))
    raise RuntimeError(f"a game did not end within {MAX_STEPS} moves")


def play_random_game(rng: random.Random, options: Options) -> tuple[Game2004, int]:
    game = random_game(rng, options)
    return game, play_random(game, rng)
