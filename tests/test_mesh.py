"""The mesh over real loopback sockets: who a frame is from is what its CURVE link proves."""

from __future__ import annotations

import threading
import time

import pytest
import zmq

from druids_p2p.lan import mesh as mesh_module
from druids_p2p.lan.mesh import ROUTING_ID_SIZE, Inbound, Mesh, fresh_routing_id


def _receive(inbox: Mesh, payload: bytes) -> Inbound:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for inbound in inbox.poll(100):
            if inbound.payload == payload:
                return inbound
    raise AssertionError(f"{payload!r} never arrived")


def _opt(sock: zmq.Socket[bytes], option: int) -> int:
    """An integer socket option (pyzmq types every getsockopt as int | bytes)."""
    value = sock.getsockopt(option)
    assert isinstance(value, int), (option, value)
    return value


def _bytes_opt(sock: zmq.Socket[bytes], option: int) -> bytes:
    value = sock.getsockopt(option)
    assert isinstance(value, bytes), (option, value)
    return value


def test_inbound_names_the_link_key_and_each_dealer_has_its_own_random_routing_id() -> None:
    """Who sent a frame is the key its CURVE link authenticated; the routing id it came by is
    its DEALER's own, random, never chosen by anybody (a second mesh of the same table gets
    another), and is all the inbox answers to."""
    inbox = Mesh("127.0.0.1")
    one, two = Mesh("127.0.0.1"), Mesh("127.0.0.1")
    routes = []
    try:
        for sender, payload in ((one, b"from one"), (two, b"from two")):
            sender.connect(b"inbox", inbox.endpoint, inbox.curve_public_raw)
            sender.send(b"inbox", payload)
            inbound = _receive(inbox, payload)
            assert inbound.curve == sender.curve_public_raw
            assert inbound.routing_id == _bytes_opt(sender.peers[b"inbox"], zmq.ROUTING_ID)
            assert len(inbound.routing_id) == ROUTING_ID_SIZE
            routes.append(inbound.routing_id)
        assert routes[0] != routes[1]
    finally:
        for mesh in (inbox, one, two):
            mesh.close()


def test_every_mesh_socket_bounds_how_long_a_dead_link_goes_unnoticed() -> None:
    """Issue 13 items 3 and 4, as options on the real sockets (the fault suite in namespaces,
    tests/test_faults_netns.py, shows their effect): no ZMTP heartbeat (libzmq 4.3.5's heartbeat
    timer aborts a peer whose link failed), a bounded connect attempt and reconnect interval
    (not the kernel's SYN back-off), a bounded retransmission time and TCP keepalive."""
    a = Mesh("127.0.0.1")
    b = Mesh("127.0.0.1")
    try:
        a.connect(b"b", b.endpoint, b.curve_public_raw)
        for sock in (a.inbox, a.peers[b"b"]):
            assert _opt(sock, zmq.HEARTBEAT_IVL) == 0
            assert 0 < _opt(sock, zmq.CONNECT_TIMEOUT) <= 2_000
            assert 0 < _opt(sock, zmq.RECONNECT_IVL) <= _opt(sock, zmq.RECONNECT_IVL_MAX)
            assert _opt(sock, zmq.RECONNECT_IVL_MAX) <= 1_000
            assert 0 < _opt(sock, zmq.TCP_MAXRT) <= 5_000
            assert _opt(sock, zmq.TCP_KEEPALIVE) == 1
            assert 0 < _opt(sock, zmq.TCP_KEEPALIVE_IDLE) <= 5
        a.send(b"b", b"still works")
        assert _receive(b, b"still works").curve == a.curve_public_raw
    finally:
        a.close()
        b.close()


# ==================================================================== issue 27 item 1
B, C = b"B" * 32, b"C" * 32
"""Seat keys (the mesh names a peer by whatever id its owner gives it)."""


def _impostor(
    ctx: zmq.Context[zmq.Socket[bytes]], a: Mesh, rid: bytes, c: Mesh
) -> zmq.Socket[bytes]:
    """A seated peer's extra DEALER to C's inbox: its own (admitted) CURVE key, B's routing id."""
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.ROUTING_ID, rid)
    sock.curve_publickey, sock.curve_secretkey = a.curve_public, a.curve_secret
    sock.curve_serverkey = c.curve_public
    sock.connect(c.endpoint)
    return sock


def test_another_key_cannot_take_over_a_links_routing_id() -> None:
    """Issue 27 item 1 at the mesh: seat A (its CURVE key admitted by C's gate) keeps opening
    connections to C's inbox with B's routing id. B's link keeps delivering every frame, every
    frame is attributed to the key that sent it, and what C sends B over its inbox (a
    ``both_links`` copy, a ``reply``) reaches B, never A's connections."""
    c = Mesh("127.0.0.1")
    b = Mesh("127.0.0.1")
    a = Mesh("127.0.0.1")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    impostors: list[zmq.Socket[bytes]] = []
    stolen: list[bytes] = []
    try:
        b.connect(C, c.endpoint, c.curve_public_raw)
        c.connect(B, b.endpoint, b.curve_public_raw)
        c.close_gate([b.curve_public_raw, a.curve_public_raw])  # both seated
        b.send(C, b"b up")
        _receive(c, b"b up")
        rid = _bytes_opt(b.peers[C], zmq.ROUTING_ID)
        got_b: set[bytes] = set()
        back_to_b: list[bytes] = []
        rounds = 120
        for i in range(rounds):
            if i % 10 == 0:  # a fresh takeover every ~0.1 s, the two latest kept open
                impostors.append(_impostor(ctx, a, rid, c))
                for payload in (b"impostor %d" % i, b"impostor again %d" % i):
                    impostors[-1].send(payload, zmq.NOBLOCK)
                while len(impostors) > 2:
                    impostors.pop(0).close(linger=0)
            b.send(C, b"b %d" % i)
            c.send(B, b"for B %d" % i, both_links=True)
            c.reply(rid, b"reply for B %d" % i)
            for inbound in c.poll(5):
                if inbound.payload.startswith(b"b "):
                    assert inbound.curve == b.curve_public_raw
                    got_b.add(inbound.payload)
                elif inbound.payload.startswith(b"impostor"):
                    assert inbound.curve == a.curve_public_raw, inbound  # never B's
            back_to_b += [i.payload for i in b.poll(0) if i.routing_id == b""]  # over C's inbox
            for sock in impostors:
                while sock.poll(0):
                    stolen.append(sock.recv())
        deadline = time.monotonic() + 5
        while len(got_b) < rounds and time.monotonic() < deadline:
            got_b |= {i.payload for i in c.poll(50) if i.payload.startswith(b"b ")}
        print(f"B's frames reaching C with the impostor: {len(got_b)} of {rounds}")
        assert not stolen, f"{len(stolen)} frames for B went to A's connections: {stolen[:3]}"
        assert len(got_b) == rounds, f"only {len(got_b)} of B's {rounds} frames reached C"
        assert any(p.startswith(b"for B") for p in back_to_b), back_to_b[:5]
        assert any(p.startswith(b"reply for B") for p in back_to_b), back_to_b[:5]
    finally:
        for sock in impostors:
            sock.close(linger=0)
        ctx.term()
        for mesh in (a, b, c):
            mesh.close()


def test_a_routing_id_taken_first_by_another_key_gets_it_nothing_of_b(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The other order, with an attacker that somehow knows the random routing id B's DEALER
    will use (it cannot: it travels inside CURVE): A connects with it and sends first, so the
    inbox binds it to A. Nothing C sends B over its inbox reaches A's connection, and nothing
    is ever read as B's that B did not send. (libzmq never reads a connection whose routing id
    another one holds, not even after that one is gone: why every connection of a mesh gets a
    fresh routing id, see the next test.)"""
    c, b, a = Mesh("127.0.0.1"), Mesh("127.0.0.1"), Mesh("127.0.0.1")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    squat = fresh_routing_id()
    impostor = _impostor(ctx, a, squat, c)
    stolen: list[bytes] = []
    try:
        c.connect(B, b.endpoint, b.curve_public_raw)
        c.close_gate([b.curve_public_raw, a.curve_public_raw])
        impostor.send(b"impostor first")
        assert _receive(c, b"impostor first").curve == a.curve_public_raw
        monkeypatch.setattr(mesh_module, "fresh_routing_id", lambda: squat)
        b.connect(C, c.endpoint, c.curve_public_raw)
        assert _bytes_opt(b.peers[C], zmq.ROUTING_ID) == squat
        got: list[Inbound] = []
        for i in range(50):
            b.send(C, b"b %d" % i)
            impostor.send(b"impostor %d" % i)
            c.send(B, b"for B %d" % i, both_links=True)
            c.reply(squat, b"reply %d" % i)  # the routing id is A's now: A may have this one
            got += c.poll(5)
            b.poll(0)
            while impostor.poll(0):
                stolen.append(impostor.recv())
        assert not [p for p in stolen if p.startswith(b"for B")], stolen[:3]
        assert all(x.curve == a.curve_public_raw for x in got if x.routing_id == squat)
        assert all(x.curve == b.curve_public_raw for x in got if x.payload.startswith(b"b "))
        assert any(x.payload.startswith(b"impostor ") for x in got)  # A's own, read as A's
    finally:
        impostor.close(linger=0)
        ctx.term()
        for mesh in (a, b, c):
            mesh.close()


def test_a_dealer_whose_connection_dropped_comes_back_with_a_fresh_routing_id() -> None:
    """C's inbox drops every connection (its gate closed after a stranger got in): B's DEALER
    is replaced by one with a fresh routing id, never reconnected under the old one (which an
    inbox that has not yet noticed the old connection die would never read), and B's frames
    reach C again."""
    c, b, stranger = Mesh("127.0.0.1"), Mesh("127.0.0.1"), Mesh("127.0.0.1")
    try:
        for peer in (b, stranger):
            peer.connect(C, c.endpoint, c.curve_public_raw)
            peer.send(C, b"up")
            _receive(c, b"up")
        old = _bytes_opt(b.peers[C], zmq.ROUTING_ID)
        c.close_gate([b.curve_public_raw])
        assert c.rebinds == 1
        arrived: Inbound | None = None
        for i in range(400):  # bounded: the DEALER is replaced and reconnects within ~0.1 s
            b.send(C, b"again %d" % i)
            b.poll(5)
            arrived = next((x for x in c.poll(5) if x.payload.startswith(b"again")), None)
            if arrived is not None and b.renewals:
                break
        assert b.renewals >= 1 and arrived is not None
        assert zmq.EVENT_DISCONNECTED in b.link_events[C]
        new = _bytes_opt(b.peers[C], zmq.ROUTING_ID)
        assert new != old and arrived.routing_id == new
        assert arrived.curve == b.curve_public_raw
    finally:
        for mesh in (b, c, stranger):
            mesh.close()


def test_closing_the_mesh_returns_though_a_socket_of_its_context_is_still_open() -> None:
    """A peer stopped in its lobby (SIGTERM just after its lobby line) closes the mesh while the
    lobby's ROUTER, made on the mesh's context, is still open: ``Context.term()`` waited for it
    for ever, so the process never exited. Closing the mesh closes every socket of its context."""
    mesh = Mesh("127.0.0.1")
    left_open = mesh.ctx.socket(zmq.ROUTER)  # as the lobby's and a host watch's sockets are
    left_open.bind("tcp://127.0.0.1:0")
    closer = threading.Thread(target=mesh.close, daemon=True)
    closer.start()
    closer.join(timeout=10)
    assert not closer.is_alive(), "Mesh.close() blocked on a socket of its context left open"
    assert left_open.closed
