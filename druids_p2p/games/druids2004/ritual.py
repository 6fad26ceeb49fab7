"""The order in which a ritual's servants take, and how many amulets each takes.

Kept apart from the state so the distribution rule can be read (and tested) on its own: lowest
value first, equal values in turn order from a seat the tie-order option names, each taking its
value while amulets remain, the last servant taking every amulet left.
"""

from __future__ import annotations

from collections.abc import Sequence

from druids_p2p.games.druids2004.cards import servant_owner, servant_value
from druids_p2p.games.druids2004.records import (
    TAKE_LAST,
    TAKE_NO_AMULETS,
    TAKE_NONE_LEFT,
    TAKE_SHORT,
    TAKE_VALUE,
)
from druids_p2p.games.druids2004.setup import (
    TIE_AFTER_ANNOUNCER,
    TIE_ANNOUNCER,
    TIE_STARTING_PLAYER,
)


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
