"""A Druids (2004) game's deck operations as card-table steps, for the deck's tests (and
``bench_table``: ``python3 tests/table_game2004.py`` times one 4-seat game).

The game is played by the rule bot (``greedy_move``) and its schedule
(``games/druids2004/hidden.py``) is translated here, outside the deck, which stays
game-agnostic. The game names cards because its engine knows them all; at the table only
positions are public. A card the game deals becomes the position the table takes off the deck at
that operation, and the game's later mention of that card (a play, a return) names that
position. The table's cards are its own shuffles' (the game's orders are not the table's), which
is all a bench or a deck test needs: the same operations, decks and moves from zone to zone.
"""

from __future__ import annotations

import random

from druids_p2p.bench.tables import TableStep
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.games.druids2004 import hidden as sched
from druids_p2p.games.druids2004.cards import N_CARDS
from druids_p2p.games.druids2004.policy import greedy_move
from druids_p2p.games.druids2004.ruleset import advance, random_game
from druids_p2p.games.druids2004.setup import Options

MAX_MOVES = 5000
NUM_CARDS = N_CARDS


def bot_game_steps(players: int, seed: int) -> list[TableStep]:
    """A whole game of ``players`` rule bots, as table steps."""
    rng = random.Random(seed)
    game = random_game(rng, Options(players=players))
    for _ in range(MAX_MOVES):
        advance(game, rng)
        if game.game_over:
            break
        game.play(greedy_move(game, rng))
    if not game.game_over:  # pragma: no cover - every bot game ends well within the bound
        raise RuntimeError("the bot game did not end")
    return translate(sched.schedule(game))


def translate(ops: list[sched.DeckOp]) -> list[TableStep]:
    decks: set[str] = set()
    label: dict[int, int] = {}
    taken = 0
    out: list[TableStep] = []
    for op in ops:
        if op.kind == sched.SHUFFLE:
            if op.target in decks:
                out.append(TableStep(TableOp("shuffle", deck=op.target)))
            else:
                decks.add(op.target)
                out.append(TableStep(TableOp("shuffle", deck=op.target, cards=op.cards)))
        elif op.kind in (sched.DEAL, sched.TURN):
            label[op.cards[0]] = taken
            taken += 1
            if op.kind == sched.DEAL:
                out.append(TableStep(TableOp("deal", deck=op.source, seat=op.seat)))
            else:
                out.append(TableStep(TableOp("turn", deck=op.source, zone=op.target)))
        elif op.kind == sched.PLAY:
            play = TableOp("play", seat=op.seat, zone=op.target)
            out.append(TableStep(play, label[op.cards[0]]))
        elif op.kind == sched.REVEAL:
            out.append(TableStep(TableOp("reveal", zone=op.source)))
        elif op.kind == sched.RETURN:
            back = TableOp("return", deck=op.target, position=label[op.cards[0]])
            out.append(TableStep(back))
        elif op.kind == sched.FINAL:
            out.append(TableStep(TableOp("final")))
        else:  # pragma: no cover - the schedule's kinds are listed above
            raise ValueError(op.kind)
    return out


if __name__ == "__main__":  # python3 tests/table_game2004.py: one 4-seat game
    import json

    from druids_p2p.bench.tables import bench_table

    print(json.dumps(bench_table(bot_game_steps(4, 18), 4, NUM_CARDS), indent=1))
