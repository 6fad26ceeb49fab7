"""The three ways the deck layer says no, kept apart because callers react differently.

* :class:`MalformedMessage`: bytes that do not even parse, or whose signature does not verify. No
  seat can be blamed for them (anyone can send garbage), so the caller just drops them.
* :class:`DeckFault`: a seat provably broke the protocol; the signed message(s) in ``evidence``
  convict it in front of any third party that knows the seats' signing keys.
* :class:`AuditRequired`: something is wrong but nobody can be named until every seat has revealed
  its round secrets; the caller then collects the reveals and runs the audit, which always ends in a
  :class:`DeckFault`.
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
