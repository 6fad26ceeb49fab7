"""A player's long-term signing identity, in memory. Storage lives in :mod:`.identity_store`."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)
from nacl.bindings import crypto_sign, crypto_sign_seed_keypair

from druids_p2p.wire.bodies import NAME
from druids_p2p.wire.errors import BadShape, IdentityError
from druids_p2p.wire.keys import fingerprint
from druids_p2p.wire.schema import check


def check_name(name: str) -> str:
    """Display names travel in hello/join/seat bodies, so they obey the same bounds as there."""
    try:
        check(NAME, name, "name")
    except BadShape as exc:
        raise IdentityError(f"invalid display name: {exc}") from None
    return name


class Identity:
    """An Ed25519 key pair with the display name its owner chose."""

    __slots__ = ("_key", "_signing", "name", "public_key")

    def __init__(self, key: Ed25519PrivateKey, name: str) -> None:
        self._key = key
        self.name = check_name(name)
        self.public_key: bytes = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        # libsodium's expanded secret key, for signing: Ed25519 signatures are deterministic, so
        # these are the same bytes OpenSSL would produce, in ~60% of the time.
        public, self._signing = crypto_sign_seed_keypair(self.seed())
        if public != self.public_key:
            raise IdentityError("the key pair does not match its own public key")

    @classmethod
    def generate(cls, name: str) -> Identity:
        return cls(Ed25519PrivateKey.generate(), name)

    @classmethod
    def from_seed(cls, seed: bytes, name: str) -> Identity:
        """Rebuild from the 32-byte RFC 8032 secret seed, as stored on disk and in test vectors."""
        if len(seed) != 32:
            raise IdentityError(f"secret key must be 32 bytes, got {len(seed)}")
        return cls(Ed25519PrivateKey.from_private_bytes(seed), name)

    def seed(self) -> bytes:
        return self._key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())

    def with_name(self, name: str) -> Identity:
        return Identity(self._key, name)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, data: bytes) -> bytes:
        """Sign exactly ``data``; domain separation is the caller's job (see ``envelope``)."""
        return crypto_sign(data, self._signing)[:64]

    def __repr__(self) -> str:  # never print the secret
        return f"Identity(name={self.name!r}, fingerprint={self.fingerprint!r})"
