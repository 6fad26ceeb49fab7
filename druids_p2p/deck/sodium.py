"""libsodium's ristretto255 functions called through rbcl's own ctypes binding, without its
Python wrappers.

rbcl wraps each libsodium call in a function that checks its arguments' types and lengths
(two ``isinstance`` and two ``len`` calls for an addition) before the one foreign call that
does the work; a move's proofs make hundreds of these calls, so the checks cost more than the
arithmetic. Here the same foreign functions are called directly, which is safe only for
arguments known to be ``bytes`` of the right length: every point and scalar handed to these
functions is either one this peer computed (libsodium's own output, a hash's digest) or a
received one that :func:`druids_p2p.deck.group.is_element` or
:func:`~druids_p2p.deck.group.is_canonical_scalar` accepted first (both check the type and the
32 bytes). Nothing that arrives over the wire reaches them unchecked; :mod:`druids_p2p.deck.group`
is their one caller.
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
