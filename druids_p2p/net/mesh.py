"""The ZeroMQ full mesh between the peers of one table (the ROUTER/DEALER layout Zyre uses).

Each peer binds one ROUTER inbox and keeps one DEALER per other peer, connected to that peer's
inbox with the peer's routing id set to our Ed25519 public key. All links are CURVE-encrypted and
authenticated; a ZAP handler admits anyone in the lobby, and once the table is seated only the
seats' own CURVE keys (``Mesh.close_gate``, which also drops any connection a stranger made
before), so once a table is seated a stranger cannot even connect.
Every socket option that matters is set explicitly (LINGER, HWMs, heartbeats, maximum message
size): pyzmq's defaults hang on close, drop silently at 1000 queued messages, or accept any size.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

import zmq
from zmq.auth.thread import ThreadAuthenticator

from druids_p2p.net.endpoints import TableNetwork

log = logging.getLogger(__name__)

MAX_FRAME = 64 * 1024 + 1024
"""Largest frame accepted (a wire message is at most 64 KiB); bigger ones drop the connection."""
HWM = 20_000
LINGER_MS = 200
MAX_REMEMBERED_KEYS = 1024
"""Keys the gate remembers admitting while open; past that it assumes a stranger got in."""
REBIND_TRIES = 400
REBIND_WAIT_S = 0.005
"""Rebinding the inbox's port right after unbinding it can fail until ZeroMQ's I/O thread has
closed the old listener: a bounded retry (2 s at most)."""


def curve_keypair() -> tuple[bytes, bytes]:
    """A fresh CURVE key pair (public, secret), Z85-encoded as ZeroMQ wants them."""
    public, secret = zmq.curve_keypair()
    return public, secret


def z85_to_raw(key: bytes) -> bytes:
    return zmq.utils.z85.decode(key)


def raw_to_z85(key: bytes) -> bytes:
    return zmq.utils.z85.encode(key)


# ==================================================================== socket options
# Kept in one place (issue 13 items 3 and 4): how a mesh link notices it is dead and how fast it
# comes back. The table sends its own signed hello every second (TableRunner._keepalive), so
# TCP alone has to notice a dead link; ZMTP heartbeats stay off.
HEARTBEAT_IVL_MS = 0
"""ZMTP heartbeats off. In libzmq 4.3.5 the heartbeat timer calls ``out_event`` on an engine
whose input already failed, which aborts the process (``Assertion failed: !_io_error
(src/stream_engine_base.cpp:310)``, seen under 30% loss); without a heartbeat interval that
timer is never armed. The table's hellos and the TCP timers below do the job instead."""
RECONNECT_IVL_MS = 100
RECONNECT_IVL_MAX_MS = 500
"""A lost link is retried after 100 ms, backing off to at most every 500 ms."""
CONNECT_TIMEOUT_MS = 1_500
"""A connect attempt unanswered for 1.5 s is given up and retried (after the reconnect
interval), instead of sitting in the kernel's SYN back-off (1, 2, 4, … 64 s): one SYN goes out
about every second however long the link has been down."""
TCP_MAXRT_MS = 4_000
"""TCP_USER_TIMEOUT: a connection whose data stays unacknowledged for 4 s is closed and
reconnected, instead of retransmitting on a back-off that reaches tens of seconds during a long
cut. 4 s is what the ZMTP heartbeat timeout used to allow, long enough for a lossy link."""
TCP_KEEPALIVE_IDLE_S = 2
TCP_KEEPALIVE_INTVL_S = 1
TCP_KEEPALIVE_CNT = 3
"""An idle connection (an inbox link carries nothing back) is probed after 2 s and dropped after
3 unanswered probes a second apart, so a link cut on the far side is noticed within ~5 s."""


def configure_socket(sock: zmq.Socket[bytes]) -> None:
    """Every option a mesh socket (inbox ROUTER or peer DEALER) gets: sizes, queues, and the
    timers above that bound how long a dead link goes unnoticed and how soon it comes back."""
    sock.setsockopt(zmq.LINGER, LINGER_MS)
    sock.setsockopt(zmq.SNDHWM, HWM)
    sock.setsockopt(zmq.RCVHWM, HWM)
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_FRAME)
    sock.setsockopt(zmq.HEARTBEAT_IVL, HEARTBEAT_IVL_MS)
    sock.setsockopt(zmq.RECONNECT_IVL, RECONNECT_IVL_MS)
    sock.setsockopt(zmq.RECONNECT_IVL_MAX, RECONNECT_IVL_MAX_MS)
    sock.setsockopt(zmq.CONNECT_TIMEOUT, CONNECT_TIMEOUT_MS)
    sock.setsockopt(zmq.TCP_MAXRT, TCP_MAXRT_MS)
    sock.setsockopt(zmq.TCP_KEEPALIVE, 1)
    sock.setsockopt(zmq.TCP_KEEPALIVE_IDLE, TCP_KEEPALIVE_IDLE_S)
    sock.setsockopt(zmq.TCP_KEEPALIVE_INTVL, TCP_KEEPALIVE_INTVL_S)
    sock.setsockopt(zmq.TCP_KEEPALIVE_CNT, TCP_KEEPALIVE_CNT)


class _CurveGate:
    """ZAP credentials provider: which CURVE public keys may connect to our inbox.

    ZAP is asked once per connection, at its handshake: closing the gate refuses new connections
    only. So the gate also remembers which keys it let in while it was open (to know whether a
    stranger may still hold a connection when it closes), and the mesh drops those connections
    (``Mesh.close_gate``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._allowed: set[bytes] = set()
        self.allowed_raw: frozenset[bytes] = frozenset()
        """The admitted keys, raw (the mesh filters frames by them once the gate is closed)."""
        self._admitted: set[bytes] = set()
        self._admitted_overflow = False
        self.open = True

    def allow(self, raw_keys: Iterable[bytes]) -> None:
        with self._lock:
            self._allowed.update(raw_to_z85(k) for k in raw_keys)

    def close_to_strangers(self, raw_keys: Iterable[bytes]) -> bool:
        """From now on admit only these keys (the seated peers' CURVE keys). True if a key that
        is not one of them was let in while the gate was open (its connection may be up)."""
        raw = frozenset(raw_keys)
        with self._lock:
            self._allowed = {raw_to_z85(k) for k in raw}
            self.allowed_raw = raw
            self.open = False
            strangers = self._admitted_overflow or bool(self._admitted - self._allowed)
            # Told once: the caller drops those connections, and a closed gate admits no more.
            self._admitted &= self._allowed
            self._admitted_overflow = False
            return strangers

    def callback(self, domain: str, key: bytes) -> bool:
        """pyzmq's ZAP hook; ``key`` is the client's Z85-encoded CURVE public key."""
        with self._lock:
            ok = self.open or key in self._allowed
            if ok and self.open:
                if len(self._admitted) < MAX_REMEMBERED_KEYS:
                    self._admitted.add(bytes(key))
                else:
                    self._admitted_overflow = True
        if not ok:
            log.info("refused a CURVE connection from an unknown key")
        return ok


@dataclass(frozen=True)
class Inbound:
    """One message received: the sender's claimed routing id, the payload, and the CURVE public
    key (raw) that the link authenticated: on the inbox as the ZAP handler reported it, on a
    DEALER the server key its handshake checked (b"" if none)."""

    routing_id: bytes
    payload: bytes
    curve: bytes = b""


class Mesh:
    """One peer's sockets: the inbox and a DEALER per other peer. Not thread-safe; one owner."""

    def __init__(
        self,
        bind_host: str,
        port: int = 0,
        routing_id: bytes = b"",
        curve_keys: tuple[bytes, bytes] | None = None,
    ) -> None:
        """Bind the inbox; ``curve_keys`` (public, secret, Z85) and ``port`` are given when a
        restarted peer must come back at the endpoint and key the others already know."""
        self.network = TableNetwork.of_address(bind_host)
        """Where the endpoints of this mesh's table must be (``endpoints.py``)."""
        self.ctx = zmq.Context()
        self.gate = _CurveGate()
        self.auth = ThreadAuthenticator(self.ctx, log=logging.getLogger(__name__ + ".zap"))
        self.auth.start()
        self.auth.configure_curve_callback(domain="*", credentials_provider=self.gate)
        self.curve_public, self.curve_secret = curve_keys or curve_keypair()
        self.routing_id = routing_id
        self.inbox = self.ctx.socket(zmq.ROUTER)
        configure_socket(self.inbox)
        self.inbox.setsockopt(zmq.ROUTER_HANDOVER, 1)
        self.inbox.curve_server = True
        self.inbox.curve_publickey = self.curve_public
        self.inbox.curve_secretkey = self.curve_secret
        if port:
            self.inbox.bind(f"tcp://{bind_host}:{port}")
            self.port = port
        else:
            self.port = self.inbox.bind_to_random_port(f"tcp://{bind_host}")
        self.endpoint = f"tcp://{bind_host}:{self.port}"
        self._bound = cast(bytes, self.inbox.getsockopt(zmq.LAST_ENDPOINT)).decode()
        self.poller = zmq.Poller()
        self.poller.register(self.inbox, zmq.POLLIN)
        self.peers: dict[bytes, zmq.Socket[bytes]] = {}
        self._link_keys: dict[str, bytes] = {}
        """Z85 User-Id -> raw CURVE key: a table has a handful of links, and Z85 costs ~20 µs."""
        self._targets: dict[bytes, tuple[str, bytes]] = {}
        self.rebinds = 0
        """Times :meth:`close_gate` rebound the inbox to drop a stranger's connection."""
        self._dealer_curve: dict[zmq.Socket[bytes], bytes] = {}
        """DEALER -> the raw CURVE key its handshake authenticated (the server it connects to)."""

    @property
    def curve_public_raw(self) -> bytes:
        return z85_to_raw(self.curve_public)

    def connect(self, peer_id: bytes, endpoint: str, curve_public_raw: bytes) -> None:
        """Open (or replace) the DEALER to a peer's inbox, authenticating its CURVE key.

        Connecting again to the same endpoint and key keeps the existing link and its queue."""
        if self._targets.get(peer_id) == (endpoint, curve_public_raw) and peer_id in self.peers:
            return
        self.disconnect(peer_id)
        self._targets[peer_id] = (endpoint, curve_public_raw)
        sock = self.ctx.socket(zmq.DEALER)
        configure_socket(sock)
        sock.setsockopt(zmq.ROUTING_ID, self.routing_id)
        sock.setsockopt(zmq.IMMEDIATE, 0)  # queue until the link is up: we may start first
        sock.curve_serverkey = raw_to_z85(curve_public_raw)
        sock.curve_publickey = self.curve_public
        sock.curve_secretkey = self.curve_secret
        sock.connect(endpoint)
        self.peers[peer_id] = sock
        self._dealer_curve[sock] = curve_public_raw
        self.poller.register(sock, zmq.POLLIN)  # the peer may answer on this link too

    def disconnect(self, peer_id: bytes) -> None:
        self._targets.pop(peer_id, None)
        sock = self.peers.pop(peer_id, None)
        if sock is not None:
            self._dealer_curve.pop(sock, None)
            if sock in dict(self.poller.sockets):
                self.poller.unregister(sock)
            sock.close(linger=0)

    def send(self, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
        """Queue a message to one peer; False if there is no link or its queue is full.

        ``both_links`` also sends it back over the peer's own connection to our inbox: two TCP
        connections rarely stall at once, so a resend that matters (a nudge, a resend answer)
        is not stuck behind one connection's retransmission back-off on a lossy link."""
        if both_links:
            with contextlib.suppress(zmq.ZMQError):
                self.inbox.send_multipart([peer_id, payload], zmq.NOBLOCK)
        sock = self.peers.get(peer_id)
        if sock is None:
            return False
        try:
            sock.send(payload, zmq.NOBLOCK)
        except zmq.Again:
            log.warning("send queue full for a peer; message dropped (it will be resent)")
            return False
        return True

    def broadcast(self, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
        skip = set(exclude)
        for peer_id in list(self.peers):
            if peer_id not in skip:
                self.send(peer_id, payload)

    def reply(self, routing_id: bytes, payload: bytes) -> None:
        """Answer on the inbox to whoever sent ``routing_id`` (lobby replies before a DEALER)."""
        try:
            self.inbox.send_multipart([routing_id, payload], zmq.NOBLOCK)
        except zmq.ZMQError as exc:
            log.info("could not reply to a lobby peer: %s", exc)

    def poll(self, timeout_ms: int, limit: int = 256) -> list[Inbound]:
        """Messages waiting on the inbox (and on DEALERs, for lobby replies), at most ``limit``."""
        out: list[Inbound] = []
        events = dict(self.poller.poll(timeout_ms))
        if not events:
            return out
        inbox = self.inbox
        gate = self.gate
        for _ in range(limit):
            # Ask before receiving: an empty queue raising zmq.Again on every wake-up is costly.
            if not cast(int, inbox.get(zmq.EVENTS)) & zmq.POLLIN:
                break
            try:
                frames = inbox.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                break
            if len(frames) == 2:
                link = self._link_key(frames[1])
                if not gate.open and link not in gate.allowed_raw:
                    continue  # queued by a connection from before the gate closed: a stranger's
                out.append(Inbound(frames[0].bytes, frames[1].bytes, link))
            else:
                log.info("dropped a message with %d frames", len(frames))
        for sock in events:
            if sock is self.inbox:
                continue
            for _ in range(limit):
                try:
                    frames = sock.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                if len(frames) == 1:
                    out.append(Inbound(b"", frames[0], self._dealer_curve.get(sock, b"")))
        return out

    def _link_key(self, frame: zmq.Frame) -> bytes:
        """The raw CURVE key this frame's link authenticated: pyzmq's ZAP handler names the peer
        by the Z85 of its key ("User-Id"). Unlike the routing id, the peer cannot choose it."""
        try:
            user = frame.get("User-Id")
        except zmq.ZMQError:
            return b""
        if not isinstance(user, str):
            return b""
        key = self._link_keys.get(user)
        if key is None:
            try:
                key = z85_to_raw(user.encode("ascii"))
            except (ValueError, UnicodeError, TypeError):
                return b""
            if len(self._link_keys) < 1024:
                self._link_keys[user] = key
        return key

    def close_gate(self, raw_keys: Iterable[bytes]) -> None:
        """Admit only these CURVE keys from now on, and keep no connection from any other.

        The gate refuses new connections; frames already queued from other keys are dropped in
        :meth:`poll`; and if the gate let any other key in while it was open, the inbox is
        unbound and bound again, which closes every connection it accepted: the seated peers'
        DEALERs reconnect through the closed gate (what they sent meanwhile is resent, as after
        any lost link), a stranger's cannot."""
        if not self.gate.close_to_strangers(raw_keys):
            return
        log.info("dropping the inbox's connections: a key not at the table had connected")
        self.rebinds += 1
        self.inbox.unbind(self._bound)
        for attempt in range(REBIND_TRIES):
            try:
                self.inbox.bind(self._bound)
                return
            except zmq.ZMQError:
                if attempt == REBIND_TRIES - 1:
                    raise
                time.sleep(REBIND_WAIT_S)

    def watch_dealer(self, peer_id: bytes) -> None:
        """Also poll a DEALER for replies (used in the lobby, where the host answers there)."""
        sock = self.peers.get(peer_id)
        if sock is not None:
            self.poller.register(sock, zmq.POLLIN)

    def close(self) -> None:
        for peer_id in list(self.peers):
            self.disconnect(peer_id)
        self.inbox.close(linger=0)
        self.auth.stop()
        self.ctx.term()
