"""The ``search`` bot: alpha-beta with iterative deepening and a transposition table, on a clone
with the engine's fast play/undo so the engine's own end rules score the leaves. A node budget makes
it deterministic. Here too: a game between two policies, and the seam's bots.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from druids_p2p.games.druids2016.board import NEIGHBOURS, Board, Setup, default_board, random_setup
from druids_p2p.games.druids2016.game import DRAW, K_CLOUD, K_RIVER, Game, Options, Result
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.policy import Budget, Policy, clone, rule_move, temple_distances
from druids_p2p.games.druids2016.view import SeatView
from druids_p2p.games.spec import Bot

WIN_SCORE: Final = 100_000
"""A won position ``n`` plies from the root scores ``WIN_SCORE - n``: the quickest win first."""
MATE_BAND: Final = WIN_SCORE - 1_000
DRUID: Final = 100
"""The value of a Druid on the board (the evaluation's unit)."""
TO_GO: Final = 14
"""Per Master move still needed to reach the opponent's Temple (zigzag counted)."""
STEP: Final = 3
"""Per legal step (mobility)."""
THREAT_TO_MOVE: Final = 50
"""The side to move can capture a Druid now: most of it is as good as taken."""
THREATENED: Final = 20
"""A Druid of the side to move under attack (it can often step away or be defended)."""
MASTER_THREATENED: Final = 150
"""The side to move's Master can be taken or the Temple entered next ply: it must answer."""
MAX_DEPTH: Final = 40
CLOCK_EVERY: Final = 16
"""Nodes between two readings of the clock: a node costs some 20 µs on an idle core and a few
times that on a loaded one, a reading well under 1 µs, so the search stops within a few ms of
its deadline even when it gets a small share of a core."""
EXACT, LOWER, UPPER = 0, 1, 2
_NB: Final = NEIGHBOURS


class _OutOfBudget(Exception):
    """The budget ran out mid-search: unwind to the root."""


def _side_terms(game: Game, side: int) -> tuple[int, int, bool]:
    """For ``side``'s Druids: legal steps, enemy Druids they can capture at once (not the
    Master), and whether a step wins at once (the enemy Master captured, or the Temple
    entered). River pushes and Cloud jumps are resolved as the engine resolves them."""
    pos, face, occ, tile = game.pos, game.face, game.occ, game.tile
    enemy_master = game.master[1 - side]
    own_master = game.master[side]
    temple = game.board.temples[1 - side]
    steps = captures = 0
    wins = False
    step_ok, resolve = game._step_ok, game._resolve
    for druid in range(3 * side, 3 * side + 3):
        origin = pos[druid]
        if origin < 0:
            continue
        facing = face[druid]
        for direction in range(4):
            if direction == facing:
                continue
            target = _NB[origin][direction]
            if not step_ok(side, target):
                continue
            steps += 1
            if occ[target] >= 0 or tile[target] == K_RIVER or tile[target] == K_CLOUD:
                final, caught = resolve(druid, origin, direction)
                for other in caught:
                    if other == enemy_master:
                        wins = True
                    else:
                        captures += 1
                if druid == own_master and final == temple:
                    wins = True
            elif druid == own_master and target == temple:
                wins = True
    return steps, captures, wins


def evaluate(game: Game, ply: int) -> int:
    """The position's worth to the side to move: a win now if one of its steps wins; else
    material, each Master's moves to go, mobility and threats, its own minus the opponent's."""
    side = game.side
    my_steps, my_caps, my_win = _side_terms(game, side)
    if my_win:
        return WIN_SCORE - ply - 1
    their_steps, their_caps, their_win = _side_terms(game, 1 - side)
    pos, face = game.pos, game.face
    score = DRUID * (
        sum(pos[d] >= 0 for d in range(3 * side, 3 * side + 3))
        - sum(pos[d] >= 0 for d in range(3 * (1 - side), 3 * (1 - side) + 3))
    )
    board = game.board
    mine, theirs = game.master[side], game.master[1 - side]
    score -= TO_GO * temple_distances(board, side)[pos[mine]][face[mine]]
    score += TO_GO * temple_distances(board, 1 - side)[pos[theirs]][face[theirs]]
    score += STEP * (my_steps - their_steps)
    score += THREAT_TO_MOVE * min(my_caps, 1) - THREATENED * their_caps
    if their_win:
        score -= MASTER_THREATENED
    return score


class Searcher:
    """One search from one position: the clone it plays on, its tables and its budget."""

    def __init__(self, game: Game, rng: random.Random, budget: Budget) -> None:
        self.game = clone(game)
        self.rng = rng
        self.max_nodes = budget.nodes
        self.clock = budget.clock
        self.deadline: float | None = None
        if budget.seconds is not None and budget.clock is not None:
            self.deadline = budget.clock() + budget.seconds
        self.nodes = 0
        self.table: dict[tuple[int, ...], tuple[int, int, int, int]] = {}
        self.history: dict[int, int] = {}
        self.killers: list[list[int]] = [[-1, -1] for _ in range(MAX_DEPTH + 2)]
        self.depth_done = 0

    def _tick(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise _OutOfBudget
        if (
            self.deadline is not None
            and self.clock is not None
            and self.nodes % CLOCK_EVERY == 0
            and self.clock() >= self.deadline
        ):
            raise _OutOfBudget

    def _ordered(self, codes: list[int], first: int, ply: int) -> list[int]:
        """The table's move, then steps onto an enemy Druid, then killers, then by history."""
        occ, side, history = self.game.occ, self.game.side, self.history
        killers = self.killers[ply]

        def rank(code: int) -> int:
            if code == first:
                return 1 << 40
            step = code % 140
            target = _NB[step >> 2][step & 3]
            other = occ[target]
            bonus = 1 << 30 if other >= 0 and other // 3 != side else 0
            if code in killers:
                bonus += 1 << 29
            return bonus + history.get(code, 0)

        return sorted(codes, key=rank, reverse=True)

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The position's value to the side to move, searched ``depth`` plies deep."""
        self._tick()
        game = self.game
        result = game.result
        if result is not None:
            if result.status == DRAW:
                return 0
            won = result.winner == game.player(game.side)
            return WIN_SCORE - ply if won else ply - WIN_SCORE
        if depth <= 0:
            return evaluate(game, ply)
        key = game.key()
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            e_depth, flag, stored, first = entry
            if e_depth >= depth:
                score = _from_table(stored, ply)
                if (
                    flag == EXACT
                    or (flag == LOWER and score >= beta)
                    or (flag == UPPER and score <= alpha)
                ):
                    return score
        start_alpha = alpha
        best, best_code = -WIN_SCORE - 1, -1
        for code in self._ordered(game.legal_codes(), first, ply):
            game.play_code(code)
            score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            game.undo()
            if score > best:
                best, best_code = score, code
            if score > alpha:
                alpha = score
            if alpha >= beta:
                killers = self.killers[ply]
                if code != killers[0]:
                    killers[1], killers[0] = killers[0], code
                self.history[code] = self.history.get(code, 0) + depth * depth
                break
        flag = UPPER if best <= start_alpha else LOWER if best >= beta else EXACT
        self.table[key] = (depth, flag, _to_table(best, ply), best_code)
        return best

    def run(self) -> tuple[int, int]:
        """Iterative deepening from the root: (the chosen move's code, its score)."""
        game = self.game
        codes = game.legal_codes()
        if not codes:
            raise ValueError("the game is over: there is no move to choose")
        self.rng.shuffle(codes)
        best_code, best_score = codes[0], -WIN_SCORE - 1
        root_len = len(game.history)
        for depth in range(1, MAX_DEPTH + 1):
            scores: dict[int, int] = {}
            alpha = -WIN_SCORE - 1
            try:
                for code in codes:
                    game.play_code(code)
                    score = -self.negamax(depth - 1, -WIN_SCORE - 1, -alpha, 1)
                    game.undo()
                    scores[code] = score
                    if score > alpha:
                        alpha = score
            except _OutOfBudget:
                while len(game.history) > root_len:
                    game.undo()
                # the first move searched was the last iteration's best: a move scored above
                # it in this iteration is proved better at the deeper depth
                if codes[0] in scores:
                    top = max(scores, key=lambda c: scores[c])
                    best_code, best_score = top, scores[top]
                break
            codes.sort(key=lambda c: scores[c], reverse=True)
            best_code, best_score = codes[0], scores[codes[0]]
            self.depth_done = depth
            if abs(best_score) >= MATE_BAND or len(codes) == 1:
                break
        return best_code, best_score


def _to_table(score: int, ply: int) -> int:
    """A win score stored relative to the node (so it holds wherever the node recurs)."""
    if score >= MATE_BAND:
        return score + ply
    if score <= -MATE_BAND:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score >= MATE_BAND:
        return score - ply
    if score <= -MATE_BAND:
        return score + ply
    return score


def search_move(game: Game, rng: random.Random, budget: Budget) -> Move:
    """The search bot's move: alpha-beta within ``budget`` (see :class:`Searcher`)."""
    code, _ = Searcher(game, rng, budget).run()
    return Move.from_code(code)


# ---- formerly match.py:
# One game between two policies, and the arithmetic of many: what a bench, a test or a
# tournament needs to pit bots against each other without a table.
#
# Pure: the setup comes from a seed, each policy gets its own ``random.Random`` derived from it,
# and time is measured only by the clocks inside the budgets passed in.


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


# ---- formerly bots.py:
# Druids (2016)'s bots as the spec names them: thin :class:`Bot` wrappers over the pure
# policies (``rule`` in :mod:`.policy`, ``search`` in :mod:`.search`; the built-in ``random`` bot
# plays ``view.legal`` as it is), and the host's fallback.
#
# A bot rebuilds the position from its view (:meth:`SeatView.game`) and thinks on it. A placement
# (``@b1``) is chosen at random from the bot's own rng: the placements are hidden from each other,
# so no position tells a better one. The search's budget is in nodes, from the time budget (so a
# game replays exactly on any machine), with the time budget itself as a cap.

NODES_PER_MS: Final = 24
"""Search nodes granted per millisecond of budget: an idle core visits about 50 a ms, so the
nodes run out in about half the budget there (and the game replays exactly); on a loaded core
the clock (below) stops the search first."""
TIME_SHARE: Final = 0.5
"""The share of the time budget the bot may use (counted from the call, the position's rebuild
included) before the search stops, whatever its nodes. The rest is headroom for a loaded
machine: on 2 cores at load 10, a move capped at 60-70% of 100 ms still ran past 120 ms in
2-9% of moves (the process waits its turn for a core), so that 99% of moves keep within 120%
of the budget (``druids bench bots`` reports the p99)."""


def fallback_2016(view: Any) -> int:
    """The smallest legal move id: deterministic and instant, the same on every peer."""
    return int(min(view.legal))


def _choose(bot: Bot, view: Any, policy: Policy) -> int:
    if not isinstance(view, SeatView):
        raise TypeError("this bot plays Druids (2016) only")
    if view.setup is None:  # placing: hidden from each other, nothing to search
        return int(view.legal[bot.rng.randrange(len(view.legal))])
    start = time.perf_counter()
    game = view.game()
    left = bot.time_budget_ms * TIME_SHARE / 1000 - (time.perf_counter() - start)
    budget = Budget(
        nodes=max(1, int(bot.time_budget_ms * NODES_PER_MS)),
        seconds=max(0.001, left),
        clock=time.perf_counter,
    )
    return policy(game, bot.rng, budget).code


class Rule2016Bot(Bot):
    """Wins at once, never lets a win through, keeps Druids, brings its Master on (two plies)."""

    def choose(self, view: Any) -> int:
        return _choose(self, view, rule_move)


class Search2016Bot(Bot):
    """Alpha-beta with iterative deepening over the whole position, within the budget."""

    def choose(self, view: Any) -> int:
        return _choose(self, view, search_move)
