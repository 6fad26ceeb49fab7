"""A seated peer's links to the other seats, from each peer's own signed word.

The host's seat message lists an endpoint and a CURVE key for every seat, but the host is only
allowed to repeat there what each seat said itself. What decides where a seat is reached, which
CURVE keys the inbox admits, and which seat a frame's link is counted to (liveness, the flood
limit, a catch-up), is each peer's own
signed ``seat_confirm``, checked by the table machine against the seat list as it arrives (a
confirmation that contradicts its signer's own quoted join blames that signer).

Ordering: nobody can be reached at its confirmed address before its confirmation is in, and the
confirmations are what must travel first. But the seat message quotes every joiner's own signed
join and must list exactly what it says (``seating.seat_list_fault``, checked by every peer before
it sends anything; the host's own entry is the host's word): a seat list that passes is already
every seat's own word. So a peer opens its DEALERs at the listed addresses and closes its inbox
gate to the listed keys at once (dropping any connection a stranger made in the lobby), sends its
confirmation, and books nothing to anybody until every confirmation is in; each is checked against
the list (a contradiction blames its signer). Then the DEALERs, the gate and the link map are
set from the confirmations: the same addresses in any table that got this far, so the table
starts as fast as before, with no extra round trip.
"""

from __future__ import annotations

from druids_p2p.lan.mesh import MeshPort
from druids_p2p.table.table import TableMachine


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


__all__ = ["LinkError", "Links"]
