"""The log of Druids (2004), a frozen record per operation, and the ritual rule the records show.

A ritual's take order and amounts are read (and tested) on their own, next to the reasons its
records give for each take."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from druids_p2p.games.druids2004.cards import servant_owner, servant_value
from druids_p2p.games.druids2004.setup import (
    TIE_AFTER_ANNOUNCER,
    TIE_ANNOUNCER,
    TIE_STARTING_PLAYER,
)

# The log: one frozen record per applied operation, appended in order (as pokerkit does).
#
# Moves make :class:`Played`, :class:`RitualDone`, :class:`Discarded`, :class:`Drew` and
# :class:`Stopped`; the game itself adds :class:`Reshuffled` (a reserve's new order),
# :class:`TurnEnded` and :class:`GameEnded`. The notation is written from this log, and the views'
# public history is read from it.


ENDED_COLUMN = "column"
ENDED_ROW = "row"
ENDED_NOTHING_LEFT = "nothing_left"
ENDED_STALL = "stall"
END_REASONS = (ENDED_COLUMN, ENDED_ROW, ENDED_NOTHING_LEFT, ENDED_STALL)

TAKE_VALUE = "value"
"""The servant took as many amulets as its value."""
TAKE_SHORT = "short"
"""Fewer than its value: only that many were left."""
TAKE_NONE_LEFT = "none_left"
"""None: the servants before it had taken every amulet (+0)."""
TAKE_NO_AMULETS = "no_amulets"
"""None: no gem on the place was of its kind, so the ritual made no amulet (+0)."""
TAKE_LAST = "last"
"""The last servant: every amulet that remained, more or fewer than its value."""
TAKE_REASONS = (TAKE_VALUE, TAKE_SHORT, TAKE_NONE_LEFT, TAKE_NO_AMULETS, TAKE_LAST)


@dataclass(frozen=True, slots=True)
class Played:
    """``seat`` played ``card`` face down onto the place in ``slot``."""

    seat: int
    card: int
    slot: int


@dataclass(frozen=True, slots=True)
class Share:
    """One servant's part of a ritual: the amulets it took and the points its owner moved, and
    why (so that a screen can explain every +0 and every tie without redoing the rules)."""

    servant: int
    owner: int
    amulets: tuple[int, ...]
    points: int
    why: str = TAKE_VALUE
    """How many it took, by the distribution rule: one of ``TAKE_REASONS``."""
    tied: tuple[int, ...] = ()
    """The other servants of its value in this ritual, in taking order: equal values take in
    turn order from the ritual's ``tie_first`` seat."""
    blocked_by: tuple[int, ...] = ()
    """Set when the score column ended the game on this share: the seats whose pawns stood on
    the column's bottom card, so it could not move on (``points`` then fall short of the
    amulets, and this owner alone wins)."""


@dataclass(frozen=True, slots=True)
class RitualDone:
    """A ritual ``seat`` announced on ``slot``: everything it revealed and handed out.

    ``shares`` lists the servants in taking order; after a column end only those that took
    before it (``ended`` is then ``"column"``). ``turned`` is the place turned into the slot.
    """

    seat: int
    slot: int
    place: int
    gems: tuple[tuple[int, int], ...]
    """(seat that played it, gem) in the order played."""
    servants: tuple[int, ...]
    """In the order played."""
    amulets: tuple[int, ...]
    discarded: tuple[int, ...]
    """Gems of other kinds: out of the game."""
    shares: tuple[Share, ...]
    returned: tuple[int, ...]
    """Servants back into their reserves (empty when they leave the game or the column ended)."""
    turned: int | None
    ended: str | None
    tie_order: str = "announcer"
    """The tie-order option (``options.TIE_ORDERS``) that ordered equal servants."""
    tie_first: int | None = None
    """The seat from which equal servants take in turn order (by ``tie_order``)."""


@dataclass(frozen=True, slots=True)
class Discarded:
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class Drew:
    """``seat`` drew ``card`` from ``source``: ``"gem"`` (the gem pile) or ``"servant"``."""

    seat: int
    source: str
    card: int


@dataclass(frozen=True, slots=True)
class Stopped:
    """``seat`` ended its turn by choice."""

    seat: int


@dataclass(frozen=True, slots=True)
class Reshuffled:
    """Seat ``seat``'s reserve after a ritual returned servants to it, top first."""

    seat: int
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """``active``: a card was played or drawn or a ritual announced (the stall counts others)."""

    seat: int
    active: bool


@dataclass(frozen=True, slots=True)
class GameEnded:
    reason: str
    winners: tuple[int, ...]
    scores: tuple[int, ...]


Record = Played | RitualDone | Discarded | Drew | Stopped | Reshuffled | TurnEnded | GameEnded
MOVE_RECORDS = (Played, RitualDone, Discarded, Drew, Stopped)


# The order in which a ritual's servants take, and how many amulets each takes.
#
# Kept apart from the state so the distribution rule can be read (and tested) on its own: lowest
# value first, equal values in turn order from a seat the tie-order option names, each taking its
# value while amulets remain, the last servant taking every amulet left.


def tie_first(tie_order: str, announcer: int, start: int, players: int) -> int:
    """The seat from which equal servants take in turn order."""
    if tie_order == TIE_ANNOUNCER:
        return announcer
    if tie_order == TIE_AFTER_ANNOUNCER:
        return (announcer + 1) % players
    if tie_order == TIE_STARTING_PLAYER:
        return start
    raise ValueError(f"unknown tie order {tie_order!r}")


def taking_order(servants: Sequence[int], first: int, players: int) -> list[int]:
    """Servants sorted by value, equal values in seat order starting at ``first``."""
    return sorted(servants, key=lambda c: (servant_value(c), (servant_owner(c) - first) % players))


def take_reasons(values: Sequence[int], takes: Sequence[int], amulets: int) -> list[str]:
    """Why each servant (in taking order, values ``values``) took its ``takes``: one of the
    records' ``TAKE_REASONS`` a share carries."""
    out: list[str] = []
    left = amulets
    for i, (value, take) in enumerate(zip(values, takes, strict=True)):
        if amulets == 0:
            out.append(TAKE_NO_AMULETS)
        elif left == 0:
            out.append(TAKE_NONE_LEFT)
        elif i == len(values) - 1:
            out.append(TAKE_LAST)
        else:
            out.append(TAKE_VALUE if take == value else TAKE_SHORT)
        left -= take
    return out


def tied_with(order: Sequence[int]) -> list[tuple[int, ...]]:
    """For each servant in taking order, the others of its value (in taking order)."""
    return [
        tuple(o for o in order if o != c and servant_value(o) == servant_value(c)) for c in order
    ]


def shares(values: Sequence[int], amulets: int) -> list[int]:
    """Amulets each servant takes, in taking order: its value while any remain; the last all."""
    left = amulets
    out: list[int] = []
    for i, value in enumerate(values):
        take = left if i == len(values) - 1 else min(value, left)
        out.append(take)
        left -= take
    return out
