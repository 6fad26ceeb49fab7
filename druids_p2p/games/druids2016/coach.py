"""The coach of Druids (2016): the move the strongest bot would play, and why, in one line.

The move is the ``search`` bot's at a fixed node budget and a seed from the position, so the
same position gets the same advice; a search cannot say why, so the reason is read off the
position after the move (README, "the coach").
"""

from __future__ import annotations

import hashlib
import random

from druids_p2p.games.druids2016.game import (
    MASTER_CAPTURED,
    MASTER_IN_TEMPLE,
    NO_LEGAL_MOVE,
    WIN,
    Game,
)
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.policy import Budget, clone, temple_distances
from druids_p2p.games.druids2016.search import NODES_PER_MS, search_move
from druids_p2p.games.druids2016.view import SeatView

COACH_BOT = "search"
"""The bot whose move the coach gives: this game's strongest (README's ladder)."""
COACH_NODES = int(100 * NODES_PER_MS)
"""Positions its search visits per question: what its 100 ms budget buys, as a fixed count
(never the clock)."""
WINS = {
    MASTER_IN_TEMPLE: "your Master enters the Temple",
    MASTER_CAPTURED: "it takes the opponent's Master",
    NO_LEGAL_MOVE: "it leaves the opponent without a move",
}


def coach(view: SeatView) -> tuple[int, str]:
    """The strongest bot's move in ``view`` (which has legal moves) and one line why."""
    legal = list(view.legal)
    if len(legal) == 1:
        return legal[0], f"{Move.of(legal[0]).token()}: forced, the only legal move"
    if view.setup is None:
        move = min(legal)
        return move, (
            f"{Move.of(move).token()}: the other's placement is hidden until both are down, so "
            "no square is known to be better (the first free one)"
        )
    rng = random.Random(hashlib.sha256(repr(view.moves).encode() + bytes([view.seat])).digest())
    game = view.game()
    try:
        move, who = search_move(game, rng, Budget(nodes=COACH_NODES)).code, f"{COACH_BOT}'s choice"
    except Exception:  # a failing search must not leave the person without advice
        move, who = legal[0], "the first legal move: the search failed"
    if move not in legal:
        move, who = legal[0], "the first legal move: the search chose none"
    return move, f"{_why(game, move)} ({who})"


def _druids(game: Game, side: int) -> int:
    return sum(game.pos[d] >= 0 for d in range(3 * side, 3 * side + 3))


def _loses_at_once(game: Game, side: int) -> bool:
    """After ``side``'s move: can the opponent win with its next move?"""
    if game.result is not None:
        return False
    for code in game.legal_codes():
        game.play_code(code)
        result = game.result
        lost = result is not None and result.status == WIN and result.winner != game.player(side)
        game.undo()
        if lost:
            return True
    return False


def _why(game: Game, move: int) -> str:
    token = Move.of(move).token()
    work = clone(game)
    side = work.side
    me = work.player(side)
    losing = 0
    codes = work.legal_codes()
    for code in codes:
        work.play_code(code)
        losing += _loses_at_once(work, side)
        work.undo()
    theirs = _druids(work, 1 - side)
    work.play_code(move)
    result = work.result
    if result is not None and result.status == WIN and result.winner == me:
        return f"{token}: wins now: {WINS.get(result.reason, result.reason)}"
    parts: list[str] = []
    if _druids(work, 1 - side) < theirs:
        parts.append("takes a Druid")
    if _loses_at_once(work, side):
        parts.append("every move lets the opponent win next; this one too")
    elif losing:
        parts.append(f"{losing} of your {len(codes)} moves would let the opponent win at once")
    master = work.master[side]
    if work.pos[master] >= 0:
        to_go = temple_distances(work.board, side)[work.pos[master]][work.face[master]]
        parts.append(f"your Master is {to_go} moves from the opponent's Temple")
    return f"{token}: " + "; ".join(parts)


__all__ = ["COACH_BOT", "COACH_NODES", "coach"]
