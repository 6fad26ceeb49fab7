"""What each seat may know: a frozen view per seat, never another seat's hidden cards.

A seat sees its own hand, every hand's size and how many of its cards are gems (the backs differ),
every reserve's size (not its order, not even its own), the face-down cards it put on places and
others' only as "a gem" / "a servant of P", its own discards, the place row, the public history of
rituals and the scores. Hidden cards show as ``-1``.
"""

from __future__ import annotations

from dataclasses import dataclass

from druids_p2p.games.druids2004.cards import is_gem, servant_owner
from druids_p2p.games.druids2004.records import RitualDone
from druids_p2p.games.druids2004.state import Game2004

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


def seat_view(game: Game2004, seat: int) -> SeatView:
    """The view of ``seat``; ValueError for a seat not at the table."""
    n = game.players
    if not 0 <= seat < n:
        raise ValueError(f"no seat {seat} at a {n}-player table")
    row: list[PlaceView | None] = []
    for slot in game.row:
        if slot is None:
            row.append(None)
            continue
        gems = tuple((s, g if s == seat else HIDDEN) for s, g in slot.gems)
        servants = tuple(
            (servant_owner(c), c if servant_owner(c) == seat else HIDDEN) for c in slot.servants
        )
        row.append(PlaceView(slot.place, gems, servants))
    to_move = game.to_move
    return SeatView(
        seat=seat,
        players=n,
        start=game.setup.start,
        turn_seat=game.seat,
        to_move=to_move,
        legal=tuple(game.legal_moves()) if to_move == seat else (),
        hand=tuple(sorted(game.hands[seat])),
        hand_sizes=tuple(len(h) for h in game.hands),
        hand_gems=tuple(sum(1 for c in h if is_gem(c)) for h in game.hands),
        reserve_sizes=tuple(len(r) for r in game.reserves),
        pile_size=len(game.pile),
        supply_size=len(game.supply),
        row=tuple(row),
        scores=tuple(game.scores),
        base=game.base,
        my_discards=tuple(c for s, c in game.discards if s == seat),
        discard_counts=tuple(sum(1 for s, _ in game.discards if s == q) for q in range(n)),
        rituals=tuple(r for r in game.log if isinstance(r, RitualDone)),
        plays_left=game.plays_left,
        plays_made=game.plays_made,
        turn_active=game.active,
        ritual_done=game.ritual_done,
        servant_played=game.servant_played,
        discarded=game.discarded,
        drawn=game.drawn,
        idle_turns=game.idle_turns,
        pending_reshuffle=game.pending_reshuffle,
        game_over=game.game_over,
        ended_by=game.ended_by,
        winners=game.winners_,
    )
