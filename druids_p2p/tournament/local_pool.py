"""The local backend: the batches played by ``pebble`` worker processes on this machine.

Failures are contained at two levels: the host inside the worker stops a plugin bot's move at its
time limit; the pool stops a whole task at its game timeout (``pebble``'s ``schedule(timeout=)``)
and notices a worker that died. A lost batch is split and its games replayed one per task, so a
lost single game is pinned on the seat whose code was running (see :mod:`.worker`), recorded with
status ``timeout`` or ``crashed``, and the tournament goes on.
"""

from __future__ import annotations

import mmap
import os
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from druids_p2p.plugins import BotRegistry
from druids_p2p.tournament.config import PlannedGame, TournamentConfig, TournamentError
from druids_p2p.tournament.play import (
    STATUS_CRASHED,
    STATUS_TIMEOUT,
    TRACE_DONE,
    TRACE_ENGINE,
    TRACE_IDLE,
    TRACE_SEAT,
    failed_line,
)
from druids_p2p.tournament.worker import Feed, init_worker, play_batch, share_registry

MAX_RETRIES = 3
"""Times a game whose worker was lost before it started (a tainted worker) is scheduled again."""
TASK_SLACK_S = 2.0
"""Added to every task's timeout (pickling, the pipe, a busy machine)."""


@dataclass
class _Task:
    games: tuple[PlannedGame, ...]
    timeout: float
    started: float = field(default_factory=time.perf_counter)
    retries: int = 0


def play_local(
    feed: Feed,
    config: TournamentConfig,
    registry: BotRegistry,
    workers: int,
    plugins_dirs: Sequence[str | os.PathLike[str]],
    out_dir: Path,
    out: Any,
) -> None:
    """The local backend: ``pebble`` worker processes, with the crash trace and game timeouts."""
    from pebble import ProcessExpired, ProcessPool

    per_game = feed.per_game
    specs_count = 1 + max(spec.index for batch in feed.batches for spec in batch.games)
    versions = dict(zip(config.bots, config.versions, strict=True))
    template = feed.batches[0]
    trace_path = out_dir / ".trace"
    trace_path.write_bytes(bytes(max(1, specs_count)))
    dirs = [str(d) for d in plugins_dirs]
    with open(trace_path, "r+b") as tf:
        trace = mmap.mmap(tf.fileno(), 0)
        share_registry(registry)
        pool = ProcessPool(
            max_workers=workers, initializer=init_worker, initargs=(dirs, str(trace_path))
        )
        pending: dict[Any, _Task] = {}

        def submit(task: _Task) -> None:
            for spec in task.games:
                trace[spec.index] = TRACE_IDLE
            task.started = time.perf_counter()
            batch = replace(template, games=task.games)
            future = pool.schedule(play_batch, args=(batch,), timeout=task.timeout)
            pending[future] = task

        def lost(task: _Task, status: str, why: str) -> None:
            if len(task.games) > 1:
                for spec in task.games:  # replay one per task to find the culprit
                    submit(_Task((spec,), per_game + TASK_SLACK_S))
                return
            spec = task.games[0]
            mark = trace[spec.index]
            if mark in (TRACE_IDLE, TRACE_DONE) and task.retries < MAX_RETRIES:
                task.retries += 1
                submit(task)  # the worker was lost before or after this game, not in it
                return
            seat = mark - TRACE_SEAT if TRACE_SEAT <= mark < TRACE_SEAT + config.players else None
            if mark == TRACE_ENGINE or seat is None:
                why += " (not while a bot was playing: nobody blamed)"
            line = failed_line(
                status,
                seat,
                spec.seating,
                spec.seed,
                [versions.get(n, "?") for n in spec.seating],
                why,
                (time.perf_counter() - task.started) * 1000.0,
            )
            feed.record({"index": spec.index, "deal": spec.deal, **line})

        try:
            for batch in feed.batches:
                submit(_Task(batch.games, per_game * len(batch.games) + TASK_SLACK_S))
            while pending and not feed.should_stop():
                finished, _ = wait(list(pending), timeout=0.2, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = pending.pop(future)
                    try:
                        lines = future.result()
                    except TimeoutError:
                        lost(task, STATUS_TIMEOUT, f"game stopped at the {per_game:.0f} s timeout")
                    except ProcessExpired as exc:
                        code = getattr(exc, "exitcode", None)
                        lost(task, STATUS_CRASHED, f"worker process died (exit status {code})")
                    except Exception as exc:
                        raise TournamentError(
                            f"a worker failed: {type(exc).__name__}: {exc}"
                        ) from None
                    else:
                        for line in lines:
                            feed.record(line)
                out.flush()
                feed.tick()
        finally:
            pool.stop()  # type: ignore[no-untyped-call]
            pool.join()
            share_registry(None)
            trace.close()
    trace_path.unlink(missing_ok=True)
