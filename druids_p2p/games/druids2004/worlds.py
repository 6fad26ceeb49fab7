"""Worlds consistent with what one seat has seen: the determinization the search bot samples.

From a :class:`SeatView` every hidden card is a member of a known pool with a known count in each
hidden place: unknown gems fill the others' hands (their gem counts are public), the others' face-
down gems on places, their discards and the gem pile; each owner's unknown servants fill its hand,
its face-down servants on places and its reserve (the seat's own reserve is a known set in an
unknown order); the unknown places fill the supply. A sample deals each pool uniformly at random
over its places: consistent with the view, not weighted by how the others played.
"""

from __future__ import annotations

import random

from druids_p2p.games.druids2004.cards import (
    GEMS,
    MAX_PLAYERS,
    PLACES,
    PlaceSlot,
    is_gem,
    servant_owner,
    servants_of,
)
from druids_p2p.games.druids2004.setup import Options, Setup
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import HIDDEN, SeatView


def clone(game: Game2004) -> Game2004:
    """A copy that can be played on without touching ``game`` (the log is shared, not copied)."""
    g = Game2004.__new__(Game2004)
    g.__dict__.update(game.__dict__)
    g.hands = [list(h) for h in game.hands]
    g.pile = list(game.pile)
    g.row = [None if p is None else p.copy() for p in game.row]
    g.supply = list(game.supply)
    g.reserves = [list(r) for r in game.reserves]
    g.discards = list(game.discards)
    g.out = list(game.out)
    g.won = [list(w) for w in game.won]
    g.scores = list(game.scores)
    g.log = []
    g.pending = list(game.pending)
    return g


def sample_world(view: SeatView, options: Options, rng: random.Random) -> Game2004:
    """A full game state drawn uniformly among those consistent with ``view``."""
    n, me = view.players, view.seat
    won: list[list[int]] = [[] for _ in range(n)]
    out: list[int] = []
    gone_places = set()
    for r in view.rituals:
        for share in r.shares:
            won[share.owner].extend(share.amulets)
        out.extend(r.discarded)
        gone_places.add(r.place)
        if r.ended is None:
            out.append(r.place)
            if not r.returned:
                out.extend(r.servants)
    known = set(view.hand) | set(view.my_discards) | set(out) | {c for w in won for c in w}
    for place in view.row:
        if place is not None:
            known.update(c for _, c in place.gems if c != HIDDEN)
            known.update(c for _, c in place.servants if c != HIDDEN)
    gems = [g for g in GEMS if g not in known]
    rng.shuffle(gems)
    servants = {q: [c for c in servants_of(q) if c not in known] for q in range(n)}
    for pool in servants.values():
        rng.shuffle(pool)
    hands: list[list[int]] = []
    for q in range(n):
        if q == me:
            hands.append(list(view.hand))
            continue
        k = view.hand_gems[q]
        hand = [gems.pop() for _ in range(k)]
        hand += [servants[q].pop() for _ in range(view.hand_sizes[q] - k)]
        hands.append(hand)
    row: list[PlaceSlot | None] = []
    for place in view.row:
        if place is None:
            row.append(None)
            continue
        slot = PlaceSlot(place.place)
        slot.gems = [(s, c if c != HIDDEN else gems.pop()) for s, c in place.gems]
        slot.servants = [c if c != HIDDEN else servants[q].pop() for q, c in place.servants]
        row.append(slot)
    discards = [(me, c) for c in view.my_discards]
    for q in range(n):
        if q != me:
            discards += [(q, gems.pop()) for _ in range(view.discard_counts[q])]
    pile = gems  # what is left: exactly pile_size gems
    assert len(pile) == view.pile_size, "the view's counts do not add up"
    reserves = [servants[q] for q in range(n)]
    assert [len(r) for r in reserves] == list(view.reserve_sizes)
    supply = [
        p
        for p in PLACES
        if p not in gone_places and all(v is None or v.place != p for v in view.row)
    ]
    rng.shuffle(supply)
    g = Game2004.__new__(Game2004)
    g.options = options
    g.setup = Setup((), (), (), view.start)
    g.hands, g.pile, g.row, g.supply, g.reserves = hands, pile, row, supply, reserves
    g.discards, g.out, g.won = discards, out, won
    g.box = tuple(c for s in range(n, MAX_PLAYERS) for c in servants_of(s))
    g.scores, g.base = list(view.scores), view.base
    g.log, g.pending = [], []
    g.ended_by, g.winners_ = None, None
    g.idle_turns, g.turn, g.seat = view.idle_turns, 0, view.turn_seat
    g.ritual_done, g.plays_made = view.ritual_done, view.plays_made
    g.plays_needed = view.plays_made + view.plays_left
    g.servant_played, g.discarded, g.drawn = view.servant_played, view.discarded, view.drawn
    g.active = view.turn_active
    return g


def is_consistent(world: Game2004, view: SeatView) -> bool:
    """The world shows this seat exactly ``view`` (a check for tests)."""
    mine = world.view(view.seat)
    fields = ("hand", "hand_sizes", "hand_gems", "reserve_sizes", "pile_size", "supply_size")
    if any(getattr(mine, f) != getattr(view, f) for f in fields):
        return False
    return (
        mine.row == view.row
        and mine.legal == view.legal
        and all(is_gem(c) for c in world.pile)
        and all(servant_owner(c) == q for q, r in enumerate(world.reserves) for c in r)
    )
