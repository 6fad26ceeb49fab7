"""Tournaments between bots: duplicate deals, worker processes, a resumable output folder.

:func:`run_tournament` plays a :class:`TournamentConfig` (the plan in :mod:`.plan`, one game per
task or a batch of cheap ones in :mod:`.worker`, the game loop in :mod:`.play`) and summarises it
(:mod:`.summary`). :mod:`.live` follows a run as it goes (ratings, the SPRT of :mod:`.sprt`,
early stops); :mod:`.cluster` plays the batches on a Dask cluster instead of local processes
(:mod:`.loopback` starts one on 127.0.0.1 for tests and benches). ``druids tournament`` and
``druids bench bots`` are thin layers over it;
``docs/tournaments.md`` describes the output files.
"""

from __future__ import annotations

from druids_p2p.tournament.plan import GameSpec, deal_seed, plan_challenge, plan_tournament
from druids_p2p.tournament.play import STATUSES, TIMING_KEYS, play_game
from druids_p2p.tournament.runner import (
    MODE_CHALLENGE,
    MODE_ROUND_ROBIN,
    RunResult,
    TournamentConfig,
    TournamentError,
    game_timeout_s,
    run_tournament,
)
from druids_p2p.tournament.summary import Summary, format_table, summarize

__all__ = [
    "MODE_CHALLENGE",
    "MODE_ROUND_ROBIN",
    "STATUSES",
    "TIMING_KEYS",
    "GameSpec",
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
