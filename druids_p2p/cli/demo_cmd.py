"""``druids demo``: a whole local game between random players, printed as the game tells it.

It shows a rules engine at work without any network: the game is played by the one in-process
loop (``druids_p2p.bots.local_game``) and printed by its rules (``describe``: trick by trick,
turn by turn, as the game tells it).
"""

from __future__ import annotations

import typer

from druids_p2p.bots.local_game import play_local_game
from druids_p2p.bots.random_bot import RandomBot
from druids_p2p.cli.app import app, game_option, pick_game, players_option


@app.command("demo")
def demo_command(
    players: int | None = players_option(),
    seed: int = typer.Option(1, "--seed", help="Seed for the deals and the random players."),
    variant: bool = typer.Option(False, "--variant", help="Allow the game's variant, if any."),
    game_name: str = game_option(),
) -> None:
    """Play a whole game between random local players and print it, as the game tells it."""
    spec = pick_game(game_name, players)
    seats = players if players is not None else spec.default_players
    options = spec.rules.make_options(seats, variant)
    result = play_local_game(
        [RandomBot] * seats, options, seed, game=spec.name, enforce_budget=False
    )
    print("\n".join(spec.rules.describe(result.state)))
