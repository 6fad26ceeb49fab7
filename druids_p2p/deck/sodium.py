"""libsodium's ristretto255 functions through rbcl's ctypes binding, without its Python wrappers.

rbcl's per-call type and length checks cost more than the arithmetic. Safe only because
:mod:`druids_p2p.deck.group`, the one caller, hands them values it computed or has already
checked (``is_element``, ``is_canonical_scalar``): nothing from the wire arrives unchecked.
"""

from __future__ import annotations

import ctypes

from rbcl.rbcl import _sodium

BYTES = 32
_Buffer = ctypes.c_char * BYTES


def scalarmult(scalar: bytes, point: bytes) -> bytes | None:
    """scalar·point (libsodium's ``crypto_scalarmult_ristretto255``); None where libsodium
    fails (a zero scalar, or a result that is the identity)."""
    out = _Buffer()
    if _sodium.crypto_scalarmult_ristretto255(out, scalar, point) != 0:
        return None
    return out.raw


def scalarmult_base(scalar: bytes) -> bytes | None:
    """scalar·B; None for a zero scalar (libsodium's ``-1``)."""
    out = _Buffer()
    if _sodium.crypto_scalarmult_ristretto255_base(out, scalar) != 0:
        return None
    return out.raw


def add(p: bytes, q: bytes) -> bytes:
    """p + q (no check of either input: libsodium does none, see the module docstring)."""
    out = _Buffer()
    _sodium.crypto_core_ristretto255_add(out, p, q)
    return out.raw


def sub(p: bytes, q: bytes) -> bytes:
    """p − q (no check of either input)."""
    out = _Buffer()
    _sodium.crypto_core_ristretto255_sub(out, p, q)
    return out.raw


def scalar_reduce(wide: bytes) -> bytes:
    """64 bytes (a SHA-512 digest, an XOF's chunk) reduced mod l."""
    if len(wide) != 64:
        raise ValueError("scalar_reduce takes 64 bytes")
    out = _Buffer()
    _sodium.crypto_core_ristretto255_scalar_reduce(out, wide)
    return out.raw


def is_valid_point(p: bytes) -> bool:
    """libsodium's decoding check of 32 bytes (it accepts the identity; see ``group``)."""
    return bool(_sodium.crypto_core_ristretto255_is_valid_point(p) == 1)


def scalar_add(x: bytes, y: bytes) -> bytes:
    """x + y mod l."""
    out = _Buffer()
    _sodium.crypto_core_ristretto255_scalar_add(out, x, y)
    return out.raw


def scalar_mul(x: bytes, y: bytes) -> bytes:
    """x·y mod l."""
    out = _Buffer()
    _sodium.crypto_core_ristretto255_scalar_mul(out, x, y)
    return out.raw


def scalar_negate(x: bytes) -> bytes:
    """−x mod l."""
    out = _Buffer()
    _sodium.crypto_core_ristretto255_scalar_negate(out, x)
    return out.raw
