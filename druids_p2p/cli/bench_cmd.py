"""``druids bench engine``: whole random games per second on one core."""

from __future__ import annotations

import json

import typer

from druids_p2p.bench.engine_bench import bench_engine
from druids_p2p.cli.app import bench_app, fail


@bench_app.command("engine")
def bench_engine_command(
    players: int = typer.Option(4, "--players", help="3, 4 or 5 seats."),
    games: int = typer.Option(3000, "--games", help="Whole 5-round games to play."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random play."),
    variant: bool = typer.Option(False, "--variant", help="Allow Gaia's light side."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Random legal play of whole 5-round games on one core: games/s and moves/s."""
    if players not in (3, 4, 5):
        fail(f"--players must be 3, 4 or 5, not {players}")
    if games < 1:
        fail(f"--games must be at least 1, not {games}")
    result = bench_engine(players, games, seed, variant)
    if as_json:
        print(json.dumps(result.as_dict()))
        return
    print(
        f"{result.games} games, {result.moves} moves in {result.seconds:.3f} s: "
        f"{result.games_per_s:,.0f} games/s, {result.moves_per_s:,.0f} moves/s "
        f"({players} players, one core)"
    )
