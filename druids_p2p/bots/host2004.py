"""Hosting bots at a local Druids (2004) game: every bot call guarded as in :mod:`.host`.

The setup comes from ``derive_rng(seed, "setup", 0)`` and every reserve's reshuffle from
``derive_rng(seed, "shuffle", 0)``, so rotating bots over the seats of one seed plays duplicate
games. A fault (a raise, a non-move, an illegal move, no answer in time) is recorded and the seat
plays ``Stop`` if it may, else its first legal move.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from druids_p2p.bots.base import Bot, BotSpec
from druids_p2p.bots.host import (
    DEFAULT_BUDGET_MS,
    BotRunner,
    Fault,
    MoveOutcome,
    _error_text,
    derive_rng,
    wait_limit_ms,
)
from druids_p2p.games.druids2004 import moves as mv
from druids_p2p.games.druids2004.notation import to_json
from druids_p2p.games.druids2004.options import Options
from druids_p2p.games.druids2004.setup import random_setup
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import SeatView

GAME = "druids2004"
MAX_OPERATIONS = 5000
"""No game takes this many (the stall end bounds every game)."""


def fallback_2004(view: SeatView) -> int:
    return mv.STOP if mv.STOP in view.legal else view.legal[0]


def check_answer_2004(answer: object, view: SeatView) -> str | None:
    if isinstance(answer, bool) or not isinstance(answer, int):
        return f"returned {repr(answer)[:40]} ({type(answer).__name__}), not a move id (int)"
    if answer not in view.legal:
        try:
            token = mv.format_move(answer)
        except ValueError:
            token = "unknown"
        return f"returned illegal move {answer} ({token})"
    return None


def choose_2004(runner: BotRunner, view: SeatView) -> MoveOutcome:
    """One guarded move of a 2004 game."""
    start = time.perf_counter()
    job = runner.call(runner.bot.choose, view, limit_ms=wait_limit_ms(runner.budget_ms))
    if isinstance(job, str):
        return MoveOutcome(fallback_2004(view), job, (time.perf_counter() - start) * 1000.0)
    if job.error is not None:
        fault: str | None = "raised " + _error_text(job.error)
    else:
        fault = check_answer_2004(job.result, view)
        if fault is None:
            return MoveOutcome(job.result, None, job.elapsed_ms)
    return MoveOutcome(fallback_2004(view), fault, job.elapsed_ms)


@dataclass(slots=True)
class Game2004Result:
    seed: int
    names: list[str]
    scores: list[int]
    winners: list[int]
    ended_by: str
    faults: list[Fault]
    moves: list[int]
    times_ms: list[list[float]] = field(default_factory=list)
    record_json: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0

    def record(self) -> dict[str, Any]:
        """The game in the notation of docs/rules-2004.md §8, for ``druids replay``."""
        return self.record_json


def make_bot(player: BotSpec | str | Bot, registry: Any) -> tuple[str, Bot]:
    """A fresh bot for a 2004 seat; ValueError if the bot does not play Druids (2004)."""
    if isinstance(player, Bot):
        return type(player).__name__, player
    if isinstance(player, str):
        if registry is None:
            from druids_p2p.plugins import builtin_registry

            registry = builtin_registry()
        player = registry.get(player)
    assert isinstance(player, BotSpec)
    bot = player.factory_for(GAME)()
    if not isinstance(bot, Bot):
        raise TypeError(f"bot factory for {player.name!r} returned {type(bot).__name__}")
    return player.name, bot


def play_local_game_2004(
    players: Sequence[BotSpec | str | Bot],
    options: Options | None = None,
    seed: int = 0,
    budget_ms: float = DEFAULT_BUDGET_MS,
    *,
    enforce: Sequence[bool] | bool = True,
    registry: Any = None,
) -> Game2004Result:
    """Play one whole game in-process between ``players`` (one per seat, in seat order)."""
    options = options or Options(players=len(players))
    n = options.players
    if len(players) != n:
        raise ValueError(f"{len(players)} bots for a {n}-player game")
    start = time.perf_counter()
    seated = [make_bot(p, registry) for p in players]
    names = [name for name, _ in seated]
    flags = [enforce] * n if isinstance(enforce, bool) else list(enforce)
    runners = [BotRunner(bot, budget_ms, flags[s]) for s, (_, bot) in enumerate(seated)]
    game = Game2004(random_setup(derive_rng(seed, "setup", 0), n), options)
    shuffles = derive_rng(seed, "shuffle", 0)
    faults: list[Fault] = []
    times: list[list[float]] = [[] for _ in range(n)]
    try:
        for s, runner in enumerate(runners):
            text = runner.hook(runner.bot.start_game, s, options, derive_rng(seed, "bot", s),
                               budget_ms)  # fmt: skip
            if text:
                faults.append(Fault(s, names[s], -1, None, "start_game", text))
        for index in range(MAX_OPERATIONS):
            while game.pending_reshuffle is not None:
                game.shuffle_reserve_random(shuffles)
            seat = game.to_move
            if seat is None:
                break
            outcome = choose_2004(runners[seat], game.view(seat))
            if outcome.fault is not None:
                faults.append(Fault(seat, names[seat], 0, index, "choose", outcome.fault))
            game.play(outcome.move)
            times[seat].append(outcome.elapsed_ms)
        else:
            raise RuntimeError(f"a game did not end within {MAX_OPERATIONS} operations")
        for s, runner in enumerate(runners):
            text = runner.hook(runner.bot.end_game, game.view(s))
            if text:
                faults.append(Fault(s, names[s], 0, None, "end_game", text))
    finally:
        for runner in runners:
            runner.close()
    assert game.ended_by is not None
    return Game2004Result(
        seed=seed,
        names=names,
        scores=game.totals,
        winners=game.winners or [],
        ended_by=game.ended_by,
        faults=faults,
        moves=[len(t) for t in times],
        times_ms=times,
        record_json=to_json(game),
        elapsed_ms=(time.perf_counter() - start) * 1000.0,
    )
