"""Tournaments between bots: duplicate deals, worker processes, a resumable output folder.

:func:`run_tournament` (:mod:`.runner`, with the local worker pool) plays a
:class:`TournamentConfig` (:mod:`.config`, with the plan and the SPRT; one game per task or a
batch of cheap ones in :mod:`.worker`, the game loop in :mod:`.play`) into a run folder and
summarises it (:mod:`.summary`). :mod:`.live` follows a run as it goes (ratings, early stops);
:mod:`.cluster` plays the batches on a Dask cluster, and :mod:`druids_p2p.bench.costs` starts one on
127.0.0.1 for tests and benches. ``druids tournament`` and ``druids bench bots`` are thin layers
over it; ``docs/tournaments.md`` describes the output files.
"""

from __future__ import annotations

from druids_p2p.tournament.config import (
    MODE_CHALLENGE,
    MODE_ROUND_ROBIN,
    PlannedGame,
    TournamentConfig,
    TournamentError,
    deal_seed,
    game_timeout_s,
    plan_challenge,
    plan_tournament,
)
from druids_p2p.tournament.play import STATUSES, TIMING_KEYS, play_game
from druids_p2p.tournament.runner import run_tournament
from druids_p2p.tournament.summary import RunResult, Summary, format_table, summarize

__all__ = [
    "MODE_CHALLENGE",
    "MODE_ROUND_ROBIN",
    "STATUSES",
    "TIMING_KEYS",
    "PlannedGame",
    "RunResult",
    "Summary",
    "TournamentConfig",
    "TournamentError",
    "deal_seed",
    "format_table",
    "game_timeout_s",
    "plan_challenge",
    "plan_tournament",
    "play_game",
    "run_tournament",
    "summarize",
]
