"""The keys and table secrets of the protocol documents' vectors (protocol.md §4, §8; wire.md
§11), shared by the modules that compute them."""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from druids_p2p.wire import Identity


def seat_root(seat: int) -> bytes:
    """Seat ``seat``'s 32-byte table secret in the vectors."""
    return hashlib.sha256(b"druids-p2p vector table secret %d" % seat).digest()


def identity(seat: int) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(b"druids-p2p vector identity %d" % seat).digest()
    )


ALICE = Identity.from_seed(bytes(range(32)), "alice")
BOB = Identity.from_seed(bytes(range(32, 64)), "bob")
CAROL = Identity.from_seed(bytes(range(64, 96)), "carol")
"""wire.md §11's three identities."""
