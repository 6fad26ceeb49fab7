"""What a seated peer does with a frame before any signature work: count it against its link's
rate limit, and never decode the same bytes twice.

Decoding a frame checks its Ed25519 signature (about 0.17 ms here): before this guard a seated
peer relaying one signed frame again and again cost every victim a core at ~6,000 frames a
second, unbounded and unblamed. Now (protocol.md §9, "Floods"):

* every frame over a seated peer's link takes a token from that link's bucket
  (:data:`LINK_BURST` at once, :data:`LINK_PER_S` a second after that, many times an honest
  peer's peak); the frame that finds the bucket empty cuts the link off (everything from it is
  dropped unread from then on) and stops the table blaming the link's seat, with the count and
  the window: a local verdict, since a CURVE link's authentication convinces only its two ends;
* a frame whose bytes (by SHA-256) are in the cache of the last :data:`SEEN_FRAMES` frames
  decoded is not decoded again: its decoding is a function of its bytes alone, so the cached
  message (or refusal) is handed on as it was the first time. What a repeat does is therefore
  what a copy did before (a copy of a message the record holds changes nothing; a copy of one
  held for its step is held already), without the signature check.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from druids_p2p.lan.network import TokenBucket
from druids_p2p.peer.deadlines import who
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_types import TableFault
from druids_p2p.wire import Message, WireError, decode

LINK_BURST = 8192
"""Frames one link may bring back to back: an honest link's busiest second measured 847 frames
(a resend catch-up at 30% loss), the largest catch-up burst allowed is 2048 (protocol.md §9)."""
LINK_PER_S = 1024.0
"""Frames a second one link may bring after the burst: what a seat just under the limit costs
each peer at most (~0.17 s of signature checks a second)."""
SEEN_FRAMES = 4096
"""Decoded frames kept (the most recently seen)."""
SEEN_BYTES = 8 * 1024 * 1024
"""At most this many bytes of frames kept with them (a shuffle is up to 32 KiB)."""


@dataclass
class LinkCount:
    """One link's bucket and what it has brought: since the bucket was last full (the verdict's
    count and window) and its busiest second (the honest peak the limit is measured against)."""

    bucket: TokenBucket
    frames: int = 0
    since: float = 0.0
    peak: int = 0
    """Most frames taken since the bucket was last full."""
    recent: deque[float] = field(default_factory=deque)
    busiest: int = 0
    """Most frames in any one second."""


class FrameGuard:
    """A seated peer's rate limit per link and its cache of decoded frames (module docstring)."""

    def __init__(
        self,
        machine: TableMachine,
        clock: Callable[[], float],
        burst: int = LINK_BURST,
        per_s: float = LINK_PER_S,
        seen: int = SEEN_FRAMES,
        seen_bytes: int = SEEN_BYTES,
    ) -> None:
        self.machine = machine
        self.clock = clock
        self.burst = burst
        self.per_s = per_s
        self.seen = seen
        self.seen_bytes = seen_bytes
        self._links: dict[bytes, LinkCount] = {}
        self.cut_off: set[bytes] = set()
        """Seats whose links went past the limit: their frames are dropped unread."""
        self._decoded: OrderedDict[bytes, tuple[Message | WireError, int]] = OrderedDict()
        self._kept = 0
        self.decodes = 0
        self.repeats = 0
        """Frames not decoded because their bytes were decoded before (reported in the result)."""
        self.dropped = 0
        """Frames dropped unread from a link cut off."""

    def admit(self, link: bytes | None, blame: bool = True) -> bool:
        """Count one frame over ``link`` (the seat its CURVE key is booked to; None before every
        seat's confirmation is in, §4: not counted). False: drop it unread. The frame that
        finds the bucket empty cuts the link off and, with ``blame``, raises the
        :class:`TableFault` that stops the table blaming its seat."""
        if link is None:
            return True
        if link in self.cut_off:
            self.dropped += 1
            return False
        count = self._count(link)
        now = self.clock()
        bucket = count.bucket
        if not bucket.take():
            self.cut_off.add(link)
            self.dropped += 1
            if blame:
                raise self._verdict(link, count.frames + 1, now - count.since)
            return False
        if bucket.tokens >= bucket.capacity - 1.0 - 1e-9:
            count.frames, count.since = 0, now  # the bucket was full: a new window
        count.frames += 1
        count.peak = max(count.peak, count.frames)
        recent = count.recent
        recent.append(now)
        while recent and recent[0] <= now - 1.0:
            recent.popleft()
        count.busiest = max(count.busiest, len(recent))
        return True

    def decode(self, raw: bytes) -> Message:
        """``wire.decode(raw)``, from the cache when these bytes were decoded before (a refusal
        is raised again the same way)."""
        digest = hashlib.sha256(raw).digest()
        hit = self._decoded.get(digest)
        if hit is None:
            self.decodes += 1
            try:
                outcome: Message | WireError = decode(raw)
            except WireError as exc:
                outcome = exc
            self._keep(digest, outcome, len(raw))
        else:
            self.repeats += 1
            self._decoded.move_to_end(digest)
            outcome = hit[0]
        if isinstance(outcome, WireError):
            raise outcome.with_traceback(None)  # the same refusal, its old traceback dropped
        return outcome

    def stats(self) -> dict[str, Any]:
        """For the peer's result: the links' busiest figures, beside the limit."""
        counts = self._links.values()
        return {
            "peak_frames": max((c.peak for c in counts), default=0),
            "busiest_second": max((c.busiest for c in counts), default=0),
            "limit": [self.burst, self.per_s],
            "repeats": self.repeats,
            "cut_off": sorted(self.machine.names.get(k, "?") for k in self.cut_off),
        }

    def _count(self, link: bytes) -> LinkCount:
        count = self._links.get(link)
        if count is None:
            bucket = TokenBucket(float(self.burst), self.per_s, self.clock)
            count = self._links[link] = LinkCount(bucket, since=bucket.stamp)
        return count

    def _keep(self, digest: bytes, outcome: Message | WireError, size: int) -> None:
        self._decoded[digest] = (outcome, size)
        self._kept += size
        while len(self._decoded) > self.seen or self._kept > self.seen_bytes:
            _, (_, gone) = self._decoded.popitem(last=False)
            self._kept -= gone

    def _verdict(self, link: bytes, frames: int, window_s: float) -> TableFault:
        machine = self.machine
        seat = machine.seat_of(link) if link in machine.list_keys else None
        return TableFault(
            f"{who(machine, link)} flooded this peer: {frames} frames over its link in "
            f"{window_s:.1f} s (limit {self.burst} at once, then {self.per_s:.0f} a second); "
            "its link is cut off",
            seat,
        )


__all__ = ["LINK_BURST", "LINK_PER_S", "SEEN_BYTES", "SEEN_FRAMES", "FrameGuard", "LinkCount"]
