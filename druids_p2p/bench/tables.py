"""In-process card tables for the benches and the deck's tests: seats passing messages through a
FIFO, each signed and checked by an Ed25519 codec, with the deck's ristretto255 operations
counted, so a deal is measured without sockets."""

from __future__ import annotations

import contextlib
import hashlib
import os
import statistics
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from druids_p2p.deck import group, shuffle_proof, sodium
from druids_p2p.deck.body_schema import Body
from druids_p2p.deck.errors import MalformedMessage
from druids_p2p.deck.params import MAX_CARDS, DeckParams
from druids_p2p.deck.table_messages import PLAY, SHOW, Envelope, TableOp
from druids_p2p.deck.table_peer import Entropy, TablePeer

ENVELOPE_DOMAIN = b"druids-p2p/v1 deck-envelope\x00"
MAX_ENVELOPE = 64 * 1024
SIGNATURE_BYTES = 64


def _unpack(data: bytes) -> Any:
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            use_list=False,
            strict_map_key=True,
            max_str_len=len(data),
            max_bin_len=len(data),
            max_array_len=len(data),
            max_map_len=len(data),
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack reports problems through many exception types
        raise MalformedMessage(f"not valid msgpack: {type(exc).__name__}") from None


class Ed25519Codec:
    """The in-process stand-in for the wire envelope (``docs/protocol/deck.md`` §4): raw =
    msgpack [payload, signature], Ed25519 over canonical msgpack of {body, kind, round, seat,
    table}. Not a wire format: tables use ``table.codec``."""

    def __init__(
        self,
        params: DeckParams,
        seat: int,
        private_key: Ed25519PrivateKey,
        public_keys: Sequence[Ed25519PublicKey],
    ) -> None:
        self._params = params
        self._seat = seat
        self._private = private_key
        self._public = tuple(public_keys)

    def __repr__(self) -> str:
        return f"Ed25519Codec(seat={self._seat})"

    @property
    def seat(self) -> int:
        return self._seat

    @property
    def public_keys(self) -> tuple[Ed25519PublicKey, ...]:
        return self._public

    def seal(self, kind: str, body: Body) -> bytes:
        payload: bytes = msgpack.packb(
            {
                "body": body,
                "kind": kind,
                "round": self._params.round_no,
                "seat": self._seat,
                "table": self._params.table_id,
            },
            use_bin_type=True,
        )
        signature = self._private.sign(ENVELOPE_DOMAIN + payload)
        out: bytes = msgpack.packb([payload, signature], use_bin_type=True)
        return out

    def open(self, raw: bytes) -> Envelope:
        if not isinstance(raw, bytes) or len(raw) > MAX_ENVELOPE:
            raise MalformedMessage("envelope must be bytes of at most 64 KiB")
        outer = _unpack(raw)
        if (
            not isinstance(outer, tuple)
            or len(outer) != 2
            or not isinstance(outer[0], bytes)
            or not isinstance(outer[1], bytes)
            or len(outer[1]) != SIGNATURE_BYTES
        ):
            raise MalformedMessage("envelope must be [payload bytes, 64-byte signature]")
        payload, signature = outer
        if msgpack.packb([payload, signature], use_bin_type=True) != raw:
            # one spelling per message, or a relay could re-encode it into a false equivocation
            raise MalformedMessage("envelope is not canonically encoded")
        inner = _unpack(payload)
        if not isinstance(inner, dict) or tuple(inner) != (
            "body",
            "kind",
            "round",
            "seat",
            "table",
        ):
            raise MalformedMessage("payload must be a map {body, kind, round, seat, table}")
        seat = inner["seat"]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self._public):
            raise MalformedMessage("unknown sender seat")
        try:
            self._public[seat].verify(signature, ENVELOPE_DOMAIN + payload)
        except InvalidSignature:
            raise MalformedMessage(f"bad signature for seat {seat}") from None
        if inner["table"] != self._params.table_id or inner["round"] != self._params.round_no:
            raise MalformedMessage("message signed for another table or round")
        kind = inner["kind"]
        if not isinstance(kind, str):
            raise MalformedMessage("message kind must be a string")
        body = inner["body"]
        if not isinstance(body, dict):
            raise MalformedMessage("body must be a map")
        return Envelope(seat=seat, kind=kind, body=body, raw=raw)


def make_codecs(params: DeckParams) -> list[Ed25519Codec]:
    """Fresh Ed25519 identities for every seat, each codec knowing everybody's public key."""
    privates = [Ed25519PrivateKey.generate() for _ in range(params.seats)]
    publics = [k.public_key() for k in privates]
    return [Ed25519Codec(params, seat, k, publics) for seat, k in enumerate(privates)]


Intercept = Callable[[int, bytes], bytes | None]
MAX_DELIVERIES = 1 << 20


@dataclass(frozen=True, slots=True)
class TableStep:
    op: TableOp
    position: int | None = None
    """For a play or a show: the position the player puts down (its own choice, in its
    message)."""


class TableBus:
    """Delivers every message to every other seat, FIFO, charging CPU (and group operations, to
    ``ops``) to the seat that works; ``intercept(sender, raw)`` may replace or drop (None) a
    message in flight."""

    def __init__(
        self,
        peers: Sequence[TablePeer],
        codecs: Sequence[Ed25519Codec],
        ops: OpCounter | None = None,
    ) -> None:
        self.peers = list(peers)
        self.codecs = list(codecs)
        self.ops = ops
        self.queue: deque[tuple[int, bytes]] = deque()
        self.sent: list[tuple[int, bytes]] = []
        self.intercept: Intercept | None = None
        self.cpu_ns = [0] * len(self.peers)
        self.bytes = 0

    def _call(self, seat: int, fn: Callable[[], list[bytes]]) -> None:
        if self.ops is not None:
            self.ops.current = seat
        t0 = time.process_time_ns()
        out = fn()
        self.cpu_ns[seat] += time.process_time_ns() - t0
        self.queue.extend((seat, raw) for raw in out)

    def start(self) -> None:
        for peer in self.peers:
            self._call(peer.seat, peer.start)
        self.run()

    def push(self, op: TableOp, position: int | None = None) -> None:
        """Give every seat the operation (the player of a play or show also its choice), then
        deliver."""
        for peer in self.peers:
            mine = position if op.kind in (PLAY, SHOW) and op.seat == peer.seat else None
            self._call(peer.seat, lambda p=peer, m=mine: p.push(op, m))  # type: ignore[misc]
        self.run()

    def run(self) -> None:
        for _ in range(MAX_DELIVERIES):
            if not self.queue:
                return
            sender, raw = self.queue.popleft()
            if self.intercept is not None:
                changed = self.intercept(sender, raw)
                if changed is None:
                    continue
                raw = changed
            self.sent.append((sender, raw))
            self.bytes += len(raw)
            for peer in self.peers:
                if peer.seat != sender:
                    self._call(peer.seat, lambda p=peer, r=raw: p.receive(r))  # type: ignore[misc]
        raise RuntimeError("the table bus did not go quiet")

    def kind(self, raw: bytes) -> str:
        return self.codecs[0].open(raw).kind


def make_table(
    table_id: bytes,
    game: int,
    seats: int,
    num_cards: int,
    entropy: Callable[[int], Entropy] | None = None,
    *,
    codecs: Sequence[Ed25519Codec] | None = None,
    ops: OpCounter | None = None,
) -> TableBus:
    """``seats`` started table peers (``entropy(seat)`` for tests) with fresh Ed25519 identities
    unless ``codecs`` are given (for ``game``: the codec's round). Making a peer's key is charged
    to its seat; the identities are not (they are long-lived)."""
    if codecs is None:
        codecs = make_codecs(DeckParams(table_id, game, MAX_CARDS, seats, 1))
    peers, cpu_ns = [], []
    for s in range(seats):
        if ops is not None:
            ops.current = s
        t0 = time.process_time_ns()
        peers.append(
            TablePeer(
                table_id,
                game,
                seats,
                num_cards,
                codecs[s],
                entropy=os.urandom if entropy is None else entropy(s),
            )
        )
        cpu_ns.append(time.process_time_ns() - t0)
    bus = TableBus(peers, codecs, ops)
    bus.cpu_ns = cpu_ns
    bus.start()
    return bus


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_table(steps: Sequence[TableStep], seats: int, num_cards: int) -> dict[str, Any]:
    """Run one game's operations among ``seats`` in-process peers; CPU per seat and per op.

    An operation's *latency* here is the largest CPU any one seat spent on it (on a LAN the
    seats work in parallel; message hops are not counted), in milliseconds."""
    bus = make_table(hashlib.sha256(os.urandom(32)).digest(), 1, seats, num_cards)
    per_kind: dict[str, list[float]] = {}
    for step in steps:
        before = list(bus.cpu_ns)
        bus.push(step.op, step.position)
        spent = max(after - b for after, b in zip(bus.cpu_ns, before, strict=True)) / 1e6
        per_kind.setdefault(step.op.kind, []).append(spent)
    return {
        "seats": seats,
        "operations": len(steps),
        "messages": len(bus.sent),
        "bytes": bus.bytes,
        "cpu_s_per_seat": [round(ns / 1e9, 3) for ns in bus.cpu_ns],
        "latency_ms": {
            kind: {
                "count": len(v),
                "p50": round(statistics.median(v), 2),
                "p99": round(_percentile(v, 0.99), 2),
            }
            for kind, v in sorted(per_kind.items())
        },
    }


OPS = ("mul", "base", "add", "sub", "valid", "hash")
"""What is counted: generic and base-point multiplications, additions, subtractions, point
checks (``is_valid_point``) and hash-to-group calls."""

_SODIUM = {"from_hash": "hash"}
_GROUP = {"_mul": "mul", "_base": "base", "add": "add", "sub": "sub", "_is_valid": "valid"}
_SHUFFLE_PROOF = {"_add": "add"}


class OpCounter:
    """Operations counted per label; :attr:`current` is the label charged (a seat, or None)."""

    def __init__(self) -> None:
        self.current: object = None
        self.counts: dict[object, Counter[str]] = {}
        self._lock = threading.Lock()

    def charge(self, op: str) -> None:
        """Count one ``op`` for :attr:`current` (from any thread: the deck multiplies on two,
        ``deck/lincomb.py``, for the caller who set the label)."""
        with self._lock:
            self.counts.setdefault(self.current, Counter())[op] += 1

    def of(self, label: object) -> dict[str, int]:
        """Every counted operation of ``label``, zero for those it never made."""
        got = self.counts.get(label, Counter())
        return {op: got[op] for op in OPS}

    def wrap(self, fn: Callable[..., Any], op: str) -> Callable[..., Any]:
        charge = self.charge

        def counted(*args: Any) -> Any:
            charge(op)
            return fn(*args)

        return counted


@contextlib.contextmanager
def counting() -> Iterator[OpCounter]:
    """Count every deck group operation made inside the block."""
    counter = OpCounter()
    saved: list[tuple[object, str, object]] = []
    try:
        for module, names in ((sodium, _SODIUM), (group, _GROUP), (shuffle_proof, _SHUFFLE_PROOF)):
            for name, op in names.items():
                original = getattr(module, name)
                saved.append((module, name, original))
                setattr(module, name, counter.wrap(original, op))
        yield counter
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)
