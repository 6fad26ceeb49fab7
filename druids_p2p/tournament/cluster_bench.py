"""Measuring the Dask backend: games per second and what a batch costs beyond its games.

Two figures per cluster size:

* ``overhead_ms_per_batch`` — worker time not spent in games, per batch:
  ``(seconds × threads − Σ game elapsed) / batches``. It holds the task's scheduling, pickling,
  two network hops and the client's writing, and also any worker idle at the end of the run, so
  it is an upper bound of the per-batch cost.
* ``noop_task_ms`` — the round trip of an empty task (submit, run, result), one at a time: the
  latency floor of a batch, whatever it plays.

With ``b`` games per batch of ``g`` ms each, a batch keeps a worker busy ``b·g`` ms for an overhead
``o``: ``N`` machines give about ``N·cores / (g + o/b)`` games per ms as long as the client (one
process writing every line) keeps up.
"""

from __future__ import annotations

import importlib
import math
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from druids_p2p.plugins import BotRegistry
from druids_p2p.tournament.config import TournamentConfig
from druids_p2p.tournament.runner import run_tournament
from druids_p2p.tournament.worker import batch_size

NOOP_TASKS = 30


def _noop(i: int) -> int:
    return i


@dataclass
class ClusterBench:
    workers: int
    threads: int
    games: int
    batches: int
    batch_games: int
    seconds: float
    games_per_s: float
    game_ms_mean: float
    overhead_ms_per_batch: float
    noop_task_ms: float

    def as_dict(self) -> dict[str, Any]:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in vars(self).items()}


def noop_roundtrip_ms(address: str) -> float:
    """Median round trip of an empty task on the cluster at ``address``, one task at a time."""
    dask: Any = importlib.import_module("distributed")
    client = dask.Client(address, timeout=20)
    try:
        times = []
        for i in range(NOOP_TASKS):
            start = time.perf_counter()
            client.submit(_noop, i, pure=False).result()
            times.append((time.perf_counter() - start) * 1000.0)
        times.sort()
        return times[len(times) // 2]
    finally:
        client.close()


def cluster_threads(address: str) -> tuple[int, int]:
    """(workers, threads) of the cluster at ``address``."""
    dask: Any = importlib.import_module("distributed")
    client = dask.Client(address, timeout=20)
    try:
        nthreads = client.nthreads()
        return len(nthreads), max(1, sum(nthreads.values()))
    finally:
        client.close()


def bench_cluster(
    address: str, config: TournamentConfig, registry: BotRegistry, batch_games: int | None = None
) -> ClusterBench:
    """One tournament on the cluster at ``address`` into a temporary folder, measured."""
    workers, threads = cluster_threads(address)
    size = batch_games or batch_size(config.plan(), registry, threads, False)
    with tempfile.TemporaryDirectory(prefix="druids-bench-") as tmp:
        start = time.perf_counter()
        result = run_tournament(
            config, registry, Path(tmp) / "run", cluster=address, batch_games=size
        )
        seconds = time.perf_counter() - start
    if result.interrupted:
        raise KeyboardInterrupt
    games = len(result.lines)
    batches = math.ceil(games / size)
    busy_ms = math.fsum(float(line["elapsed_ms"]) for line in result.lines)
    return ClusterBench(
        workers=workers,
        threads=threads,
        games=games,
        batches=batches,
        batch_games=size,
        seconds=seconds,
        games_per_s=games / seconds if seconds > 0 else 0.0,
        game_ms_mean=busy_ms / games if games else 0.0,
        overhead_ms_per_batch=max(0.0, seconds * 1000.0 * threads - busy_ms) / batches,
        noop_task_ms=noop_roundtrip_ms(address),
    )
