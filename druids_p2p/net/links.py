"""A seated peer's links to the other seats, from each peer's own signed word.

The host's seat message lists an endpoint and a CURVE key for every seat, but that is the host's
claim about the others. What decides where a seat is reached, which CURVE keys the inbox admits,
and which link an unsigned receipt is booked to, is each peer's own signed ``seat_confirm``. A
seat message that lists for a seat anything else than that seat's own confirmation is a fault of
the host, with both signed messages as evidence (``seating.confirm_contradiction``, checked by the
table machine as each confirmation arrives).

Ordering: nobody can be reached at its confirmed address before its confirmation is in, and the
confirmations are what must travel first. So, before they are all in, a peer opens a DEALER to
every seat at the address the seat message lists and sends over it only what the seating needs
(its own confirmation, keepalives, resend requests: all signed, all public), books nothing to
anybody through it, and keeps its inbox gate open, so that a peer the seat message misplaces
still delivers its own confirmation (which convicts the host). In an honest table those DEALERs
are exactly the confirmed ones, so the table starts as fast as before. Once every confirmation is
in (each one checked against the seat message), the DEALERs, the gate and the receipt map are
set from them, and any connection from a key not at the table is dropped (``Mesh.close_gate``).
"""

from __future__ import annotations

from druids_p2p.net.mesh import Mesh
from druids_p2p.net.table import TableMachine


class LinkError(Exception):
    """The seat message does not say where the peers are (one line for the user)."""


class Links:
    """DEALERs, inbox gate and receipt attribution of one seated peer."""

    def __init__(self, mesh: Mesh, machine: TableMachine) -> None:
        self.mesh = mesh
        self.machine = machine
        self.key_of_link: dict[bytes, bytes] = {}
        """Raw CURVE key of an authenticated link -> the seat key whose own confirmation names
        it. Empty until every confirmation is in (no receipt is due before)."""
        self.settled = False
        """True once the links come from every seat's confirmation and the gate is closed."""

    def start(self) -> None:
        """Open the seating DEALERs (at the seat message's addresses) or, when every confirmation
        is already known (a restarted peer's record), the table's links at once."""
        machine = self.machine
        body = machine.seat_message.body
        if "endpoints" not in body or "curves" not in body:
            raise LinkError("the seat message does not say where the peers are")
        listed = zip(machine.list_keys, body["endpoints"], body["curves"], strict=True)
        for key, endpoint, curve in listed:
            if key != machine.me:
                self.mesh.connect(key, endpoint, curve)
        self.update()

    def update(self) -> bool:
        """Once every seat's confirmation is in: the links from them. True when this call set
        them (cheap otherwise: called after every batch of messages until then)."""
        if self.settled:
            return False
        machine = self.machine
        confirms = machine.seating.confirms
        if len(confirms) < len(machine.list_keys):
            return False
        for key in machine.list_keys:
            confirm = confirms[key]
            curve: bytes = confirm.body["curve"]
            self.key_of_link[curve] = key
            if key != machine.me:
                self.mesh.connect(key, confirm.body["endpoint"], curve)
        self.mesh.close_gate(confirms[key].body["curve"] for key in machine.list_keys)
        self.settled = True
        return True


__all__ = ["LinkError", "Links"]
