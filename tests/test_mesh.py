"""The mesh over real loopback sockets: who a frame is from is what its CURVE link proves."""

from __future__ import annotations

import time

from druids_p2p.net.mesh import Mesh


def test_inbound_names_the_link_key_not_the_claimed_routing_id() -> None:
    inbox = Mesh("127.0.0.1", routing_id=b"inbox")
    honest = Mesh("127.0.0.1", routing_id=b"honest")
    liar = Mesh("127.0.0.1", routing_id=b"honest")  # claims the honest peer's routing id
    try:
        for sender, payload in ((honest, b"from honest"), (liar, b"from liar")):
            sender.connect(b"inbox", inbox.endpoint, inbox.curve_public_raw)
            sender.send(b"inbox", payload)
        got: dict[bytes, bytes] = {}
        deadline = time.monotonic() + 10
        while len(got) < 2 and time.monotonic() < deadline:
            for inbound in inbox.poll(100):
                got[inbound.payload] = inbound.curve
        assert got == {
            b"from honest": honest.curve_public_raw,
            b"from liar": liar.curve_public_raw,
        }
    finally:
        for mesh in (inbox, honest, liar):
            mesh.close()
