"""The three ways the deck layer says no, kept apart because callers react differently.

:class:`MalformedMessage` blames nobody (anyone can send garbage) and is dropped;
:class:`DeckFault` convicts a seat with signed evidence; :class:`AuditRequired` names nobody
until the reveals and the audit, which ends in a fault (deck.md §10).
"""

from __future__ import annotations


class DeckError(Exception):
    """Base of every deck-layer failure, so untrusted input needs a single ``except`` clause."""


class MalformedMessage(DeckError, ValueError):
    """A body or envelope that does not have the exact shape the protocol allows."""


class GroupError(DeckError, ValueError):
    """A group operation received or produced something outside the prime-order group."""


class DeckFault(DeckError):
    """A protocol violation attributed to ``seat``, with the signed bytes that prove it."""

    def __init__(self, seat: int, reason: str, evidence: tuple[bytes, ...] = ()) -> None:
        super().__init__(f"seat {seat}: {reason}")
        self.seat = seat
        self.reason = reason
        self.evidence = evidence


class AuditRequired(DeckError):
    """An inconsistency that only the end-of-round audit can attribute (e.g. a tampered shuffle)."""

    def __init__(self, reason: str, evidence: tuple[bytes, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.evidence = evidence


class NotReady(DeckError):
    """The caller asked for something the protocol has not reached yet (a hand before the deal)."""
