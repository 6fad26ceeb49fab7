"""In-process deck tables for the deck's tests: the bench's table and codec
(``druids_p2p.bench.deal_table``) plus what only tests need (an honest deal to completion,
reproducible entropy, a cheating seat's rewrite of its own message)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from druids_p2p.deck.peer import DeckPeer, Entropy

from druids_p2p.bench.deal_table import Ed25519Codec, LocalBus, make_codecs, make_table

__all__ = [
    "Ed25519Codec",
    "LocalBus",
    "deal",
    "kind_of",
    "make_codecs",
    "make_table",
    "rewrite",
    "seeded_entropy",
    "thaw",
]


def deal(peers: Sequence[DeckPeer]) -> LocalBus:
    """Run commit, keys, shuffles and shares to completion for an honest table."""
    bus = LocalBus(peers)
    bus.start()
    bus.run()
    return bus


def seeded_entropy(seed: bytes) -> Entropy:
    """A reproducible entropy source for tests and statistics (never for real play)."""
    counter = 0

    def draw(size: int) -> bytes:
        nonlocal counter
        counter += 1
        return hashlib.shake_256(seed + counter.to_bytes(8, "big")).digest(size)

    return draw


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
