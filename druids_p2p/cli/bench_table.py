"""``druids bench table``: a whole game of random bots over real peer processes on loopback."""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path

import typer

from druids_p2p.cli.app import bench_app, fail
from druids_p2p.games.druids2017 import GameOptions


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@bench_app.command("table")
def bench_table_command(
    players: int = typer.Option(4, "--players", help="3, 4 or 5 peer processes."),
    rounds: int = typer.Option(5, "--rounds", help="Rounds to play (1-5)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Game time, deal time per round and move latency (send to acknowledged by all)."""
    from druids_p2p.net.local_table import LocalTableError, play_table

    if players not in (3, 4, 5):
        fail(f"--players must be 3, 4 or 5, not {players}")
    if not 1 <= rounds <= 5:
        fail(f"--rounds must be 1 to 5, not {rounds}")
    with tempfile.TemporaryDirectory(prefix="druids-bench-") as tmp:
        try:
            summary = play_table(
                ["bot:random"] * players,
                GameOptions(players=players, rounds=rounds),
                None,
                100.0,
                Path(tmp),
            )
        except LocalTableError as exc:
            fail(str(exc), 1)
    if not summary["finished"]:
        fail(f"the table did not finish: {summary['aborted']}", 1)
    deal = summary["deal_ms"]
    latency = summary["move_latency_ms"]
    result = {
        "players": players,
        "rounds": rounds,
        "game_s": summary["game_s"],
        "wall_s": summary["wall_s"],
        "deal_ms": round(statistics.median(deal), 2) if deal else 0.0,
        "move_latency_ms_p50": round(_percentile(latency, 0.5), 3),
        "move_latency_ms_p99": round(_percentile(latency, 0.99), 3),
        "moves_measured": len(latency),
    }
    if as_json:
        print(json.dumps(result))
        return
    print(
        f"{players} peers, {rounds} rounds: game {result['game_s']:.2f} s "
        f"(wall {result['wall_s']:.2f} s with start-up), deal {result['deal_ms']:.1f} ms/round, "
        f"move latency p50 {result['move_latency_ms_p50']:.2f} ms, "
        f"p99 {result['move_latency_ms_p99']:.2f} ms"
    )
