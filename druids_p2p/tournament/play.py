"""Playing one tournament game in-process, fast enough for thousands of games a minute.

:func:`play_game` plays exactly the game :func:`~druids_p2p.bots.host.play_local_game` plays for
the same seating and seed (same deals, same bot streams, same fallback on a fault; the tests
compare the two), with three speed-ups that matter at tournament scale:

* the built-in ``random`` bot is not called at all: its move is drawn here from the very stream
  the bot would have used (``derive_rng(seed, "bot", seat)``), without building a view;
* other built-in bots are trusted: they run on this thread, unenforced (no thread hand-off, which
  costs ~25 ms a game); a built-in that hangs is still stopped by the pool's game timeout;
* plugin bots are someone else's code: they run through the host's :class:`BotRunner` with the
  per-move budget enforced.

A game in which a bot fails to answer in time is a *forfeit* (status ``timeout``) of that bot:
the host still finished the game on fallback moves, and those totals are kept for reference.

``trace`` (a writable byte buffer, one byte per game index) tells the parent which seat's code was
running if the worker process dies or is killed mid-game; see :mod:`druids_p2p.tournament.worker`.
"""

from __future__ import annotations

import time
from typing import Any

from druids_p2p.bots.host import BotRunner, Fault, derive_rng
from druids_p2p.bots.random_bot import RandomBot
from druids_p2p.engine.deal import deal
from druids_p2p.engine.game import Game, GameOptions
from druids_p2p.plugins import BUILTIN_SOURCE, BotRegistry

STATUS_OK = "ok"
STATUS_TIMEOUT = "timeout"
STATUS_CRASHED = "crashed"
STATUSES = (STATUS_OK, STATUS_TIMEOUT, STATUS_CRASHED)

TRACE_IDLE = 0
"""Trace byte of a game not started (or whose worker never got to it)."""
TRACE_ENGINE = 1
"""The game is running and no bot code is: a death now is not a bot's fault."""
TRACE_SEAT = 2
"""``TRACE_SEAT + seat``: that seat's bot code is running."""
TRACE_DONE = 255

TIMEOUT_FAULTS = ("no answer within", "still busy")
"""How the host's fault texts start when a bot did not answer in time (``BotRunner.call``)."""

TIMING_KEYS = ("move_ms_mean", "move_ms_max", "elapsed_ms")
"""Keys of a game line that depend on the machine, not on the seed."""


def is_timeout_fault(text: str) -> bool:
    return text.startswith(TIMEOUT_FAULTS)


def fault_dict(fault: Fault) -> dict[str, Any]:
    return {
        "seat": fault.seat,
        "bot": fault.bot,
        "round": fault.round,
        "move": fault.move_index,
        "stage": fault.stage,
        "text": fault.text,
    }


def ranks_of(totals: list[int]) -> list[int]:
    """1 + the number of seats with a strictly higher total: ties share a rank."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


def play_game(
    seating: tuple[str, ...] | list[str],
    options: GameOptions,
    seed: int,
    budget_ms: float,
    registry: BotRegistry,
    *,
    trace: Any = None,
    index: int = 0,
) -> dict[str, Any]:
    """Play one game; the game's line for ``games.jsonl`` (without ``index``/``deal``)."""
    start = time.perf_counter()
    n = options.players
    if len(seating) != n:
        raise ValueError(f"{len(seating)} bots for a {n}-player game")
    specs = [registry.get(name) for name in seating]
    fast = [s.factory is RandomBot and s.source == BUILTIN_SOURCE for s in specs]
    rngs = [derive_rng(seed, "bot", s) for s in range(n)]
    runners: list[BotRunner | None] = [None] * n
    faults: list[Fault] = []
    moves = [0] * n
    spent = [0.0] * n
    slowest = [0.0] * n
    round_scores: list[list[int]] = []
    game = Game(options)
    base = {"seed": seed, "seating": list(seating), "versions": [s.version for s in specs]}

    def mark(value: int) -> None:
        if trace is not None:
            trace[index] = value

    mark(TRACE_ENGINE)
    try:
        for s, spec in enumerate(specs):
            if fast[s]:
                continue
            mark(TRACE_SEAT + s)
            try:
                bot = registry.make(spec.name)
            except Exception as exc:
                # The plugin's factory is bot code too: the bot forfeits, nothing has been played.
                why = f"bot factory raised {type(exc).__name__}: {exc}"
                return {
                    **base,
                    **_forfeit(STATUS_CRASHED, s, seating, n),
                    "faults": [fault_dict(Fault(s, spec.name, -1, None, "factory", why))],
                    "elapsed_ms": round((time.perf_counter() - start) * 1000.0, 3),
                }
            runners[s] = BotRunner(bot, budget_ms, enforce=spec.source != BUILTIN_SOURCE)
        for s, runner in enumerate(runners):
            if runner is None:
                continue
            mark(TRACE_SEAT + s)
            text = runner.hook(runner.bot.start_game, s, options, rngs[s], budget_ms)
            if text:
                faults.append(Fault(s, seating[s], -1, None, "start_game", text))
        mark(TRACE_ENGINE)
        perf = time.perf_counter
        for r in range(options.rounds):
            rnd = game.start_round(deal(derive_rng(seed, "deal", r), n))
            count = 0
            while rnd.to_move is not None:
                seat = rnd.to_move
                runner = runners[seat]
                if runner is None:
                    t0 = perf()
                    legal = rnd.legal_moves()
                    move = legal[rngs[seat].randrange(len(legal))]
                    ms = (perf() - t0) * 1000.0
                else:
                    mark(TRACE_SEAT + seat)
                    outcome = runner.choose(game.view(seat))
                    mark(TRACE_ENGINE)
                    move, ms = outcome.move, outcome.elapsed_ms
                    if outcome.fault is not None:
                        faults.append(Fault(seat, seating[seat], r, count, "choose", outcome.fault))
                rnd.play(move)
                count += 1
                moves[seat] += 1
                spent[seat] += ms
                if ms > slowest[seat]:
                    slowest[seat] = ms
            assert rnd.scores is not None
            round_scores.append(list(rnd.scores))
            last = game.game_over
            for s, runner in enumerate(runners):
                if runner is None:
                    continue
                view = game.view(s)
                mark(TRACE_SEAT + s)
                text = runner.hook(runner.bot.end_round, view)
                if text:
                    faults.append(Fault(s, seating[s], r, None, "end_round", text))
                if last:
                    text = runner.hook(runner.bot.end_game, view)
                    if text:
                        faults.append(Fault(s, seating[s], r, None, "end_game", text))
                mark(TRACE_ENGINE)
    finally:
        for runner in runners:
            if runner is not None:
                runner.close()
    totals = game.totals
    late = next((f for f in faults if is_timeout_fault(f.text)), None)
    line: dict[str, Any] = {
        **base,
        "status": STATUS_OK if late is None else STATUS_TIMEOUT,
        "blame": None if late is None else late.bot,
        "blame_seat": None if late is None else late.seat,
        "round_scores": round_scores,
        "totals": totals,
        "winners": game.winners or [],
        "ranks": ranks_of(totals),
        "moves": moves,
        "move_ms_mean": [round(spent[s] / moves[s], 4) if moves[s] else 0.0 for s in range(n)],
        "move_ms_max": [round(v, 4) for v in slowest],
        "faults": [fault_dict(f) for f in faults],
        "elapsed_ms": round((time.perf_counter() - start) * 1000.0, 3),
    }
    mark(TRACE_DONE)
    return line


def _forfeit(
    status: str, seat: int | None, seating: tuple[str, ...] | list[str], n: int
) -> dict[str, Any]:
    """The result fields of a game that did not finish (``seat`` is the blamed one, if known)."""
    return {
        "status": status,
        "blame": None if seat is None else seating[seat],
        "blame_seat": seat,
        "round_scores": [],
        "totals": None,
        "winners": [],
        "ranks": None,
        "moves": [0] * n,
        "move_ms_mean": [None] * n,
        "move_ms_max": [None] * n,
        "faults": [],
    }


def failed_line(
    status: str,
    seat: int | None,
    seating: tuple[str, ...] | list[str],
    seed: int,
    versions: list[str],
    text: str,
    elapsed_ms: float,
) -> dict[str, Any]:
    """The line of a game whose worker process crashed or was stopped at the game timeout."""
    line = {"seed": seed, "seating": list(seating), "versions": versions}
    line.update(_forfeit(status, seat, seating, len(seating)))
    if seat is not None:
        line["faults"] = [
            {
                "seat": seat,
                "bot": seating[seat],
                "round": None,
                "move": None,
                "stage": "process",
                "text": text,
            }
        ]
    line["elapsed_ms"] = round(elapsed_ms, 3)
    return line
