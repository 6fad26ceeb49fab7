"""``druids bench bots`` (how much stronger is a bot?) and ``druids bench tournament`` (how fast?).

Both run the tournament engine into a temporary folder, so what they measure is what
``druids tournament`` does. ``bench bots`` plays each bot but the last against copies of the
last (the baseline) on duplicate deals — the bot in every seat of every deal — and reports its
mean score margin over its opponents with a 95% confidence interval (deals as the units).
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import typer

from druids_p2p.cli.app import bench_app, echo_err, fail
from druids_p2p.cli.bots_cmd import PLUGINS_DIR_HELP, STRICT_HELP, load_registry
from druids_p2p.cli.tournament_cmd import (
    check_bots_play,
    check_common,
    default_workers,
    parse_bot_list,
    plugin_dirs_for_workers,
    run_or_fail,
    want_progress,
)
from druids_p2p.games.dispatch import DEFAULT_GAME, GAME_HELP


def _ci_text(ci: list[float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.1f}, {ci[1]:+.1f}]"


def move_times(lines: list[dict[str, Any]], name: str) -> tuple[float, float]:
    """Mean and max time per move of ``name``'s seats over finished games (mean of per-move)."""
    total = 0.0
    count = 0
    slowest = 0.0
    for line in lines:
        for seat, bot in enumerate(line["seating"]):
            moves = (line.get("moves") or [None] * len(line["seating"]))[seat]
            mean = line["move_ms_mean"][seat]
            if bot != name or not moves or mean is None:
                continue
            total += mean * moves
            count += moves
            slowest = max(slowest, line["move_ms_max"][seat] or 0.0)
    return (round(total / count, 3) if count else 0.0), round(slowest, 3)


@bench_app.command("bots")
def bench_bots_command(
    bots: str = typer.Option(
        "rule,random",
        "--bots",
        metavar="A,...,BASE",
        help="Bots to measure, then the baseline they each play against.",
    ),
    games: int = typer.Option(200, "--games", help="Games per bot, rounded up to whole deals."),
    players: int = typer.Option(4, "--players", help="3, 4 or 5 seats (druids2004: 2, 3 or 4)."),
    seed: int = typer.Option(0, "--seed", help="Master seed of the deals."),
    time_per_move: float = typer.Option(
        100.0, "--time-per-move", metavar="MS", help="Budget per move."
    ),
    workers: int | None = typer.Option(None, "--workers", help="Worker processes [CPU count]."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    progress: bool = typer.Option(False, "--progress", help="Show progress on a non-terminal."),
    plugins_dir: list[Path] = typer.Option(
        [], "--plugins-dir", metavar="DIR", help=PLUGINS_DIR_HELP
    ),
    strict_plugins: bool = typer.Option(False, "--strict-plugins", help=STRICT_HELP),
    game: str = typer.Option(DEFAULT_GAME, "--game", help=GAME_HELP),
) -> None:
    """Each bot against players-1 copies of the baseline (the last of --bots), duplicate deals:
    mean score margin over its opponents with a 95% CI, and first-place rate."""
    from druids_p2p.tournament.runner import MODE_CHALLENGE, TournamentConfig

    n_workers = workers if workers is not None else default_workers()
    check_common(players, games, n_workers, time_per_move, game)
    registry = load_registry(plugins_dir, strict_plugins)
    names = parse_bot_list(bots, registry)
    check_bots_play(names, registry, game)
    if len(names) < 2:
        fail("--bots: give the bots to measure, then the baseline (e.g. --bots pimc,rule)")
    baseline = names[-1]
    report: dict[str, Any] = {
        "games": 0,
        "players": players,
        "game": game,
        "baseline": baseline,
        "time_per_move_ms": time_per_move,
        "seed": seed,
        "bots": {},
    }
    lines: list[str] = []
    for name in names[:-1]:
        config = TournamentConfig(
            bots=(name, baseline),
            versions=(registry.get(name).version, registry.get(baseline).version),
            players=players,
            games=games,
            seed=seed,
            time_per_move_ms=time_per_move,
            mode=MODE_CHALLENGE,
            game=game,
        )
        with tempfile.TemporaryDirectory(prefix="druids-bench-") as tmp:
            result = run_or_fail(
                config,
                registry,
                Path(tmp) / "run",
                workers=n_workers,
                plugins_dirs=plugin_dirs_for_workers(plugins_dir),
                progress=want_progress(progress),
                label=f"{name} vs {baseline}",
            )
        if result.interrupted:
            raise KeyboardInterrupt
        stats = result.summary.bots[name]
        mean_ms, max_ms = move_times(result.lines, name)
        report["games"] += result.summary.games
        report["bots"][name] = {
            "games": stats["games"],
            "mean_margin": stats["mean_margin"],
            "margin_ci95": stats["margin_ci95"],
            "first_place_rate": stats["first_place_rate"],
            "mean_score": stats["mean_score"],
            "score_ci95": stats["score_ci95"],
            "forfeits": stats["forfeits"],
            "move_ms_mean": mean_ms,
            "move_ms_max": max_ms,
            "seconds": round(result.seconds, 3),
        }
        lines.append(
            f"{name} vs {players - 1} x {baseline}: margin {stats['mean_margin']:+.1f} "
            f"95% CI {_ci_text(stats['margin_ci95'])}, first {100 * stats['first_place_rate']:.0f}%"
            f", mean score {stats['mean_score']:.1f}, {stats['games']} games, "
            f"{mean_ms:.1f} ms a move (max {max_ms:.1f}, budget {time_per_move:g})"
        )
    if as_json:
        print(json.dumps(report))
    else:
        print("\n".join(lines))


@bench_app.command("tournament")
def bench_tournament_command(
    games: int = typer.Option(4000, "--games", help="Games to play."),
    workers: int = typer.Option(2, "--workers", help="Worker processes."),
    players: int = typer.Option(4, "--players", help="3, 4 or 5 seats."),
    bots: str = typer.Option("random", "--bots", help="Bots (one bot plays itself)."),
    seed: int = typer.Option(0, "--seed", help="Master seed."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Whole tournament games per second, in-process mode: the plan, the workers, the output
    files and the summary all count."""
    from druids_p2p.tournament.runner import TournamentConfig

    check_common(players, games, workers, 100.0)
    registry = load_registry([], False)
    names = parse_bot_list(bots, registry)
    config = TournamentConfig(
        bots=tuple(names),
        versions=tuple(registry.get(n).version for n in names),
        players=players,
        games=games,
        seed=seed,
        time_per_move_ms=100.0,
    )
    with tempfile.TemporaryDirectory(prefix="druids-bench-") as tmp:
        start = time.perf_counter()
        result = run_or_fail(config, registry, Path(tmp) / "run", workers=workers, plugins_dirs=[])
        seconds = time.perf_counter() - start
    if result.interrupted:
        raise KeyboardInterrupt
    played = len(result.lines)
    document = {
        "games": played,
        "workers": workers,
        "players": players,
        "bots": names,
        "seconds": round(seconds, 3),
        "games_per_s": round(played / seconds, 1) if seconds > 0 else 0.0,
    }
    if as_json:
        print(json.dumps(document))
        return
    echo_err(f"{workers} workers, {players} players, bots {','.join(names)}")
    print(f"{played} games in {seconds:.2f} s: {document['games_per_s']:,.0f} games/s")
