"""Running a tournament into an output folder that can be resumed.

The folder (:mod:`.run_folder`) holds ``run.json`` (the configuration, :mod:`.config`: what makes
the games what they are), ``games.jsonl`` and ``summary.json``. Because every game is fixed by the
plan and its index, an interrupted run resumes by playing exactly the indices missing from
``games.jsonl``; a resume with a different configuration is refused, since its games would not
belong to the same tournament. The games are played by a backend handed a :class:`.feed.Feed`:
local worker processes (:mod:`.local_pool`) or a Dask cluster (:mod:`.cluster`).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from druids_p2p.plugins import BotRegistry
from druids_p2p.tournament.cluster_link import ClusterTLS
from druids_p2p.tournament.config import (
    PlannedGame,
    TournamentConfig,
    TournamentError,
    game_timeout_s,
)
from druids_p2p.tournament.live import Monitor
from druids_p2p.tournament.local_pool import play_local
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
from druids_p2p.tournament.worker import Batch, Feed, TablePlayer, batch_size

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

    ``stop_after`` stops (as if interrupted) once that many games have been played, for tests of
    resuming. ``game_timeout`` overrides :func:`game_timeout_s`. Workers use ``registry`` where
    they are forked from this process, else they load ``plugins_dirs`` as the caller did.
    ``cluster`` (a Dask scheduler address) plays the batches on that cluster instead of local
    worker processes (:mod:`.cluster`; ``cluster_tls``: the user's TLS files for a ``tls://``
    scheduler, :mod:`.cluster_link`); the games and the folder are the same. ``on_status``
    gets a short line (ratings, the LLR) now and then; ``batch_games`` fixes the batch size.
    ``table_player`` plays a ``p2p`` config's games over the real protocol: the caller passes
    ``peer.local_table.play_table`` (tournaments do not import the network layer); each of its
    peer processes loads ``plugins_dirs`` too.
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
        config.players, config.time_per_move_ms, game=config.game
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
