"""Playing one tournament game in-process, fast enough for thousands a minute, and how its line
counts for each seat (a bot that faulted never looks good)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from druids_p2p.bots.host import BotRunner, Fault, RandomBot, derive_rng
from druids_p2p.bots.local_game import Seat, make_bot, run_game
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

OVERRUN = 1.2
"""A move slower than this many budgets counts in ``move_ms_over``: a bot is honest when at most
1% of its moves do (p99 within 20% of its budget, issue 32)."""


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


FAULT_KINDS = (STATUS_CRASHED, STATUS_TIMEOUT, STATUS_ILLEGAL)
"""What a forfeit can be, as the summary counts them (the same words as a line's status)."""


@dataclass(frozen=True)
class Scored:
    """One game line as every statistic reads it (per seat, in the line's seat order)."""

    ranks: list[int] | None
    """The ranks it is rated with (1 best); None: not rated (it failed blaming nobody)."""
    totals: list[float] | None
    """The totals the score statistics count, a forfeiting seat's at the table's lowest;
    None: the game has no totals (it did not finish)."""
    firsts: list[bool]
    """The seats that count a first place."""
    forfeits: dict[int, str]
    """Each forfeiting seat and why (:data:`FAULT_KINDS`), in the order of their first fault."""
    first_faults: dict[int, Mapping[str, Any]]
    """Each forfeiting seat's first fault (none for a seat blamed without a fault entry)."""


def forfeiting_seats(
    line: Mapping[str, Any],
) -> tuple[dict[int, str], dict[int, Mapping[str, Any]]]:
    """The seats that forfeit ``line`` with the kind of each, and each one's first fault. The
    blamed seat's kind is the line's status (a game stopped at the game timeout is the blamed
    bot's ``timeout`` whatever its fault's words)."""
    n = len(line["seating"])
    kinds: dict[int, str] = {}
    firsts: dict[int, Mapping[str, Any]] = {}
    for fault in line.get("faults") or []:
        seat = fault.get("seat")
        if isinstance(seat, int) and 0 <= seat < n and seat not in kinds:
            kinds[seat] = fault_kind(fault)
            firsts[seat] = fault
    blamed = line.get("blame_seat")
    if isinstance(blamed, int) and 0 <= blamed < n:  # the status is the blamed seat's kind
        status = line.get("status")
        kind = status if status in FAULT_KINDS else STATUS_CRASHED
        kinds[blamed] = kinds.get(blamed, kind) if status not in FAULT_KINDS else kind
    return kinds, firsts


def score_line(line: Mapping[str, Any]) -> Scored:
    """How ``line`` counts for each seat (see the module's rules)."""
    n = len(line["seating"])
    forfeits, first_faults = forfeiting_seats(line)
    raw = line.get("totals")
    if raw is None:
        ranks = None if not forfeits else [2 if s in forfeits else 1 for s in range(n)]
        return Scored(ranks, None, [False] * n, forfeits, first_faults)
    totals = [float(t) for t in raw]
    low = min(totals)
    scored = [low if s in forfeits else t for s, t in enumerate(totals)]
    clean = [s for s in range(n) if s not in forfeits]
    last = len(clean) + 1
    ranks = [
        last if s in forfeits else 1 + sum(totals[o] > totals[s] for o in clean) for s in range(n)
    ]
    best = max((totals[s] for s in clean), default=None)
    firsts = [s not in forfeits and totals[s] == best for s in range(n)]
    return Scored(ranks, scored, firsts, forfeits, first_faults)
