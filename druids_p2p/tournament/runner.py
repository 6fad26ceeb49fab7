"""Running a tournament into an output folder that can be resumed, its batches played by local
worker processes unless a cluster is named."""

from __future__ import annotations

import json
import mmap
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from druids_p2p.games.registry import UNUSED_ROUNDS
from druids_p2p.plugins import BotRegistry
from druids_p2p.tournament.cluster import ClusterTLS
from druids_p2p.tournament.config import (
    PlannedGame,
    TournamentConfig,
    TournamentError,
    game_timeout_s,
)
from druids_p2p.tournament.live import Monitor
from druids_p2p.tournament.play import (
    STATUS_CRASHED,
    STATUS_TIMEOUT,
    TRACE_DONE,
    TRACE_ENGINE,
    TRACE_IDLE,
    TRACE_SEAT,
    failed_line,
)
from druids_p2p.tournament.summary import (
    RUN_FORMAT,
    RunResult,
    encode_line,
    read_games,
    read_run,
    summarize,
    write_sorted,
    write_summary,
)
from druids_p2p.tournament.worker import (
    Batch,
    Feed,
    TablePlayer,
    batch_size,
    init_worker,
    play_batch,
    share_registry,
)

STATUS_EVERY_S = 0.5
"""How often the live status line (ratings, LLR) is recomputed for the progress display."""


def run_tournament(
    config: TournamentConfig,
    registry: BotRegistry,
    out_dir: Path,
    *,
    workers: int = 2,
    plugins_dirs: Sequence[str | os.PathLike[str]] = (),
    resume: bool = False,
    game_timeout: float | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    stop_after: int | None = None,
    on_status: Callable[[str], None] | None = None,
    cluster: str | None = None,
    batch_games: int | None = None,
    table_player: TablePlayer | None = None,
    cluster_tls: ClusterTLS | None = None,
) -> RunResult:
    """Play the tournament of ``config`` into ``out_dir``; Ctrl-C stops and keeps what finished.

    ``stop_after`` acts as Ctrl-C after that many games (resume tests); ``cluster`` plays on a Dask
    scheduler; ``table_player`` plays ``p2p`` games (injected: tournaments import no network layer).
    """
    if config.p2p and table_player is None:
        raise TournamentError("a --p2p run needs a table player (peer.local_table.play_table)")
    out_dir.mkdir(parents=True, exist_ok=True)
    run_path = out_dir / "run.json"
    games_path = out_dir / "games.jsonl"
    existing = read_run(out_dir)
    if existing is not None and not resume:
        raise TournamentError(f"{out_dir} already holds a run: use --resume or another --out")
    if existing is None and resume:
        raise TournamentError(f"nothing to resume in {out_dir} (no run.json)")
    if existing is not None:
        diffs = config.differences(existing)
        if diffs:
            raise TournamentError(f"cannot resume {out_dir}: different config ({'; '.join(diffs)})")
    specs = config.plan()
    done = read_games(games_path) if resume else {}
    texts: dict[int, str] = {}
    if existing is None:
        document = {"format": RUN_FORMAT, "config": config.as_dict()}
        run_path.write_text(json.dumps(document, indent=2) + "\n")
    monitor = Monitor(
        config.bots, specs, config.sprt_test(), config.stop_ci, rate=on_status is not None
    )
    for index in sorted(done):
        monitor.add(done[index])
    todo = [s for s in specs if s.index not in done] if monitor.decision is None else []
    per_game = game_timeout if game_timeout is not None else game_timeout_s(
        config.players, config.time_per_move_ms, config.rounds or UNUSED_ROUNDS, config.game
    )  # fmt: skip
    played = 0
    start = time.perf_counter()
    total = len(specs)
    last_status = [0.0]
    size = batch_games or batch_size(todo, registry, workers, config.p2p)
    workdir = str(out_dir / "p2p")

    def make_batch(games: tuple[PlannedGame, ...]) -> Batch:
        return Batch(
            games,
            config.players,
            config.variant,
            config.time_per_move_ms,
            config.p2p,
            workdir,
            per_game,
            config.game,
            table_player if config.p2p else None,
            tuple(str(Path(d).resolve()) for d in plugins_dirs) if config.p2p else (),
            config.rounds,
        )

    def tick() -> None:
        if on_progress is not None:
            on_progress(len(done), total)
        now = time.perf_counter()
        if on_status is not None and now - last_status[0] >= STATUS_EVERY_S:
            last_status[0] = now
            on_status(monitor.status())

    interrupted = False
    tick()
    with games_path.open("a") as out:

        def record(line: dict[str, Any]) -> None:
            nonlocal played
            index = int(line["index"])
            if index in done:
                return  # a batch played twice (a lost worker's, rerun) counts once
            done[index] = line
            texts[index] = text = encode_line(line)
            out.write(text)
            played += 1
            monitor.add(line)

        def should_stop() -> bool:
            nonlocal interrupted
            if stop_after is not None and played >= stop_after:
                interrupted = True
                return True
            return monitor.decision is not None

        feed = Feed(
            [make_batch(tuple(todo[i : i + size])) for i in range(0, len(todo), size)],
            record,
            should_stop,
            tick,
            per_game,
            batch_games,
        )
        try:
            if not todo:
                pass
            elif cluster is not None:
                from druids_p2p.tournament.cluster import play_on_cluster

                play_on_cluster(cluster, feed, config, registry, plugins_dirs, out, tls=cluster_tls)
            else:
                play_local(feed, config, registry, workers, plugins_dirs, out_dir, out)
        except KeyboardInterrupt:
            interrupted = True
    decision = monitor.decision
    if decision is not None:  # the test decided at this deal: later deals are not part of it
        for index in [i for i, line in done.items() if int(line["deal"]) > decision.deal]:
            del done[index]
            texts.pop(index, None)
    write_sorted(games_path, done, texts)
    lines = [done[i] for i in sorted(done)]
    summary = summarize(lines, config.bots)
    result = RunResult(
        config=config,
        out_dir=out_dir,
        lines=lines,
        planned=total,
        played=played,
        seconds=time.perf_counter() - start,
        interrupted=interrupted and decision is None,
        summary=summary,
        test=monitor.report() if (config.sprt or config.stop_ci) else None,
        stopped=None if decision is None else decision.text,
    )
    write_summary(result)
    if on_status is not None:
        on_status(monitor.status())
    return result


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
