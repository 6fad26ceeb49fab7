"""The wire's vocabulary: the protocol constants and the failures every wire module may raise.

One source for docs/protocol/wire.md to be checked against; every failure is a WireError, so code
handling untrusted bytes needs one except clause."""

from __future__ import annotations

from enum import IntEnum

# Protocol constants shared by every wire module, kept in one place so that the byte-level
# documentation in ``docs/protocol/wire.md`` has a single source to be checked against.


PROTOCOL_VERSION = 2
"""Bumped on any change that an older peer would decode differently. Version 2 plays every game
at the mental card table (types 60–67): version 1's dealt-deck types (10–16), its ``round_reveal``
(21), ``ready`` (22) and unsigned receipts (``ack``, 30) are gone, their numbers never reused."""

MAX_MESSAGE_SIZE = 64 * 1024
"""Upper bound of one encoded message, checked before any parsing."""

MAX_DEPTH = 8
"""Deepest container nesting accepted anywhere in a message (the envelope itself uses 3)."""

HASH_SIZE = 32
KEY_SIZE = 32
SIGNATURE_SIZE = 64
ZERO_HASH = bytes(HASH_SIZE)
"""The previous-message hash of a sender's first message at a table."""

MAX_SEQ = 2**32 - 1

MSG_DOMAIN = b"druids-p2p/v1 msg\x00"
"""Prefixed to the signed bytes so that a message signature is never valid in another context."""

HEAD_DOMAIN = b"druids-p2p/v1 head\x00"
TABLE_DOMAIN = b"druids-p2p/v1 table\x00"
FINGERPRINT_DOMAIN = b"druids-p2p/v1 fingerprint\x00"


class MsgType(IntEnum):
    """Message types. Small ints on the wire; gaps leave room per family without renumbering (and
    keep version 1's retired numbers, 10–16, 21, 22 and 30, from ever meaning something else)."""

    HELLO = 1
    JOIN = 2
    SEAT = 3
    SEAT_CONFIRM = 4
    SEAT_NONCE = 5

    MOVE = 20
    RESULT = 23

    RESEND = 31

    EQUIVOCATION = 40
    ABORT = 41

    CHAT = 50
    """A line of table talk: signed, out of chain, never in the transcript (lan/peer_config.py)."""

    # The mental card table (docs/protocol/deck.md §15.3), in the deck's kind order.
    TABLE_KEY = 60
    TABLE_SHUFFLE = 61
    TABLE_SHARE = 62
    TABLE_PLAY = 63
    TABLE_OPEN = 64
    TABLE_REVEAL = 65
    TABLE_SHOW = 66
    TABLE_SHARES = 67

    @property
    def label(self) -> str:
        """The lower-case name used in documentation, logs and JSON output."""
        return self.name.lower()

    @classmethod
    def parse(cls, value: MsgType | int | str) -> MsgType:
        """Accept the enum, its wire number or its label, so callers can write ``"move"``."""
        if isinstance(value, MsgType):
            return value
        if isinstance(value, str):
            try:
                return cls[value.upper()]
            except KeyError:
                raise ValueError(f"unknown message type {value!r}") from None
        return cls(value)


# Every failure of the wire layer is a :class:`WireError`, so callers that handle untrusted bytes
# need exactly one ``except`` clause; the subclasses exist so that callers can react differently
# (ask for a resend on a gap, broadcast a proof on equivocation, drop the peer on a bad signature).


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
