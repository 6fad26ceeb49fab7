"""In-process tables: N peers passing messages through a FIFO broadcast, for tests and the bench.

Real play goes through ``druids_p2p.net``; this stands in for it with the same semantics (every
message goes to every other seat, possibly interleaved) and measures each peer's CPU separately.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.peer import DeckPeer, Entropy
from druids_p2p.deck.signing import Ed25519Codec, make_test_codecs


def make_table(
    params: DeckParams,
    entropy: Callable[[int], Entropy] | None = None,
    codecs: Sequence[Ed25519Codec] | None = None,
) -> list[DeckPeer]:
    """One peer per seat (fresh Ed25519 identities unless given); ``entropy(seat)`` for tests."""
    if codecs is None:
        codecs = make_test_codecs(params)
    return [
        DeckPeer(params, codec, entropy=os.urandom if entropy is None else entropy(seat))
        for seat, codec in enumerate(codecs)
    ]


class LocalBus:
    """Delivers broadcasts in FIFO order and accounts CPU time to the peer doing the work."""

    def __init__(self, peers: Sequence[DeckPeer]) -> None:
        self.peers = list(peers)
        self.queue: deque[tuple[int, bytes]] = deque()
        self.cpu_ns = [0] * len(self.peers)
        self.messages = 0
        self.bytes = 0

    def call(self, seat: int, fn: Callable[[], list[bytes]]) -> list[bytes]:
        """Run ``fn`` as seat ``seat``'s work and queue what it sends."""
        t0 = time.process_time_ns()
        out = fn()
        self.cpu_ns[seat] += time.process_time_ns() - t0
        self.post(seat, out)
        return out

    def post(self, sender: int, raws: Sequence[bytes]) -> None:
        for raw in raws:
            self.queue.append((sender, raw))
            self.messages += 1
            self.bytes += len(raw)

    def run(self, intercept: Callable[[int, bytes], bytes | None] | None = None) -> None:
        """Deliver until quiet. ``intercept(sender, raw)`` may replace or drop (None) a message."""
        while self.queue:
            sender, raw = self.queue.popleft()
            if intercept is not None:
                changed = intercept(sender, raw)
                if changed is None:
                    continue
                raw = changed
            for peer in self.peers:
                if peer.seat != sender:
                    self.call(peer.seat, lambda p=peer, r=raw: p.receive(r))  # type: ignore[misc]

    def start(self) -> None:
        for peer in self.peers:
            self.call(peer.seat, peer.start)


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
