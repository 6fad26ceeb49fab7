"""What a backend (local processes, a Dask cluster) is handed: the batches, and where lines go."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from druids_p2p.plugins import BUILTIN_SOURCE, BotRegistry
from druids_p2p.tournament.config import PlannedGame
from druids_p2p.tournament.worker import Batch


def batch_size(specs: Sequence[PlannedGame], registry: BotRegistry, workers: int, p2p: bool) -> int:
    """Games per task: many cheap games per task, one game per task for anything risky or slow.

    Plugin bots and p2p games go one per task, so that a lost task is exactly one lost game.
    """
    if p2p or not specs:
        return 1
    names = {name for spec in specs for name in spec.seating}
    if any(registry.get(n).source != BUILTIN_SOURCE for n in names):
        return 1
    if names <= {"random"}:
        size = 64
    elif "pimc" in names:
        size = 1
    else:
        size = 8
    spread = -(-len(specs) // (4 * max(1, workers)))  # keep every worker busy to the end
    return max(1, min(size, spread))


@dataclass
class Feed:
    """What a backend is handed: the batches to play, and where their lines go.

    ``record`` ignores a game index it already has, so a batch that is played twice (a worker
    lost after it finished, a rescheduled task) is counted once. ``should_stop`` turns true when
    the run must end early (an SPRT decision, ``stop_after``); ``tick`` reports progress.
    """

    batches: list[Batch]
    record: Callable[[dict[str, Any]], None]
    should_stop: Callable[[], bool]
    tick: Callable[[], None]
    per_game: float
    batch_games: int | None = None
    """A batch size fixed by the caller (else each backend picks its own)."""
