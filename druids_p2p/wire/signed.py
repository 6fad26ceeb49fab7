"""The signed frame shared by wire messages and discovery beacons: ``[signed: bin, sig: bin 64]``.

Both are untrusted bytes from the network, parsed cheapest check first and verified last; keeping
one implementation of that outer layer keeps the two parsers from drifting apart.
"""

from __future__ import annotations

from typing import Any

from nacl.bindings import crypto_sign_open
from nacl.exceptions import BadSignatureError

from druids_p2p.wire.errors import BadShape, BadSignature, TooLarge, WireError
from druids_p2p.wire.safe_msgpack import unpack

ED25519_ORDER = 2**252 + 27742317777372353535851937790883648493
"""The order L of the Ed25519 base point. Signatures with S >= L are refused explicitly (RFC 8032
5.1.7) so that nobody but the signer can produce a second valid signature, hence a second hash."""


def split_signed_frame(data: Any, limit: int, what: str, frame: str) -> tuple[bytes, Any, Any]:
    """Size-check and unpack the outer frame: (the bytes, the frame tuple, the signature item).

    ``what`` names the thing in the size error ("message", "beacon"), ``frame`` the frame in
    shape errors ("frame", "beacon frame"). The signature item is returned unchecked: callers
    check its length and the frame's canonical form in their own order.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise WireError(f"expected bytes, got {type(data).__name__}")
    raw = bytes(data)
    if len(raw) > limit:
        raise TooLarge(f"{what} of {len(raw)} bytes exceeds the {limit} byte limit")
    items = unpack(raw, max_depth=1)
    if not isinstance(items, tuple) or len(items) != 2:
        n = len(items) if isinstance(items, tuple) else type(items).__name__
        raise BadShape(f"{frame}: expected array [signed, signature], got {n}")
    signed, signature = items
    if not isinstance(signed, bytes):
        raise BadShape(f"{frame}: signed part must be bin, got {type(signed).__name__}")
    return raw, items, signature


def verify_signature(
    key: bytes, message: bytes, signature: bytes, label: str, subject: str = ""
) -> None:
    """Strict Ed25519 verification: canonical S first, then the signature over ``message``.

    libsodium's verifier (through PyNaCl) rather than OpenSSL's: it verifies in about half the time
    here (~55 µs against ~105 µs), which is most of a message's cost on a 2-core table, and it is
    strict where OpenSSL is lenient (it also refuses a small-order R and a non-canonical key), so
    the rule every peer applies is the stricter one, written down in ``docs/protocol/wire.md``."""
    if len(signature) != 64 or int.from_bytes(signature[32:], "little") >= ED25519_ORDER:
        raise BadSignature(f"{label}: non-canonical S (>= group order)")
    if len(key) != 32:
        raise BadSignature(f"{label}: a public key is 32 bytes, not {len(key)}")
    try:
        crypto_sign_open(signature + message, key)
    except (BadSignatureError, ValueError):
        raise BadSignature(f"{label} does not verify for {subject}{key.hex()[:16]}…") from None
