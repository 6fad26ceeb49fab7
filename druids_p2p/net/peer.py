"""One player's process at a LAN table: lobby, ZeroMQ mesh, the table machine, bot or human.

The host only gathers the seats: it announces the table (beacon, and a plain lobby socket that
answers ``druids join HOST:PORT``), collects signed joins and sends the signed seat message. From
then on every peer is equal: a full CURVE mesh, every message checked by ``wire.decode``, the
transcript and the table machine, and one bad peer can only get itself blamed.

Everything a restarted process needs to rejoin is kept under ``<home>/tables/<id>/``: the seat
message, the table secret, the CURVE key pair and endpoint, and the game record itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import logging
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from druids_p2p.engine import GameOptions, format_card, format_move, parse_move
from druids_p2p.net.admission import REFUSED_REASON, Admission, Approver, JoinRequest, unique_name
from druids_p2p.net.chat import ChatOutbox, TableChat
from druids_p2p.net.deadlines import Deadlines, claim_of, debts, lost_contact, who
from druids_p2p.net.discovery import (
    DEFAULT_PORT,
    LOBBY_ID_SIZE,
    BeaconSender,
    Seat,
    TableInfo,
    decode_beacon,
    encode_beacon,
)
from druids_p2p.net.endpoints import EndpointError, TableNetwork
from druids_p2p.net.homes import (
    EventLog,
    Request,
    TableChoiceNeeded,
    TableState,
    about,
    choose_table,
    set_aside,
    unfinished_table,
)
from druids_p2p.net.links import LinkError, Links
from druids_p2p.net.mesh import Mesh, raw_to_z85, z85_to_raw
from druids_p2p.net.resend import CatchUp, ResendLimiter, bounded
from druids_p2p.net.seating import make_join, make_seat_message, quoted_join
from druids_p2p.net.secrets import TableSecret
from druids_p2p.net.table import TableMachine
from druids_p2p.net.table_types import Divergence, TableFault
from druids_p2p.rulesets import seat_options
from druids_p2p.wire import (
    ZERO_HASH,
    Identity,
    Message,
    MsgType,
    Transcript,
    WireError,
    decode,
    decode_receipt,
    encode,
    is_receipt,
    verify_equivocation,
)
from druids_p2p.wire.equivocation import equivocation_body

log = logging.getLogger(__name__)

LOBBY_DOMAIN = b"druids-p2p/v1 lobby\x00"
NUDGE_AFTER_S = 1.0
LINGER_AFTER_GAME_S = 1.5
LINGER_FOR_THE_END_S = 10.0
LINGER_QUIET_S = 2.5
ABORT_GRACE_S = 2.0
KEEPALIVE_S = 1.0
CLIENT = "druids-p2p/0.1.0"
"""How long a peer keeps checking after another stopped the table, to verify its claim."""


class PeerError(Exception):
    """A peer cannot go on (bad target, table full, host gone...): one line for the user."""


@dataclass
class HostSpec:
    name: str
    options: GameOptions


@dataclass
class PeerConfig:
    home: Path
    identity: Identity
    player: str = "bot:random"
    """``bot:NAME`` or ``human``."""
    bind: str = "127.0.0.1"
    port: int = 0
    host: HostSpec | None = None
    join: str | None = None
    """``HOST:PORT`` of a host's lobby socket."""
    announcement: bytes | None = None
    """A host's signed beacon heard on the LAN (``druids join NAME``): join with it directly,
    without asking a lobby socket (``join`` is then unused)."""
    announce: bool = True
    beacon_port: int = DEFAULT_PORT
    budget_ms: float = 100.0
    away_after_s: float = 3.0
    gone_after_s: float = 300.0
    """The move limit: how long a seat may take over a move (a person thinking) before it is
    blamed as gone; also the longest any owed message is waited for."""
    step_deadline_s: float = 30.0
    """How long an automatic message (deck, seating, ready, a receipt) may be owed before its
    seat is blamed for withholding it (``net/deadlines.py``)."""
    lobby_timeout_s: float = 600.0
    plugins_dirs: tuple[Path, ...] = ()
    emit: Callable[[dict[str, Any]], None] = field(default=lambda event: None)
    human_input: Callable[[str], str] = field(default=input)
    custom_player: Player | None = None
    """Plays this seat instead of ``player`` (the terminal UI plugs itself in here)."""
    bot_players: BotPlayers | None = None
    """Builds the player of a ``bot:NAME`` seat (the CLI passes ``cli.bot_player.bot_player``).
    Injected so that the network layer meets players only as :class:`Player` and never imports
    the bots or the plugin loader; None: only ``human`` and ``custom_player`` seats can play."""
    approve_join: Approver | None = None
    """Asked about every joiner before the host seats it (admission.py); None seats everyone."""
    clock: Callable[[], float] = field(default=time.monotonic)
    """The seated table's clock (liveness, deadlines, grace periods): tests pass a fake one."""
    table_name: str | None = None
    """``druids join NAME``: the name (or lobby id prefix) typed, kept to find the table again."""
    resume: bool = False
    """``--resume``: rejoin the table still playing in ``home`` (homes.choose_table)."""
    new: bool = False
    """``--new``: start a new table even if one is still playing here (it is kept)."""
    resume_folder: Path | None = None
    """Rejoin exactly this saved table (``<home>/tables/<id>``)."""
    chat: ChatOutbox | None = None
    """Lines this seat's person types at the table (the terminal UI); None: it says nothing."""


def lobby_table_id(lobby_id: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(LOBBY_DOMAIN + lobby_id).digest()


# ==================================================================== players
class Player:
    """Chooses this seat's moves. ``attach`` is called once the table machine exists (a user
    interface keeps it to show the table); ``choose`` when it is this seat's turn."""

    def attach(self, machine: TableMachine) -> None:
        """Called once, before the table starts."""

    def start(self, machine: TableMachine) -> None: ...
    def choose(self, machine: TableMachine) -> int:
        raise NotImplementedError

    def wants_to_leave(self) -> bool:
        """True once the person (or program) playing this seat has left: the table then stops
        with that reason, recorded and told to the others. Checked on every tick."""
        return False

    def poll(self, machine: TableMachine) -> int | None:
        """This seat's move if it has one now, else None (asked again on the next tick).

        The table loop keeps serving the network between calls, so a person may think as long
        as they like; the default simply blocks in :meth:`choose` (bots answer at once)."""
        return self.choose(machine)


class PromptPlayer(Player):
    """A person at a plain terminal (the Textual UI drives the machine itself)."""

    def __init__(self, ask: Callable[[str], str]) -> None:
        self.ask = ask

    def choose(self, machine: TableMachine) -> int:
        view = machine.view()
        assert view is not None
        legal = [format_move(m) for m in view.legal]
        hand = " ".join(format_card(c) for c in view.hand)
        for _ in range(100):
            answer = self.ask(f"your hand: {hand}\nlegal: {' '.join(legal)}\nyour move> ").strip()
            if answer in legal:
                return parse_move(answer)
            print(f"not a legal move here: {answer!r}")
        raise PeerError("no legal move entered")


BotPlayers = Callable[[str, PeerConfig, bytes], Player]
"""``(bot name, config, the seat's secret seed) -> Player``, raising :class:`PeerError` for an
unknown bot: how a ``bot:NAME`` seat gets its player (``PeerConfig.bot_players``)."""


def make_player(config: PeerConfig, secret_seed: bytes) -> Player:
    if config.custom_player is not None:
        return config.custom_player
    if config.player == "human":
        return PromptPlayer(config.human_input)
    if not config.player.startswith("bot:"):
        raise PeerError(f"a player is 'human' or 'bot:NAME', not {config.player!r}")
    if config.bot_players is None:
        raise PeerError(f"{config.player!r}: this peer was given no bot players (PeerConfig)")
    return config.bot_players(config.player[4:], config, secret_seed)


# ==================================================================== the lobby
def query_lobby(target: str, timeout_s: float = 5.0) -> bytes:
    """Ask a host's plain lobby socket for its signed table announcement."""
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise PeerError(f"expected HOST:PORT, not {target!r}")
    try:
        infos = socket.getaddrinfo(host, int(port), socket.AF_INET, socket.SOCK_STREAM)
    except (OSError, ValueError) as exc:
        raise PeerError(f"{target}: {exc}") from None
    for info in infos:  # a lobby is one host: never a broadcast, multicast or "any" address
        ip = ipaddress.IPv4Address(str(info[4][0]))
        if ip == ipaddress.IPv4Address("255.255.255.255") or ip.is_multicast or ip.is_unspecified:
            raise PeerError(f"{target}: {ip} is not a host address")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.MAXMSGSIZE, 4096)
    try:
        sock.connect(f"tcp://{host}:{port}")
        sock.send(b"druids-p2p/v1 lobby?")
        if not sock.poll(int(timeout_s * 1000)):
            raise PeerError(f"no table answers at {target}")
        reply: bytes = sock.recv()
        return reply
    finally:
        sock.close(linger=0)


class Lobby:
    """The host side before seating: beacon, lobby socket, joins."""

    def __init__(self, config: PeerConfig, mesh: Mesh, spec: HostSpec) -> None:
        self.config = config
        self.mesh = mesh
        self.spec = spec
        self.identity = config.identity
        self.lobby_id = os.urandom(LOBBY_ID_SIZE)
        self.table_id = lobby_table_id(self.lobby_id)
        self.seats: list[tuple[bytes, str, str, bytes]] = [
            (self.identity.public_key, self.identity.name, mesh.endpoint, mesh.curve_public_raw)
        ]
        self.socket = mesh.ctx.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.MAXMSGSIZE, 256)
        self.lobby_port = self.socket.bind_to_random_port(f"tcp://{config.bind}")
        self.counter = 0
        self.admission = Admission(config.approve_join)
        self.joins: dict[bytes, bytes] = {}
        """Each seated joiner's raw signed join."""
        self.beacon: BeaconSender | None = None
        if config.announce:
            self.beacon = BeaconSender(
                self.identity, self.info(), config.bind, config.beacon_port, lobby_id=self.lobby_id
            ).start()

    def info(self) -> TableInfo:
        o = self.spec.options
        return TableInfo(
            name=self.spec.name,
            endpoint=self.mesh.endpoint,
            curve_key=self.mesh.curve_public_raw,
            players=o.players,
            variant=o.variant,
            rounds=o.rounds,
            seats=tuple(Seat(name, key) for key, name, _, _ in self.seats),
            lobby_port=self.lobby_port,
        )

    def announcement(self) -> bytes:
        self.counter += 1
        return encode_beacon(self.identity, self.info(), self.lobby_id, self.counter)

    def run(self) -> bytes:
        """Gather joins until the table is full; return the signed seat message."""
        cfg = self.config
        cfg.emit(
            {
                "event": "lobby",
                "lobby": f"{cfg.bind}:{self.lobby_port}",
                "endpoint": self.mesh.endpoint,
                "players": self.spec.options.players,
            }
        )
        poller = zmq.Poller()
        poller.register(self.socket, zmq.POLLIN)
        deadline = time.monotonic() + cfg.lobby_timeout_s
        while len(self.seats) < self.spec.options.players:
            if time.monotonic() > deadline:
                raise PeerError("nobody filled the table in time")
            if dict(poller.poll(20)):
                for _ in range(64):
                    try:
                        frames = self.socket.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    if len(frames) == 2:
                        self.socket.send_multipart([frames[0], self.announcement()])
            for inbound in self.mesh.poll(20):
                self._on_join(inbound.routing_id, inbound.payload)
        joins = [self.joins[key] for key, _, _, _ in self.seats[1:]]
        seat_raw = make_seat_message(self.identity, self.seats, self.spec.options, joins=joins)
        self.close()
        return seat_raw

    def _on_join(self, routing_id: bytes, raw: bytes) -> None:
        try:
            msg = decode(raw)
        except WireError as exc:
            log.info("lobby: dropped a bad message: %s", exc)
            return
        if msg.type is not MsgType.JOIN or msg.table_id != self.table_id:
            return
        if "endpoint" not in msg.body or "curve" not in msg.body:
            self._reply(routing_id, "a join must say where to reach the joiner")
            return
        refused = self.mesh.network.refusal(msg.body["endpoint"])
        if refused is not None:
            self._reply(routing_id, f"join refused: {refused}"[:200])
            return
        if any(key == msg.sender for key, _, _, _ in self.seats):
            return  # a repeated join
        if len(self.seats) >= self.spec.options.players:
            self._reply(routing_id, "the table is full")
            return
        name = unique_name(msg.body["name"], [seat[1] for seat in self.seats])
        players = self.spec.options.players
        request = JoinRequest(
            msg.sender, msg.body["name"], name, msg.body["endpoint"], len(self.seats), players
        )
        if not self.admission.admit(request):
            self._reply(routing_id, REFUSED_REASON)
            self.config.emit(
                {"event": "refused", "name": request.name, "fingerprint": request.fingerprint}
            )
            return
        entry = (msg.sender, name, msg.body["endpoint"], msg.body["curve"])
        self.seats.append(entry)
        self.joins[msg.sender] = msg.raw  # quoted in the seat message: the joiner's own word
        self.config.emit({"event": "joined", "name": entry[1], "seats": len(self.seats)})
        if self.beacon is not None:
            self.beacon.update(self.info())

    def _reply(self, routing_id: bytes, reason: str) -> None:
        raw = encode(
            self.identity,
            MsgType.ABORT,
            table_id=self.table_id,
            seq=0,
            prev=ZERO_HASH,
            head=ZERO_HASH,
            body={"reason": reason},
        )
        self.mesh.reply(routing_id, raw)

    def close(self) -> None:
        if self.beacon is not None:
            self.beacon.stop(closing=True)
            self.beacon = None
        self.socket.close(linger=0)


def join_table(config: PeerConfig, mesh: Mesh, announcement: bytes) -> tuple[bytes, list[bytes]]:
    """Ask for a seat at an announced table and wait for the signed seat message.

    Returns it with any table messages that arrived first (peers seated earlier may already
    have sent their confirmations), to be handled once the table machine exists."""
    try:
        beacon = decode_beacon(announcement)
    except WireError as exc:
        raise PeerError(f"the host's announcement is invalid: {exc}") from None
    host_key = beacon.host_key
    refused = mesh.network.refusal(beacon.info.endpoint)
    if refused is not None:
        raise PeerError(f"the host's announcement is refused: {refused}")
    mesh.connect(host_key, beacon.info.endpoint, beacon.info.curve_key)
    mesh.watch_dealer(host_key)
    identity = config.identity
    offer_id = lobby_table_id(beacon.lobby_id)
    join = make_join(identity, offer_id, mesh.endpoint, mesh.curve_public_raw)
    mesh.send(host_key, join)
    config.emit({"event": "joining", "table": beacon.info.name, "host": beacon.host_name})
    deadline = time.monotonic() + config.lobby_timeout_s
    early: list[bytes] = []
    while time.monotonic() < deadline:
        for inbound in mesh.poll(50):
            try:
                msg = decode(inbound.payload)
            except WireError:
                continue
            if msg.sender != host_key:
                if len(early) < 256:
                    early.append(inbound.payload)
                continue
            if msg.type is MsgType.ABORT and msg.table_id == lobby_table_id(beacon.lobby_id):
                raise PeerError(f"the host refused: {msg.body['reason']}")
            if msg.type is MsgType.SEAT and identity.public_key in msg.body["seats"]:
                try:
                    seat_options(msg.body["options"])
                except ValueError as exc:
                    raise PeerError(f"the host's seat message is refused: {exc}") from None
                for endpoint in msg.body.get("endpoints", ()):
                    refused = mesh.network.refusal(endpoint)
                    if refused is not None:
                        raise PeerError(f"the host's seat message is refused: {refused}")
                if quoted_join(msg, identity.public_key) not in (None, join):
                    raise PeerError("the host's seat message quotes another join of this peer's")
                return msg.raw, early
            early.append(inbound.payload)
    raise PeerError("the table did not fill in time")


# ==================================================================== the seated table
def _yield_processor() -> None:
    if hasattr(os, "sched_yield"):
        os.sched_yield()


class TableRunner:
    """Drives one seated table over the mesh until the game ends or is aborted."""

    def __init__(
        self,
        config: PeerConfig,
        mesh: Mesh,
        machine: TableMachine,
        state: TableState,
        player: Player,
    ) -> None:
        self.config = config
        self.mesh = mesh
        self.machine = machine
        self.state = state
        self.player = player
        self.clock = config.clock
        self.deadlines = Deadlines(config.step_deadline_s, config.gone_after_s, config.away_after_s)
        self.aborts: dict[bytes, Message] = {}
        """Each peer's first abort, in arrival order: their debts are judged by that abort (one
        that owes an automatic message when the grace period ends withheld it), not the clock."""
        self.last_heard: dict[bytes, float] = {}
        self.away: set[bytes] = set()
        self.bad_messages = 0
        self.move_sent_at: float | None = None
        self.latencies_ms: list[float] = []
        self.deal_started: float | None = None
        self.deal_ms: list[float] = []
        self.last_progress = self.clock()
        self.early: list[bytes] = []
        self.abort_claim: str | None = None
        self.last_keepalive = 0.0
        self.abort_claim_deadline = 0.0
        self.divergence: TableFault | None = None
        self.divergence_deadline = 0.0
        self.held_events: list[dict[str, Any]] = []
        self.links = Links(mesh, machine)
        self.key_of_link = self.links.key_of_link
        """Raw CURVE key of an authenticated link -> the Ed25519 key of the seat behind it."""
        self.resend_limiter = ResendLimiter()
        self.catch_up = CatchUp()
        self.chat = TableChat(machine, config.emit, self.clock, config.chat)
        machine.on_event = self._on_event

    # ---------------------------------------------------------------- wiring
    def connect_all(self) -> None:
        """Links to the other seats: from the seat message until every seat's own signed
        confirmation is in, then from the confirmations (``links.py``)."""
        try:
            self.links.start()
        except LinkError as exc:
            raise PeerError(str(exc)) from None

    def broadcast(self, raws: list[bytes]) -> None:
        for raw in raws:
            if is_receipt(raw):
                # The mover first; over both links (70 bytes): a lost receipt holds the table up.
                for key in self.machine.receipt_targets():
                    self.mesh.send(key, raw, both_links=True)
            else:
                self.mesh.broadcast(raw)

    # ---------------------------------------------------------------- events
    def _on_event(self, event: Any) -> None:
        """Held until what caused it has been sent: printing (a pipe write that wakes whoever
        reads it) must not delay the messages and receipts the other peers are waiting for."""
        data = {"event": event.kind, "text": event.text, **event.data}
        if event.kind == "round_started":
            self.deal_started = time.perf_counter()
        self.held_events.append(data)

    def _emit_events(self) -> None:
        events, self.held_events = self.held_events, []
        for data in events:
            self.config.emit(data)

    # ---------------------------------------------------------------- the loop
    def run(self, resume: bool = False) -> dict[str, Any]:
        machine = self.machine
        self.player.attach(machine)
        self.connect_all()
        if resume:
            self._ask_everyone_to_resend()
        start = self.clock()
        for key in machine.list_keys:
            self.last_heard[key] = start
        try:
            self.broadcast(machine.start())
            for raw in self.early:
                self._on_message(raw)
            while not machine.finished and machine.aborted is None:
                self._tick()
        except TableFault as fault:
            return self._abort(fault)
        self._emit_events()
        result = self._result()
        self.config.emit({"event": "result", **result})  # before lingering: others may wait
        self._linger()
        return result

    def _tick(self) -> None:
        machine = self.machine
        if self.player.wants_to_leave() and not machine.finished:
            raise TableFault(f"{machine.identity.name} left the table", None)
        for inbound in self.mesh.poll(10):
            link = self.key_of_link.get(inbound.curve)
            self._on_message(inbound.payload, link)
            if machine.aborted is not None or machine.finished:
                return
            if self.catch_up.heard(link) and link is not None:
                self._ask_resend(link)  # a full answer may have been cut short: the rest
        if not self.links.settled:
            self.links.update()
        # What happened is told before this seat is asked for a move: a user interface that
        # takes its picture of the table from each event must not see one older than the ask.
        self._emit_events()
        if machine.phase == "play" and self.deal_started is not None:
            self.deal_ms.append((time.perf_counter() - self.deal_started) * 1000.0)
            self.deal_started = None
        if self._in_grace():
            self._check_deadlines(self.clock())  # its own deadlines still run out meanwhile
            return
        if machine.my_turn:
            move = self.player.poll(machine)
            if move is not None:
                self.move_sent_at = time.perf_counter()
                self.broadcast(machine.play(move))
                self.last_progress = self.clock()
        self._emit_events()
        self.broadcast(self.chat.outgoing())
        self._keepalive()
        self._check_liveness()

    def _keepalive(self) -> None:
        """A signed hello about once a second, so silence means a peer is gone, not thinking."""
        now = self.clock()
        if now - self.last_keepalive < KEEPALIVE_S:
            return
        self.last_keepalive = now
        body: dict[str, object] = {"name": self.machine.identity.name, "client": CLIENT}
        self.broadcast([self._control(MsgType.HELLO, body, chain=False)])

    def _on_message(self, raw: bytes, link: bytes | None = None) -> None:
        """One frame from the mesh; ``link`` is the seat key its CURVE link authenticated."""
        machine = self.machine
        if is_receipt(raw):
            self._on_receipt(raw, link)
            return
        try:
            msg = decode(raw)
        except WireError as exc:
            self._drop(f"dropped a bad message: {exc}")
            return
        if msg.table_id != machine.table_id or msg.sender not in machine.pending:
            self._drop("dropped a message from outside this table")
            return
        now = self.clock()
        self._heard(msg.sender, now)
        if msg.type is MsgType.HELLO:
            return  # a keepalive: hearing it is all it is for
        if msg.type is MsgType.CHAT:
            self.chat.receive(msg)  # table talk: shown or dropped, never part of the game
            return
        if msg.type is MsgType.RESEND:
            self._answer_resend(msg)
            return
        if msg.type is MsgType.EQUIVOCATION:
            try:
                first = verify_equivocation(msg.body["a"], msg.body["b"])
            except WireError:
                self.bad_messages += 1
                return
            if first.sender not in machine.pending:  # convicts nobody at this table
                self._drop("dropped an equivocation proof against a key with no seat here")
                return
            raise TableFault(
                f"{machine.names.get(first.sender, '?')} equivocated (proof from "
                f"{machine.names[msg.sender]})",
                machine.seat_of(first.sender),
                (msg.body["a"], msg.body["b"]),
            )
        if msg.type is MsgType.ABORT:
            self._peer_aborted(msg)
            return
        if self.divergence is not None:
            # Only one thing matters now: another copy of a message we already hold.
            if msg.seq < machine.transcript.next_seq(msg.sender):
                machine.receive(msg)  # raises the equivocation, with both signed copies
            return
        before = self._progress_mark()
        try:
            self.broadcast(machine.receive(msg))
            if machine.deferred:
                # The receipt is out: now the proofs it did not wait for. The peers still
                # working on this move (two cores, more peers) get the processor first.
                _yield_processor()
                machine.check_deferred()
        except TableFault as fault:
            if not self._seek_proof(fault):
                raise
            return
        except ValueError as exc:
            self._drop(f"dropped a message: {exc}")
            return
        if self._progress_mark() != before:
            self.last_progress = now
        self._note_counted()

    def _drop(self, why: str) -> None:
        """A frame refused: counted, logged with the reason, and otherwise ignored."""
        self.bad_messages += 1
        log.warning("%s", why)

    def _heard(self, key: bytes, now: float) -> None:
        self.last_heard[key] = now
        if key in self.away:
            self.away.discard(key)
            self.config.emit({"event": "rejoined", "name": self.machine.names[key]})

    def _on_receipt(self, raw: bytes, link: bytes | None) -> None:
        """An acknowledgement: its sender is whoever the CURVE link authenticated, never a claim
        inside the frame, so a receipt from an unknown link is dropped."""
        machine = self.machine
        if link is None or link == machine.me or link not in machine.pending:
            self._drop("dropped a receipt that came over no seated peer's link")
            return
        try:
            receipt = decode_receipt(raw)
        except WireError as exc:
            self._drop(f"dropped a bad receipt: {exc}")
            return
        self._heard(link, self.clock())
        if self.divergence is not None:
            return
        try:
            machine.receive_receipt(link, receipt)
        except TableFault as fault:
            if not self._seek_proof(fault):
                raise
            return
        self._note_counted()

    def _note_counted(self) -> None:
        """Move latency: from sending our move to the last peer's acknowledgement of it."""
        move = self.machine.last_move
        if self.move_sent_at is None or move is None or move.sender != self.machine.me:
            return
        if not self.machine.awaiting_receipts():
            self.latencies_ms.append((time.perf_counter() - self.move_sent_at) * 1000.0)
            self.move_sent_at = None

    def _answer_resend(self, msg: Message) -> None:
        """At most ``RESEND_MAX_MESSAGES`` frames per answer, and a bounded rate of answers
        per requesting seat (``resend.py``): a request costs its sender one frame."""
        if not self.resend_limiter.allow(msg.sender):
            log.info("a resend request from %s came too fast: unanswered", msg.sender.hex()[:12])
            return
        machine = self.machine
        if "head" in msg.body:
            raws = machine.answer_resend(msg.body["head"])
        else:
            raws = [m.raw for m in machine.transcript.since(msg.body["sender"], msg.body["seq"])]
        for raw in bounded(raws):
            self.mesh.send(msg.sender, raw, both_links=True)

    def _ask_resend(self, key: bytes, head: bytes | None = None) -> None:
        """Ask ``key`` for what it holds after ``head`` (by default our transcript's head)."""
        body: dict[str, object] = {"head": self.machine.transcript.head if head is None else head}
        self.mesh.send(key, self._control(MsgType.RESEND, body, chain=False), both_links=True)
        self.catch_up.asked(key)

    def _ask_everyone_to_resend(self) -> None:
        for key in self.machine.list_keys:
            if key != self.machine.me:
                self._ask_resend(key)

    def _control(self, msg_type: MsgType, body: dict[str, object], chain: bool) -> bytes:
        """A control message; ``chain`` makes it the next message of our chain (abort)."""
        machine = self.machine
        if chain:
            return machine.chain.seal(msg_type, body, machine.transcript.head)
        # Out-of-chain control messages carry seq 0 and a zero prev: they are never appended to
        # a transcript, take no slot, and a proof quoting one is refused (wire/equivocation.py).
        return encode(
            machine.identity,
            msg_type,
            table_id=machine.table_id,
            seq=0,
            prev=ZERO_HASH,
            head=machine.transcript.head,
            body=body,
        )

    def _check_liveness(self) -> None:
        machine = self.machine
        step = machine.step
        now = self.clock()
        if step is None:
            return
        waiting = [k for k in step.senders if k != machine.me and not self._has_next(k)]
        # The last move counts only once everyone holds it: a peer whose receipt is missing
        # holds the table up (the next mover waits), so the two who collect receipts (the
        # mover and the next mover) show it as away and nudge it.
        unacked = machine.awaiting_receipts()
        waiting += [k for k in unacked if k not in waiting]
        for key in waiting:
            silent = now - self.last_heard.get(key, now)
            if silent > self.config.away_after_s and key not in self.away:
                self.away.add(key)
                self.config.emit(
                    {"event": "away", "name": machine.names[key], "seconds": round(silent, 1)}
                )
        self._check_deadlines(now)
        if waiting and now - self.last_progress > NUDGE_AFTER_S:
            # Something may have been lost while a peer restarted: ask again and resend ours.
            self.last_progress = now
            self.broadcast(machine.resend_own())
            if machine.phase == "seating" and machine.seat_message.sender == machine.me:
                for key in waiting:
                    self.mesh.send(key, machine.seat_message.raw)
            self.catch_up.forget()
            for key in waiting:
                self._ask_resend(key)
                if key in unacked and machine.last_move is not None:
                    # a duplicate: receipt again (over both links, should one be stalled)
                    self.mesh.send(key, machine.last_move.raw, both_links=True)
            if any(key in self.away for key in waiting):
                # A split: what a silent seat sent before its link went may have reached the
                # others only. They answer with what follows our head, so a peer cut off from
                # one seat is not left owing the next step (and blamed for it) over that seat.
                for key in machine.list_keys:
                    if key != machine.me and key not in waiting:
                        self._ask_resend(key)

    def _check_deadlines(self, now: float) -> None:
        """Blame the seat whose owed message is past its deadline (``net/deadlines.py``): only
        that message pays the debt; a keepalive or any other message does not."""
        machine = self.machine
        self.deadlines.update(debts(machine, self._has_next), now)
        late = self.deadlines.check(now, self.last_heard, self.aborts)
        if late is not None:
            key = late.debt.key
            alone = lost_contact(now, self.last_heard, machine.me, late.limit_s / 2)
            if late.unreachable and alone is not None:
                raise TableFault(
                    f"{who(machine, machine.me)} lost contact with the table: no message from "
                    f"any peer for {alone:.0f} s (while waiting for {late.debt.what} from "
                    f"{who(machine, key)})",
                    None,
                )
            raise TableFault(late.reason(who(machine, key)), machine.seat_of(key))

    def _progress_mark(self) -> tuple[int, int]:
        """Changes when a message was new to this peer: appended, or held for a later step.

        A duplicate (another peer's nudge resends its pending messages to everyone) is not
        progress: counting it would reset this peer's own nudge timer, and with several peers
        waiting only one of them would ever ask for what is missing."""
        machine = self.machine
        return len(machine.heads), sum(len(held) for held in machine.pending.values())

    def _has_next(self, key: bytes) -> bool:
        return self.machine.transcript.next_seq(key) in self.machine.pending[key]

    def _peer_aborted(self, msg: Message) -> None:
        machine = self.machine
        reason = msg.body["reason"]
        with_blame = f" (blames seat {msg.body['seat']})" if "seat" in msg.body else ""
        # A claimed blame is never adopted: an abort proves only that its sender stopped. This
        # peer keeps checking what it has for a short while, so that if the claim is true its
        # own checks (on the same canonical messages) find the fault and blame with evidence.
        self.abort_claim = f"stopped on {who(machine, msg.sender)}'s word: {reason}{with_blame}"
        now = self.clock()
        self.aborts.setdefault(msg.sender, msg)
        self.abort_claim_deadline = now + ABORT_GRACE_S
        machine.check_everything_held()  # raises, blaming with evidence, if the claim is ours too
        self.deadlines.update(debts(machine, self._has_next), now)
        blamed = msg.body.get("seat")
        keys = machine.order or machine.list_keys
        if isinstance(blamed, int) and 0 <= blamed < len(keys) and keys[blamed] != msg.sender:
            # The claim may be a deadline this peer has not reached yet (clocks started a few
            # milliseconds apart): check on until that seat's own debts here fall due.
            due = [t for _, t in self.deadlines.automatic(keys[blamed])]
            if due:
                self.abort_claim_deadline = max(self.abort_claim_deadline, max(due) + 0.5)

    def _seek_proof(self, fault: TableFault) -> bool:
        """A peer's receipt names another message than ours after a head we share: somebody
        signed two versions, but this peer holds only one. Ask that peer for what it appended
        after the head: with both signed versions the machine raises an equivocation that blames
        their signer with proof. True if asked."""
        if not isinstance(fault, Divergence):
            return False
        self._ask_resend(fault.acker, fault.prev)
        self.divergence = fault
        self.divergence_deadline = self.clock() + ABORT_GRACE_S
        return True

    def _in_grace(self) -> bool:
        """True while this peer only checks (after an abort claim, or while seeking a proof);
        raises the fault to stop on once the grace period is over."""
        if self.abort_claim is not None:
            self._claim_expired()
            return True
        if self.divergence is not None:
            if self.clock() > self.divergence_deadline:
                raise self.divergence  # no proof came: stop, blaming nobody
            return True
        return False

    def _claim_expired(self) -> None:
        """After the grace period, stop on the other peer's word, blaming nobody: raises the
        fault, so this peer signs and records its own abort saying why it stopped."""
        if self.machine.aborted is not None:
            self.abort_claim = None  # our own checks found the fault (and its culprit) first
        elif self.abort_claim is not None and self.clock() > self.abort_claim_deadline:
            claim, self.abort_claim = self.abort_claim, None
            self.machine.check_everything_held()  # what came in during the grace, checked now
            self.deadlines.update(debts(self.machine, self._has_next), self.clock())
            for sender, abort in self.aborts.items():
                # It stopped instead of sending what it owes (a reveal, shares...), and our own
                # checks did not confirm its claim: it is blamed as withholding.
                owed = self.deadlines.unexcused(sender)
                if owed:
                    raise TableFault(
                        f"{who(self.machine, sender)} withheld {owed[0].what} after its "
                        f"abort ({abort.body['reason'][:80]})",
                        self.machine.seat_of(sender),
                        (abort.raw,),
                    )
            # Its abort is recorded before ours when it is its signer's next message here, so
            # the record names the seat it blames (as that seat's claim, not ours).
            first = next(iter(self.aborts.values()), None)
            raise TableFault(claim, None, () if first is None else (first.raw,))

    def _abort(self, fault: TableFault) -> dict[str, Any]:
        self._emit_events()
        machine = self.machine
        machine.aborted = fault
        body: dict[str, object] = {"reason": fault.reason[:200]}
        if fault.seat is not None:
            body["seat"] = fault.seat
            keys = machine.order or machine.list_keys
            body["key"] = keys[fault.seat]
        # Our own messages already sent for a step that never completed go into the record
        # first: the abort is chained after them, and the record must end with its reason.
        for _, own in sorted(machine.pending[machine.me].items()):
            with contextlib.suppress(WireError):
                machine.transcript.append(own)
        for raw in fault.evidence:  # a blamed peer's own abort, in its place in its chain
            with contextlib.suppress(WireError):
                msg = decode(raw)
                if msg.type is MsgType.ABORT and msg.sender != machine.me:
                    machine.transcript.append(msg)
        raw = self._control(MsgType.ABORT, body, chain=True)
        try:
            machine.transcript.append(raw)
        except WireError as exc:
            log.warning("could not record the abort in the transcript: %s", exc)
        machine.transcript.flush(sync=True)
        # Then sent again with it: a peer that stops while its own step messages are unsent
        # (its own confirmation showed the seat message misplacing it) must still show them.
        outgoing = [*(own.raw for _, own in sorted(machine.pending[machine.me].items())), raw]
        proof: bytes | None = None
        if len(fault.evidence) == 2:
            try:
                verify_equivocation(*sorted(fault.evidence))  # other evidence pairs are no proof
                proof = self._control(
                    MsgType.EQUIVOCATION, equivocation_body(*fault.evidence), chain=False
                )
            except WireError:
                proof = None
        if proof is not None:
            outgoing.insert(0, proof)
        elif fault.seat is not None and fault.evidence:
            # The culprit's own signed message goes out first (protocol.md §9): a peer that was
            # shown another version of it now holds two and proves the equivocation; one that
            # never got it checks it like any message. Either way it blames on its own checks.
            outgoing.insert(0, fault.evidence[0])
        self.broadcast(outgoing)
        result = self._result()
        self.config.emit({"event": "aborted", "reason": fault.reason, "blame": fault.seat})
        self.config.emit({"event": "result", **result})
        self._linger()
        return result

    def _result(self) -> dict[str, Any]:
        machine = self.machine
        game = machine.game
        result: dict[str, Any] = {
            "finished": machine.finished,
            "aborted": None if machine.aborted is None else machine.aborted.reason,
            "blame": None if machine.aborted is None else machine.aborted.seat,
            "claim": claim_of(machine),
            "seat": machine.my_seat,
            "name": machine.identity.name,
            "totals": game.totals,
            "round_scores": game.round_scores,
            "winners": game.winners,
            "record": str(self.state.record),
            "head": machine.transcript.head.hex(),
            "deal_ms": self.deal_ms,
            "move_latency_ms": self.latencies_ms,
            "bad_messages": self.bad_messages,
            "faults": getattr(self.player, "faults", []),
        }
        if machine.finished:
            machine.transcript.flush(sync=True)
            self.state.mark_finished({"totals": game.totals, "winners": game.winners})
        return result

    def _linger(self) -> None:
        """Answer resend requests a little longer, so slower peers can finish too.

        After a finished game, also (at most ``LINGER_FOR_THE_END_S``) until every other peer is
        known to hold the last move (by its receipt) and no peer still playing has sent its
        keepalive hello for ``LINGER_QUIET_S`` (a finished peer sends none): a peer that left at
        once, its last messages lost on a lossy link, left the others waiting for them until
        ``gone_after`` (seen at 30% loss). Meanwhile the last move and this peer's receipt of it
        are resent every ``NUDGE_AFTER_S`` to those not known to hold it."""
        start = time.monotonic()
        until = start + LINGER_AFTER_GAME_S
        last_nudge = last_hello = start
        while True:
            now = time.monotonic()
            lacking = self._lacking_the_end()
            playing = self.machine.finished and now - last_hello < LINGER_QUIET_S
            if now >= until and (not (lacking or playing) or now >= start + LINGER_FOR_THE_END_S):
                return
            if lacking and now - last_nudge > NUDGE_AFTER_S:
                last_nudge = now
                move = self.machine.last_move
                assert move is not None
                for raw in [move.raw, *self.machine.resend_own()]:  # the move: receipt again
                    for key in lacking:
                        self.mesh.send(key, raw, both_links=True)
            for inbound in self.mesh.poll(20):
                if is_receipt(inbound.payload):
                    self._linger_receipt(inbound.payload, self.key_of_link.get(inbound.curve))
                    continue
                try:
                    msg = decode(inbound.payload)
                except WireError:
                    continue
                if msg.table_id != self.machine.table_id:
                    continue
                if msg.type is MsgType.RESEND:
                    self._answer_resend(msg)
                elif msg.type is MsgType.HELLO and msg.sender in self.machine.pending:
                    last_hello = time.monotonic()  # someone is still playing: stay a little

    def _lacking_the_end(self) -> list[bytes]:
        """After a finished game: the other peers not yet known to hold its last move."""
        machine = self.machine
        move = machine.last_move
        if not machine.finished or move is None:
            return []
        return [k for k in machine.list_keys if k not in (machine.me, move.sender, *machine.acked)]

    def _linger_receipt(self, raw: bytes, link: bytes | None) -> None:
        """A receipt while lingering: it only tells who holds the end now (no fault is acted on
        after the game; the record is already complete)."""
        if link is None or link == self.machine.me or link not in self.machine.pending:
            return
        with contextlib.suppress(WireError, TableFault, ValueError):
            self.machine.receive_receipt(link, decode_receipt(raw))


# ==================================================================== entry point
class TableChoice(PeerError):
    """A table is still playing in this home and the command neither resumes it nor asks for a
    new one (homes.py): the user must choose, with ``--resume`` or ``--new``."""


class CannotRejoin(PeerError):
    """A saved table could not be replayed: it is marked stopped, so it blocks nothing."""


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


def pick_table(config: PeerConfig) -> TableState | None:
    """The saved table ``config`` rejoins, or None for a new one (homes.choose_table)."""
    if config.resume_folder is not None:
        return TableState(config.resume_folder)
    try:
        return choose_table(config.home, _request(config))
    except TableChoiceNeeded as exc:
        raise TableChoice(str(exc)) from None


def run_peer(config: PeerConfig) -> dict[str, Any]:
    """Host, join or rejoin a table and play it to the end; returns this peer's result.

    Only the saved table the command asks for is rejoined (:func:`pick_table`); a table that
    stops (an abort, ours or another's) is marked stopped, so it never blocks the next one.
    Every event also goes to ``events.jsonl`` in the table's folder."""
    identity = config.identity
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
        mesh = Mesh(bind, port, identity.public_key, (public, secret))
        events.open(resume)
        text = f"rejoining the unfinished {resume.describe()}: Ctrl-C leaves it for good"
        name = resume.info().get("name")
        config.emit(
            {"event": "rejoining", "folder": str(resume.folder), "table": name, "text": text}
        )
    else:
        mesh = Mesh(config.bind, config.port, identity.public_key)
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
        try:
            result = _play(config, mesh, state, seat_raw, resume is not None, early)
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
    finally:
        mesh.close()
        events.close()
    if result.get("aborted") and not result.get("finished"):
        state.mark_stopped(str(result["aborted"]))
    return result


def _take_seat(config: PeerConfig, mesh: Mesh) -> tuple[TableState, bytes, list[bytes]]:
    """Host or join a new table; its folder saved (with how it was found, to find it again)."""
    identity = config.identity
    early: list[bytes] = []
    name, lobby_id = None, None
    if config.host is not None:
        lobby = Lobby(config, mesh, config.host)
        name, lobby_id = config.host.name, lobby.lobby_id.hex()
        seat_raw = lobby.run()
        seat_msg = decode(seat_raw)
        for key, _, endpoint, curve in _seat_entries(seat_msg):
            if key != identity.public_key:
                mesh.connect(key, endpoint, curve)
                mesh.send(key, seat_raw)
    elif config.announcement is not None or config.join is not None:
        announcement = config.announcement or query_lobby(str(config.join))
        with contextlib.suppress(WireError):
            beacon = decode_beacon(announcement)
            name, lobby_id = beacon.info.name, beacon.lobby_id.hex()
        seat_raw, early = join_table(config, mesh, announcement)
    else:
        raise PeerError("nothing to do: host a table, join one, or rejoin")
    state = TableState(config.home / "tables" / decode(seat_raw).table_id.hex()[:24])
    saved = about(_request(config), name, lobby_id) | {"bind": config.bind}
    if config.custom_player is None:
        saved["player"] = config.player  # what a launcher restarts the seat with
    state.save(seat_raw, mesh.curve_public, mesh.curve_secret, mesh.port, saved)
    return state, seat_raw, early


def _seat_entries(seat_msg: Message) -> list[tuple[bytes, str, str, bytes]]:
    body = seat_msg.body
    return list(zip(body["seats"], body["names"], body["endpoints"], body["curves"], strict=True))


def _play(
    config: PeerConfig,
    mesh: Mesh,
    state: TableState,
    seat_raw: bytes,
    resumed: bool,
    early: list[bytes],
) -> dict[str, Any]:
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
        if machine.transcript.head != transcript.head:
            raise CannotRejoin("its record does not replay to the same table state")
        machine.transcript = transcript
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
        return runner.run(resume=resumed)
    except KeyboardInterrupt:
        # Ctrl-C is leaving: recorded and told to the others like any stop, never a crash to
        # rejoin later (a second Ctrl-C while it is sent ends the process).
        return runner._abort(TableFault(f"{identity.name} left the table (interrupted)", None))


__all__ = [
    "HostSpec",
    "PeerConfig",
    "PeerError",
    "TableChoice",
    "TableState",
    "pick_table",
    "query_lobby",
    "raw_to_z85",
    "run_peer",
    "unfinished_table",
]
