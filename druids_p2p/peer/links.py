"""A seated peer's links to the other seats and what crosses them outside the machine's steps:
where each seat is reached (its own signed seat_confirm, never the host's word), a rate limit per
link and no frame decoded twice before any signature work (a relayed flood would cost every victim
a core), the runner's control messages, and resend requests asked and answered within bounds
(protocol.md §8, §9).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from druids_p2p.lan.mesh import MeshPort
from druids_p2p.lan.network import TokenBucket
from druids_p2p.peer.deadlines import who
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import ZERO_HASH, Message, MsgType, WireError, decode, encode

__all__ = [
    "LINK_BURST",
    "LINK_PER_S",
    "RESEND_BURST",
    "RESEND_MAX_MESSAGES",
    "RESEND_PER_S",
    "SEEN_BYTES",
    "SEEN_FRAMES",
    "CatchUp",
    "FrameGuard",
    "LinkCount",
    "LinkError",
    "Links",
    "ResendLimiter",
    "Resends",
    "bounded",
    "broadcast",
    "control",
]


log = logging.getLogger(__name__)


# A seated peer's links to the other seats, from each peer's own signed word.
class LinkError(Exception):
    """The seat message does not say where the peers are (one line for the user)."""


class Links:
    """DEALERs, inbox gate and link attribution of one seated peer."""

    def __init__(self, mesh: MeshPort, machine: TableMachine) -> None:
        self.mesh = mesh
        self.machine = machine
        self.key_of_link: dict[bytes, bytes] = {}
        """Raw CURVE key of an authenticated link -> the seat key whose own confirmation names
        it. Empty until every confirmation is in."""
        self.settled = False
        """True once the links come from every seat's confirmation and the gate is closed."""
        self.listed: dict[bytes, bytes] = {}
        """Until then, raw CURVE key -> seat key as the seat list has them, once it is every
        seat's own word (one key per seat): whose link a frame came over, for liveness only."""

    def start(self) -> None:
        """Open the DEALERs at the listed addresses and close the gate to the listed keys (when
        the list is the seats' own word; else the table stops on it anyway), or, when every
        confirmation is already known (a restarted peer's record), set the links from them."""
        machine = self.machine
        body = machine.seat_message.body
        if "endpoints" not in body or "curves" not in body:
            raise LinkError("the seat message does not say where the peers are")
        listed = zip(machine.list_keys, body["endpoints"], body["curves"], strict=True)
        for key, endpoint, curve in listed:
            if key != machine.me:
                self.mesh.connect(key, endpoint, curve)
        if machine.seat_fault is None:
            self.mesh.close_gate(body["curves"])
            self.listed = dict(zip(body["curves"], machine.list_keys, strict=True))
        self.update()

    def seat_of(self, curve: bytes) -> bytes | None:
        """The seat whose link authenticated ``curve``: from the confirmations once settled,
        before that from the seat list (each seat's own word)."""
        return self.key_of_link.get(curve) if self.settled else self.listed.get(curve)

    def update(self) -> bool:
        """Once every seat's confirmation is in: the links from them. True when this call set
        them (cheap otherwise: called after every batch of messages until then)."""
        if self.settled:
            return False
        confirmed = self.machine.confirmed_addresses()
        if confirmed is None:
            return False
        for key, endpoint, curve in confirmed:
            self.key_of_link[curve] = key
            if key != self.machine.me:
                self.mesh.connect(key, endpoint, curve)
        self.mesh.close_gate(curve for _, _, curve in confirmed)
        self.settled = True
        return True


# Answering ``resend`` requests within bounds, and asking again when an answer was cut short.
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


def broadcast(mesh: MeshPort, raws: list[bytes], first: Sequence[bytes] = ()) -> None:
    """Each of ``raws`` to every other seat, in order; to the seats ``first`` before the others
    (a move to the seat that moves next: the others' copies are off the game's critical path)."""
    for raw in raws:
        for key in first:
            mesh.send(key, raw)
        mesh.broadcast(raw, exclude=first)


def control(
    machine: TableMachine, msg_type: MsgType, body: dict[str, object], chain: bool
) -> bytes:
    """One of the runner's control messages (hello, resend, equivocation, abort); ``chain`` makes
    it the next message of this peer's chain (an abort), sealed and recorded by the machine."""
    if chain:
        return machine.seal_control(msg_type, body)
    # Out-of-chain control messages carry seq 0 and a zero prev: they are never appended to
    # a transcript, take no slot, and a proof quoting one is refused (wire/envelope.py).
    return encode(
        machine.identity,
        msg_type,
        table_id=machine.table_id,
        seq=0,
        prev=ZERO_HASH,
        head=machine.head,
        body=body,
    )


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


class Resends:
    """This peer's resend requests and its answers to the others' (module docstring)."""

    def __init__(self, mesh: MeshPort, machine: TableMachine) -> None:
        self.mesh = mesh
        self.machine = machine
        self.limiter = ResendLimiter()
        self.catch_up = CatchUp()

    def answer(self, msg: Message) -> None:
        """At most ``RESEND_MAX_MESSAGES`` frames per answer, and a bounded rate of answers
        per requesting seat: a request costs its sender one frame."""
        if not self.limiter.allow(msg.sender):
            log.info("a resend request from %s came too fast: unanswered", msg.sender.hex()[:12])
            return
        machine = self.machine
        if "head" in msg.body:
            raws = machine.answer_resend(msg.body["head"])
        else:
            raws = machine.messages_since(msg.body["sender"], msg.body["seq"])
        for raw in bounded(raws):
            self.mesh.send(msg.sender, raw, both_links=True)

    def ask(self, key: bytes, head: bytes | None = None) -> None:
        """Ask ``key`` for what it holds after ``head`` (by default our transcript's head)."""
        body: dict[str, object] = {"head": self.machine.head if head is None else head}
        raw = control(self.machine, MsgType.RESEND, body, chain=False)
        self.mesh.send(key, raw, both_links=True)
        self.catch_up.asked(key)

    def ask_everyone(self, head: bytes | None = None, but: bytes | None = None) -> None:
        """Ask every other seat (``but`` one) for what it holds after ``head``."""
        for key in self.machine.list_keys:
            if key not in (self.machine.me, but):
                self.ask(key, head)


# What a seated peer does with a frame before any signature work: count it against its link's
# rate limit, and never decode the same bytes twice.
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
