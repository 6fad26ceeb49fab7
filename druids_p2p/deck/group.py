"""ristretto255 through libsodium (deck/sodium.py), with the checks libsodium leaves to the caller.

ristretto255 has prime order and canonical encodings, so "is this an element" is one decode (why
not secp256k1, and the libsodium pitfalls each received value is checked against: deck.md §3).
Points and scalars stay plain 32-byte ``bytes``: wrapping them measurably slows the hot loops.
"""

from __future__ import annotations

import hashlib

from druids_p2p.deck import sodium
from druids_p2p.deck.encoding import Item, encode
from druids_p2p.deck.errors import GroupError

POINT_BYTES = 32
SCALAR_BYTES = 32
ORDER = 2**252 + 27742317777372353535851937790883648493
"""The prime order l of ristretto255."""

IDENTITY = bytes(POINT_BYTES)
ONE = (1).to_bytes(SCALAR_BYTES, "little")
BASE = bytes.fromhex("e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76")
"""The generator B (RFC 9496 §4.4, its encoding in Appendix A.1): ``base_mul(ONE)``."""

add = sodium.add
"""Point addition; inputs must already be valid encodings (libsodium does not check)."""
sub = sodium.sub
"""Point subtraction; inputs must already be valid encodings (libsodium does not check)."""
scalar_add = sodium.scalar_add
scalar_mul = sodium.scalar_mul
scalar_negate = sodium.scalar_negate
scalar_reduce = sodium.scalar_reduce
"""Reduce 64 bytes (little-endian) mod l."""
_is_valid = sodium.is_valid_point
_mul = sodium.scalarmult
_base = sodium.scalarmult_base
"""(Module attributes, read at each call: ``druids bench deal --ops`` counts through them.)"""
_ZERO = bytes(SCALAR_BYTES)


def is_element(data: object) -> bool:
    """True for the canonical encoding of a group element other than the identity.

    RFC 9496 §4.3.1 allows one encoding per element: the field element s must be canonical and
    non-negative, so the top bit of the last byte is always clear. libsodium masks that bit
    before decoding (a second spelling of every point), so it is refused here."""
    return (
        isinstance(data, bytes)
        and len(data) == POINT_BYTES
        and not data[31] & 0x80
        and data != IDENTITY
        and _is_valid(data)
    )


def is_element_32(data: bytes) -> bool:
    """:func:`is_element` of a value already known to be 32 bytes (a body's shape checked)."""
    return not data[31] & 0x80 and data != IDENTITY and _is_valid(data)


def below_order(data: bytes) -> bool:
    """:func:`is_canonical_scalar` of a value already known to be 32 bytes."""
    return int.from_bytes(data, "little") < ORDER


def is_canonical_scalar(data: object) -> bool:
    """True for 32 little-endian bytes of an integer below l (one spelling per scalar)."""
    return (
        isinstance(data, bytes)
        and len(data) == SCALAR_BYTES
        and int.from_bytes(data, "little") < ORDER
    )


def is_zero_scalar(scalar: bytes) -> bool:
    return scalar == _ZERO


def base_mul(scalar: bytes) -> bytes:
    """``scalar`` times the base point; ``scalar`` must be reduced and non-zero."""
    out = _base(scalar)
    if out is None:
        raise GroupError("base multiplication by a zero scalar")
    return out


def mul(scalar: bytes, point: bytes) -> bytes:
    """``scalar`` times ``point``; fails for a zero scalar or an invalid/identity point."""
    out = _mul(scalar, point)
    if out is None:
        raise GroupError("scalar multiplication gave the identity or met an invalid point")
    return out


def sum_points(points: list[bytes]) -> bytes:
    """Sum of a non-empty list of valid encodings (may be the identity)."""
    acc = points[0]
    plus = add
    for p in points[1:]:
        acc = plus(acc, p)
    return acc


def scalar_from_wide(data: bytes) -> bytes:
    """A uniform scalar from 64 uniform bytes."""
    return scalar_reduce(data)


def hash_to_point(tag: bytes, *items: Item) -> bytes:
    """from_hash(SHA-512(enc(tag, items))) (RFC 9496 §4.3.4): a point nobody knows a discrete
    log of, relative to any other point made this way or to the base point."""
    return sodium.from_hash(hashlib.sha512(encode(tag, *items)).digest())
