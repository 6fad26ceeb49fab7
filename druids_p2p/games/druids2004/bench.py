"""Random legal play of whole games on one core (``druids bench engine --game druids2004``)."""

from __future__ import annotations

import random
import time
from typing import Any

from druids_p2p.games.druids2004.options import Options
from druids_p2p.games.druids2004.playout import play_random_game


def bench_engine(players: int, games: int, seed: int) -> dict[str, Any]:
    """Games and moves per second of uniformly random legal play (setup and reshuffles included)."""
    rng = random.Random(seed)
    options = Options(players=players)
    moves = 0
    start = time.perf_counter()
    for _ in range(games):
        moves += play_random_game(rng, options)[1]
    seconds = time.perf_counter() - start
    return {
        "game": "druids2004",
        "players": players,
        "games": games,
        "moves": moves,
        "seconds": round(seconds, 6),
        "games_per_s": round(games / seconds, 1) if seconds > 0 else 0.0,
        "moves_per_s": round(moves / seconds, 1) if seconds > 0 else 0.0,
    }
