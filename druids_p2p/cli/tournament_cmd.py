"""``druids tournament``: bots against each other on duplicate deals, over worker processes.

Options default to None so that ``--resume`` can take what is not given from the folder's
``run.json`` (and refuse what contradicts it); a fresh run fills in the documented defaults.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from druids_p2p.cli.app import app, echo_err, fail, make_folder
from druids_p2p.cli.bots_cmd import PLUGINS_DIR_HELP, STRICT_HELP, load_registry

if TYPE_CHECKING:
    from collections.abc import Callable

    from druids_p2p.plugins import BotRegistry
    from druids_p2p.tournament.runner import RunResult, TournamentConfig

T = TypeVar("T")
DEFAULT_GAMES = 100
DEFAULT_BUDGET_MS = 100.0
EXIT_INTERRUPTED = 130


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def parse_bot_list(text: str, registry: BotRegistry, option: str = "--bots") -> list[str]:
    """Comma-separated names, each known and listed once; one-line errors otherwise."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        fail(f"{option}: give at least one bot name (see 'druids bots')")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            fail(f"{option}: bot {name!r} is listed twice")
        seen.add(name)
        if name not in registry:
            known = ", ".join(registry.names())
            fail(f"{option}: unknown bot {name!r} (known: {known})")
    return names


def check_common(players: int, games: int, workers: int, budget_ms: float) -> None:
    if players not in (3, 4, 5):
        fail(f"--players must be 3, 4 or 5, not {players}")
    if games < 1:
        fail(f"--games must be at least 1, not {games}")
    if workers < 1:
        fail(f"--workers must be at least 1, not {workers}")
    if not (math.isfinite(budget_ms) and budget_ms > 0):
        fail(f"--time-per-move must be above 0 ms, not {budget_ms:g}")


class _Rate:
    """A rich progress column: games per second."""

    @staticmethod
    def make() -> Any:
        from rich.progress import ProgressColumn
        from rich.text import Text

        class RateColumn(ProgressColumn):
            def render(self, task: Any) -> Text:
                speed = task.finished_speed or task.speed
                return Text("" if speed is None else f"{speed:,.0f} games/s")

        return RateColumn()


@contextmanager
def progress_bar(enabled: bool, label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A live bar on stderr (games done, rate, ETA), or None; never writes on stdout."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _Rate.make(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(label, total=None)
        started = [False]

        def update(done: int, total: int) -> None:
            if not started[0]:
                bar.reset(task, total=total, completed=done)  # rate counts this run's games
                started[0] = True
            else:
                bar.update(task, completed=done, total=total)

        yield update


def want_progress(flag: bool) -> bool:
    return flag or sys.stderr.isatty()


def run_or_fail(
    config: TournamentConfig,
    registry: BotRegistry,
    out_dir: Path,
    *,
    workers: int,
    plugins_dirs: list[Path],
    resume: bool = False,
    game_timeout: float | None = None,
    progress: bool = False,
    label: str = "games",
) -> RunResult:
    """Run a tournament; its user-facing failures become one-line errors."""
    from druids_p2p.tournament.runner import TournamentError, run_tournament

    with progress_bar(progress, label) as on_progress:
        try:
            return run_tournament(
                config,
                registry,
                out_dir,
                workers=workers,
                plugins_dirs=plugins_dirs,
                resume=resume,
                game_timeout=game_timeout,
                on_progress=on_progress,
            )
        except TournamentError as exc:
            fail(str(exc))


def _stored(out: Path | None) -> TournamentConfig | None:
    from druids_p2p.tournament.runner import TournamentError, read_run

    if out is None:
        return None
    try:
        return read_run(out)
    except TournamentError as exc:
        fail(str(exc))


@app.command("tournament")
def tournament_command(
    bots: str | None = typer.Option(
        None, "--bots", metavar="A,B,...", help="Bots to play (names from 'druids bots')."
    ),
    games: int | None = typer.Option(
        None, "--games", help=f"Games in all, rounded up to whole deals [{DEFAULT_GAMES}]."
    ),
    players: int | None = typer.Option(
        None, "--players", help="Seats per game, 3-5 [the number of bots, within 3-5]."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Master seed of deals and lineups [0]."),
    workers: int | None = typer.Option(
        None, "--workers", help="Worker processes [CPU count]; results do not depend on it."
    ),
    time_per_move: float | None = typer.Option(
        None, "--time-per-move", metavar="MS", help=f"Budget per move [{DEFAULT_BUDGET_MS:g}]."
    ),
    out: Path | None = typer.Option(
        None, "--out", metavar="DIR", help="Output folder [out/tournament-DATE-TIME]."
    ),
    resume: bool = typer.Option(False, "--resume", help="Continue the interrupted run in --out."),
    p2p: bool = typer.Option(
        False, "--p2p", help="Play over the real protocol: a peer process per seat, loopback."
    ),
    plot: Path | None = typer.Option(
        None, "--plot", metavar="FILE.png", help="Draw ratings over the games (needs matplotlib)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    progress: bool = typer.Option(
        False, "--progress", help="Show the progress bar even when stderr is not a terminal."
    ),
    game_timeout: float | None = typer.Option(
        None, "--game-timeout", metavar="S", help="Stop a game after S seconds [from the budget]."
    ),
    plugins_dir: list[Path] = typer.Option(
        [], "--plugins-dir", metavar="DIR", help=PLUGINS_DIR_HELP
    ),
    strict_plugins: bool = typer.Option(False, "--strict-plugins", help=STRICT_HELP),
) -> None:
    """Play bots against each other on duplicate deals and rate them.

    Every deal is played once per rotation of its lineup through the seats. Writes games.jsonl,
    summary.json and run.json into --out; Ctrl-C keeps what finished, --resume continues.
    """
    from druids_p2p.tournament.plot import matplotlib_missing
    from druids_p2p.tournament.runner import TournamentConfig
    from druids_p2p.tournament.worker import p2p_unavailable

    if resume and out is None:
        fail("--resume needs --out DIR (the folder of the run to continue)")
    if plot is not None:
        missing = matplotlib_missing()
        if missing:
            fail(missing)
    stored = _stored(out) if resume else None
    if resume and stored is None:
        fail(f"nothing to resume in {out} (no run.json)")
    if game_timeout is not None and not game_timeout > 0:
        fail(f"--game-timeout must be above 0 s, not {game_timeout:g}")
    registry = load_registry(plugins_dir, strict_plugins)
    if bots is None:
        if stored is None:
            fail("--bots is required, e.g. --bots rule,pimc,random (see 'druids bots')")
        names = list(stored.bots)
        for name in names:
            if name not in registry:
                fail(f"cannot resume: bot {name!r} of this run is not loaded (--plugins-dir?)")
    else:
        names = parse_bot_list(bots, registry)
    n_players = pick(players, stored.players if stored else None, min(5, max(3, len(names))))
    budget = pick(time_per_move, stored.time_per_move_ms if stored else None, DEFAULT_BUDGET_MS)
    n_games = pick(games, stored.games if stored else None, DEFAULT_GAMES)
    n_workers = pick(workers, None, default_workers())
    check_common(n_players, n_games, n_workers, budget)
    use_p2p = p2p or bool(stored.p2p if stored else None)
    if use_p2p:
        problem = p2p_unavailable()
        if problem:
            fail(problem)
    config = TournamentConfig(
        bots=tuple(names),
        versions=tuple(registry.get(n).version for n in names),
        players=n_players,
        games=n_games,
        seed=pick(seed, stored.seed if stored else None, 0),
        time_per_move_ms=budget,
        p2p=use_p2p,
    )
    out_dir = out if out is not None else Path("out") / time.strftime("tournament-%Y%m%d-%H%M%S")
    make_folder("--out", out_dir)
    result = run_or_fail(
        config,
        registry,
        out_dir,
        workers=n_workers,
        plugins_dirs=plugin_dirs_for_workers(plugins_dir),
        resume=resume,
        game_timeout=game_timeout,
        progress=want_progress(progress),
        label="tournament",
    )
    report(result, as_json)
    if plot is not None:
        from druids_p2p.tournament.plot import plot_ratings

        try:
            plot_ratings(result.summary, plot)
        except (OSError, ValueError) as exc:
            fail(f"--plot {plot}: {exc}")
    if result.interrupted:
        echo_err(
            f"interrupted: {len(result.lines)} of {result.planned} games are in {out_dir}; "
            f"continue with: druids tournament --resume --out {out_dir}"
        )
        raise typer.Exit(EXIT_INTERRUPTED)


def pick(given: T | None, stored: T | None, default: T) -> T:
    """The option given, else the resumed run's value, else the default."""
    if given is not None:
        return given
    return stored if stored is not None else default


def plugin_dirs_for_workers(dirs: list[Path]) -> list[Path]:
    """Absolute paths: a worker must find the same plugins whatever its working directory."""
    return [d.resolve() for d in dirs]


def report(result: RunResult, as_json: bool) -> None:
    from druids_p2p.tournament.summary import format_table

    if as_json:
        print(json.dumps(result.summary.as_dict()))
    else:
        print(format_table(result.summary))
    rate = result.played / result.seconds if result.seconds > 0 else 0.0
    echo_err(
        f"{len(result.lines)} of {result.planned} games in {result.out_dir} "
        f"({result.played} played now, {rate:,.1f} games/s)"
    )
