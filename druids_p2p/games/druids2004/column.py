"""The score column: 6 score cards of ``S`` spaces, wrapping upward as pawns pass its top.

The column shows scores ``base .. base + 6S - 1``. When a pawn must reach ``base + 6S`` or more,
the bottom card moves to the top (``base += S``) as long as no other pawn stands on it; if one
does, the moving pawn stops on the top space and the game ends with that player the sole winner
(ruling "End of the game", the score column).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PawnMove:
    """The result of one pawn move: the new score and base, and whether the column ended it."""

    score: int
    base: int
    ended: bool
    scored: int
    """Points actually moved (fewer than asked when the column ends the game)."""
    blocked_by: tuple[int, ...] = ()
    """When the column ended it: the other seats whose pawns stood on its bottom card."""


def move_pawn(
    scores: Sequence[int], base: int, seat: int, points: int, spaces_per_card: int
) -> PawnMove:
    """Move ``seat``'s pawn up ``points`` spaces on a column whose bottom score is ``base``."""
    start = scores[seat]
    target = start + points
    top = base + 6 * spaces_per_card  # first score the column does not show
    while target >= top:
        blocked = tuple(q for q, s in enumerate(scores) if q != seat and s < base + spaces_per_card)
        if blocked:
            last = top - 1
            return PawnMove(last, base, True, last - start, blocked)
        base += spaces_per_card
        top += spaces_per_card
    return PawnMove(target, base, False, points)
