"""Running a tournament over worker processes, into an output folder that can be resumed.

The folder holds ``run.json`` (the configuration: what makes the games what they are),
``games.jsonl`` (one line per finished game, appended as games finish, rewritten in index order
at the end) and ``summary.json``. Because every game is fixed by the plan and its index, an
interrupted run resumes by playing exactly the indices missing from ``games.jsonl``; a resume with
a different configuration is refused, since its games would not belong to the same tournament.

Failures are contained at two levels: the host inside the worker stops a plugin bot's move at its
time limit; the pool stops a whole task at its game timeout (``pebble``'s ``schedule(timeout=)``)
and notices a worker that died. A lost batch is split and its games replayed one per task, so a
lost single game is pinned on the seat whose code was running (see :mod:`.worker`), recorded with
status ``timeout`` or ``crashed``, and the tournament goes on.
"""

from __future__ import annotations

import json
import mmap
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from druids_p2p.bots.host import HOOK_TIMEOUT_MS, wait_limit_ms
from druids_p2p.engine.cards import HAND_SIZE
from druids_p2p.plugins import BUILTIN_SOURCE, BotRegistry
from druids_p2p.tournament.live import Monitor
from druids_p2p.tournament.plan import GameSpec, plan_challenge, plan_lineups, plan_tournament
from druids_p2p.tournament.play import (
    STATUS_CRASHED,
    STATUS_TIMEOUT,
    TRACE_DONE,
    TRACE_ENGINE,
    TRACE_IDLE,
    TRACE_SEAT,
    failed_line,
)
from druids_p2p.tournament.sprt import SprtTest
from druids_p2p.tournament.summary import Summary, summarize
from druids_p2p.tournament.worker import (
    Batch,
    TablePlayer,
    init_worker,
    play_batch,
    share_registry,
)

RUN_FORMAT = 1
MODE_ROUND_ROBIN = "round-robin"
MODE_CHALLENGE = "challenge"
MODE_LINEUP = "lineup"
MODE_GAUNTLET = "gauntlet"
MAX_RETRIES = 3
"""Times a game whose worker was lost before it started (a tainted worker) is scheduled again."""
TASK_SLACK_S = 2.0
"""Added to every task's timeout (pickling, the pipe, a busy machine)."""
STATUS_EVERY_S = 0.5
"""How often the live status line (ratings, LLR) is recomputed for the progress display."""
PILE_CHOICES_PER_ROUND = 12
"""More than the Sickle pile choices a round can have (3 Sickles, a few ties each)."""


class TournamentError(Exception):
    """A user-facing tournament failure (bad folder, config mismatch, a worker error)."""


@dataclass(frozen=True)
class TournamentConfig:
    """What fixes the games of a run: the same config and seed give the same games."""

    bots: tuple[str, ...]
    versions: tuple[str, ...]
    players: int
    games: int
    """Games requested; the plan rounds it up to whole deals (:attr:`planned`)."""
    seed: int
    time_per_move_ms: float
    p2p: bool = False
    variant: bool = False
    mode: str = MODE_ROUND_ROBIN
    """``round-robin``; ``challenge``: the first bot against copies of the second; ``lineup``
    and ``gauntlet``: the fixed seatings of :attr:`lineups`, rotated on every deal."""
    lineups: tuple[tuple[str, ...], ...] = ()
    """Fixed lineups (bots may repeat), for the ``lineup`` and ``gauntlet`` modes."""
    sprt: tuple[float, float, float, float] | None = None
    """``(lo, hi, alpha, beta)``: stop a two-bot match when the SPRT decides (:mod:`.sprt`)."""
    sprt_stat: str = "elo"
    stop_ci: float | None = None
    """Stop when the 95% interval of the margin is narrower than this (points)."""

    game: str = "druids2017"
    """The rule set played (left out of run.json for druids2017, as before it existed)."""

    def sprt_test(self) -> SprtTest | None:
        if self.sprt is None:
            return None
        return SprtTest(*self.sprt, stat=self.sprt_stat)

    def plan(self) -> list[GameSpec]:
        if self.lineups:
            return plan_lineups(self.lineups, self.games, self.seed)
        if self.mode == MODE_CHALLENGE:
            return plan_challenge(self.bots[0], self.bots[1], self.players, self.games, self.seed)
        return plan_tournament(self.bots, self.players, self.games, self.seed)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["bots"] = list(self.bots)
        d["versions"] = list(self.versions)
        d["lineups"] = [list(lineup) for lineup in self.lineups]
        d["sprt"] = None if self.sprt is None else list(self.sprt)
        if self.game == "druids2017":
            del d["game"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentConfig:
        return cls(
            bots=tuple(d["bots"]),
            versions=tuple(d["versions"]),
            players=int(d["players"]),
            games=int(d["games"]),
            seed=int(d["seed"]),
            time_per_move_ms=float(d["time_per_move_ms"]),
            p2p=bool(d.get("p2p", False)),
            variant=bool(d.get("variant", False)),
            mode=str(d.get("mode", MODE_ROUND_ROBIN)),
            lineups=tuple(tuple(str(b) for b in lu) for lu in d.get("lineups") or ()),
            sprt=_four(d.get("sprt")),
            sprt_stat=str(d.get("sprt_stat", "elo")),
            stop_ci=None if d.get("stop_ci") is None else float(d["stop_ci"]),
            game=str(d.get("game", "druids2017")),
        )

    def differences(self, other: TournamentConfig) -> list[str]:
        """``field: ours != theirs`` for every field that differs."""
        mine, theirs = self.as_dict(), other.as_dict()
        return [f"{k} {theirs[k]!r} != {mine[k]!r}" for k in mine if mine[k] != theirs[k]]


def _four(value: Any) -> tuple[float, float, float, float] | None:
    if value is None:
        return None
    a, b, c, d = (float(v) for v in value)
    return a, b, c, d


def game_timeout_s(
    players: int, budget_ms: float, rounds: int = 5, game: str = "druids2017"
) -> float:
    """The longest a game may take when every bot uses its whole limit on every call.

    Every move may take the host's wait limit; every lifecycle hook its hook limit. A worker
    still busy past this is stuck in something the host cannot interrupt. A Druids (2004) game
    is bounded by about 600 moves (54 gems, 24 servants, each played, drawn or discarded once a
    pass, and the stall end).
    """
    if game == "druids2004":
        moves, hooks = 600, 2 * players
    else:
        moves = rounds * (players * HAND_SIZE[players] + PILE_CHOICES_PER_ROUND)
        hooks = players * (2 * rounds + 1)
    return (moves * wait_limit_ms(budget_ms) + hooks * max(HOOK_TIMEOUT_MS, budget_ms)) / 1000.0


@dataclass
class RunResult:
    """What :func:`run_tournament` did; ``lines`` are every game of the folder, in index order."""

    config: TournamentConfig
    out_dir: Path
    lines: list[dict[str, Any]]
    planned: int
    played: int
    """Games played by this invocation (the others were already in the folder)."""
    seconds: float
    interrupted: bool
    summary: Summary
    test: dict[str, Any] | None = None
    """The stopping rule's state (:meth:`.live.Monitor.report`) when one was set."""
    stopped: str | None = None
    """Why the run stopped early (an SPRT decision, a narrow interval), or None."""

    @property
    def complete(self) -> bool:
        return len(self.lines) == self.planned


@dataclass
class _Task:
    games: tuple[GameSpec, ...]
    timeout: float
    started: float = field(default_factory=time.perf_counter)
    retries: int = 0


def read_run(out_dir: Path) -> TournamentConfig | None:
    path = out_dir / "run.json"
    if not path.exists():
        return None
    try:
        return TournamentConfig.from_dict(json.loads(path.read_text())["config"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TournamentError(f"{path}: not a tournament run file ({exc})") from None


def read_games(path: Path) -> dict[int, dict[str, Any]]:
    """Lines of ``games.jsonl`` by index; a torn last line (a killed run) is dropped."""
    games: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return games
    with path.open() as f:
        for text in f:
            try:
                line = json.loads(text)
                games[int(line["index"])] = line
            except (ValueError, KeyError, TypeError):
                continue
    return games


def encode_line(line: dict[str, Any]) -> str:
    return json.dumps(line, separators=(",", ":")) + "\n"


def _write_sorted(path: Path, games: dict[int, dict[str, Any]], texts: dict[int, str]) -> None:
    """Rewrite ``games.jsonl`` in index order (reusing the text of lines encoded this run)."""
    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("w") as f:
        for index in sorted(games):
            f.write(texts.get(index) or encode_line(games[index]))
    os.replace(tmp, path)


def batch_size(specs: Sequence[GameSpec], registry: BotRegistry, workers: int, p2p: bool) -> int:
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
) -> RunResult:
    """Play the tournament of ``config`` into ``out_dir``; Ctrl-C stops and keeps what finished.

    ``stop_after`` stops (as if interrupted) once that many games have been played, for tests of
    resuming. ``game_timeout`` overrides :func:`game_timeout_s`. Workers use ``registry`` where
    they are forked from this process, else they load ``plugins_dirs`` as the caller did.
    ``cluster`` (a Dask scheduler address) plays the batches on that cluster instead of local
    worker processes (:mod:`.cluster`); the games and the folder are the same. ``on_status``
    gets a short line (ratings, the LLR) now and then; ``batch_games`` fixes the batch size.
    ``table_player`` plays a ``p2p`` config's games over the real protocol: the caller passes
    ``net.local_table.play_table`` (tournaments do not import the network layer).
    """
    if config.p2p and table_player is None:
        raise TournamentError("a --p2p run needs a table player (net.local_table.play_table)")
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

    def make_batch(games: tuple[GameSpec, ...]) -> Batch:
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

                play_on_cluster(cluster, feed, config, registry, plugins_dirs, out)
            else:
                _play_local(feed, config, registry, workers, plugins_dirs, out_dir, out)
        except KeyboardInterrupt:
            interrupted = True
    decision = monitor.decision
    if decision is not None:  # the test decided at this deal: later deals are not part of it
        for index in [i for i, line in done.items() if int(line["deal"]) > decision.deal]:
            del done[index]
            texts.pop(index, None)
    _write_sorted(games_path, done, texts)
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


def _play_local(
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


def write_summary(result: RunResult) -> None:
    document = {
        **result.summary.as_dict(),
        "planned": result.planned,
        "complete": result.complete,
        "statuses": result.summary.statuses,
        "config": result.config.as_dict(),
    }
    if result.test is not None:
        document["test"] = result.test
    (result.out_dir / "summary.json").write_text(json.dumps(document, indent=2) + "\n")
