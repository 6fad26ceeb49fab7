"""The log: one frozen record per applied operation, appended in order (as pokerkit does).

Moves make :class:`Played`, :class:`RitualDone`, :class:`Discarded`, :class:`Drew` and
:class:`Stopped`; the game itself adds :class:`Reshuffled` (a reserve's new order),
:class:`TurnEnded` and :class:`GameEnded`. The notation is written from this log, and the views'
public history is read from it.
"""

from __future__ import annotations

from dataclasses import dataclass

ENDED_COLUMN = "column"
ENDED_ROW = "row"
ENDED_NOTHING_LEFT = "nothing_left"
ENDED_STALL = "stall"
END_REASONS = (ENDED_COLUMN, ENDED_ROW, ENDED_NOTHING_LEFT, ENDED_STALL)


@dataclass(frozen=True, slots=True)
class Played:
    """``seat`` played ``card`` face down onto the place in ``slot``."""

    seat: int
    card: int
    slot: int


@dataclass(frozen=True, slots=True)
class Share:
    """One servant's part of a ritual: the amulets it took and the points its owner moved."""

    servant: int
    owner: int
    amulets: tuple[int, ...]
    points: int


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
