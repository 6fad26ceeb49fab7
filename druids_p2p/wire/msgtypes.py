"""Protocol constants shared by every wire module, kept in one place so that the byte-level
documentation in ``docs/protocol/wire.md`` has a single source to be checked against.
"""

from __future__ import annotations

from enum import IntEnum

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
    """A line of table talk: signed, out of chain, never in the transcript (lan/chat.py)."""

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
