"""Unambiguous byte encodings for everything that is hashed (deck.md §3).

Length prefixes make the encoding injective, so two statements never hash alike; the domain tag
makes a hash computed for one purpose useless for any other.
"""

from __future__ import annotations

import hashlib
import struct

from druids_p2p.deck.sodium import scalar_reduce

Item = bytes | int

TAG_COMMIT = b"druids-p2p/v1 deck commit"
TAG_KEY_POK = b"druids-p2p/v1 deck key-pok"
TAG_SHUFFLE_PERM = b"druids-p2p/v1 deck shuffle-perm"
TAG_SHUFFLE_RAND = b"druids-p2p/v1 deck shuffle-rand"
TAG_SHUFFLE_GENERATOR = b"druids-p2p/v1 deck shuffle-generator"
TAG_SHUFFLE_PROOF_RAND = b"druids-p2p/v1 deck shuffle-proof-rand"
TAG_SHUFFLE_U_DIGEST = b"druids-p2p/v1 deck shuffle-statement"
TAG_SHUFFLE_U = b"druids-p2p/v1 deck shuffle-u"
TAG_SHUFFLE_CHALLENGE = b"druids-p2p/v1 deck shuffle-challenge"
TAG_SHUFFLE_WEIGHT = b"druids-p2p/v1 deck shuffle-weight"
TAG_SHARES_BATCH = b"druids-p2p/v1 deck shares-batch"
TAG_SHARES_COEF = b"druids-p2p/v1 deck shares-coef"
TAG_SHARES_DLEQ = b"druids-p2p/v1 deck shares-dleq"
TAG_DEALS_BATCH = b"druids-p2p/v1 deck deals-batch"
TAG_DEALS_DLEQ = b"druids-p2p/v1 deck deals-dleq"
TAG_DEALS_WEIGHT = b"druids-p2p/v1 deck deals-weight"
TAG_OPEN_DLEQ = b"druids-p2p/v1 deck open-dleq"
TAG_NONCE = b"druids-p2p/v1 deck nonce"
TAG_TABLE_SHUFFLE_SEED = b"druids-p2p/v1 table shuffle-seed"
TAG_SALT = b"druids-p2p/v1 deck salt"
TAG_ASSIGN = b"druids-p2p/v1 deck assign"
TAG_ASSIGN_PERM = b"druids-p2p/v1 deck assign-perm"


_INT = struct.Struct(">IQ")
"""An integer item: its length (8) and its 8 bytes, big-endian, packed in one call."""
_LEN = struct.Struct(">I")


def encode(*items: Item) -> bytes:
    """Length-prefixed concatenation; integers must fit in 64 unsigned bits. (Every proof's
    challenge goes through here: one pack per item, no list built item by item.)"""
    return b"".join(
        [
            _INT.pack(8, item) if isinstance(item, int) else _LEN.pack(len(item)) + item
            for item in items
        ]
    )


POINT_PREFIX = _LEN.pack(32)
"""The length prefix of a 32-byte item (a point, a scalar, a digest)."""
INT_PAIR = struct.Struct(">IQIQ")
"""Two integer items, packed in one call: ``INT_PAIR.pack(8, i, 8, j) == encode(i, j)``."""


def encode_int(value: int) -> bytes:
    """``encode(value)`` of one integer."""
    return _INT.pack(8, value)


def encode_bytes(value: bytes) -> bytes:
    """``encode(value)`` of one byte string."""
    return _LEN.pack(len(value)) + value


def encode_points(*values: bytes) -> bytes:
    """``encode(*values)`` for items of exactly 32 bytes (points, scalars, digests this peer
    computed or checked), without a length call per item: the same bytes."""
    return POINT_PREFIX + POINT_PREFIX.join(values) if values else b""


def sha256(tag: bytes, *items: Item) -> bytes:
    return hashlib.sha256(encode(tag, *items)).digest()


def sha512(tag: bytes, *items: Item) -> bytes:
    return hashlib.sha512(encode(tag, *items)).digest()


def hash_to_scalar(tag: bytes, *items: Item) -> bytes:
    """SHA-512 reduced mod the group order: bias below 2^-250, fine for challenges and nonces."""
    return scalar_reduce(hashlib.sha512(encode(tag, *items)).digest())


def hash_encoded_to_scalar(encoded: bytes) -> bytes:
    """:func:`hash_to_scalar` of an input already encoded (a proof's statement, encoded once
    for its nonce and its challenge)."""
    return scalar_reduce(hashlib.sha512(encoded).digest())


def xof(tag: bytes, length: int, *items: Item) -> bytes:
    """``length`` bytes of SHAKE-256; a longer request extends a shorter one (same prefix)."""
    return hashlib.shake_256(encode(tag, *items)).digest(length)


class ByteStream:
    """SHAKE-256 read as an endless byte stream (each refill re-squeezes a longer prefix)."""

    def __init__(self, tag: bytes, *items: bytes | int, initial: int = 256) -> None:
        self._xof = hashlib.shake_256(encode(tag, *items))
        self._size = max(initial, 64)
        self._buf = self._xof.digest(self._size)
        self._pos = 0

    def read(self, count: int) -> bytes:
        while self._pos + count > self._size:
            self._size *= 2
            self._buf = self._xof.digest(self._size)
        out = self._buf[self._pos : self._pos + count]
        self._pos += count
        return out
