"""``druids bench engine``: whole random games per second on one core."""

from __future__ import annotations

import json

import typer

from druids_p2p.cli.app import bench_app, fail
from druids_p2p.rulesets import DEFAULT_RULESET as DEFAULT_GAME
from druids_p2p.rulesets import GAME_HELP, check_game, check_players


@bench_app.command("engine")
def bench_engine_command(
    players: int = typer.Option(4, "--players", help="3, 4 or 5 seats (druids2004: 2, 3 or 4)."),
    games: int = typer.Option(3000, "--games", help="Whole 5-round games to play."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random play."),
    variant: bool = typer.Option(False, "--variant", help="Allow Gaia's light side."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    game: str = typer.Option(DEFAULT_GAME, "--game", help=GAME_HELP),
) -> None:
    """Random legal play of whole games on one core: games/s and moves/s."""
    if game != DEFAULT_GAME:
        try:
            check_players(check_game(game), players)
            # Druids 2004's random playout (the only other game; its package has the bench)
            from druids_p2p.games.druids2004.bench import bench_engine as bench_2004

            other = bench_2004(players, games, seed)
        except ValueError as exc:
            fail(str(exc))
        if as_json:
            print(json.dumps(other))
            return
        print(
            f"{other['games']} games, {other['moves']} moves in {other['seconds']:.3f} s: "
            f"{other['games_per_s']:,.0f} games/s, {other['moves_per_s']:,.0f} moves/s "
            f"({game}, {players} players, one core)"
        )
        return
    if players not in (3, 4, 5):
        fail(f"--players must be 3, 4 or 5, not {players}")
    if games < 1:
        fail(f"--games must be at least 1, not {games}")
    from druids_p2p.bench.engine_bench import bench_engine

    result = bench_engine(players, games, seed, variant)
    if as_json:
        print(json.dumps(result.as_dict()))
        return
    print(
        f"{result.games} games, {result.moves} moves in {result.seconds:.3f} s: "
        f"{result.games_per_s:,.0f} games/s, {result.moves_per_s:,.0f} moves/s "
        f"({players} players, one core)"
    )
