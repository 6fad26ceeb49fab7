"""``druids demo``: a whole local game between random players, printed trick by trick.

It shows the rules engine at work without any network; it is the README's run command until the
LAN table lands.
"""

from __future__ import annotations

import random

import typer

from druids_p2p.cli.app import app, fail
from druids_p2p.engine import DOMAINS, Game, GameOptions, deal, format_card, format_move
from druids_p2p.engine.rules import Round, TrickRecord
from druids_p2p.games.dispatch import DEFAULT_GAME, GAME_HELP
from druids_p2p.games.dispatch import demo_lines as demo_game


def _pile_summary(rnd: Round, seat: int) -> str:
    tops = [
        f"{format_card(rnd.piles[seat * 5 + d][-1])}({len(rnd.piles[seat * 5 + d])})"
        for d in range(5)
        if rnd.piles[seat * 5 + d]
    ]
    return " ".join(tops) or "-"


def _trick_line(number: int, trick: TrickRecord) -> str:
    plays = ", ".join(f"P{seat} {format_move(move)}" for seat, move in trick.plays)
    removed = "".join(
        f"; Sickle removes P{trick.winner}'s {DOMAINS[d]} pile" for d in trick.removed
    )
    return f"  trick {number:2}: {plays} -> P{trick.winner} takes it{removed}"


@app.command("demo")
def demo_command(
    players: int = typer.Option(4, "--players", help="3, 4 or 5 seats (druids2004: 2, 3 or 4)."),
    seed: int = typer.Option(1, "--seed", help="Seed for the deals and the random players."),
    variant: bool = typer.Option(False, "--variant", help="Allow Gaia's light side."),
    game_name: str = typer.Option(DEFAULT_GAME, "--game", help=GAME_HELP),
) -> None:
    """Play a whole game between random local players and print it (trick by trick for 2017,
    turn by turn for 2004)."""
    if game_name != DEFAULT_GAME:
        try:
            lines = list(demo_game(game_name, players, seed))
        except ValueError as exc:
            fail(str(exc))
        print("\n".join(lines))
        return
    if players not in (3, 4, 5):
        fail(f"--players must be 3, 4 or 5, not {players}")
    rng = random.Random(seed)
    game = Game(GameOptions(players=players, variant=variant))
    while not game.game_over:
        rnd = game.start_round(deal(rng, players))
        print(f"Round {game.round_index + 1}: P{rnd.gaia_holder} holds Gaia and leads")
        shown = 0
        while not rnd.over:
            game.play(rng.choice(game.legal_moves()))
            # A trick is printed once its Sickle choices are made (or the round has ended).
            while len(rnd.tricks) > shown and (rnd.over or not rnd.pending_sickles):
                print(_trick_line(shown + 1, rnd.tricks[shown]))
                shown += 1
        assert rnd.scores is not None
        how = "five domains" if rnd.ended_by == "five_domains" else "hands empty"
        print(f"  round over ({how}): scores {rnd.scores}")
        for seat in range(players):
            print(f"    P{seat} piles: {_pile_summary(rnd, seat)}")
    winners = game.winners or []
    print(
        f"Totals {game.totals}; winner{'s' if len(winners) > 1 else ''}: "
        + ", ".join(f"P{w}" for w in winners)
    )
