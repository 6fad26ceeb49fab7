"""Tournaments between bots: duplicate deals, worker processes, a resumable output folder.

``druids tournament`` and ``druids bench bots`` are thin layers over :func:`run_tournament`;
``docs/tournaments.md`` describes the plans, the statistics and the output files.
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
