"""Facts about Ed25519 public keys that the protocol relies on, independent of where keys live."""

from __future__ import annotations

import hashlib

from druids_p2p.wire.msgtypes import FINGERPRINT_DOMAIN

# Encodings of the points of order 1, 2, 4 and 8 (and non-canonical spellings of them), as in
# libsodium's blocklist; compared with the sign bit masked off. A signature "by" such a key can be
# forged by anyone, which would let its owner deny its own messages, so such keys are never seated.
_SMALL_ORDER = tuple(
    bytes.fromhex(h)
    for h in (
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    )
)


def is_weak_key(public_key: bytes) -> bool:
    """True for the small-order public keys whose signatures prove nothing."""
    masked = public_key[:31] + bytes([public_key[31] & 0x7F]) if len(public_key) == 32 else b""
    return masked in _SMALL_ORDER


def fingerprint(public_key: bytes) -> str:
    """A short form of a key for people to compare aloud: 80 bits, five groups of four hex digits.

    Domain-separated so that it can never be mistaken for (or collide with) a table or message hash.
    """
    digest = hashlib.sha256(FINGERPRINT_DOMAIN + public_key).hexdigest()[:20]
    return "-".join(digest[i : i + 4] for i in range(0, 20, 4))
