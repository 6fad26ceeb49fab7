"""Move choosers for Druids (2016) bots: ``random`` and ``rule``. Each is a pure function ``(game,
rng, budget) -> Move`` that draws only from ``rng``, reads time only from its :class:`Budget` and
thinks on a clone, so the same seed, budget and position give the same move.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from druids_p2p.games.druids2016.board import NEIGHBOURS, SQUARES, Board
from druids_p2p.games.druids2016.game import K_FOREST, WIN, Game
from druids_p2p.games.druids2016.moves import Move


@dataclass(frozen=True)
class Budget:
    """How long a policy may think: ``nodes`` (positions a search visits: deterministic, for
    tests and reproducible matches) and/or ``seconds`` measured with ``clock`` (passed in, so a
    policy never reads the wall clock by itself). It stops at whichever runs out first."""

    nodes: int | None = None
    seconds: float | None = None
    clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if self.nodes is None and self.seconds is None:
            raise ValueError("a budget needs nodes, seconds or both")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"a node budget must be at least 1, not {self.nodes}")
        if self.seconds is not None and (self.seconds <= 0 or self.clock is None):
            raise ValueError("a time budget needs seconds > 0 and a clock")


Policy = Callable[[Game, random.Random, Budget], Move]
"""Chooses a legal move in a game that is not over, without changing it."""


def clone(game: Game) -> Game:
    """A copy of ``game`` to play and undo moves on (board, setup and options are shared: they
    are immutable; history entries are tuples)."""
    other = copy.copy(game)
    other.tile_kind = list(game.tile_kind)
    other.tile_sq = list(game.tile_sq)
    other.tile = list(game.tile)
    other.pos = list(game.pos)
    other.face = list(game.face)
    other.occ = list(game.occ)
    other.master = list(game.master)
    other.history = list(game.history)
    other.counts = dict(game.counts)
    return other


def _legal(game: Game) -> list[int]:
    codes = game.legal_codes()
    if not codes:
        raise ValueError("the game is over: there is no move to choose")
    return codes


def random_move(game: Game, rng: random.Random, budget: Budget) -> Move:
    """A legal move uniformly at random (the budget is not needed)."""
    return Move.from_code(rng.choice(_legal(game)))


@cache
def temple_distances(board: Board, side: int) -> tuple[tuple[int, ...], ...]:
    """``d[square][facing]``: the fewest moves ``side``'s Master needs to reach the opponent's
    Temple from ``square`` facing ``facing`` on an empty board (a Druid never steps the way it
    faces, so it zigzags: this counts that, not the straight-line distance)."""
    target, far = board.temples[1 - side], 99
    dist = [[far] * 4 for _ in range(SQUARES)]
    # backwards breadth-first search: state (square, facing) reached by a step in ``facing``
    frontier = [(target, f) for f in range(4)]
    for square, facing in frontier:
        dist[square][facing] = 0
    while frontier:
        nxt: list[tuple[int, int]] = []
        for square, facing in frontier:
            origin = NEIGHBOURS[square][(facing + 2) % 4]  # where the step came from
            if origin < 0:
                continue
            for before in range(4):
                if before != facing and dist[origin][before] == far:
                    dist[origin][before] = dist[square][facing] + 1
                    nxt.append((origin, before))
        frontier = nxt
    return tuple(tuple(row) for row in dist)


def _mover_won(game: Game, side: int) -> bool:
    result = game.result
    return result is not None and result.status == WIN and result.winner == game.player(side)


def _material(game: Game, side: int) -> int:
    """Druids of ``side`` on the board minus the opponent's."""
    pos = game.pos
    mine = sum(pos[d] >= 0 for d in range(3 * side, 3 * side + 3))
    return 2 * mine - sum(pos[d] >= 0 for d in range(6))


def _worst_reply(game: Game, side: int) -> tuple[bool, int]:
    """After ``side``'s move: can the opponent win at once, and the material ``side`` keeps
    after the opponent's best capture (or the move's own end)."""
    if game.result is not None:
        return False, _material(game, side)
    worst = _material(game, side)
    for code in game.legal_codes():
        game.play_code(code)
        lost = _mover_won(game, 1 - side)
        if not lost:
            worst = min(worst, _material(game, side))
        game.undo()
        if lost:
            return True, worst
    return False, worst


def _tile_score(game: Game, side: int) -> int:
    """How a position's tiles serve ``side``: its Druids on Forest tiles are safe (+1 each), and
    every step the opponent's Master has fewer is one way less to the Temple (+1 each)."""
    score = 0
    for druid in range(3 * side, 3 * side + 3):
        square = game.pos[druid]
        if square >= 0 and game.tile[square] == K_FOREST:
            score += 1
    master = game.master[1 - side]
    origin = game.pos[master]
    if origin >= 0:
        steps = sum(
            d != game.face[master] and game._step_ok(1 - side, NEIGHBOURS[origin][d])
            for d in range(4)
        )
        score += 3 - steps
    return score


def rule_move(game: Game, rng: random.Random, budget: Budget) -> Move:
    """The rule bot, two plies deep: win now; never leave the Master capturable (unless every move
    does); capture when safe; advance the Master (fewest moves to the opponent's Temple); use the
    tiles (Druids on Forest, the opponent's Master hemmed in); ties broken by ``rng``.
    """
    work = clone(game)
    side = work.side
    codes = _legal(work)
    dist = temple_distances(work.board, side)
    scored: list[tuple[tuple[int, int, int], int]] = []
    for code in codes:
        work.play_code(code)
        if _mover_won(work, side):
            return Move.from_code(code)
        loses, material = _worst_reply(work, side)
        master = work.master[side]
        to_go = dist[work.pos[master]][work.face[master]]
        scored.append(((0 if loses else 1, material, -to_go), code))
        work.undo()
    best = max(key for key, _ in scored)
    finalists = [code for key, code in scored if key == best]
    if len(finalists) > 1:
        tiled: list[tuple[int, int]] = []
        for code in finalists:
            work.play_code(code)
            tiled.append((_tile_score(work, side), code))
            work.undo()
        top = max(score for score, _ in tiled)
        finalists = [code for score, code in tiled if score == top]
    return Move.from_code(rng.choice(finalists))


def demo_policy(policy: Policy, rng: random.Random, budget: Budget) -> Callable[[Game], int]:
    """``policy`` as :mod:`druids_p2p.games.druids2016.replay` takes one (game -> move code)."""
    return lambda game: policy(game, rng, budget).code
