"""Unambiguous byte encodings for everything that is hashed.

Every hash input is a domain tag followed by items, each written as a 4-byte big-endian length and
the item bytes (integers first become 8 bytes big-endian). Length prefixes make the encoding
injective, so two different statements can never hash the same way; the tag makes a hash computed
for one purpose (a commitment, a proof challenge, a shuffle stream) useless for any other.
"""

from __future__ import annotations

import hashlib

import rbcl

Item = bytes | int

TAG_CARD = b"druids-p2p/v1 card"
TAG_COMMIT = b"druids-p2p/v1 deck commit"
TAG_KEY_POK = b"druids-p2p/v1 deck key-pok"
TAG_SHUFFLE_PERM = b"druids-p2p/v1 deck shuffle-perm"
TAG_SHUFFLE_RAND = b"druids-p2p/v1 deck shuffle-rand"
TAG_SHARES_BATCH = b"druids-p2p/v1 deck shares-batch"
TAG_SHARES_COEF = b"druids-p2p/v1 deck shares-coef"
TAG_SHARES_DLEQ = b"druids-p2p/v1 deck shares-dleq"
TAG_OPEN_DLEQ = b"druids-p2p/v1 deck open-dleq"
TAG_NONCE = b"druids-p2p/v1 deck nonce"
TAG_SALT = b"druids-p2p/v1 deck salt"
TAG_ASSIGN = b"druids-p2p/v1 deck assign"
TAG_ASSIGN_PERM = b"druids-p2p/v1 deck assign-perm"


def encode(*items: Item) -> bytes:
    """Length-prefixed concatenation; integers must fit in 64 unsigned bits."""
    parts: list[bytes] = []
    for item in items:
        data = item.to_bytes(8, "big") if isinstance(item, int) else item
        parts.append(len(data).to_bytes(4, "big"))
        parts.append(data)
    return b"".join(parts)


def sha256(tag: bytes, *items: Item) -> bytes:
    return hashlib.sha256(encode(tag, *items)).digest()


def sha512(tag: bytes, *items: Item) -> bytes:
    return hashlib.sha512(encode(tag, *items)).digest()


def hash_to_scalar(tag: bytes, *items: Item) -> bytes:
    """SHA-512 reduced mod the group order: bias below 2^-250, fine for challenges and nonces."""
    out: bytes = rbcl.crypto_core_ristretto255_scalar_reduce(sha512(tag, *items))
    return out


def xof(tag: bytes, length: int, *items: Item) -> bytes:
    """``length`` bytes of SHAKE-256; a longer request extends a shorter one (same prefix)."""
    return hashlib.shake_256(encode(tag, *items)).digest(length)
