"""Going on without the seat that kept the coin flip from finishing (``protocol.md`` §4).

The last seat to reveal its seat nonce can compute the play order before it reveals, and no coin
flip between parties that may all but one be dishonest can keep it from stopping there (Cleve,
STOC 1986). So withholding must buy it nothing: a peer whose *own* verdict blamed a seat at the
nonce step (past its deadline, an abort instead, a nonce that breaks its commitment) goes on to
a new table of the other seats, with fresh nonces under fresh commitments, which the withholder
neither sits at nor sees. Its choice was the order it saw, or no game at all.

The new table is formed by the lobby the host uses (``lan/lobby.py``): the first remaining seat
in the old seat list opens one that admits only the remaining keys, and invites them over the
mesh; each remaining seat joins it only on its own verdict, so nobody's word drops an honest
seat, and a seat that declines (it holds the nonce the others lack) just lets the new lobby time
out, blaming nobody.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass

from druids_p2p.games.seam import TableOptions
from druids_p2p.lan.discovery import decode_beacon
from druids_p2p.lan.lobby import Lobby, join_table, seat_entries
from druids_p2p.lan.mesh import Mesh
from druids_p2p.lan.peer_config import HostSpec, PeerConfig, PeerError
from druids_p2p.rulesets import table_options
from druids_p2p.table.table import TableMachine
from druids_p2p.wire import WireError, decode

log = logging.getLogger(__name__)

WAIT_AFTER_DEADLINE_S = 10.0
"""How long, beyond one step deadline, the new table's host waits for the others to join and
they wait for its invitation (the verdicts come within a deadline of each other; an abort's
linger takes 1.5 s)."""


@dataclass(frozen=True)
class Reseat:
    """The table this peer goes on to without ``dropped``."""

    dropped: bytes
    name: str
    """The dropped seat's name at the old table."""
    keys: tuple[bytes, ...]
    """The remaining seats, in the old seat-list order."""
    ruleset: str
    options: TableOptions
    """The old table's options, for ``len(keys)`` players."""
    table_name: str

    @property
    def host(self) -> bytes:
        """Who opens the new table: the first remaining seat of the old list."""
        return self.keys[0]


def reseat_after(machine: TableMachine, table_name: str = "table") -> Reseat | None:
    """The new table this peer goes on to, or None.

    Only when this peer stopped on its *own* verdict (a fault naming a seat; never on another
    peer's word, which names nobody here) during the nonce step (every confirmation in, the
    order not fixed): there the blamed seat could have known the order. None too when the
    others are too few for the game, or this peer is the one blamed."""
    fault = machine.aborted
    if fault is None or fault.seat is None or machine.order:
        return None
    if len(machine.seating.confirms) < len(machine.list_keys):
        return None  # before the nonces: the blamed seat knew nothing of the order
    dropped = machine.list_keys[fault.seat]
    if dropped == machine.me:
        return None
    keys = tuple(k for k in machine.list_keys if k != dropped)
    body = dict(machine.seat_message.body["options"]) | {"players": len(keys)}
    try:
        ruleset, options = table_options(body)
    except ValueError:
        return None  # too few seats left for the game
    name = str(machine.names.get(dropped, "?"))
    return Reseat(dropped, name, keys, ruleset, options, table_name)


def reseat_wait_s(config: PeerConfig) -> float:
    return config.step_deadline_s + WAIT_AFTER_DEADLINE_S


def host_reseat(config: PeerConfig, mesh: Mesh, plan: Reseat) -> bytes:
    """Open the new table's lobby to the remaining seats alone, invite them; its seat message.

    Raises :class:`PeerError` when they do not all join in time (one declined: no game)."""
    cfg = dataclasses.replace(
        config,
        announce=False,
        lobby_timeout_s=reseat_wait_s(config),
        approve_join=lambda request: request.key in plan.keys,
    )
    spec = HostSpec(plan.table_name, plan.options, plan.ruleset)
    lobby = Lobby(cfg, mesh, spec, invite=plan.keys[1:])
    try:
        seat_raw = lobby.run()
    finally:
        lobby.close()
    for key, _, endpoint, curve in seat_entries(decode(seat_raw)):
        if key != config.identity.public_key:
            mesh.connect(key, endpoint, curve)
            mesh.send(key, seat_raw)
    return seat_raw


def invitation(
    mesh: Mesh, host: bytes, ruleset: str, options: TableOptions, deadline: float, what: str
) -> bytes | None:
    """The signed announcement ``host`` invites us with to ``what`` (a new table of the same
    game: its game and options must be ``ruleset`` and ``options``, else :class:`PeerError`),
    polled until ``deadline``; None if none came. Anything else arriving meanwhile is dropped:
    the old table is over."""
    while time.monotonic() < deadline:
        for inbound in mesh.poll(50):
            try:
                beacon = decode_beacon(inbound.payload)
            except WireError:
                continue
            if beacon.host_key != host:
                continue
            info = beacon.info
            offered = (info.ruleset, info.players, info.variant, info.rounds)
            if offered != (ruleset, options.players, options.variant, options.rounds):
                raise PeerError(f"{what}'s host offers another game than ours")
            return inbound.payload
    return None


def join_reseat(config: PeerConfig, mesh: Mesh, plan: Reseat) -> tuple[bytes, list[bytes]]:
    """Wait for the new host's invitation, join, and check that the seat message seats exactly
    the remaining seats for the same game; the seat message and what came with it.

    Raises :class:`PeerError` when no such invitation comes in time."""
    deadline = time.monotonic() + reseat_wait_s(config)
    invited = invitation(mesh, plan.host, plan.ruleset, plan.options, deadline, "the new table")
    if invited is None:
        raise PeerError("no invitation to the new table came in time")
    cfg = dataclasses.replace(config, lobby_timeout_s=max(1.0, deadline - time.monotonic()))
    seat_raw, early = join_table(cfg, mesh, invited)
    seats = tuple(decode(seat_raw).body["seats"])
    if sorted(seats) != sorted(plan.keys):
        raise PeerError("the new table's seat message seats others than the old table's")
    return seat_raw, early


def reseat_table(config: PeerConfig, mesh: Mesh, plan: Reseat) -> tuple[bytes, list[bytes]]:
    """Host or join the new table, as :attr:`Reseat.host` says; its seat message (and the table
    messages that came before it). The withholder's links are closed first."""
    mesh.disconnect(plan.dropped)
    me = config.identity.public_key
    host = config.identity.name if plan.host == me else "the first seat left"
    config.emit(
        {
            "event": "reseating",
            "dropped": plan.name,
            "players": len(plan.keys),
            "host": plan.host == me,
            "text": (
                f"going on without {plan.name}, who kept the coin flip from finishing: "
                f"a new table of the {len(plan.keys)} others, opened by {host}"
            ),
        }
    )
    if plan.host == me:
        return host_reseat(config, mesh, plan), []
    return join_reseat(config, mesh, plan)


__all__ = ["Reseat", "reseat_after", "reseat_table"]
