"""``druids bench engine``: whole random games per second on one core, for any registered game:
its own fast playout (its spec's ``playout``), else random bots through the in-process loop."""

from __future__ import annotations

import json
import random
import time

import typer

from druids_p2p.cli.app import bench_app, fail, game_option, pick_game, players_option
from druids_p2p.games.spec import GameSpec


def bench_engine(
    spec: GameSpec, players: int, games: int, seed: int, variant: bool
) -> dict[str, object]:
    """Games and moves per second of uniformly random legal play of ``spec``'s game."""
    options = spec.rules.make_options(players, variant)
    rng = random.Random(seed)
    moves = 0
    start = time.perf_counter()
    if spec.playout is not None:
        for _ in range(games):
            moves += spec.playout(rng, options)
    else:
        from druids_p2p.bots.local_game import Seat, run_game

        for g in range(games):
            seats = [Seat("random", None, random.Random(f"{seed}/{g}/{s}")) for s in range(players)]
            result = run_game(spec.rules, options, seed + g, seats, 0.0)
            moves += sum(len(r.moves) for r in result.rounds)
    seconds = time.perf_counter() - start
    return {
        "game": spec.name,
        "players": players,
        "games": games,
        "moves": moves,
        "seconds": round(seconds, 6),
        "games_per_s": round(games / seconds, 1) if seconds > 0 else 0.0,
        "moves_per_s": round(moves / seconds, 1) if seconds > 0 else 0.0,
    }


@bench_app.command("engine")
def bench_engine_command(
    players: int | None = players_option(),
    games: int = typer.Option(3000, "--games", help="Whole games to play."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random play."),
    variant: bool = typer.Option(False, "--variant", help="Allow the game's variant, if any."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    game: str = game_option(),
) -> None:
    """Random legal play of whole games on one core: games/s and moves/s."""
    spec = pick_game(game, players)
    seats = players if players is not None else spec.default_players
    if games < 1:
        fail(f"--games must be at least 1, not {games}")
    result = bench_engine(spec, seats, games, seed, variant)
    if as_json:
        print(json.dumps(result))
        return
    print(
        f"{result['games']} games, {result['moves']} moves in {result['seconds']:.3f} s: "
        f"{result['games_per_s']:,.0f} games/s, {result['moves_per_s']:,.0f} moves/s "
        f"({spec.name}, {seats} players, one core)"
    )
