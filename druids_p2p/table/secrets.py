"""Per-table secrets, kept on disk so a restarted peer re-derives exactly what it sent before.

Everything random a peer contributes to a table (its seat-order nonce, each round's key share,
shuffle seed and proof nonces) is drawn from a deterministic stream keyed by one 32-byte table
secret. Written (mode 0600) before the first message that depends on it leaves the process, it lets
a peer killed mid-round rebuild its state from its record and re-send byte-identical messages
(Ed25519 signatures are deterministic too), so a restart can never look like equivocation.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from druids_p2p.wire.record import sync_dir

Entropy = Callable[[int], bytes]

SECRET_SIZE = 32


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner can read (mode 0600), durably and atomically: a crash leaves
    either the old file or the new one, never a torn secret (the rename is synced too: a table
    secret lost in a power cut would make a restarted peer sign other messages for its slots)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    sync_dir(path.parent)


class TableSecret:
    """The root secret of one peer at one table, and the streams derived from it."""

    def __init__(self, root: bytes) -> None:
        if len(root) != SECRET_SIZE:
            raise ValueError("a table secret is 32 bytes")
        self._root = root

    @classmethod
    def load_or_create(cls, path: Path) -> TableSecret:
        """Read the secret at ``path`` or create it there (0600) with fresh OS randomness."""
        if path.exists():
            data = path.read_bytes()
            if len(data) != SECRET_SIZE:
                raise ValueError(f"{path}: a table secret must be {SECRET_SIZE} bytes")
            return cls(data)
        path.parent.mkdir(parents=True, exist_ok=True)
        root = secrets.token_bytes(SECRET_SIZE)
        write_private(path, root)
        return cls(root)

    def derive(self, label: str) -> bytes:
        return hmac.new(self._root, b"druids-p2p/v1 " + label.encode(), hashlib.sha256).digest()

    def seat_nonce(self) -> bytes:
        """The nonce this peer contributes to the seat-order coin flip."""
        return self.derive("seat-nonce")

    def entropy(self, label: str) -> Entropy:
        """A deterministic byte stream (HMAC-SHA256 in counter mode) for one purpose."""
        key = self.derive(label)
        counter = 0

        def draw(size: int) -> bytes:
            nonlocal counter
            out = b""
            while len(out) < size:
                counter += 1
                out += hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
            return out[:size]

        return draw

    def __repr__(self) -> str:  # never print the secret
        return "TableSecret(<hidden>)"
