"""A Druids (2004) game's deck operations as the card table's operations, for the table tests and
the measurement script: the game is played by the rule bot (``greedy_move``) and its schedule
(``games/druids2004/schedule.py``) is translated here, in the test, so that the deck stays
game-agnostic.

The game names cards because its engine knows them all; at the table only positions are public.
A card the game deals becomes the position the table takes off the deck at that operation, and
the game's later mention of that card (a play, a return) names that position. The table's cards
are its own shuffles' (the game's orders are not the table's), which is all the deck tests need:
the same operations, the same decks, the same moves from zone to zone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from druids_p2p.deck.table_messages import TableOp
from druids_p2p.games.druids2004 import schedule as sched
from druids_p2p.games.druids2004.cards import N_CARDS
from druids_p2p.games.druids2004.options import Options
from druids_p2p.games.druids2004.playout import advance, random_game
from druids_p2p.games.druids2004.policy import greedy_move

MAX_MOVES = 5000


@dataclass(frozen=True, slots=True)
class Step:
    op: TableOp
    position: int | None = None
    """For a play: the position the player plays (its own choice, in its message)."""


def bot_game_ops(players: int, seed: int) -> list[Step]:
    """A whole game of ``players`` rule bots, as table operations."""
    rng = random.Random(seed)
    game = random_game(rng, Options(players=players))
    for _ in range(MAX_MOVES):
        advance(game, rng)
        if game.game_over:
            break
        game.play(greedy_move(game, rng))
    assert game.game_over, "the bot game did not end"
    return translate(sched.schedule(game))


def translate(ops: list[sched.DeckOp]) -> list[Step]:
    decks: set[str] = set()
    label: dict[int, int] = {}
    taken = 0
    out: list[Step] = []
    for op in ops:
        if op.kind == sched.SHUFFLE:
            if op.target in decks:
                out.append(Step(TableOp("shuffle", deck=op.target)))
            else:
                decks.add(op.target)
                out.append(Step(TableOp("shuffle", deck=op.target, cards=op.cards)))
        elif op.kind in (sched.DEAL, sched.TURN):
            label[op.cards[0]] = taken
            taken += 1
            if op.kind == sched.DEAL:
                out.append(Step(TableOp("deal", deck=op.source, seat=op.seat)))
            else:
                out.append(Step(TableOp("turn", deck=op.source, zone=op.target)))
        elif op.kind == sched.PLAY:
            play = TableOp("play", seat=op.seat, zone=op.target)
            out.append(Step(play, label[op.cards[0]]))
        elif op.kind == sched.REVEAL:
            out.append(Step(TableOp("reveal", zone=op.source)))
        elif op.kind == sched.RETURN:
            out.append(Step(TableOp("return", deck=op.target, position=label[op.cards[0]])))
        elif op.kind == sched.FINAL:
            out.append(Step(TableOp("final")))
        else:  # pragma: no cover - the schedule's kinds are listed above
            raise ValueError(op.kind)
    return out


NUM_CARDS = N_CARDS
