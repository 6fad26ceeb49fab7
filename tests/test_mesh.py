"""The mesh over real loopback sockets: who a frame is from is what its CURVE link proves."""

from __future__ import annotations

import time

from druids_p2p.net.mesh import Inbound, Mesh


def _receive(inbox: Mesh, payload: bytes) -> Inbound:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for inbound in inbox.poll(100):
            if inbound.payload == payload:
                return inbound
    raise AssertionError(f"{payload!r} never arrived")


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
