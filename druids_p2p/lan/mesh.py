"""The ZeroMQ full mesh between the peers of one table (Zyre's ROUTER/DEALER layout), CURVE on every
link (protocol.md §1), and the MeshPort protocol the runner reaches it through. Every socket option
that matters is set: pyzmq's defaults hang on close, drop at 1000 queued messages, accept any size.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, cast

import zmq
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils.monitor import recv_monitor_message

from druids_p2p.lan.network import CurveGate, Routes, TableNetwork

__all__ = ["LobbyMesh", "MeshPort"]


# The ZeroMQ full mesh between the peers of one table (the ROUTER/DEALER layout Zyre uses).
log = logging.getLogger(__name__)

MAX_FRAME = 64 * 1024 + 1024
"""Largest frame accepted (a wire message is at most 64 KiB); bigger ones drop the connection."""
HWM = 20_000
LINGER_MS = 200
ROUTING_ID_SIZE = 16
"""Random bytes of a DEALER's routing id (fresh for each DEALER): 128 bits nobody can guess, and
never the 5 bytes of the ids libzmq assigns itself (0x00 and a counter)."""
LINK_EVENTS = (
    zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_DISCONNECTED
)
"""What a DEALER's monitor reports: whether its connection is up, refused or dropped."""
KEPT_LINK_EVENTS = 64
REBIND_TRIES = 400
REBIND_WAIT_S = 0.005
"""Rebinding the inbox's port right after unbinding it can fail until ZeroMQ's I/O thread has
closed the old listener: a bounded retry (2 s at most)."""


def curve_keypair() -> tuple[bytes, bytes]:
    """A fresh CURVE key pair (public, secret), Z85-encoded as ZeroMQ wants them."""
    public, secret = zmq.curve_keypair()
    return public, secret


def fresh_routing_id() -> bytes:
    """A new DEALER's routing id: ``ROUTING_ID_SIZE`` random bytes (see the module docstring)."""
    return os.urandom(ROUTING_ID_SIZE)


def z85_to_raw(key: bytes) -> bytes:
    return zmq.utils.z85.decode(key)


def raw_to_z85(key: bytes) -> bytes:
    return zmq.utils.z85.encode(key)


# ==================================================================== socket options
# Kept in one place (issue 13 items 3 and 4): how a mesh link notices it is dead and how fast it
# comes back. The table sends its own signed hello every second (peer/liveness.py), so
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


@dataclass(frozen=True)
class Inbound:
    """One message received: the routing id of the inbox connection it came over (b"" on a
    DEALER), the payload, and the CURVE public key (raw) that the link authenticated: on the
    inbox as the ZAP handler reported it, on a DEALER the server key its handshake checked. The
    key says who sent it; the routing id only where to answer (:meth:`Mesh.reply`), and the mesh
    binds it to that key."""

    routing_id: bytes
    payload: bytes
    curve: bytes = b""


class Mesh:
    """One peer's sockets: the inbox and a DEALER per other peer. Not thread-safe; one owner."""

    def __init__(
        self,
        bind_host: str,
        port: int = 0,
        curve_keys: tuple[bytes, bytes] | None = None,
    ) -> None:
        """Bind the inbox; ``curve_keys`` (public, secret, Z85) and ``port`` are given when a
        restarted peer must come back at the endpoint and key the others already know."""
        self.network = TableNetwork.of_address(bind_host)
        """Where the endpoints of this mesh's table must be (``network.py``)."""
        self.ctx = zmq.Context()
        self.gate = CurveGate()
        self.auth = ThreadAuthenticator(self.ctx, log=logging.getLogger(__name__ + ".zap"))
        self.auth.start()
        self.auth.configure_curve_callback(domain="*", credentials_provider=self.gate)
        self.curve_public, self.curve_secret = curve_keys or curve_keypair()
        self.inbox = self.ctx.socket(zmq.ROUTER)
        configure_socket(self.inbox)
        self.inbox.setsockopt(zmq.ROUTER_HANDOVER, 0)  # no connection takes another's routing id
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
        self._routes = Routes()
        self._monitors: dict[zmq.Socket[bytes], bytes] = {}
        """A DEALER's monitor socket (``LINK_EVENTS``) -> the peer it links to."""
        self._monitor_of: dict[zmq.Socket[bytes], zmq.Socket[bytes]] = {}
        self._attached: set[zmq.Socket[bytes]] = set()
        """Monitors whose DEALER completed a handshake since it last dropped: an inbox holds its
        routing id (a refused or never completed connection holds none)."""
        self._monitor_count = 0
        self.link_events: dict[bytes, list[int]] = {}
        """Per peer, the last ``KEPT_LINK_EVENTS`` monitor events of its DEALERs (read in
        :meth:`poll`): what the link did, for logs and tests."""
        self.renewals = 0
        """Times a DEALER was replaced after its connection dropped (:meth:`_renew`)."""
        self.renewed: dict[bytes, int] = {}
        """The same, per peer: what a link held when it dropped is lost (a joiner's join)."""

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
        sock.setsockopt(zmq.ROUTING_ID, fresh_routing_id())
        sock.setsockopt(zmq.IMMEDIATE, 0)  # queue until the link is up: we may start first
        sock.curve_serverkey = raw_to_z85(curve_public_raw)
        sock.curve_publickey = self.curve_public
        sock.curve_secretkey = self.curve_secret
        self._monitor_count += 1
        monitor = sock.get_monitor_socket(
            LINK_EVENTS, f"inproc://druids-mesh-{id(self):x}-{self._monitor_count}"
        )
        self._monitors[monitor] = peer_id
        self._monitor_of[sock] = monitor
        self.poller.register(monitor, zmq.POLLIN)
        sock.connect(endpoint)
        self.peers[peer_id] = sock
        self._dealer_curve[sock] = curve_public_raw
        self.poller.register(sock, zmq.POLLIN)  # the peer may answer on this link too

    def disconnect(self, peer_id: bytes) -> None:
        self._targets.pop(peer_id, None)
        sock = self.peers.pop(peer_id, None)
        if sock is not None:
            self._dealer_curve.pop(sock, None)
            registered = dict(self.poller.sockets)
            monitor = self._monitor_of.pop(sock, None)
            if monitor is not None:
                self._monitors.pop(monitor, None)
                self._attached.discard(monitor)
                if monitor in registered:
                    self.poller.unregister(monitor)
                sock.disable_monitor()
                monitor.close(linger=0)
            if sock in registered:
                self.poller.unregister(sock)
            sock.close(linger=0)

    def _renew(self, peer_id: bytes) -> None:
        """A new DEALER, with a fresh routing id, for a link whose connection dropped.

        libzmq would reuse the old routing id, which an inbox that missed the drop never reads again
        (protocol.md §1); what the old DEALER queued is resent, as after any lost link.
        """
        target = self._targets.get(peer_id)
        if target is None or peer_id not in self.peers:
            return
        self.renewals += 1
        self.renewed[peer_id] = self.renewed.get(peer_id, 0) + 1
        log.info("a link's connection dropped: reconnecting with a fresh routing id")
        self.disconnect(peer_id)
        self.connect(peer_id, *target)

    def send(self, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
        """Queue a message to one peer; False if there is no link or its queue is full.

        ``both_links`` also sends it over the peer's own connection to our inbox (protocol.md §1
        "both links"), so a resend that matters is not stuck behind one connection's back-off.
        """
        target = self._targets.get(peer_id)
        if both_links and target is not None:
            route = self._routes.route_of(target[1])
            if route is not None:
                with contextlib.suppress(zmq.ZMQError):
                    self.inbox.send_multipart([route, payload], zmq.NOBLOCK)
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
        """Answer on the inbox the connection ``routing_id`` names (lobby replies before a
        DEALER): sent only while that routing id is bound, so only to the key whose frame came
        by it (``Inbound.curve``), since no other connection can take it over."""
        if not self._routes.bound(routing_id):
            log.info("no reply: the routing id is not one a frame came by")
            return
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
                if not link or (not gate.open and link not in gate.allowed_raw):
                    continue  # queued by a connection from before the gate closed: a stranger's
                route = frames[0].bytes
                if not self._routes.bind(route, link):
                    log.info("dropped a frame whose routing id another CURVE key holds")
                    continue
                out.append(Inbound(route, frames[1].bytes, link))
            else:
                log.info("dropped a message with %d frames", len(frames))
        dropped: set[bytes] = set()
        for sock in events:
            if sock is self.inbox:
                continue
            if sock in self._monitors:
                if self._dropped(sock):
                    dropped.add(self._monitors[sock])
                continue
            for _ in range(limit):
                try:
                    frames = sock.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                if len(frames) == 1:
                    out.append(Inbound(b"", frames[0], self._dealer_curve.get(sock, b"")))
        for peer_id in dropped:
            self._renew(peer_id)
        return out

    def _dropped(self, monitor: zmq.Socket[bytes]) -> bool:
        """Read a DEALER's monitor events (bounded): True if a connection that had completed
        its handshake dropped (the only kind an inbox may still hold the routing id of)."""
        kept = self.link_events.setdefault(self._monitors[monitor], [])
        dropped = False
        for _ in range(64):
            try:
                event = int(recv_monitor_message(monitor, zmq.NOBLOCK)["event"])
            except zmq.Again:
                break
            kept.append(event)
            if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self._attached.add(monitor)
            elif event == zmq.EVENT_DISCONNECTED and monitor in self._attached:
                self._attached.discard(monitor)
                dropped = True
        del kept[:-KEPT_LINK_EVENTS]
        return dropped

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

        If another key got in while the gate was open, the inbox is bound again, closing every
        connection: the seats reconnect, a stranger cannot (protocol.md §1).
        """
        keep = frozenset(raw_keys)
        self._routes.keep_only(keep)
        if not self.gate.close_to_strangers(keep):
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

    def open_gate(self) -> None:
        """Admit any CURVE key again until :meth:`close_gate` (a lobby for the next table)."""
        self.gate.reopen()

    def watch_dealer(self, peer_id: bytes) -> None:
        """Also poll a DEALER for replies (used in the lobby, where the host answers there)."""
        sock = self.peers.get(peer_id)
        if sock is not None:
            self.poller.register(sock, zmq.POLLIN)

    def close(self) -> None:
        """Close every link and every other socket made on this mesh's context (a lobby's, a host
        watch's): ``term()`` alone waits for ever for one left open by a peer stopped mid-lobby."""
        for peer_id in list(self.peers):
            self.disconnect(peer_id)
        self.inbox.close(linger=0)
        self.auth.stop()
        self.ctx.destroy(linger=0)


# What a seated table's runner needs of the network: the :class:`MeshPort` protocol.
class MeshPort(Protocol):
    """One peer's links to the other seats of its table."""

    def send(self, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
        """Queue a message to one peer (``both_links``: also over its link to us); False if it
        could not be queued (it will be resent)."""

    def broadcast(self, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
        """Queue a message to every linked peer but ``exclude``."""

    def poll(self, timeout_ms: int, limit: int = 256) -> list[Inbound]:
        """What arrived, waiting at most ``timeout_ms`` for the first, at most ``limit``."""

    def connect(self, peer_id: bytes, endpoint: str, curve_public_raw: bytes) -> None:
        """Link to a peer's inbox at ``endpoint``, authenticating its CURVE key."""

    def close_gate(self, raw_keys: Iterable[bytes]) -> None:
        """From now on, hear only from the links of these CURVE keys."""


class LobbyMesh(MeshPort, Protocol):
    """What the lobby and a joiner need besides: where this peer is reached, its network's
    rules, the context to open the lobby socket in, and replies before a link exists."""

    endpoint: str
    network: TableNetwork
    ctx: zmq.Context[zmq.Socket[bytes]]
    renewed: dict[bytes, int]
    """Per peer, its link's renewals after a dropped connection: what it held is lost."""

    @property
    def curve_public_raw(self) -> bytes: ...

    def reply(self, routing_id: bytes, payload: bytes) -> None:
        """Answer on the inbox whoever sent ``routing_id`` (a lobby refusal)."""

    def watch_dealer(self, peer_id: bytes) -> None:
        """Also poll the link to ``peer_id`` for replies (the host answers a joiner there)."""
