"""What one seat may know: the only window bots and user interfaces get onto a game.

A view is built from public play plus the seat's own hand, so it can never carry another seat's
hidden cards; cards under a pile's top are not listed either (their history is in ``tricks``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PlayerView:
    """A frozen snapshot for ``seat``. Cards and moves are ids (see ``engine.cards``)."""

    seat: int
    players: int
    variant: bool
    round_index: int
    """0-based index of the round this view is of."""
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    to_move: int | None
    legal: tuple[int, ...]
    """The legal moves if this seat is to move, else empty."""
    leader: int
    trick: tuple[tuple[int, int], ...]
    """(seat, move) of the trick being played, in order."""
    lead_domain: int
    """Domain that must be followed, -1 while none is led."""
    light: bool
    tricks: tuple[tuple[int, tuple[tuple[int, int], ...], int, tuple[int, ...]], ...]
    """Completed tricks of this round: (leader, plays, winner, domains of piles removed)."""
    pile_tops: tuple[tuple[int | None, ...], ...]
    """Per seat, per domain: the top card id, None where there is no pile."""
    pile_sizes: tuple[tuple[int, ...], ...]
    pending_pile_choice: tuple[int, ...]
    """Domains this seat must choose between for a Sickle (empty unless it must)."""
    round_scores: tuple[tuple[int, ...], ...]
    """Scores of the rounds already ended in this game."""
    totals: tuple[int, ...]
    round_over: bool
    game_over: bool
