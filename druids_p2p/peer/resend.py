"""Answering ``resend`` requests within bounds, and asking again when an answer was cut short.

A ``resend`` costs its sender one small signed frame and can cost the answerer its whole
transcript (a game is hundreds of messages, a shuffle up to 32 KiB each): unbounded, one seated
peer could make every other one flood its own links. So (protocol.md §8):

* one answer carries at most :data:`RESEND_MAX_MESSAGES` frames, the oldest first; a requester
  that receives that many new frames over the answerer's link after asking asks again from its
  new head (and so catches up in batches, at link speed; a copy of a frame already received,
  as every answer sent over both links brings, is not counted);
* each peer's requests are answered at most :data:`RESEND_BURST` at once and
  :data:`RESEND_PER_S` per second after that (a token bucket per requesting seat); a request
  beyond that is dropped, unanswered (an honest peer asks at most about once a second per peer,
  and asks again if it still needs to).

The clock is injectable so that the tests can drive the bucket without waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from druids_p2p.lan.network import TokenBucket

RESEND_MAX_MESSAGES = 128
"""Frames in one answer to a ``resend``: every step of a round fits, a whole game does not."""
RESEND_BURST = 8
"""Requests from one peer answered back to back (a rejoining peer catching up a whole game)."""
RESEND_PER_S = 2.0
"""Requests from one peer answered per second after the burst (an honest peer nudges once)."""


class ResendLimiter:
    """One token bucket per requesting seat (only seated keys get this far: at most 7)."""

    def __init__(
        self,
        burst: float = RESEND_BURST,
        per_s: float = RESEND_PER_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = burst
        self.per_s = per_s
        self.clock = clock
        self._buckets: dict[bytes, TokenBucket] = {}
        self.refused = 0
        """Requests dropped for coming too fast (reported in the peer's result)."""

    def allow(self, key: bytes) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.burst, self.per_s, self.clock)
        if bucket.take():
            return True
        self.refused += 1
        return False


def bounded(raws: list[bytes], limit: int = RESEND_MAX_MESSAGES) -> list[bytes]:
    """The first ``limit`` frames of an answer (the oldest: the requester appends in order)."""
    return raws[:limit]


class CatchUp:
    """Which peers this peer asked for a resend, and how many frames came over each link since:
    a full answer's worth means the answer may have been cut short, so ask again."""

    def __init__(self, limit: int = RESEND_MAX_MESSAGES) -> None:
        self.limit = limit
        self._received: dict[bytes, int] = {}

    def asked(self, key: bytes) -> None:
        self._received[key] = 0

    def heard(self, key: bytes | None) -> bool:
        """A frame came over ``key``'s link; True when it is time to ask that peer again."""
        if key is None or key not in self._received:
            return False
        self._received[key] += 1
        if self._received[key] < self.limit:
            return False
        self._received[key] = 0
        return True

    def forget(self) -> None:
        """Nothing is outstanding any more (the table made no progress for a while: the
        liveness check asks afresh whom it still waits for)."""
        self._received.clear()


__all__ = [
    "RESEND_BURST",
    "RESEND_MAX_MESSAGES",
    "RESEND_PER_S",
    "CatchUp",
    "ResendLimiter",
    "bounded",
]
