"""How a game line counts for each seat: a bot that faulted never looks good.

A seat *forfeits* its game when its bot faulted in it: it raised (or its factory did, or its
process died: ``crashed``), did not answer in time (``timeout``), or answered a move that is not
legal (``illegal``); the first fault of the seat names the kind. The host still finished the game
on fallback moves, but those moves were not the bot's, so they are not credited to it:

* the forfeiting seat ranks **last**, below every seat that did not fault (which keep their order
  by totals, ties sharing a rank); several forfeiting seats share the last rank;
* its score counts as the **table's lowest total**, so its margin is the worst of the game (tied
  at worst with the lowest seat); the other seats are scored by their own totals against it;
* it is never first.

A game that did not finish (the worker died, the game timeout, a table that stopped) has no
totals: its blamed seat ranks last and the others share first, and nobody's score statistics
count it. A failed game that blames nobody is not rated at all. :mod:`.summary` and :mod:`.live`
both read a line through :func:`score_line`, so the summary and a run's early stop agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from druids_p2p.tournament.play import (
    STATUS_CRASHED,
    STATUS_ILLEGAL,
    STATUS_TIMEOUT,
    fault_kind,
)

FAULT_KINDS = (STATUS_CRASHED, STATUS_TIMEOUT, STATUS_ILLEGAL)
"""What a forfeit can be, as the summary counts them (the same words as a line's status)."""


@dataclass(frozen=True)
class Scored:
    """One game line as every statistic reads it (per seat, in the line's seat order)."""

    ranks: list[int] | None
    """The ranks it is rated with (1 best); None: not rated (it failed blaming nobody)."""
    totals: list[float] | None
    """The totals the score statistics count, a forfeiting seat's at the table's lowest;
    None: the game has no totals (it did not finish)."""
    firsts: list[bool]
    """The seats that count a first place."""
    forfeits: dict[int, str]
    """Each forfeiting seat and why (:data:`FAULT_KINDS`), in the order of their first fault."""
    first_faults: dict[int, Mapping[str, Any]]
    """Each forfeiting seat's first fault (none for a seat blamed without a fault entry)."""


def forfeiting_seats(
    line: Mapping[str, Any],
) -> tuple[dict[int, str], dict[int, Mapping[str, Any]]]:
    """The seats that forfeit ``line`` with the kind of each, and each one's first fault. The
    blamed seat's kind is the line's status (a game stopped at the game timeout is the blamed
    bot's ``timeout`` whatever its fault's words)."""
    n = len(line["seating"])
    kinds: dict[int, str] = {}
    firsts: dict[int, Mapping[str, Any]] = {}
    for fault in line.get("faults") or []:
        seat = fault.get("seat")
        if isinstance(seat, int) and 0 <= seat < n and seat not in kinds:
            kinds[seat] = fault_kind(fault)
            firsts[seat] = fault
    blamed = line.get("blame_seat")
    if isinstance(blamed, int) and 0 <= blamed < n:  # the status is the blamed seat's kind
        status = line.get("status")
        kind = status if status in FAULT_KINDS else STATUS_CRASHED
        kinds[blamed] = kinds.get(blamed, kind) if status not in FAULT_KINDS else kind
    return kinds, firsts


def score_line(line: Mapping[str, Any]) -> Scored:
    """How ``line`` counts for each seat (see the module's rules)."""
    n = len(line["seating"])
    forfeits, first_faults = forfeiting_seats(line)
    raw = line.get("totals")
    if raw is None:
        ranks = None if not forfeits else [2 if s in forfeits else 1 for s in range(n)]
        return Scored(ranks, None, [False] * n, forfeits, first_faults)
    totals = [float(t) for t in raw]
    low = min(totals)
    scored = [low if s in forfeits else t for s, t in enumerate(totals)]
    clean = [s for s in range(n) if s not in forfeits]
    last = len(clean) + 1
    ranks = [
        last if s in forfeits else 1 + sum(totals[o] > totals[s] for o in clean) for s in range(n)
    ]
    best = max((totals[s] for s in clean), default=None)
    firsts = [s not in forfeits and totals[s] == best for s in range(n)]
    return Scored(ranks, scored, firsts, forfeits, first_faults)
