"""Running a tournament from the command line: its failures as one-line errors, the networked table
a ``--p2p`` run plays on (the CLI joins the tournament and network layers), the final report and
the warnings about bots that faulted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from druids_p2p.cli.app import echo_err, fail
from druids_p2p.cli.tournament_progress import progress_bar

if TYPE_CHECKING:
    from druids_p2p.plugins import BotRegistry
    from druids_p2p.tournament import Summary
    from druids_p2p.tournament.cluster_link import ClusterTLS
    from druids_p2p.tournament.config import TournamentConfig
    from druids_p2p.tournament.run_folder import RunResult
    from druids_p2p.tournament.worker import TablePlayer


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
