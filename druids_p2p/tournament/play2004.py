"""One tournament game of Druids (2004), in-process, as a ``games.jsonl`` line.

The line has the 2017 line's fields (one "round": the whole game), so the summary, ratings and
margins work unchanged. Built-in bots run unenforced on this thread; plugin bots through the
host's budget. ``trace`` marks the engine while no bot code runs (see ``worker``).
"""

from __future__ import annotations

import time
from typing import Any

from druids_p2p.bots.host2004 import play_local_game_2004
from druids_p2p.games.druids2004.options import Options
from druids_p2p.plugins import BUILTIN_SOURCE, BotRegistry
from druids_p2p.tournament.play import (
    STATUS_OK,
    STATUS_TIMEOUT,
    TRACE_DONE,
    TRACE_ENGINE,
    fault_dict,
    is_timeout_fault,
    ranks_of,
)


def play_game_2004(
    seating: tuple[str, ...] | list[str],
    options: Options,
    seed: int,
    budget_ms: float,
    registry: BotRegistry,
    *,
    trace: Any = None,
    index: int = 0,
) -> dict[str, Any]:
    """Play one game; the game's line for ``games.jsonl`` (without ``index``/``deal``)."""
    start = time.perf_counter()
    specs = [registry.get(name) for name in seating]
    if trace is not None:
        trace[index] = TRACE_ENGINE
    result = play_local_game_2004(
        specs,
        options,
        seed,
        budget_ms,
        enforce=[s.source != BUILTIN_SOURCE for s in specs],
        registry=registry,
    )
    late = next((f for f in result.faults if is_timeout_fault(f.text)), None)
    n = options.players
    times = result.times_ms
    line: dict[str, Any] = {
        "seed": seed,
        "seating": list(seating),
        "versions": [s.version for s in specs],
        "game": "druids2004",
        "status": STATUS_OK if late is None else STATUS_TIMEOUT,
        "blame": None if late is None else late.bot,
        "blame_seat": None if late is None else late.seat,
        "round_scores": [list(result.scores)],
        "totals": list(result.scores),
        "winners": result.winners,
        "ranks": ranks_of(result.scores),
        "ended_by": result.ended_by,
        "moves": result.moves,
        "move_ms_mean": [round(sum(t) / len(t), 4) if t else 0.0 for t in times],
        "move_ms_max": [round(max(t), 4) if t else 0.0 for t in times],
        "faults": [fault_dict(f) for f in result.faults],
        "elapsed_ms": round((time.perf_counter() - start) * 1000.0, 3),
    }
    assert len(line["moves"]) == n
    if trace is not None:
        trace[index] = TRACE_DONE
    return line
