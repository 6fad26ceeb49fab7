"""The wire's base: the protocol constants, its failures, and bounded msgpack for untrusted bytes.

One source for docs/protocol/wire.md to be checked against; every failure is a WireError, so code
handling untrusted bytes needs one except clause; every frame is parsed within fixed bounds."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import msgpack

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

    # The mental card table (docs/protocol/deck.md §5), in the deck's kind order.
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

    Canonical encodings and deterministic signatures let the pair alone convict (wire.md §8).
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


# Bounded msgpack parsing for bytes from untrusted peers.
#
# ``msgpack.unpackb`` alone does not give us what we need: it decodes the timestamp extension
# without calling ``ext_hook``, silently keeps the last of duplicate map keys, recurses up to its
# own stack limit, and reports problems through several exception types. So the bytes are first
# walked by an iterative scanner that knows only msgpack headers (bounded work and depth, no
# allocation per item, precise offsets in errors), and only then handed to the C unpacker with
# tight limits.


# Header byte -> size of the big-endian length/count that follows it.
_STR_LEN = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_BIN_LEN = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_ARRAY_LEN = {0xDC: 2, 0xDD: 4}
_MAP_LEN = {0xDE: 2, 0xDF: 4}
# Header byte -> number of payload bytes of a fixed-size scalar.
_FIXED = {
    0xCA: 4,  # float 32
    0xCB: 8,  # float 64
    0xCC: 1,
    0xCD: 2,
    0xCE: 4,
    0xCF: 8,  # uint 8..64
    0xD0: 1,
    0xD1: 2,
    0xD2: 4,
    0xD3: 8,  # int 8..64
}
_EXT = frozenset({0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8})


class _DuplicateKey(Exception):
    pass


def _read_len(data: bytes, pos: int, width: int) -> int:
    if pos + width > len(data):
        raise Malformed(f"truncated length field at offset {pos}")
    return int.from_bytes(data[pos : pos + width], "big")


def scan(data: bytes, max_depth: int) -> None:
    """Check that ``data`` is exactly one well-formed msgpack object without ext types.

    Every declared length is compared with the bytes that remain, so a header claiming four
    billion items is refused at once instead of being trusted by a later stage.
    """
    n = len(data)
    pos = 0
    remaining = [1]  # items still expected in each open container; the bottom is the top level
    while remaining:
        if remaining[-1] == 0:
            remaining.pop()
            continue
        remaining[-1] -= 1
        if pos >= n:
            raise Malformed(f"truncated: object expected at offset {pos}, input ends")
        start = pos
        b = data[pos]
        pos += 1
        count = -1
        skip = 0
        if b <= 0x7F or b >= 0xE0 or b in (0xC0, 0xC2, 0xC3):
            continue  # fixint, negative fixint, nil, false, true
        if b == 0xC4:  # bin 8, first: a deck message is mostly 32-byte points
            if pos >= n:
                raise Malformed(f"truncated length field at offset {pos}")
            skip = data[pos]
            pos += 1
        elif 0x80 <= b <= 0x8F:
            count = 2 * (b & 0x0F)
        elif 0x90 <= b <= 0x9F:
            count = b & 0x0F
        elif 0xA0 <= b <= 0xBF:
            skip = b & 0x1F
        elif b in _STR_LEN:
            skip = _read_len(data, pos, _STR_LEN[b])
            pos += _STR_LEN[b]
        elif b in _BIN_LEN:
            skip = _read_len(data, pos, _BIN_LEN[b])
            pos += _BIN_LEN[b]
        elif b in _ARRAY_LEN:
            count = _read_len(data, pos, _ARRAY_LEN[b])
            pos += _ARRAY_LEN[b]
        elif b in _MAP_LEN:
            count = 2 * _read_len(data, pos, _MAP_LEN[b])
            pos += _MAP_LEN[b]
        elif b in _FIXED:
            skip = _FIXED[b]
        elif b in _EXT:
            raise Malformed(f"msgpack ext type (header 0x{b:02x}) at offset {start} not allowed")
        else:  # 0xC1 is the only byte left: reserved, never used
            raise Malformed(f"invalid msgpack header byte 0x{b:02x} at offset {start}")
        if count >= 0:
            if len(remaining) > max_depth:
                raise Malformed(f"nesting deeper than {max_depth} at offset {start}")
            if count > n - pos:
                raise Malformed(
                    f"container at offset {start} declares {count} items "
                    f"but only {n - pos} bytes remain"
                )
            remaining.append(count)
        else:
            if skip > n - pos:
                raise Malformed(
                    f"value at offset {start} declares {skip} bytes but only {n - pos} remain"
                )
            pos += skip
    if pos != n:
        raise Malformed(f"{n - pos} trailing bytes after the object (offset {pos})")


def _no_ext(code: int, data: bytes) -> Any:
    raise Malformed(f"msgpack ext type {code} not allowed")


def _pairs(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[Any] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"duplicate map key {key!r}")
            seen.add(key)
    return out


def unpack(data: bytes, max_depth: int) -> Any:
    """Parse one object: arrays become tuples, maps dicts with unique str/bytes keys."""
    scan(data, max_depth)
    n = len(data)
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            use_list=False,
            strict_map_key=True,
            object_pairs_hook=_pairs,
            ext_hook=_no_ext,
            max_str_len=n,
            max_bin_len=n,
            max_array_len=n,
            max_map_len=n,
            max_ext_len=0,
        )
    except Malformed:
        raise
    except _DuplicateKey as exc:
        raise Malformed(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise Malformed(f"string is not valid UTF-8 ({exc.reason})") from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise Malformed(f"msgpack: {exc or type(exc).__name__}") from None


def pack(obj: Any) -> bytes:
    """The canonical encoding: shortest headers, bin for bytes, str for text, order as given."""
    out: bytes = msgpack.packb(obj, use_bin_type=True)
    return out


def require_canonical(data: bytes, obj: Any, what: str) -> None:
    """Refuse a second spelling of the same value, so that a message has exactly one hash.

    Without this a relay could re-encode a signed message (say, a longer length header) and make
    an honest sender look like an equivocator, or break every back-link to it.
    """
    again = pack(obj)
    if again != data:
        at = next((i for i, (x, y) in enumerate(zip(again, data, strict=False)) if x != y), None)
        if at is None:
            at = min(len(again), len(data))
        raise Malformed(f"{what}: non-canonical msgpack encoding (first difference at byte {at})")
