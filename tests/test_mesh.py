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
