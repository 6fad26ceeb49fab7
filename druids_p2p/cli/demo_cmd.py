"""``druids demo``: a whole local game between random players, printed as the game tells it.

It shows a rules engine at work without any network: the game is played by the one in-process
loop (``druids_p2p.bots.local_game``) and printed by its rule set (trick by trick for Druids 2017,
turn by turn for Druids 2004).
"""

from __future__ import annotations

import typer

from druids_p2p.bots.local_game import play_local_game
from druids_p2p.bots.random_bot import RandomBot
from druids_p2p.cli.app import app, fail
from druids_p2p.rulesets import DEFAULT_RULESET, GAME_HELP, RULESETS, check_game, check_players


@app.command("demo")
def demo_command(
    players: int = typer.Option(4, "--players", help="3, 4 or 5 seats (druids2004: 2, 3 or 4)."),
    seed: int = typer.Option(1, "--seed", help="Seed for the deals and the random players."),
    variant: bool = typer.Option(False, "--variant", help="Allow Gaia's light side."),
    game_name: str = typer.Option(DEFAULT_RULESET, "--game", help=GAME_HELP),
) -> None:
    """Play a whole game between random local players and print it (trick by trick for 2017,
    turn by turn for 2004)."""
    try:
        check_players(check_game(game_name), players)
    except ValueError as exc:
        fail(str(exc))
    rules = RULESETS[game_name]
    options = rules.make_options(players, variant)
    result = play_local_game(
        [RandomBot] * players, options, seed, game=game_name, enforce_budget=False
    )
    print("\n".join(rules.describe(result.state)))
