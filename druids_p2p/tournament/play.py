"""Playing one tournament game in-process, fast enough for thousands of games a minute.

:func:`play_game` plays exactly the game :func:`~druids_p2p.bots.local_game.play_local_game` plays
for the same seating and seed — the same loop (``local_game.run_game``), for any rule set; the
tests compare the two — with three speed-ups that matter at tournament scale:

* the built-in ``random`` bot is not called at all: its move is drawn here from the very stream
  the bot would have used (``derive_rng(seed, "bot", seat)``), without building a view;
* other built-in bots are trusted: they run on this thread, unenforced (no thread hand-off, which
  costs ~25 ms a game); a built-in that hangs is still stopped by the pool's game timeout;
* plugin bots are someone else's code: they run through the host's :class:`BotRunner` with the
  per-move budget enforced.

A game in which a bot faults — it raises, fails to answer in time or answers an illegal move — is
a *forfeit* of that bot (status ``crashed``, ``timeout`` or ``illegal``, after the first fault):
the host still finished the game on fallback moves, and those totals are kept, but the faulting
seat is scored as the game's loser (:mod:`.forfeits`).

``trace`` (a writable byte buffer, one byte per game index) tells the parent which seat's code was
running if the worker process dies or is killed mid-game; see :mod:`druids_p2p.tournament.worker`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from druids_p2p.bots.host import BotRunner, Fault, derive_rng
from druids_p2p.bots.local_game import Seat, make_bot, run_game
from druids_p2p.bots.random_bot import RandomBot
from druids_p2p.games.registry import game_spec
from druids_p2p.plugins import BUILTIN_SOURCE, BotRegistry

STATUS_OK = "ok"
STATUS_TIMEOUT = "timeout"
STATUS_CRASHED = "crashed"
STATUS_ILLEGAL = "illegal"
STATUSES = (STATUS_OK, STATUS_TIMEOUT, STATUS_CRASHED, STATUS_ILLEGAL)

TRACE_IDLE = 0
"""Trace byte of a game not started (or whose worker never got to it)."""
TRACE_ENGINE = 1
"""The game is running and no bot code is: a death now is not a bot's fault."""
TRACE_SEAT = 2
"""``TRACE_SEAT + seat``: that seat's bot code is running."""
TRACE_DONE = 255

TIMEOUT_FAULTS = ("no answer within", "still busy")
"""How the host's fault texts start when a bot did not answer in time (``BotRunner.call``)."""

TIMING_KEYS = ("move_ms_mean", "move_ms_max", "move_ms_over", "elapsed_ms")
"""Keys of a game line that depend on the machine, not on the seed."""


ILLEGAL_FAULTS = ("returned",)
"""How the host's fault texts start when a bot answered something that is not a legal move
(``bots.host.check_answer``): an illegal move id, or not a move id at all."""


def is_timeout_fault(text: str) -> bool:
    return text.startswith(TIMEOUT_FAULTS)


def fault_kind(fault: Mapping[str, Any]) -> str:
    """``timeout``, ``illegal`` or ``crashed`` for one fault of a line's ``faults``: a bot that
    did not answer in time, answered no legal move, or raised (its factory, its process too)."""
    text = str(fault.get("text") or "")
    if is_timeout_fault(text):
        return STATUS_TIMEOUT
    if fault.get("stage") == "choose" and text.startswith(ILLEGAL_FAULTS):
        return STATUS_ILLEGAL
    return STATUS_CRASHED


def status_of(faults: Sequence[Mapping[str, Any]]) -> tuple[str, int | None]:
    """A finished game's status and blamed seat from its faults: ``ok`` without a bot's fault,
    else the kind and the seat of the first (a fault naming no seat blames nobody). Every
    faulting seat forfeits the game (``tournament.forfeits``); the status names the first."""
    first = next((f for f in faults if isinstance(f.get("seat"), int)), None)
    if first is None:
        return STATUS_OK, None
    return fault_kind(first), int(first["seat"])


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
    options: Any,
    seed: int,
    budget_ms: float,
    registry: BotRegistry,
    *,
    game: str | None = None,
    trace: Any = None,
    index: int = 0,
) -> dict[str, Any]:
    """Play one game of ``game`` with its ``options``; the game's line for ``games.jsonl``
    (without ``index``/``deal``)."""
    start = time.perf_counter()
    n = options.players
    if len(seating) != n:
        raise ValueError(f"{len(seating)} bots for a {n}-player game")
    played = game_spec(game)
    game, rules = played.name, played.rules
    specs = [registry.get(name) for name in seating]
    base: dict[str, Any] = {"seed": seed, "seating": list(seating)}
    base["versions"] = [s.version for s in specs]
    if not played.default:  # the default game's lines stay as they were before other games
        base["game"] = game

    def running(seat: int | None) -> None:
        if trace is not None:
            trace[index] = TRACE_ENGINE if seat is None else TRACE_SEAT + seat

    seats: list[Seat] = []
    running(None)
    try:
        for s, spec in enumerate(specs):
            rng = derive_rng(seed, "bot", s)
            if spec.factory is RandomBot and spec.source == BUILTIN_SOURCE:
                seats.append(Seat(spec.name, None, rng))
                continue
            running(s)
            try:
                _, bot = make_bot(spec, registry, game)
            except Exception as exc:
                # The plugin's factory is bot code too: the bot forfeits, nothing has been played.
                why = f"bot factory raised {type(exc).__name__}: {exc}"
                return {
                    **base,
                    **_forfeit(STATUS_CRASHED, s, seating, n),
                    "faults": [fault_dict(Fault(s, spec.name, -1, None, "factory", why))],
                    "elapsed_ms": round((time.perf_counter() - start) * 1000.0, 3),
                }
            runner = BotRunner(bot, budget_ms, enforce=spec.source != BUILTIN_SOURCE, game=game)
            seats.append(Seat(spec.name, runner, rng))
        running(None)
        result = run_game(rules, options, seed, seats, budget_ms, running)
    finally:
        for seat in seats:
            if seat.runner is not None:
                seat.runner.close()
    totals = result.totals
    faults = [fault_dict(f) for f in result.faults]
    status, blamed = status_of(faults)
    moves = [0] * n
    spent = [0.0] * n
    slowest = [0.0] * n
    over: list[list[float]] = [[] for _ in range(n)]
    for rnd in result.rounds:
        for s, ms in zip(rnd.seats, rnd.times_ms, strict=True):
            moves[s] += 1
            spent[s] += ms
            if ms > slowest[s]:
                slowest[s] = ms
            if ms > budget_ms:
                over[s].append(round(ms, 2))
    line: dict[str, Any] = {
        **base,
        "status": status,
        "blame": None if blamed is None else seating[blamed],
        "blame_seat": blamed,
        "round_scores": result.round_scores,
        "totals": totals,
        "winners": result.winners,
        "ranks": ranks_of(totals),
    }
    if not played.default:
        line["ended_by"] = result.ended_by
    line.update(
        {
            "moves": moves,
            "move_ms_mean": [round(spent[s] / moves[s], 4) if moves[s] else 0.0 for s in range(n)],
            "move_ms_max": [round(v, 4) for v in slowest],
            "move_ms_over": over,
            "faults": faults,
            "elapsed_ms": round((time.perf_counter() - start) * 1000.0, 3),
        }
    )
    if trace is not None:
        trace[index] = TRACE_DONE
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
        "move_ms_over": [[] for _ in range(n)],
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
