"""Every failure of the wire layer is a :class:`WireError`, so callers that handle untrusted bytes
need exactly one ``except`` clause; the subclasses exist so that callers can react differently
(ask for a resend on a gap, broadcast a proof on equivocation, drop the peer on a bad signature).
"""

from __future__ import annotations


class WireError(Exception):
    """Anything wrong with bytes, messages, records or identities handled by the wire layer."""


# --- decoding a single message -------------------------------------------------------------------


class TooLarge(WireError):
    """Rejected before parsing, so that a peer cannot make us spend memory on a huge blob."""


class Malformed(WireError):
    """Not well-formed, bounded, canonical msgpack (truncated, trailing bytes, ext types...)."""


class BadShape(WireError):
    """Well-formed msgpack whose fields do not match the envelope or the body schema."""


class BadSignature(WireError):
    """The signature does not verify for the claimed sender key."""


class InvalidProof(WireError):
    """A self-verifying claim inside a message (equivocation pair, table id) does not hold."""


# --- appending to a transcript -------------------------------------------------------------------


class WrongTable(WireError):
    """The message was signed for another table (a replay across tables, or a stray peer)."""


class NotSeated(WireError):
    """The sender holds no seat at this table."""


class OutOfPlace(WireError):
    """A message type that has no place in a table transcript (hello, join, a second seat)."""


class SequenceError(WireError):
    """The sender's sequence number or back-link does not continue its own chain."""


class SequenceGap(SequenceError):
    """Messages from this sender are missing before this one: ask for a resend."""

    def __init__(self, message: str, sender: bytes, expected: int, got: int) -> None:
        super().__init__(message)
        self.sender = sender
        self.expected = expected
        self.got = got


class StaleSequence(SequenceError):
    """A sequence number that this transcript has already filled with other bytes."""


class Equivocation(StaleSequence):
    """Two different messages signed by one sender with one sequence number.

    Because encodings are canonical and Ed25519 signatures are deterministic, honest software never
    produces two different byte strings for the same slot, so the pair alone convicts the sender;
    anyone can re-check it with :func:`druids_p2p.wire.envelope.verify_equivocation`.
    """

    def __init__(self, first: bytes, second: bytes, sender: bytes, seq: int) -> None:
        super().__init__(
            f"equivocation: sender {sender.hex()[:16]}… signed two different messages "
            f"with sequence number {seq}"
        )
        self.first = first
        self.second = second
        self.sender = sender
        self.seq = seq


class BrokenLink(SequenceError):
    """The previous-message hash does not point at the sender's previous message."""


# --- records and identities ----------------------------------------------------------------------


class RecordError(WireError):
    """A saved record file is unreadable, not a record, or corrupted."""


class IdentityError(WireError):
    """The identity file is missing, malformed, or unsafe to use."""
