"""A rematch at a table of peers: the same people, the same options, a bot for any empty seat.

Once a table has ended (its game over, or stopped with nobody going on), each peer may be asked
for a rematch: the terminal UI's end screen (key ``r``) answers for its person, ``--rematch N``
says yes N times for a command-line peer. Those that say yes go on to a new table formed as
``reseat.py`` and ``go_on.py`` form one, over the links the old table left open: the first seat
of the old seat list that did not depart opens a lobby for the same game (the whole game's rounds
again), admitting only the old table's keys, and invites them every second. A seat that has not
joined ``FILL_AFTER_S`` later (its person said no, or is gone) gets a bot in its place: a new
``druids peer`` process with a fresh identity of its own, named ``bot for NAME``, started on the
host's machine, as a stand-in is (``go_on.start_stand_in``). The new table is a first table like
any other — nothing is carried: its game starts afresh (the running scores over the evening are
the terminal UI's, ``tui/game_ui.py``). Only the host's own yes opens it; a peer that says yes
waits at most ``ASK_S`` + ``FILL_AFTER_S`` + the step deadline for its invitation.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from druids_p2p.games.registry import table_options
from druids_p2p.games.seam import TableOptions
from druids_p2p.lan.errors import PeerError
from druids_p2p.lan.lobby import Lobby, join_table, seat_entries
from druids_p2p.lan.mesh import Mesh
from druids_p2p.lan.peer_config import HostSpec, PeerConfig
from druids_p2p.peer.go_on import departed_key, start_stand_in
from druids_p2p.peer.local_table import PeerProcess
from druids_p2p.peer.reseat import invitation
from druids_p2p.table.table import TableMachine
from druids_p2p.wire import decode

ASK_S = 120.0
"""How long a peer waits for its player's answer (the end screen stays up meanwhile)."""
FILL_AFTER_S = 30.0
"""How long the rematch's host waits for the old seats before it seats bots in the empty ones."""


@dataclass(frozen=True)
class Rematch:
    """The table a rematch of ``machine``'s would be."""

    keys: tuple[bytes, ...]
    """The old table's seats, in its seat-list order."""
    names: dict[bytes, str]
    host: bytes
    """The first seat of the old list that did not depart (by this peer's own verdict)."""
    ruleset: str
    options: TableOptions
    """The old table's options, with the whole game's rounds (a continued table's carried ones
    counted)."""
    table_name: str
    tag: str
    """The old table id's first 12 hex digits (names the stand-ins' homes)."""

    def offer(self, me: bytes) -> dict[str, object]:
        return {
            "event": "rematch_offer",
            "host": self.host == me,
            "text": "a rematch: the same players and options at a new table (r)",
        }


def rematch_after(machine: TableMachine, table_name: str = "table") -> Rematch | None:
    """The rematch of an ended table (over, or stopped), or None while it is on."""
    if not (machine.finished or machine.aborted is not None):
        return None
    gone = departed_key(machine)
    hosts = [k for k in machine.list_keys if k != gone]
    carried = len(next(iter(machine.carried.values()))) if machine.carried else 0
    body = dict(machine.seat_message.body["options"])
    body["rounds"] = int(body["rounds"]) + carried
    try:
        ruleset, options = table_options(body)
    except ValueError:
        return None
    return Rematch(
        keys=machine.list_keys,
        names={k: str(v) for k, v in machine.names.items()},
        host=hosts[0],
        ruleset=ruleset,
        options=options,
        table_name=table_name,
        tag=machine.table_id.hex()[:12],
    )


def host_rematch(config: PeerConfig, mesh: Mesh, plan: Rematch) -> tuple[bytes, list[PeerProcess]]:
    """Open the rematch's lobby to the old seats, invite them, seat a bot for each that has not
    joined after ``FILL_AFTER_S``; the seat message and the bots' processes."""
    me = config.identity.public_key
    bots: list[tuple[PeerProcess, bytes]] = []
    cfg = dataclasses.replace(
        config,
        announce=False,
        lobby_timeout_s=FILL_AFTER_S + config.step_deadline_s + 10.0,
        open_table=False,
        allow_joins=(),
        approve_join=lambda r: r.key in plan.keys or any(r.key == k for _, k in bots),
    )
    spec = HostSpec(plan.table_name, plan.options, plan.ruleset)
    mesh.open_gate()  # a bot's CURVE key is its own: nobody knows it before its join
    lobby = Lobby(cfg, mesh, spec, invite=tuple(k for k in plan.keys if k != me))
    address = f"{config.bind}:{lobby.lobby_port}"

    def fill(missing: list[bytes]) -> list[bytes]:
        for n, key in enumerate(missing):
            name = plan.names.get(key, "?")
            bots.append(start_stand_in(config, name, f"{plan.tag}-{n}", address))
            config.emit({"event": "rematch_bot", "name": name, "text": f"a bot sits for {name}"})
        return []

    lobby.fill = (FILL_AFTER_S, fill)
    try:
        seat_raw = lobby.run()
    except BaseException:
        for process, _ in bots:
            process.kill()
        raise
    finally:
        lobby.close()
    for key, _, endpoint, curve in seat_entries(decode(seat_raw)):
        if key != me:
            mesh.connect(key, endpoint, curve)
            mesh.send(key, seat_raw)
    return seat_raw, [process for process, _ in bots]


def join_rematch(config: PeerConfig, mesh: Mesh, plan: Rematch) -> tuple[bytes, list[bytes]]:
    """Wait for the rematch host's invitation (only its signed announcement, for the same game)
    and join; the seat message and what came with it. Raises :class:`PeerError` if none comes."""
    deadline = time.monotonic() + ASK_S + FILL_AFTER_S + config.step_deadline_s
    invited = invitation(mesh, plan.host, plan.ruleset, plan.options, deadline, "the rematch")
    if invited is None:
        raise PeerError("no invitation to the rematch came in time")
    cfg = dataclasses.replace(config, lobby_timeout_s=max(1.0, deadline - time.monotonic()))
    return join_table(cfg, mesh, invited)


def rematch(
    config: PeerConfig, mesh: Mesh, plan: Rematch
) -> tuple[bytes, list[bytes], list[PeerProcess]]:
    """Host or join the rematch; its seat message, early messages and the bots started."""
    me = config.identity.public_key
    config.emit(
        {
            "event": "rematching",
            "host": plan.host == me,
            "text": "a rematch: the same players and options at a new table"
            + (" (bots for those who do not come)" if plan.host == me else ""),
        }
    )
    if plan.host == me:
        seat_raw, bots = host_rematch(config, mesh, plan)
        return seat_raw, [], bots
    seat_raw, early = join_rematch(config, mesh, plan)
    return seat_raw, early, []


__all__ = ["ASK_S", "FILL_AFTER_S", "Rematch", "rematch", "rematch_after"]
