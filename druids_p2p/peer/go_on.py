"""Going on at a new table without a seat that is gone (protocol.md §4): the seat that withheld its
seat nonce (so withholding buys it nothing: Cleve, STOC 1986, shows no coin flip can stop it
from stopping), or one gone for good in a game dealt by rounds, whose seat a fresh stand-in bot
takes. Each peer goes on only on its own verdict, so nobody's word drops an honest seat.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import subprocess
import time
from dataclasses import dataclass

from druids_p2p.games.registry import table_options
from druids_p2p.games.seam import TableOptions
from druids_p2p.lan.discovery import decode_beacon
from druids_p2p.lan.lobby import Lobby, join_table, seat_entries
from druids_p2p.lan.mesh import Mesh
from druids_p2p.lan.peer_config import HostSpec, PeerConfig, PeerError
from druids_p2p.lan.seating import Account, make_account, same_account
from druids_p2p.peer.local_table import PeerProcess, peer_argv
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import Departure
from druids_p2p.wire import MsgType, WireError, decode, rename_identity

__all__ = [
    "ASK_S",
    "GoOn",
    "Reseat",
    "departed_key",
    "go_on",
    "go_on_after",
    "let_finish",
    "reseat_after",
    "reseat_table",
]


# Going on without the seat that kept the coin flip from finishing (``protocol.md`` §4).
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


# Going on without a seat that is gone for good: the others' next table, a bot in its seat
# (``protocol.md`` §4, "Going on without a departed seat").
ASK_S = 60.0
"""How long a person is given to answer whether to go on (no answer is no)."""
"""Beyond the answers and one step deadline, how long the new table's host waits for the others
and they wait for its invitation (the verdicts come within a deadline of each other)."""
STAND_IN_EXIT_S = 15.0
"""How long a peer waits for the stand-in bot it started to finish its own lingering."""


@dataclass(frozen=True)
class GoOn:
    """The table this peer may go on to without ``departed``."""

    departed: bytes
    name: str
    """The departed seat's name at the old table."""
    why: str
    """Why the old table stopped (this peer's own verdict)."""
    keys: tuple[bytes, ...]
    """The remaining seats, in the old seat-list order."""
    ruleset: str
    options: TableOptions
    """The old table's options, with the rounds left."""
    account: Account
    table_name: str
    round_from: int
    """The first round the new table plays, counted in the whole game (1-based)."""
    rounds: int
    """The whole game's rounds."""

    @property
    def host(self) -> bytes:
        """Who opens the new table and starts the stand-in: the first remaining seat."""
        return self.keys[0]

    def question(self) -> str:
        """What a person is asked."""
        return (
            f"{self.name} is gone ({self.why}). Go on with a bot in {self.name}'s seat? The "
            f"game goes on from round {self.round_from} of {self.rounds}, the scores so far "
            "carried; the bot's keys are its own."
        )

    def offer(self, me: bytes) -> dict[str, object]:
        """The question as an event (``PeerConfig.go_on_ask`` is handed it)."""
        return {
            "event": "go_on_offer",
            "departed": self.name,
            "round_from": self.round_from,
            "rounds": self.rounds,
            "host": self.host == me,
            "text": self.question(),
        }


def departed_key(machine: TableMachine) -> bytes | None:
    """The seat gone for good by this peer's own verdict: blamed by its own deadline
    (:class:`Departure`), or the sender of the abort this peer stopped on when that abort
    blames nobody (it stopped the table itself: it left, or lost contact). None otherwise: a
    fault with evidence (a cheat) or another peer's claim about a third seat."""
    fault = machine.aborted
    if fault is None:
        return None
    keys = machine.order or machine.list_keys
    if isinstance(fault, Departure) and fault.seat is not None and fault.seat < len(keys):
        return keys[fault.seat]
    if fault.seat is not None or len(fault.evidence) != 1:
        return None
    try:
        msg = decode(fault.evidence[0])
    except WireError:
        return None
    if msg.type is not MsgType.ABORT or "seat" in msg.body or msg.sender == machine.me:
        return None
    return msg.sender if msg.sender in machine.list_keys else None


def go_on_after(machine: TableMachine, table_name: str = "table") -> GoOn | None:
    """The next table this peer may go on to, or None: only at a seated table of a game dealt by
    rounds, stopped by a departure (:func:`departed_key`) other than this peer's own, with a
    round left to play. The rounds it carries are the ones audited (each round is its own card
    table, audited at its final reveal): a round cut short is played again, fresh."""
    rules, play = machine.card_rules, machine.card_play
    if rules is None or "rounds" not in rules.table_flags or play is None or not machine.order:
        return None
    departed = departed_key(machine)
    if departed is None or departed == machine.me:
        return None
    done = machine.rounds_audited
    left = machine.options.rounds - done
    if left < 1:
        return None
    rounds = {}
    for key in machine.list_keys:
        seat = machine.order.index(key)
        own = [int(scores[seat]) for scores in play.copy.round_scores[:done]]
        rounds[key] = list(machine.carried.get(key, [])) + own
    account = make_account(machine.table_id, departed, rounds)
    body = dict(machine.seat_message.body["options"]) | {"rounds": left}
    try:
        ruleset, options = table_options(body)
    except ValueError:
        return None
    carried = len(rounds[departed])
    fault = machine.aborted
    return GoOn(
        departed=departed,
        name=str(machine.names.get(departed, "?")),
        why=(fault.reason if fault is not None else "gone")[:120],
        keys=tuple(k for k in machine.list_keys if k != departed),
        ruleset=ruleset,
        options=options,
        account=account,
        table_name=table_name,
        round_from=carried + 1,
        rounds=carried + left,
    )


def wait_s(config: PeerConfig) -> float:
    return ASK_S + config.step_deadline_s + WAIT_AFTER_DEADLINE_S


def stand_in_name(departed: str) -> str:
    """``bot for NAME``, within a name's 32 bytes."""
    name = departed
    while len(f"bot for {name}".encode()) > 32:
        name = name[:-1]
    return f"bot for {name}"


def start_stand_in(
    config: PeerConfig, departed: str, tag: str, lobby: str
) -> tuple[PeerProcess, bytes]:
    """A stand-in for ``departed``: a new ``druids peer`` bot process on this machine, with a
    fresh identity in a home of its own under this peer's (``bots/stand-in-TAG``, made here, so
    that its key is admitted), joining the lobby at ``lobby``; the process and its key."""
    name = stand_in_name(departed)
    home = config.home / "bots" / f"stand-in-{tag}"
    key = rename_identity(name, home).public_key
    options = ["--bind", config.bind, "--no-announce", "--join", lobby, "--new", "--go-on"]
    options += ["--step-deadline", str(config.step_deadline_s)]
    options += ["--rejoin-time", str(config.rejoin_time_s)]
    argv = peer_argv(f"bot:{config.stand_in_bot}", name, config.budget_ms, options)
    for folder in config.plugins_dirs:
        argv += ["--plugins-dir", str(folder)]
    process = PeerProcess(0, home, argv, human=False)
    process.start()
    return process, key


def host_go_on(config: PeerConfig, mesh: Mesh, plan: GoOn) -> tuple[bytes, PeerProcess]:
    """Open the new table's lobby to the remaining seats and the stand-in alone, start the
    stand-in, invite the others; the seat message and the stand-in's process.

    Raises :class:`PeerError` when they do not all join in time (the stand-in is stopped)."""
    stand_in: list[bytes] = []
    cfg = dataclasses.replace(
        config,
        announce=False,
        lobby_timeout_s=wait_s(config),
        open_table=False,
        allow_joins=(),
        approve_join=lambda request: request.key in plan.keys or request.key in stand_in,
    )
    spec = HostSpec(plan.table_name, plan.options, plan.ruleset)
    mesh.open_gate()  # the stand-in's CURVE key is its own: nobody knows it before its join
    lobby = Lobby(cfg, mesh, spec, invite=plan.keys[1:], continues=plan.account)
    process: PeerProcess | None = None
    try:
        tag = plan.account["table"].hex()[:12]
        process, key = start_stand_in(config, plan.name, tag, f"{config.bind}:{lobby.lobby_port}")
        stand_in.append(key)
        lobby.stand_in = key
        seat_raw = lobby.run()
    except BaseException:
        if process is not None:
            process.kill()
        raise
    finally:
        lobby.close()
    for key, _, endpoint, curve in seat_entries(decode(seat_raw)):
        if key != config.identity.public_key:
            mesh.connect(key, endpoint, curve)
            mesh.send(key, seat_raw)
    return seat_raw, process


def join_go_on(config: PeerConfig, mesh: Mesh, plan: GoOn) -> tuple[bytes, list[bytes]]:
    """Wait for the new host's invitation, join with this seat's own account, and check that
    the seat message seats exactly the remaining seats and one stand-in for the same game,
    carrying that account; the seat message and what came with it.

    Raises :class:`PeerError` when no such invitation comes in time."""
    deadline = time.monotonic() + wait_s(config)
    invited = invitation(mesh, plan.host, plan.ruleset, plan.options, deadline, "the next table")
    if invited is None:
        raise PeerError("no invitation to the next table came in time")
    cfg = dataclasses.replace(config, lobby_timeout_s=max(1.0, deadline - time.monotonic()))
    seat_raw, early = join_table(cfg, mesh, invited, plan.account)
    body = decode(seat_raw).body
    seats = [bytes(k) for k in body["seats"]]
    index = body.get("stand_in")
    if not isinstance(index, int) or not same_account(body.get("continues"), plan.account):
        raise PeerError("the new table's seat message does not carry our account")
    if sorted(k for i, k in enumerate(seats) if i != index) != sorted(plan.keys):
        raise PeerError("the new table seats others than the old table's and a stand-in")
    return seat_raw, early


def go_on(
    config: PeerConfig, mesh: Mesh, plan: GoOn
) -> tuple[bytes, list[bytes], PeerProcess | None]:
    """Host or join the next table, as :attr:`GoOn.host` says; its seat message, the table
    messages that came before it, and the stand-in's process (the host's). The departed
    seat's links are closed first."""
    mesh.disconnect(plan.departed)
    me = config.identity.public_key
    host = config.identity.name if plan.host == me else "the first seat left"
    config.emit(
        {
            "event": "going_on",
            "departed": plan.name,
            "round_from": plan.round_from,
            "rounds": plan.rounds,
            "host": plan.host == me,
            "text": (
                f"going on without {plan.name}: a new table of the {len(plan.keys)} others and "
                f"a bot in {plan.name}'s seat (started by {host}), from round {plan.round_from} "
                f"of {plan.rounds}, the scores so far carried"
            ),
        }
    )
    if plan.host == me:
        seat_raw, process = host_go_on(config, mesh, plan)
        return seat_raw, [], process
    seat_raw, early = join_go_on(config, mesh, plan)
    return seat_raw, early, None


def let_finish(process: PeerProcess, timeout: float = STAND_IN_EXIT_S) -> None:
    """Give the stand-in bot time to finish its lingering (a slower peer may need its last
    messages), then stop it."""
    if process.proc is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.proc.wait(timeout)
    process.kill()
