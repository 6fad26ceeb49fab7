"""A finished Druids (2017) game as text, trick by trick: what ``druids demo`` prints.

It reads the game after the fact (every round keeps its tricks, piles and scores), so the demo
plays through the one in-process loop like any other game and only the printing is the game's.
"""

from __future__ import annotations

from collections.abc import Iterator

from druids_p2p.games.druids2017.cards import DOMAINS
from druids_p2p.games.druids2017.game import Game
from druids_p2p.games.druids2017.notation import format_card, format_move
from druids_p2p.games.druids2017.rules import Round, TrickRecord


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


def game_lines(game: Game) -> Iterator[str]:
    """Each round (who leads, every trick, how it ended, the scores, the piles), then totals."""
    for index, rnd in enumerate(game.rounds):
        yield f"Round {index + 1}: P{rnd.gaia_holder} holds Gaia and leads"
        for number, trick in enumerate(rnd.tricks, 1):
            yield _trick_line(number, trick)
        if rnd.scores is None:
            continue
        how = "five domains" if rnd.ended_by == "five_domains" else "hands empty"
        yield f"  round over ({how}): scores {rnd.scores}"
        for seat in range(game.players):
            yield f"    P{seat} piles: {_pile_summary(rnd, seat)}"
    if game.game_over:
        winners = game.winners or []
        yield (
            f"Totals {game.totals}; winner{'s' if len(winners) > 1 else ''}: "
            + ", ".join(f"P{w}" for w in winners)
        )
