"""``druids bench wire``: how fast this machine signs and verifies move messages, the wire layer's
share of a move's cost (every peer decodes every other peer's move, so ``decode_per_s`` bounds
moves per second). Only the bench uses it, so it lives with the bench, not in ``wire``."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from druids_p2p.wire.envelope import decode, encode
from druids_p2p.wire.identity import Identity
from druids_p2p.wire.msgtypes import MsgType


@dataclass(frozen=True)
class WireBench:
    n: int
    message_bytes: int
    encode_per_s: float
    decode_per_s: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "message_bytes": self.message_bytes,
            "encode_per_s": round(self.encode_per_s, 1),
            "decode_per_s": round(self.decode_per_s, 1),
        }


def bench_wire(n: int) -> WireBench:
    identity = Identity.from_seed(hashlib.sha256(b"druids-p2p bench").digest(), "bench")
    table_id = hashlib.sha256(b"table").digest()
    head = hashlib.sha256(b"head").digest()
    prevs = [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(n)]
    body = {"round": 2, "move": "Gaia:R"}
    start = time.perf_counter()
    raws = [
        encode(identity, MsgType.MOVE, table_id=table_id, seq=i + 1, prev=p, head=head, body=body)
        for i, p in enumerate(prevs)
    ]
    mid = time.perf_counter()
    for raw in raws:
        decode(raw)
    end = time.perf_counter()
    return WireBench(
        n=n,
        message_bytes=len(raws[0]),
        encode_per_s=n / max(mid - start, 1e-9),
        decode_per_s=n / max(end - mid, 1e-9),
    )
