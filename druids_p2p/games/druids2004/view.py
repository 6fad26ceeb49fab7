"""What each seat may know: a frozen view per seat, never another seat's hidden cards.

A seat sees its own hand, every hand's size and how many of its cards are gems (the backs differ),
every reserve's size (not its order, not even its own), the face-down cards it put on places and
others' only as "a gem" / "a servant of P", its own discards, the place row, the public history of
rituals and the scores. Hidden cards show as ``-1``.

These are the view's value types; :meth:`.state.Game2004.view` builds them from the game, so the
view stands below the state it shows and imports nothing of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from druids_p2p.games.druids2004.records import RitualDone

HIDDEN = -1


@dataclass(frozen=True, slots=True)
class PlaceView:
    """A place in the row as one seat sees it."""

    place: int
    gems: tuple[tuple[int, int], ...]
    """(seat that played it, the gem or HIDDEN)."""
    servants: tuple[tuple[int, int], ...]
    """(owner, the servant or HIDDEN)."""

    @property
    def size(self) -> int:
        return len(self.gems) + len(self.servants)


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    players: int
    start: int
    turn_seat: int
    to_move: int | None
    legal: tuple[int, ...]
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    hand_gems: tuple[int, ...]
    reserve_sizes: tuple[int, ...]
    pile_size: int
    supply_size: int
    row: tuple[PlaceView | None, ...]
    scores: tuple[int, ...]
    base: int
    my_discards: tuple[int, ...]
    discard_counts: tuple[int, ...]
    rituals: tuple[RitualDone, ...]
    plays_left: int
    plays_made: int
    turn_active: bool
    """A card was played or drawn or a ritual announced this turn (public; the stall counts)."""
    ritual_done: bool
    servant_played: bool
    discarded: bool
    drawn: bool
    idle_turns: int
    pending_reshuffle: int | None
    game_over: bool
    ended_by: str | None
    winners: tuple[int, ...] | None
