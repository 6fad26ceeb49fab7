"""What the deck's tests need beside the benches' in-process tables (``druids_p2p.bench``):
the Ed25519 codec, reproducible entropy, a random scalar, and a cheating seat's rewrite of its own
message."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Any

from druids_p2p.bench.tables import Ed25519Codec, make_codecs
from druids_p2p.deck import group
from druids_p2p.deck.table_peer import Entropy

__all__ = [
    "Ed25519Codec",
    "kind_of",
    "make_codecs",
    "random_scalar",
    "rewrite",
    "seeded_entropy",
    "thaw",
]


def seeded_entropy(seed: bytes) -> Entropy:
    """A reproducible entropy source for tests and statistics (never for real play)."""
    counter = 0

    def draw(size: int) -> bytes:
        nonlocal counter
        counter += 1
        return hashlib.shake_256(seed + counter.to_bytes(8, "big")).digest(size)

    return draw


def random_scalar(entropy: Entropy = os.urandom) -> bytes:
    """A uniform non-zero scalar from 64 bytes of entropy (as a seat's secret is made)."""
    for _ in range(64):
        x = group.scalar_from_wide(entropy(64))
        if not group.is_zero_scalar(x):
            return x
    raise AssertionError("64 zero scalars in a row: the entropy is broken")


def thaw(value: Any) -> Any:
    """Decoded bodies hold tuples; turn them into lists so a test can edit them in place."""
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    return value


def rewrite(codec: Ed25519Codec, raw: bytes, mutate: Callable[[dict[str, Any]], None]) -> bytes:
    """What a cheating seat does: edit one of its own bodies and sign the result."""
    env = codec.open(raw)
    body = thaw(env.body)
    mutate(body)
    return codec.seal(env.kind, body)


def kind_of(codec: Ed25519Codec, raw: bytes) -> str:
    return codec.open(raw).kind
