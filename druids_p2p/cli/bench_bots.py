"""``druids bench bots`` (how much stronger is a bot?) and ``druids bench tournament`` (how fast?).
Both run the tournament engine into a temporary folder, so they measure what ``druids tournament``
does (docs/tournaments.md, ``druids bench bots``).
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

import typer

from druids_p2p.cli.app import (
    bench_app,
    echo_err,
    fail,
    game_option,
    options_of,
    pick_game,
    players_option,
    rounds_option,
)
from druids_p2p.cli.tournament_cmd import EXIT_BOT_FAILED, run_or_fail, warn_faults
from druids_p2p.cli.tournament_options import (
    PLUGINS_DIR_HELP,
    STRICT_HELP,
    check_bots_play,
    check_common,
    default_workers,
    load_registry,
    parse_bot_list,
    plugin_dirs_for_workers,
    want_progress,
)
from druids_p2p.games.registry import game_spec


def _ci_text(ci: list[float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.1f}, {ci[1]:+.1f}]"


def _rate_ci_text(ci: list[float] | None) -> str:
    return "n/a" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def move_times(
    lines: list[dict[str, Any]], name: str, budget_ms: float
) -> tuple[float, float, float]:
    """Mean and max time per move of ``name``'s seats over finished games (mean of per-move),
    and the share of its moves over ``OVERRUN`` budgets (honest at p99: at most 0.01)."""
    from druids_p2p.tournament.play import OVERRUN

    total = 0.0
    count = 0
    slowest = 0.0
    over = 0
    for line in lines:
        for seat, bot in enumerate(line["seating"]):
            moves = (line.get("moves") or [None] * len(line["seating"]))[seat]
            mean = line["move_ms_mean"][seat]
            if bot != name or not moves or mean is None:
                continue
            total += mean * moves
            count += moves
            slowest = max(slowest, line["move_ms_max"][seat] or 0.0)
            kept = (line.get("move_ms_over") or [None] * len(line["seating"]))[seat] or []
            over += sum(1 for ms in kept if ms > budget_ms * OVERRUN)
    mean_ms = round(total / count, 3) if count else 0.0
    return mean_ms, round(slowest, 3), (round(over / count, 4) if count else 0.0)


def move_p99(lines: list[dict[str, Any]], name: str, budget_ms: float) -> float | None:
    """The 99th percentile (nearest rank) of ``name``'s move times when it is over the budget,
    exact because a game line keeps every move over it (``move_ms_over``); None when at least
    99% of its moves kept to the budget."""
    count = 0
    over: list[float] = []
    for line in lines:
        for seat, bot in enumerate(line["seating"]):
            if bot != name:
                continue
            count += (line.get("moves") or [0] * len(line["seating"]))[seat] or 0
            over.extend((line.get("move_ms_over") or [None] * len(line["seating"]))[seat] or [])
    beyond = count - math.ceil(0.99 * count) + 1  # the p99 is the beyond-th slowest move
    if count == 0 or beyond > len(over):
        return None
    return max(budget_ms, sorted(over, reverse=True)[beyond - 1])


def duel(lines: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    """In a two-seat game: ``name``'s wins, draws and losses (a game it forfeited is a loss) and
    its win rate with a 95% CI, deals as the units (a deal's two games share a position)."""
    from druids_p2p.tournament.summary import rate_ci

    counts = {"wins": 0, "draws": 0, "losses": 0}
    points: list[tuple[int, float]] = []
    for line in lines:
        seating = line["seating"]
        if len(seating) != 2 or name not in seating:
            return None
        seat = seating.index(name)
        winners = line.get("winners") or []
        if line.get("blame_seat") == seat or seat not in winners:
            kind = "losses"
        else:
            kind = "wins" if len(winners) == 1 else "draws"
        counts[kind] += 1
        points.append((int(line["deal"]), 1.0 if kind == "wins" else 0.0))
    rate, ci = rate_ci(points)
    return {**counts, "win_rate": rate, "win_rate_ci95": ci}


def _p99_text(p99_ms: float | None, budget_ms: float) -> str:
    return f"<= {budget_ms:g}" if p99_ms is None else f"{p99_ms:.1f}"


def _duel_text(record: dict[str, Any] | None) -> str:
    if record is None:
        return ""
    return (
        f", won {record['wins']} drew {record['draws']} lost {record['losses']}: "
        f"wins {100 * record['win_rate']:.1f}% 95% CI {_rate_ci_text(record['win_rate_ci95'])}"
    )


@bench_app.command("bots")
def bench_bots_command(
    bots: str = typer.Option(
        "rule,random",
        "--bots",
        metavar="A,...,BASE",
        help="Bots to measure, then the baseline they each play against.",
    ),
    games: int = typer.Option(200, "--games", help="Games per bot, rounded up to whole deals."),
    players: int | None = players_option(),
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
    game: str = game_option(),
    rounds: int | None = rounds_option(),
) -> None:
    """Each bot against players-1 copies of the baseline (the last of --bots), duplicate deals:
    mean score margin over its opponents with a 95% CI, and first-place rate. A game a bot
    faulted in (raised, timed out, illegal move) is its loss; exit 3 if one faulted in every
    game."""
    from druids_p2p.tournament.config import MODE_CHALLENGE, TournamentConfig
    from druids_p2p.tournament.play import OVERRUN

    n_workers = workers if workers is not None else default_workers()
    spec = pick_game(game)
    game = spec.name
    if rounds is not None:
        options_of(spec, rounds, False)  # one line, exit 2, for rounds the game cannot play
    players = players if players is not None else game_spec(game).default_players
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
    failures: list[str] = []
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
            rounds=rounds,
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
        failed = warn_faults(result.summary)
        if failed is not None:
            failures.append(failed)
        stats = result.summary.bots[name]
        mean_ms, max_ms, over_share = move_times(result.lines, name, time_per_move)
        p99_ms = move_p99(result.lines, name, time_per_move)
        record = duel(result.lines, name)
        report["games"] += result.summary.games
        report["bots"][name] = {
            "games": stats["games"],
            "mean_margin": stats["mean_margin"],
            "margin_ci95": stats["margin_ci95"],
            "first_place_rate": stats["first_place_rate"],
            "first_place_ci95": stats["first_place_ci95"],
            "mean_score": stats["mean_score"],
            "score_ci95": stats["score_ci95"],
            "forfeits": stats["forfeits"],
            "crashes": stats["crashes"],
            "timeouts": stats["timeouts"],
            "illegal": stats["illegal"],
            "move_ms_mean": mean_ms,
            "move_ms_max": max_ms,
            "over_budget_share": over_share,
            "p99_within_budget": p99_ms is None or p99_ms <= OVERRUN * time_per_move,
            "move_ms_p99_over_budget": p99_ms,
            **({} if record is None else record),
            "seconds": round(result.seconds, 3),
        }
        lines.append(
            f"{name} vs {players - 1} x {baseline}: margin {stats['mean_margin']:+.1f} "
            f"95% CI {_ci_text(stats['margin_ci95'])}, first {100 * stats['first_place_rate']:.0f}%"
            f" {_rate_ci_text(stats['first_place_ci95'])}, mean score {stats['mean_score']:.1f}, "
            f"{stats['games']} games, "
            f"{mean_ms:.1f} ms a move (p99 {_p99_text(p99_ms, time_per_move)}, max {max_ms:.1f}"
            f", budget {time_per_move:g}, {100 * over_share:.1f}% over {OVERRUN:g}x: p99 "
            f"{'within' if p99_ms is None or p99_ms <= OVERRUN * time_per_move else 'OVER'} budget)"
            + _duel_text(record)
            + forfeit_text(stats)
        )
    if as_json:
        print(json.dumps(report))
    else:
        print("\n".join(lines))
    if failures:
        for failed in dict.fromkeys(failures):
            echo_err(f"warning: {failed} (exit {EXIT_BOT_FAILED})")
        raise typer.Exit(EXIT_BOT_FAILED)


def forfeit_text(stats: dict[str, Any]) -> str:
    """``, 3 forfeited (2 crashed, 1 illegal)`` for a bot that forfeited games, else nothing."""
    if not stats["forfeits"]:
        return ""
    from druids_p2p.tournament.summary import fault_counts

    return f", {stats['forfeits']} forfeited ({fault_counts(stats)})"


@bench_app.command("tournament")
def bench_tournament_command(
    games: int = typer.Option(4000, "--games", help="Games to play."),
    workers: int = typer.Option(2, "--workers", help="Worker processes."),
    players: int = typer.Option(4, "--players", help="Seats (the default game's)."),
    bots: str = typer.Option("random", "--bots", help="Bots (one bot plays itself)."),
    seed: int = typer.Option(0, "--seed", help="Master seed."),
    cluster: str | None = typer.Option(
        None,
        "--cluster",
        metavar="tcp://HOST:PORT|loopback:1,2,4",
        help="Measure a Dask cluster, or loopback clusters of these worker counts.",
    ),
    batch_games: int | None = typer.Option(
        None, "--batch-games", metavar="N", help="Games per cluster task [as a run picks]."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Whole tournament games per second, in-process mode: the plan, the workers, the output
    files and the summary all count. With --cluster: games/s and the per-batch overhead."""
    from druids_p2p.tournament.config import TournamentConfig

    check_common(players, games, workers, 100.0)
    if batch_games is not None and batch_games < 1:
        fail(f"--batch-games must be at least 1, not {batch_games}")
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
    if cluster is not None:
        bench_on_clusters(cluster, config, registry, batch_games, as_json)
        return
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


def loopback_sizes(text: str) -> list[int] | None:
    """``loopback:1,2,4`` as worker counts; None if ``text`` is not a loopback spec."""
    if not text.startswith("loopback:"):
        return None
    try:
        sizes = [int(part) for part in text[len("loopback:") :].split(",")]
    except ValueError:
        sizes = []
    if not sizes or any(not 1 <= k <= 64 for k in sizes):
        fail(f"--cluster {text}: give loopback worker counts 1-64, e.g. loopback:1,2,4")
    return sizes


def bench_on_clusters(
    spec: str, config: Any, registry: Any, batch_games: int | None, as_json: bool
) -> None:
    """``bench tournament --cluster``: one measured run per cluster, a table or JSON."""
    from druids_p2p.bench.costs import bench_cluster
    from druids_p2p.cli.tournament_options import check_cluster
    from druids_p2p.tournament.config import TournamentError

    sizes = loopback_sizes(spec)
    check_cluster("tcp://127.0.0.1:1" if sizes else spec, False)
    runs = []
    try:
        if sizes is None:
            runs.append(bench_cluster(spec, config, registry, batch_games))
        else:
            from druids_p2p.bench.costs import LoopbackCluster

            for k in sizes:
                with LoopbackCluster(workers=k) as cluster:
                    runs.append(bench_cluster(cluster.address, config, registry, batch_games))
    except (TournamentError, RuntimeError) as exc:
        fail(str(exc).splitlines()[0])
    document = {
        "games": config.games,
        "players": config.players,
        "bots": list(config.bots),
        "cluster": spec,
        "runs": [run.as_dict() for run in runs],
    }
    if as_json:
        print(json.dumps(document))
        return
    print("workers  threads  games/s  batch  game ms  overhead ms/batch  empty task ms")
    for r in runs:
        print(
            f"{r.workers:7d}  {r.threads:7d}  {r.games_per_s:7,.0f}  {r.batch_games:5d}  "
            f"{r.game_ms_mean:7.2f}  {r.overhead_ms_per_batch:17.1f}  {r.noop_task_ms:13.2f}"
        )
