"""One peer's process at a LAN table, start to end.

:func:`run_peer` picks the table (new, or the saved one the command asks to rejoin), takes a seat
and hands it to the runner; then, on this peer's own verdict, goes on without a departed seat,
reseats, or plays a rematch.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from dataclasses import dataclass
from typing import Any

from druids_p2p.games.registry import table_options
from druids_p2p.games.seam import TableOptions
from druids_p2p.lan import lobby
from druids_p2p.lan.discovery import decode_beacon
from druids_p2p.lan.lobby import Lobby, join_table, seat_entries
from druids_p2p.lan.mesh import Mesh, z85_to_raw
from druids_p2p.lan.network import EndpointError, TableNetwork
from druids_p2p.lan.peer_config import (
    CannotRejoin,
    HostSpec,
    PeerConfig,
    PeerError,
    TableChoice,
    make_player,
)
from druids_p2p.peer import go_on
from druids_p2p.peer.go_on import departed_key, invitation, start_stand_in
from druids_p2p.peer.homes import (
    EventLog,
    HomeTable,
    Request,
    TableChoiceNeeded,
    about,
    choose_table,
    set_aside,
)
from druids_p2p.peer.local_table import PeerProcess
from druids_p2p.peer.runner import TableRunner
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault, TableSecret
from druids_p2p.wire import Transcript, WireError, decode

__all__ = ["ASK_S", "FILL_AFTER_S", "Rematch", "pick_table", "rematch", "rematch_after", "run_peer"]


# A rematch at a table of peers: the same people, the same options, a bot for any empty seat.
ASK_S = 120.0
"""How long a peer waits for its player's answer (the end screen stays up meanwhile)."""
FILL_AFTER_S = 30.0
"""How long the rematch's host waits for the old seats before it seats bots in the empty ones
(the default of ``PeerConfig.rematch_wait_s``, ``--rematch-wait``; a joiner, which cannot know
the host's, waits for its invitation as if it were this)."""


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
    joined after ``config.rematch_wait_s``; the seat message and the bots' processes."""
    me = config.identity.public_key
    bots: list[tuple[PeerProcess, bytes]] = []
    cfg = dataclasses.replace(
        config,
        announce=False,
        lobby_timeout_s=config.rematch_wait_s + config.step_deadline_s + 10.0,
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

    lobby.fill = (config.rematch_wait_s, fill)
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


# One player's process at a LAN table, start to end: host, join or rejoin, then play.
log = logging.getLogger(__name__)

MAX_NEXT_TABLES = 100
"""Tables one run goes on to at most (reseats, tables going on, rematches): a bound, not a
limit anybody meets."""


def _request(config: PeerConfig) -> Request:
    if config.host is not None:
        return Request("host", config.host.name, resume=config.resume, new=config.new)
    lobby_id = None
    if config.announcement is not None:
        with contextlib.suppress(WireError):
            lobby_id = decode_beacon(config.announcement).lobby_id.hex()
    role = "join" if (config.join or config.announcement or config.table_name) else None
    return Request(
        role, config.table_name, config.join, lobby_id, resume=config.resume, new=config.new
    )


def pick_table(config: PeerConfig) -> HomeTable | None:
    """The saved table ``config`` rejoins, or None for a new one (homes.choose_table)."""
    if config.resume_folder is not None:
        return HomeTable(config.resume_folder)
    try:
        return choose_table(config.home, _request(config))
    except TableChoiceNeeded as exc:
        raise TableChoice(str(exc)) from None


def run_peer(config: PeerConfig) -> dict[str, Any]:
    """Host, join or rejoin a table and play it to the end; returns this peer's result.

    A stopped table is marked so, and never blocks the next one; a table stopped at its coin flip by
    this peer's verdict on a seat goes on without it (``go_on.py``). Events go to ``events.jsonl``.
    """
    try:
        TableNetwork.of_address(config.bind)
    except EndpointError as exc:
        raise PeerError(f"cannot play on {config.bind!r}: {exc}") from None
    resume = pick_table(config)
    events = EventLog()
    shown = config.emit

    def emit(event: dict[str, Any]) -> None:
        events.write(event)
        shown(event)

    config = dataclasses.replace(config, emit=emit)
    stand_ins: list[PeerProcess] = []
    """Bots this peer started to stand in for departed seats (``go_on.py``)."""
    if resume is not None:
        try:
            seat_raw, public, secret, port = resume.load()
        except (OSError, ValueError, KeyError) as exc:
            resume.mark_stopped(f"its saved state is unreadable ({exc!r})")
            raise CannotRejoin(
                f"{resume.describe()} cannot be rejoined: its saved state is unreadable; it is "
                "marked stopped (its record is kept), so the next command starts a new table"
            ) from None
        bind = str(resume.info().get("bind") or config.bind)  # the endpoint the others know
        mesh = Mesh(bind, port, (public, secret))
        events.open(resume)
        text = f"rejoining the unfinished {resume.describe()}: Ctrl-C leaves it for good"
        name = resume.info().get("name")
        config.emit(
            {"event": "rejoining", "folder": str(resume.folder), "table": name, "text": text}
        )
    else:
        mesh = Mesh(config.bind, config.port)
    try:
        early: list[bytes] = []
        if resume is None:
            state, seat_raw, early = _take_seat(config, mesh)
            events.open(state)
            if config.new:
                for old in set_aside(config.home, state):
                    config.emit({"event": "set_aside", "text": f"set aside {old.describe()}"})
        else:
            state = resume
        result, machine = _play_marked(config, mesh, state, seat_raw, resume is not None, early)
        for _ in range(MAX_NEXT_TABLES):
            name = str(state.info().get("name") or "table")
            next_table = _next_table(config, mesh, machine, name, stand_ins)
            if next_table is None:
                break
            seat_raw, early = next_table
            state = _save_table(config, mesh, seat_raw, name, None)
            events.close()
            events.open(state)
            result, machine = _play_marked(config, mesh, state, seat_raw, False, early)
    finally:
        mesh.close()
        events.close()
        for process in stand_ins:
            go_on.let_finish(process)
    return result


def _next_table(
    config: PeerConfig,
    mesh: Mesh,
    machine: TableMachine,
    name: str,
    stand_ins: list[PeerProcess],
) -> tuple[bytes, list[bytes]] | None:
    """The table this peer goes on to after ``machine``'s ended, if any: without a seat that
    withheld its coin flip (``go_on.py``); or, its player saying yes, without a seat gone for
    good and with a bot in its seat (``go_on.py``); or, its player saying yes, a rematch
    (``py``). Its seat message and early messages."""
    plan = go_on.reseat_after(machine, name) if config.go_on else None
    if plan is not None:
        try:
            return go_on.reseat_table(config, mesh, plan)
        except PeerError as exc:  # the others did not all go on: this stop stands
            config.emit({"event": "reseat_failed", "text": str(exc)})
            return None
    me = config.identity.public_key
    offer = go_on.go_on_after(machine, name)
    if offer is not None:
        ask = config.go_on_ask
        if ask is not None and ask(offer.offer(me)):
            try:
                seat_raw, early, process = go_on.go_on(config, mesh, offer)
            except PeerError as exc:  # the others did not all go on: this stop stands
                config.emit({"event": "go_on_failed", "text": str(exc)})
                return None
            if process is not None:
                stand_ins.append(process)
            return seat_raw, early
        config.emit(
            {"event": "go_on_declined", "text": f"not going on without {offer.name}: declined"}
        )
    again = rematch_after(machine, name) if config.rematch_ask is not None else None
    if again is None or config.rematch_ask is None or not config.rematch_ask(again.offer(me)):
        return None
    try:
        seat_raw, early, bots = rematch(config, mesh, again)
    except PeerError as exc:
        config.emit({"event": "rematch_failed", "text": str(exc)})
        return None
    stand_ins.extend(bots)
    return seat_raw, early


def _play_marked(
    config: PeerConfig,
    mesh: Mesh,
    state: HomeTable,
    seat_raw: bytes,
    resumed: bool,
    early: list[bytes],
) -> tuple[dict[str, Any], TableMachine]:
    """:func:`_play`, the table marked stopped when this peer cannot go on or it stops."""
    try:
        result, machine = _play(config, mesh, state, seat_raw, resumed, early)
    except CannotRejoin as exc:
        state.mark_stopped(str(exc))
        raise CannotRejoin(
            f"{state.describe()} cannot be rejoined: {exc}; it is marked stopped (its record "
            "is kept), so the next command starts a new table"
        ) from None
    except PeerError as exc:
        # Seated, this peer cannot go on (its player gave up: no move, input closed): a
        # stop, not a crash to rejoin. Network errors (OSError) leave the table playing.
        state.mark_stopped(str(exc))
        raise
    if result.get("aborted") and not result.get("finished"):
        state.mark_stopped(str(result["aborted"]))
    return result, machine


def _take_seat(config: PeerConfig, mesh: Mesh) -> tuple[HomeTable, bytes, list[bytes]]:
    """Host or join a new table; its folder saved (with how it was found, to find it again)."""
    identity = config.identity
    early: list[bytes] = []
    name, lobby_id = None, None
    if config.host is not None:
        host = lobby.Lobby(config, mesh, config.host)
        name, lobby_id = config.host.name, host.lobby_id.hex()
        seat_raw = host.run()
        seat_msg = decode(seat_raw)
        for key, _, endpoint, curve in lobby.seat_entries(seat_msg):
            if key != identity.public_key:
                mesh.connect(key, endpoint, curve)
                mesh.send(key, seat_raw)
    elif config.announcement is not None or config.join is not None:
        announcement = config.announcement or lobby.query_lobby(str(config.join))
        with contextlib.suppress(WireError):
            beacon = decode_beacon(announcement)
            name, lobby_id = beacon.info.name, beacon.lobby_id.hex()
        seat_raw, early = lobby.join_table(config, mesh, announcement)
    else:
        raise PeerError("nothing to do: host a table, join one, or rejoin")
    return _save_table(config, mesh, seat_raw, name, lobby_id), seat_raw, early


def _save_table(
    config: PeerConfig, mesh: Mesh, seat_raw: bytes, name: str | None, lobby_id: str | None
) -> HomeTable:
    """A seated table's folder, saved (with how it was found, to find it again)."""
    state = HomeTable(config.home / "tables" / decode(seat_raw).table_id.hex()[:24])
    saved = about(_request(config), name, lobby_id) | {"bind": config.bind}
    if config.custom_player is None:
        saved["player"] = config.player  # what a launcher restarts the seat with
    state.save(seat_raw, mesh.curve_public, mesh.curve_secret, mesh.port, saved)
    return state


def _play(
    config: PeerConfig,
    mesh: Mesh,
    state: HomeTable,
    seat_raw: bytes,
    resumed: bool,
    early: list[bytes],
) -> tuple[dict[str, Any], TableMachine]:
    identity = config.identity
    seat_msg = decode(seat_raw)
    secret = TableSecret.load_or_create(state.folder / "secret")
    curve_raw = z85_to_raw(mesh.curve_public)
    if resumed:
        try:
            transcript, read = Transcript.resume(state.record)
            if read.tail:
                log.warning("the record's last message was cut off by the crash: %s", read.tail)
            machine = TableMachine(
                identity, seat_msg, secret, mesh.endpoint, curve_raw, None, mesh.network
            )
            machine.load_record(list(transcript.messages))
            machine.start()
        except (WireError, TableFault) as exc:
            raise CannotRejoin(f"its record does not replay ({exc})") from None
        try:
            machine.adopt_record(transcript)
        except ValueError:
            raise CannotRejoin("its record does not replay to the same table state") from None
    else:
        transcript = Transcript.start(seat_msg, state.record)
        machine = TableMachine(
            identity, seat_msg, secret, mesh.endpoint, curve_raw, transcript, mesh.network
        )
    player = make_player(config, secret.derive("bot-seed"))
    config.emit(
        {
            "event": "seated",
            "table": seat_msg.table_id.hex(),
            "players": machine.options.players,
            "record": str(state.record),
            "resumed": resumed,
        }
    )
    runner = TableRunner(config, mesh, machine, state, player)
    runner.early = early
    try:
        return runner.run(resume=resumed), machine
    except KeyboardInterrupt:
        # Ctrl-C is leaving: recorded and told to the others like any stop, never a crash to
        # rejoin later (a second Ctrl-C while it is sent ends the process).
        left = TableFault(f"{identity.name} left the table (interrupted)", None)
        return runner._abort(left), machine
