"""Protocol constants shared by every wire module, kept in one place so that the byte-level
documentation in ``docs/protocol/wire.md`` has a single source to be checked against.
"""

from __future__ import annotations

from enum import IntEnum

PROTOCOL_VERSION = 1
"""Bumped on any change that an older peer would decode differently."""

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
    """Message types. Small ints on the wire; gaps leave room per family without renumbering."""

    HELLO = 1
    JOIN = 2
    SEAT = 3
    SEAT_CONFIRM = 4
    SEAT_NONCE = 5

    DECK_COMMIT = 10
    DECK_KEY = 11
    DECK_SHUFFLE = 12
    DECK_SHARES = 13
    DECK_OPEN = 14
    DECK_REVEAL = 15
    DECK_SALT = 16

    MOVE = 20
    ROUND_REVEAL = 21
    READY = 22
    RESULT = 23

    ACK = 30
    RESEND = 31

    EQUIVOCATION = 40
    ABORT = 41

    CHAT = 50
    """A line of table talk: signed, out of chain, never in the transcript (net/chat.py)."""

    # The mental card table (docs/protocol/deck.md §15.3), in the deck's kind order.
    TABLE_KEY = 60
    TABLE_SHUFFLE = 61
    TABLE_SHARE = 62
    TABLE_PLAY = 63
    TABLE_OPEN = 64
    TABLE_REVEAL = 65
    TABLE_SHOW = 66

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
