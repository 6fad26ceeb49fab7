"""What `druids tournament` and `druids bench bots` share: the options, the bot plugins, progress.

Both check their options before a game is played and load the same bot plugins, which `druids bots`
lists."""

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

from druids_p2p.cli.app import app, echo_err, fail
from druids_p2p.games.registry import check_game, check_players

if TYPE_CHECKING:
    from collections.abc import Callable

    from druids_p2p.plugins import BotRegistry
    from druids_p2p.tournament.cluster import ClusterTLS
    from druids_p2p.tournament.config import TournamentConfig


# The options ``druids tournament`` and ``druids bench bots`` share, checked before a game is
# played, and the progress line both draw while their games run.


T = TypeVar("T")


DEFAULT_GAMES = 100


DEFAULT_BUDGET_MS = 100.0


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
    """``--bots`` (and ``--gauntlet``) as a round robin, a fixed lineup (a name repeated) or a
    gauntlet (each item of ``--bots`` an opponent set: ``B``, or ``B+C+D``, exactly ``players - 1``
    bots).
    """
    from druids_p2p.tournament.config import MODE_GAUNTLET, MODE_LINEUP, MODE_ROUND_ROBIN

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
    players: int, games: int, workers: int, budget_ms: float, game: str | None = None
) -> None:
    try:
        check_players(check_game(game), players)
    except ValueError as exc:
        fail(str(exc))
    if games < 1:
        fail(f"--games must be at least 1, not {games}")
    if workers < 1:
        fail(f"--workers must be at least 1, not {workers}")
    if not (math.isfinite(budget_ms) and budget_ms > 0):
        fail(f"--time-per-move must be above 0 ms, not {budget_ms:g}")


def parse_sprt(text: str) -> tuple[float, float, float, float]:
    """``LO,HI,ALPHA,BETA`` as four numbers, checked like fastchess checks them."""
    from druids_p2p.tournament.config import SprtTest

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

    from druids_p2p.tournament.config import STAT_ELO, STATS

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


def check_cluster(address: str, p2p: bool, tls: ClusterTLS | None = None) -> None:
    """One-line errors for --cluster: Dask missing, a bad address, --p2p, TLS options that do
    not fit; and the warning for plain TCP to another machine (the run goes on)."""
    from druids_p2p.tournament.cluster import cluster_unavailable, plain_tcp_warning, tls_problem

    if p2p:
        fail("--cluster cannot play --p2p games (each needs its peer processes on one machine)")
    problem = cluster_unavailable(address) or tls_problem(address, tls)
    if problem:
        fail(problem)
    warning = plain_tcp_warning(address)
    if warning is not None:
        echo_err(f"warning: {warning}")


def cluster_tls(ca: Path | None, cert: Path | None, key: Path | None) -> ClusterTLS | None:
    """The TLS files of --tls-ca/--tls-cert/--tls-key (None if none is given)."""
    from druids_p2p.tournament.cluster import ClusterTLS

    tls = ClusterTLS(ca, cert, key)
    return tls if tls.given() else None


def check_tls_without_cluster(tls: ClusterTLS | None) -> None:
    """--tls-* options need --cluster tls://…: one line otherwise."""
    from druids_p2p.tournament.cluster import TLS_OPTIONS

    if tls is not None:
        fail(f"{TLS_OPTIONS} go with --cluster tls://HOST:PORT")


def pick(given: T | None, stored: T | None, default: T) -> T:
    """The option given, else the resumed run's value, else the default."""
    if given is not None:
        return given
    return stored if stored is not None else default


def plugin_dirs_for_workers(dirs: list[Path]) -> list[Path]:
    """Absolute paths: a worker must find the same plugins whatever its working directory."""
    return [d.resolve() for d in dirs]


def rate_text(speed: float | None) -> str:
    """Games per second, or seconds per game under one a second (slow bots: "0 games/s" said
    nothing); empty before the first game."""
    if not speed:
        return ""
    return f"{speed:,.0f} games/s" if speed >= 1 else f"{1 / speed:,.1f} s/game"


class _Rate:
    """A rich progress column: games per second (seconds per game when slower)."""

    @staticmethod
    def make() -> Any:
        from rich.progress import ProgressColumn
        from rich.text import Text

        class RateColumn(ProgressColumn):
            def render(self, task: Any) -> Text:
                return Text(rate_text(task.finished_speed or task.speed))

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


# ``druids bots``: every bot the plugins provide, where it comes from, and which plugins failed.


PLUGINS_DIR_HELP = "Also load the *.py plugin files of DIR (repeatable)."
STRICT_HELP = "Exit 2 if any plugin fails to load instead of skipping it."


def load_registry(plugins_dirs: list[Path] | None, strict: bool) -> BotRegistry:
    """Load the bots for a command; bad options and strict-mode failures are one-line errors.

    Shared by every command that seats bots (``--plugins-dir``/``--strict-plugins``). The
    plugin machinery is imported here, not at module level, to keep ``druids --help`` fast.
    """
    from druids_p2p.plugins import PluginLoadError, load_bots

    dirs = list(plugins_dirs or [])
    for folder in dirs:
        if not folder.is_dir():
            fail(f"--plugins-dir {folder}: no such directory")
    try:
        return load_bots(dirs, strict=strict)
    except PluginLoadError as exc:
        fail(str(exc))


@app.command("bots")
def bots_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    plugins_dir: list[Path] = typer.Option(
        [], "--plugins-dir", metavar="DIR", help=PLUGINS_DIR_HELP
    ),
    strict_plugins: bool = typer.Option(False, "--strict-plugins", help=STRICT_HELP),
) -> None:
    """List the bots: built-in, from installed packages and from plugin files.

    Plugins that failed to load are listed with the reason (set DRUIDS_PLUGINS=a,b to load only
    the named plugins, DRUIDS_PLUGINS=none for built-ins only).
    """
    registry = load_registry(plugins_dir, strict_plugins)
    levels = level_table()
    if as_json:
        print(json.dumps({**registry.as_dict(), "levels": levels}))
        return
    rows = [
        (s.name, s.version, s.source, ",".join(s.games), s.about()) for s in registry.bots.values()
    ]
    head = ("NAME", "VERSION", "SOURCE", "GAMES", "")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in (0, 1, 2, 3)]
    print(
        f"{'NAME':{widths[0]}}  {'VERSION':{widths[1]}}  {'SOURCE':{widths[2]}}  "
        f"{'GAMES':{widths[3]}}  DESCRIPTION"
    )
    for name, version, source, games, description in rows:
        print(
            f"{name:{widths[0]}}  {version:{widths[1]}}  {source:{widths[2]}}  "
            f"{games:{widths[3]}}  {description}"
        )
    print("\nLEVELS (druids play --level; measured in README):")
    width = max(len(game) for game in levels)
    for game, by_level in levels.items():
        print(f"{game:{width}}  " + "; ".join(f"{n}: {bot}" for n, bot in by_level.items()))
    if registry.failed:
        print(f"\n{len(registry.failed)} plugin(s) failed to load and were skipped:")
        for failure in registry.failed:
            where = f" ({failure.source})" if failure.source else ""
            print(f"  {failure.plugin}{where}: {failure.error}")


def level_table() -> dict[str, dict[str, str]]:
    """Each registered game's levels: which of its bots plays each (``GameSpec.level``)."""
    from druids_p2p.games.registry import games
    from druids_p2p.games.spec import LEVELS

    return {
        name: {level: spec.level(level).describe() for level in LEVELS}
        for name, spec in games().items()
    }
