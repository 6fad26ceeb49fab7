"""``druids bench deal``: CPU cost of one game's deal (the default game's: a round's), every peer
in this process.

Each deal is a fresh card table (``druids_p2p.bench.round_deal``): every seat's key, the shuffles
with their proofs, the transfers and the deals with their shares, each message encoded, signed,
decoded and verified, CPU charged to the peer doing the work. Signing identities are made
outside the timing (they are long-lived); the table keys are inside. The words and moves that
follow are the game's, not deck work, and are not timed.
``--ops`` adds one more deal, untimed, that counts each seat's group operations
(``druids_p2p.bench.group_ops``): the same on every machine, unlike the CPU figures.
"""

from __future__ import annotations

import json
import statistics

import typer

from druids_p2p.cli.app import bench_app, fail, game_option, pick_game
from druids_p2p.games.registry import players_help


@bench_app.command("deal")
def bench_deal_command(
    players: int | None = typer.Option(
        None, "--players", help=players_help() + " [default: the most the game seats]"
    ),
    deals: int = typer.Option(9, "--deals", help="Deals to time; the median is reported."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ops: bool = typer.Option(
        False, "--ops", help="Also count each seat's group operations in one more deal."
    ),
    game: str = game_option(),
) -> None:
    """One game's deal (the default game's: a round's) at the mental card table among N
    in-process peers (keys, shuffles, transfers, deals; not the words and moves that follow):
    median total CPU per deal."""
    spec = pick_game(game, players)
    if spec.table is None:
        fail(f"--game {spec.name}: its tables of peers are not dealt here yet")
    players = players if players is not None else spec.max_players
    if not 1 <= deals <= 10_000:
        fail(f"--deals must be in 1..10000, not {deals}")
    from druids_p2p.bench.round_deal import count_deal_ops, time_deal

    time_deal(players, game=spec.name)  # warm-up: card points, imports, allocator
    runs = [time_deal(players, i % 5, spec.name) for i in range(deals)]
    totals = [sum(run.cpu_ns) / 1e6 for run in runs]
    per_peer = [statistics.median(run.cpu_ns[s] / 1e6 for run in runs) for s in range(players)]
    result = {
        "players": players,
        "deals": deals,
        "deal_ms": round(statistics.median(totals), 2),
        "deal_ms_min": round(min(totals), 2),
        "deal_ms_max": round(max(totals), 2),
        "cpu_ms_per_peer": [round(v, 2) for v in per_peer],
        "wall_ms": round(statistics.median(run.wall_ns / 1e6 for run in runs), 2),
        "messages": runs[0].messages,
        "bytes": runs[0].bytes,
    }
    ops_per_peer = count_deal_ops(players, spec.name) if ops else []
    if ops:
        result["ops_per_peer"] = ops_per_peer
    if as_json:
        print(json.dumps(result))
        return
    peers_txt = ", ".join(f"{v:.1f}" for v in per_peer)
    print(
        f"deal, {players} players: {result['deal_ms']:.1f} ms CPU per deal for all peers "
        f"(median of {deals}; min {result['deal_ms_min']:.1f}, max {result['deal_ms_max']:.1f}); "
        f"per peer [{peers_txt}] ms; {result['messages']} messages, {result['bytes']:,} bytes"
    )
    for seat, counted in enumerate(ops_per_peer):
        print(f"  seat {seat}: " + ", ".join(f"{n} {op}" for op, n in counted.items()))
