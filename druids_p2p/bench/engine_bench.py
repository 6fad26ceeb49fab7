"""Random legal play of whole games on one core, through the playout kernel."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from druids_p2p.games.druids2017.playout import play_random_game


@dataclass(frozen=True)
class EngineBenchResult:
    games: int
    moves: int
    seconds: float

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "games": self.games,
            "moves": self.moves,
            "seconds": round(self.seconds, 6),
            "games_per_s": round(self.games_per_s, 1),
            "moves_per_s": round(self.moves_per_s, 1),
        }


def bench_engine(players: int, games: int, seed: int, variant: bool = False) -> EngineBenchResult:
    rng = random.Random(seed)
    moves = 0
    start = time.perf_counter()
    for _ in range(games):
        moves += play_random_game(rng, players, variant)[1]
    return EngineBenchResult(games, moves, time.perf_counter() - start)
