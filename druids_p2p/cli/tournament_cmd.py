"""``druids tournament``: bots against bots over many games, locally, on a cluster or at real
tables of peers, and the run's summary and failures as the command prints them."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from druids_p2p.cli.app import (
    app,
    echo_err,
    fail,
    make_folder,
    options_of,
    pick_game,
    rounds_option,
)
from druids_p2p.cli.tournament_options import (
    DEFAULT_BUDGET_MS,
    DEFAULT_GAMES,
    PLUGINS_DIR_HELP,
    STRICT_HELP,
    Lineup,
    check_bots_play,
    check_cluster,
    check_common,
    check_tls_without_cluster,
    cluster_tls,
    default_workers,
    load_registry,
    parse_lineups,
    pick,
    plugin_dirs_for_workers,
    progress_bar,
    want_progress,
    with_stopping,
)
from druids_p2p.games.registry import default_name, game_help, games

if TYPE_CHECKING:
    from druids_p2p.plugins import BotRegistry
    from druids_p2p.tournament import Summary
    from druids_p2p.tournament.cluster import ClusterTLS
    from druids_p2p.tournament.config import TournamentConfig
    from druids_p2p.tournament.summary import RunResult
    from druids_p2p.tournament.worker import TablePlayer


EXIT_INTERRUPTED = 130
SEAT_RANGES = ", ".join(f"{n} {s.min_players}-{s.max_players}" for n, s in games().items())
"""Each game's seats, for ``--players``'s help."""


def _stored(out: Path | None) -> TournamentConfig | None:
    from druids_p2p.tournament.config import TournamentError
    from druids_p2p.tournament.summary import read_run

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
        None,
        "--players",
        help=f"Seats per game ({SEAT_RANGES}) [the number of bots, within the game's range].",
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
        metavar="tls://HOST:8786",
        help="Play on this Dask scheduler's workers (pip install 'druids-p2p[cluster]'); "
        "tls:// with --tls-* across machines, plain tcp:// on loopback.",
    ),
    tls_ca: Path | None = typer.Option(
        None, "--tls-ca", metavar="FILE", help="TLS: the CA of the scheduler's certificate (PEM)."
    ),
    tls_cert: Path | None = typer.Option(
        None, "--tls-cert", metavar="FILE", help="TLS: this client's certificate (PEM)."
    ),
    tls_key: Path | None = typer.Option(
        None, "--tls-key", metavar="FILE", help="TLS: this client's private key (PEM)."
    ),
    plugins_dir: list[Path] = typer.Option(
        [], "--plugins-dir", metavar="DIR", help=PLUGINS_DIR_HELP
    ),
    strict_plugins: bool = typer.Option(False, "--strict-plugins", help=STRICT_HELP),
    game: str | None = typer.Option(None, "--game", help=f"{game_help()} [{default_name()}]"),
    rounds: int | None = rounds_option(),
) -> None:
    """Play bots against each other on duplicate deals and rate them.

    Writes games.jsonl, summary.json and run.json into --out; Ctrl-C keeps what finished, --resume
    continues. A bot that faults forfeits that game; exit 3 if one faulted in every game it played.
    """
    from druids_p2p.tournament.config import TournamentConfig
    from druids_p2p.tournament.summary import matplotlib_missing

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
    spec = pick_game(pick(game, stored.game if stored else None, default_name()))
    the_game = spec.name
    n_rounds = pick(rounds, stored.rounds if stored else None, None)
    if n_rounds is not None:
        options_of(spec, n_rounds, False)  # one line, exit 2, for rounds the game cannot play
    low, high = spec.min_players, spec.max_players
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
    if use_p2p:
        table_player()  # a missing networked table is one line here, before any game
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
        rounds=n_rounds,
    )
    config = with_stopping(config, stored, sprt, sprt_stat, stop_after_ci)
    tls = cluster_tls(tls_ca, tls_cert, tls_key)
    if cluster is not None:
        check_cluster(cluster, use_p2p, tls)
    else:
        check_tls_without_cluster(tls)
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
        cluster_tls=tls,
    )
    report(result, as_json)
    failed = warn_faults(result.summary)
    if plot is not None:
        from druids_p2p.tournament.summary import plot_ratings

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
    if failed is not None:
        echo_err(f"warning: {failed} (exit {EXIT_BOT_FAILED})")
        raise typer.Exit(EXIT_BOT_FAILED)


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
    cluster_tls: ClusterTLS | None = None,
) -> RunResult:
    """Run a tournament; its user-facing failures become one-line errors. A ``--p2p`` run is
    handed the networked table here, where the CLI joins the tournament and network layers."""
    from druids_p2p.tournament.config import TournamentError
    from druids_p2p.tournament.runner import run_tournament

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
                cluster_tls=cluster_tls,
                batch_games=batch_games,
                table_player=table_player() if config.p2p else None,
            )
        except TournamentError as exc:
            fail(str(exc))


EXIT_BOT_FAILED = 3
"""Exit status of ``druids tournament`` and ``druids bench bots`` when a bot faulted in every game
it played (its factory, its moves or its process) or no game of the run finished: the run
measured nothing of it. The summary is still printed and written."""


def warn_faults(summary: Summary) -> str | None:
    """Warn on stderr once per bot that forfeited a game (how many, the first reason); the
    reason the run failed (:data:`EXIT_BOT_FAILED`), if it did, else None."""
    from druids_p2p.tournament.summary import failed_everywhere, fault_warnings

    for line in fault_warnings(summary):
        echo_err(f"warning: {line}")
    failed = failed_everywhere(summary)
    if failed:
        names = ", ".join(repr(n) for n in failed)
        return f"{names} faulted in every game it played: nothing of it was measured"
    if summary.games and not any(b["finished"] for b in summary.bots.values()):
        return "no game of the run finished (see the faults in games.jsonl)"
    return None


def table_player() -> TablePlayer:
    """The networked table a ``--p2p`` run plays on, handed to the tournament (which does not
    import the network layer); one line and exit 2 if it cannot be imported."""
    try:
        from druids_p2p.peer.local_table import play_table
    except ImportError as exc:
        fail(f"--p2p cannot be played here: druids_p2p.peer.local_table does not import ({exc})")
    return play_table


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
