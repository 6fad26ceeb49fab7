"""The mesh over real loopback sockets: who a frame is from is what its CURVE link proves."""

from __future__ import annotations

import time

import zmq

from druids_p2p.net.mesh import Inbound, Mesh


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


def test_inbound_names_the_link_key_not_the_claimed_routing_id() -> None:
    inbox = Mesh("127.0.0.1", routing_id=b"inbox")
    honest = Mesh("127.0.0.1", routing_id=b"honest")
    liar = Mesh("127.0.0.1", routing_id=b"honest")  # claims the honest peer's routing id
    try:
        for sender, payload in ((honest, b"from honest"), (liar, b"from liar")):
            sender.connect(b"inbox", inbox.endpoint, inbox.curve_public_raw)
            sender.send(b"inbox", payload)
            inbound = _receive(inbox, payload)
            assert inbound.routing_id == b"honest"
            assert inbound.curve == sender.curve_public_raw
    finally:
        for mesh in (inbox, honest, liar):
            mesh.close()


def test_every_mesh_socket_bounds_how_long_a_dead_link_goes_unnoticed() -> None:
    """Issue 13 items 3 and 4, as options on the real sockets (the fault suite in namespaces,
    tests/test_faults_netns.py, shows their effect): no ZMTP heartbeat (libzmq 4.3.5's heartbeat
    timer aborts a peer whose link failed), a bounded connect attempt and reconnect interval
    (not the kernel's SYN back-off), a bounded retransmission time and TCP keepalive."""
    a = Mesh("127.0.0.1", routing_id=b"a")
    b = Mesh("127.0.0.1", routing_id=b"b")
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


def _bytes_opt(sock: zmq.Socket[bytes], option: int) -> bytes:
    value = sock.getsockopt(option)
    assert isinstance(value, bytes), (option, value)
    return value


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
    c = Mesh("127.0.0.1", routing_id=C)
    b = Mesh("127.0.0.1", routing_id=B)
    a = Mesh("127.0.0.1", routing_id=b"A" * 32)
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
