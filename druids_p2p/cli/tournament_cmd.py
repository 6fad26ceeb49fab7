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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from druids_p2p.cli.app import app, echo_err, fail, make_folder
from druids_p2p.cli.bots_cmd import PLUGINS_DIR_HELP, STRICT_HELP, load_registry
from druids_p2p.rulesets import DEFAULT_RULESET as DEFAULT_GAME
from druids_p2p.rulesets import GAME_HELP, check_game

if TYPE_CHECKING:
    from collections.abc import Callable

    from druids_p2p.plugins import BotRegistry
    from druids_p2p.tournament.runner import RunResult, TournamentConfig
    from druids_p2p.tournament.worker import TablePlayer

T = TypeVar("T")
DEFAULT_GAMES = 100
DEFAULT_BUDGET_MS = 100.0
EXIT_INTERRUPTED = 130


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def check_bots_play(names: list[str], registry: BotRegistry, game: str) -> None:
    """Refuse, in one line, a bot that does not play ``game``."""
    for name in names:
        spec = registry.get(name)
        if not spec.plays(game):
            fail(f"bot {name!r} does not play {game} (it plays {', '.join(spec.games)})")


def parse_bot_list(
    text: str, registry: BotRegistry, option: str = "--bots", *, repeats: bool = False
) -> list[str]:
    """Comma-separated names, each known (and listed once unless ``repeats``); one-line errors."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        fail(f"{option}: give at least one bot name (see 'druids bots')")
    seen: set[str] = set()
    for name in names:
        if name in seen and not repeats:
            fail(f"{option}: bot {name!r} is listed twice")
        seen.add(name)
        if name not in registry:
            known = ", ".join(registry.names())
            fail(f"{option}: unknown bot {name!r} (known: {known})")
    return names


@dataclass(frozen=True)
class Lineup:
    """Who plays: the distinct bots, the fixed lineups (none for a round robin), the seats."""

    bots: tuple[str, ...]
    lineups: tuple[tuple[str, ...], ...]
    mode: str
    players: int | None


def unique(names: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def parse_lineups(
    bots: str, gauntlet: str | None, players: int | None, registry: BotRegistry
) -> Lineup:
    """``--bots`` (and ``--gauntlet``) as a round robin, a fixed lineup or a gauntlet.

    A repeated name makes ``--bots`` one fixed lineup, one bot per seat. With ``--gauntlet A``
    every item of ``--bots`` is an opponent set: ``B`` (``players - 1`` copies of B) or
    ``B+C+D`` (exactly ``players - 1`` bots).
    """
    from druids_p2p.tournament.runner import MODE_GAUNTLET, MODE_LINEUP, MODE_ROUND_ROBIN

    if gauntlet is None:
        names = parse_bot_list(bots, registry, repeats=True)
        if len(set(names)) == len(names):
            return Lineup(tuple(names), (), MODE_ROUND_ROBIN, players)
        if players is not None and players != len(names):
            fail(
                f"--bots: a lineup with a repeated bot has one bot per seat: "
                f"{len(names)} names for --players {players}"
            )
        return Lineup(unique(names), (tuple(names),), MODE_LINEUP, len(names))
    hero = parse_bot_list(gauntlet, registry, "--gauntlet")
    if len(hero) != 1:
        fail(f"--gauntlet: give one bot, not {len(hero)}")
    sets = [part.strip() for part in bots.split(",") if part.strip()]
    if not sets:
        fail("--bots: give the gauntlet's opponents, e.g. --bots rule,random+rule+rule")
    opponents = [parse_bot_list(s.replace("+", ","), registry, repeats=True) for s in sets]
    if hero[0] in {b for group in opponents for b in group}:
        fail(f"--gauntlet: {hero[0]!r} is also among the opponents in --bots")
    sizes = {len(group) for group in opponents if len(group) > 1}
    if len(sizes) > 1 or (sizes and players is not None and sizes != {players - 1}):
        want = f"{players - 1} bots each" if players is not None else "the same number of bots"
        fail(f"--bots: the gauntlet's opponent sets with '+' must have {want}")
    seats = players if players is not None else (sizes.pop() + 1 if sizes else 4)
    lineups = tuple(
        (hero[0], *(group if len(group) > 1 else group * (seats - 1))) for group in opponents
    )
    distinct = unique([b for lineup in lineups for b in lineup])
    return Lineup(distinct, lineups, MODE_GAUNTLET, seats)


def check_common(
    players: int, games: int, workers: int, budget_ms: float, game: str = DEFAULT_GAME
) -> None:
    try:
        check_game(game)
    except ValueError as exc:
        fail(str(exc))
    if game == "druids2004":
        if players not in (2, 3, 4):
            fail(f"--players must be 2, 3 or 4 for druids2004, not {players}")
    elif players not in (3, 4, 5):
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


@dataclass
class Live:
    """The callbacks a run reports to: games done of total, and a status line (ratings, LLR)."""

    progress: Callable[[int, int], None] | None = None
    status: Callable[[str], None] | None = None


STATUS_LINE_EVERY_S = 10.0
"""Without a progress bar, how often a testing run prints its status line on stderr."""


@contextmanager
def progress_bar(enabled: bool, label: str, status_lines: bool = False) -> Iterator[Live]:
    """A live bar on stderr (games done, rate, ETA, the ratings and LLR), or nothing.

    Without the bar, ``status_lines`` prints the status line to stderr every
    :data:`STATUS_LINE_EVERY_S` (a sequential test reports its LLR as it goes). Never stdout.
    """
    if not enabled:
        if not status_lines:
            yield Live()
            return
        last = [time.monotonic()]

        def line(text: str) -> None:
            now = time.monotonic()
            if now - last[0] >= STATUS_LINE_EVERY_S:
                last[0] = now
                echo_err(text)

        yield Live(status=line)
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
        TextColumn("{task.fields[status]}"),
    )
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(label, total=None, status="")
        started = [False]

        def update(done: int, total: int) -> None:
            if not started[0]:
                bar.reset(task, total=total, completed=done)  # rate counts this run's games
                started[0] = True
            else:
                bar.update(task, completed=done, total=total)

        def status(text: str) -> None:
            bar.update(task, status=text)

        yield Live(update, status)


def want_progress(flag: bool, as_json: bool = False) -> bool:
    """The bar when asked for, else on a terminal unless the output is JSON."""
    return flag or (sys.stderr.isatty() and not as_json)


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
    cluster: str | None = None,
    batch_games: int | None = None,
) -> RunResult:
    """Run a tournament; its user-facing failures become one-line errors. A ``--p2p`` run is
    handed the networked table here, where the CLI joins the tournament and network layers."""
    from druids_p2p.tournament.runner import TournamentError, run_tournament

    testing = config.sprt is not None or config.stop_ci is not None
    with progress_bar(progress, label, status_lines=testing) as live:
        try:
            return run_tournament(
                config,
                registry,
                out_dir,
                workers=workers,
                plugins_dirs=plugins_dirs,
                resume=resume,
                game_timeout=game_timeout,
                on_progress=live.progress,
                on_status=live.status,
                cluster=cluster,
                batch_games=batch_games,
                table_player=_table_player() if config.p2p else None,
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
        None,
        "--bots",
        metavar="A,B,...",
        help="Bots to play (names from 'druids bots'); a repeated name makes a fixed lineup.",
    ),
    gauntlet: str | None = typer.Option(
        None,
        "--gauntlet",
        metavar="BOT",
        help="Play BOT against each opponent set of --bots (B, or B+C+D for mixed seats).",
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
    sprt: str | None = typer.Option(
        None,
        "--sprt",
        metavar="LO,HI,ALPHA,BETA",
        help="Stop a two-bot match when the SPRT of H0 (LO) against H1 (HI) decides.",
    ),
    sprt_stat: str | None = typer.Option(
        None, "--sprt-stat", metavar="elo|margin", help="What --sprt tests: Elo or mean margin."
    ),
    stop_after_ci: float | None = typer.Option(
        None, "--stop-after-ci", metavar="W", help="Stop once the margin's 95% CI is below W wide."
    ),
    cluster: str | None = typer.Option(
        None,
        "--cluster",
        metavar="tcp://HOST:8786",
        help="Play on this Dask scheduler's workers (pip install 'druids-p2p[cluster]').",
    ),
    plugins_dir: list[Path] = typer.Option(
        [], "--plugins-dir", metavar="DIR", help=PLUGINS_DIR_HELP
    ),
    strict_plugins: bool = typer.Option(False, "--strict-plugins", help=STRICT_HELP),
    game: str | None = typer.Option(None, "--game", help=GAME_HELP + " [druids2017]"),
) -> None:
    """Play bots against each other on duplicate deals and rate them.

    Every deal is played once per rotation of its lineup through the seats. Writes games.jsonl,
    summary.json and run.json into --out; Ctrl-C keeps what finished, --resume continues.
    """
    from druids_p2p.tournament.plot import matplotlib_missing
    from druids_p2p.tournament.runner import TournamentConfig

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
        for name in stored.bots:
            if name not in registry:
                fail(f"cannot resume: bot {name!r} of this run is not loaded (--plugins-dir?)")
        who = Lineup(stored.bots, stored.lineups, stored.mode, stored.players)
    else:
        who = parse_lineups(bots, gauntlet, players, registry)
    names = list(who.bots)
    the_game = pick(game, stored.game if stored else None, DEFAULT_GAME)
    low, high = (2, 4) if the_game == "druids2004" else (3, 5)
    n_players = pick(
        who.players if who.lineups else players,
        stored.players if stored else None,
        min(high, max(low, len(names))),
    )
    budget = pick(time_per_move, stored.time_per_move_ms if stored else None, DEFAULT_BUDGET_MS)
    n_games = pick(games, stored.games if stored else None, DEFAULT_GAMES)
    n_workers = pick(workers, None, default_workers())
    check_common(n_players, n_games, n_workers, budget, the_game)
    check_bots_play(names, registry, the_game)
    use_p2p = p2p or bool(stored.p2p if stored else None)
    if use_p2p and the_game != DEFAULT_GAME:
        fail(f"--p2p is not available for {the_game} yet (offline games only)")
    if use_p2p:
        _table_player()  # a missing networked table is one line here, before any game
    config = TournamentConfig(
        bots=tuple(names),
        versions=tuple(registry.get(n).version for n in names),
        players=n_players,
        games=n_games,
        seed=pick(seed, stored.seed if stored else None, 0),
        time_per_move_ms=budget,
        p2p=use_p2p,
        mode=who.mode,
        lineups=who.lineups,
        game=the_game,
    )
    config = with_stopping(config, stored, sprt, sprt_stat, stop_after_ci)
    if cluster is not None:
        check_cluster(cluster, use_p2p)
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
        progress=want_progress(progress, as_json),
        label="tournament",
        cluster=cluster,
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


def parse_sprt(text: str) -> tuple[float, float, float, float]:
    """``LO,HI,ALPHA,BETA`` as four numbers, checked like fastchess checks them."""
    from druids_p2p.tournament.sprt import SprtTest

    parts = [p.strip() for p in text.split(",")]
    try:
        lo, hi, alpha, beta = (float(p) for p in parts)
    except ValueError:
        fail(f"--sprt: give four numbers LO,HI,ALPHA,BETA (e.g. 0,10,0.05,0.05), not {text!r}")
    try:
        SprtTest(lo, hi, alpha, beta)
    except ValueError as exc:
        fail(f"--sprt {text}: {exc}")
    return lo, hi, alpha, beta


def with_stopping(
    config: TournamentConfig,
    stored: TournamentConfig | None,
    sprt: str | None,
    sprt_stat: str | None,
    stop_after_ci: float | None,
) -> TournamentConfig:
    """The config with its stopping rules (given, else the resumed run's), checked."""
    from dataclasses import replace

    from druids_p2p.tournament.sprt import STAT_ELO, STATS

    four = parse_sprt(sprt) if sprt is not None else (stored.sprt if stored else None)
    stat = pick(sprt_stat, stored.sprt_stat if stored else None, STAT_ELO)
    if stat not in STATS:
        fail(f"--sprt-stat must be one of {', '.join(STATS)}, not {stat!r}")
    width = stop_after_ci if stop_after_ci is not None else (stored.stop_ci if stored else None)
    if width is not None and not width > 0:
        fail(f"--stop-after-ci must be above 0 points, not {width:g}")
    if four is not None and len(config.bots) != 2:
        fail(
            f"--sprt needs a match of two bots (e.g. --bots pimc,rule,rule,rule), "
            f"not {len(config.bots)}: {','.join(config.bots)}"
        )
    return replace(config, sprt=four, sprt_stat=stat, stop_ci=width)


def _table_player() -> TablePlayer:
    """The networked table a ``--p2p`` run plays on, handed to the tournament (which does not
    import the network layer); one line and exit 2 if it cannot be imported."""
    try:
        from druids_p2p.net.local_table import play_table
    except ImportError as exc:
        fail(f"--p2p is not available yet (druids_p2p.net.local_table: {exc})")
    return play_table


def check_cluster(address: str, p2p: bool) -> None:
    """One-line errors for --cluster: Dask missing, a bad address, --p2p."""
    from druids_p2p.tournament.cluster import cluster_unavailable

    if p2p:
        fail("--cluster cannot play --p2p games (each needs its peer processes on one machine)")
    problem = cluster_unavailable(address)
    if problem:
        fail(problem)


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
        document = result.summary.as_dict()
        if result.test is not None:
            document["test"] = result.test
        print(json.dumps(document))
    else:
        print(format_table(result.summary))
    if result.stopped:
        echo_err(result.stopped)
    elif result.test is not None and "sprt" in result.test:
        llr = result.test["sprt"]["llr"]
        echo_err(f"SPRT: no decision (LLR {llr:+.2f}) after {result.test['deals']} deals")
    rate = result.played / result.seconds if result.seconds > 0 else 0.0
    echo_err(
        f"{len(result.lines)} of {result.planned} games in {result.out_dir} "
        f"({result.played} played now, {rate:,.1f} games/s)"
    )
