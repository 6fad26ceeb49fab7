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
import ipaddress
import json
import logging
import os
import random
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from druids_p2p.bots.base import Bot
from druids_p2p.bots.host import BotRunner
from druids_p2p.engine import GameOptions, format_card, format_move, parse_move
from druids_p2p.net.admission import REFUSED_REASON, Admission, Approver, JoinRequest, unique_name
from druids_p2p.net.discovery import (
    DEFAULT_PORT,
    LOBBY_ID_SIZE,
    BeaconSender,
    Seat,
    TableInfo,
    decode_beacon,
    encode_beacon,
)
from druids_p2p.net.mesh import Mesh, raw_to_z85, z85_to_raw
from druids_p2p.net.seating import make_seat_message
from druids_p2p.net.secrets import TableSecret, write_private
from druids_p2p.net.table import Divergence, TableFault, TableMachine
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
    lobby_timeout_s: float = 600.0
    plugins_dirs: tuple[Path, ...] = ()
    emit: Callable[[dict[str, Any]], None] = field(default=lambda event: None)
    human_input: Callable[[str], str] = field(default=input)
    custom_player: Player | None = None
    """Plays this seat instead of ``player`` (the terminal UI plugs itself in here)."""
    approve_join: Approver | None = None
    """Asked about every joiner before the host seats it (admission.py); None seats everyone."""


def lobby_table_id(lobby_id: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(LOBBY_DOMAIN + lobby_id).digest()


# ==================================================================== persisted table state
@dataclass
class TableState:
    """What a peer keeps on disk to rejoin its table after a crash."""

    folder: Path

    @property
    def record(self) -> Path:
        return self.folder / "record.druids"

    def save(self, seat_raw: bytes, curve_public: bytes, curve_secret: bytes, port: int) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_private(self.folder / "seat.msg", seat_raw)
        write_private(self.folder / "curve.key", curve_public + b"\n" + curve_secret)
        info = {"port": port, "finished": False}
        write_private(self.folder / "state.json", json.dumps(info).encode())

    def mark_finished(self, result: dict[str, Any]) -> None:
        info = json.loads((self.folder / "state.json").read_text())
        info.update({"finished": True, "result": result})
        write_private(self.folder / "state.json", json.dumps(info).encode())

    def load(self) -> tuple[bytes, bytes, bytes, int]:
        seat_raw = (self.folder / "seat.msg").read_bytes()
        public, secret = (self.folder / "curve.key").read_bytes().split(b"\n")
        info = json.loads((self.folder / "state.json").read_text())
        return seat_raw, public, secret, int(info["port"])

    @property
    def finished(self) -> bool:
        try:
            return bool(json.loads((self.folder / "state.json").read_text())["finished"])
        except (OSError, ValueError, KeyError):
            return True


def unfinished_table(home: Path) -> TableState | None:
    """The table this peer was seated at and has not finished, if any (to rejoin it)."""
    root = home / "tables"
    if not root.is_dir():
        return None
    for folder in sorted(root.iterdir()):
        state = TableState(folder)
        if (folder / "state.json").exists() and not state.finished:
            return state
    return None


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


class BotPlayer(Player):
    def __init__(self, bot: Bot, name: str, budget_ms: float, seed: bytes) -> None:
        self.bot = bot
        self.name = name
        self.runner = BotRunner(bot, budget_ms)
        self.seed = seed
        self.faults: list[str] = []
        self.started = False

    def start(self, machine: TableMachine) -> None:
        if self.started or machine.my_seat is None:
            return
        self.started = True
        rng = random.Random(self.seed)
        fault = self.runner.hook(
            self.bot.start_game, machine.my_seat, machine.options, rng, self.runner.budget_ms
        )
        if fault:
            self.faults.append(f"start_game: {fault}")

    def choose(self, machine: TableMachine) -> int:
        self.start(machine)
        view = machine.view()
        assert view is not None
        outcome = self.runner.choose(view)
        if outcome.fault:
            self.faults.append(outcome.fault)
            log.warning("bot %s: %s (played a safe move instead)", self.name, outcome.fault)
        return outcome.move


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


def make_player(config: PeerConfig, secret_seed: bytes) -> Player:
    if config.custom_player is not None:
        return config.custom_player
    if config.player == "human":
        return PromptPlayer(config.human_input)
    if not config.player.startswith("bot:"):
        raise PeerError(f"a player is 'human' or 'bot:NAME', not {config.player!r}")
    name = config.player[4:]
    from druids_p2p.plugins import load_bots

    registry = load_bots(config.plugins_dirs)
    try:
        bot = registry.make(name)
    except KeyError:
        raise PeerError(f"no bot named {name!r} (known: {', '.join(registry.names())})") from None
    return BotPlayer(bot, name, config.budget_ms, secret_seed)


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
        seat_raw = make_seat_message(self.identity, self.seats, self.spec.options)
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
    mesh.connect(host_key, beacon.info.endpoint, beacon.info.curve_key)
    mesh.watch_dealer(host_key)
    identity = config.identity
    join = encode(
        identity,
        MsgType.JOIN,
        table_id=lobby_table_id(beacon.lobby_id),
        seq=0,
        prev=ZERO_HASH,
        head=ZERO_HASH,
        body={"name": identity.name, "endpoint": mesh.endpoint, "curve": mesh.curve_public_raw},
    )
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
        self.last_heard: dict[bytes, float] = {}
        self.away: set[bytes] = set()
        self.bad_messages = 0
        self.move_sent_at: float | None = None
        self.latencies_ms: list[float] = []
        self.deal_started: float | None = None
        self.deal_ms: list[float] = []
        self.last_progress = time.monotonic()
        self.early: list[bytes] = []
        self.abort_claim: str | None = None
        self.last_keepalive = 0.0
        self.abort_claim_deadline = 0.0
        self.divergence: TableFault | None = None
        self.divergence_deadline = 0.0
        self.held_events: list[dict[str, Any]] = []
        self.key_of_link: dict[bytes, bytes] = {}
        """Raw CURVE key of an authenticated link -> the Ed25519 key of the seat behind it."""
        machine.on_event = self._on_event

    # ---------------------------------------------------------------- wiring
    def connect_all(self) -> None:
        for info in self.machine.seat_info():
            key = info["key"]
            assert isinstance(key, bytes)
            if key == self.machine.me:
                continue
            endpoint, curve = self._peer_address(key)
            self.key_of_link[curve] = key
            self.mesh.connect(key, endpoint, curve)
        seated_curves = [self._peer_address(k)[1] for k in self.machine.list_keys]
        self.mesh.gate.close_to_strangers(seated_curves)

    def _peer_address(self, key: bytes) -> tuple[str, bytes]:
        confirm = self.machine.seating.confirms.get(key)
        if confirm is not None:
            return confirm.body["endpoint"], confirm.body["curve"]
        body = self.machine.seat_message.body
        index = self.machine.list_keys.index(key)
        if "endpoints" not in body:
            raise PeerError("the seat message does not say where the peers are")
        return body["endpoints"][index], body["curves"][index]

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
        start = time.monotonic()
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
            self._on_message(inbound.payload, self.key_of_link.get(inbound.curve))
            if machine.aborted is not None or machine.finished:
                return
        # What happened is told before this seat is asked for a move: a user interface that
        # takes its picture of the table from each event must not see one older than the ask.
        self._emit_events()
        if machine.phase == "play" and self.deal_started is not None:
            self.deal_ms.append((time.perf_counter() - self.deal_started) * 1000.0)
            self.deal_started = None
        if self._in_grace():
            return
        if machine.my_turn:
            move = self.player.poll(machine)
            if move is not None:
                self.move_sent_at = time.perf_counter()
                self.broadcast(machine.play(move))
                self.last_progress = time.monotonic()
        self._emit_events()
        self._keepalive()
        self._check_liveness()

    def _keepalive(self) -> None:
        """A signed hello about once a second, so silence means a peer is gone, not thinking."""
        now = time.monotonic()
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
        now = time.monotonic()
        self._heard(msg.sender, now)
        if msg.type is MsgType.HELLO:
            return  # a keepalive: hearing it is all it is for
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
        self._heard(link, time.monotonic())
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
        machine = self.machine
        if "head" in msg.body:
            raws = machine.answer_resend(msg.body["head"])
        else:
            raws = [m.raw for m in machine.transcript.since(msg.body["sender"], msg.body["seq"])]
        for raw in raws:
            self.mesh.send(msg.sender, raw, both_links=True)

    def _ask_everyone_to_resend(self) -> None:
        raw = self._control(MsgType.RESEND, {"head": self.machine.transcript.head}, chain=False)
        self.broadcast([raw])

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
        now = time.monotonic()
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
            if silent > self.config.gone_after_s:
                raise TableFault(
                    f"{machine.names[key]} was gone for {silent:.0f} s (limit "
                    f"{self.config.gone_after_s:.0f} s): the game ends unfinished",
                    machine.seat_of(key),
                )
        if waiting and now - self.last_progress > NUDGE_AFTER_S:
            # Something may have been lost while a peer restarted: ask again and resend ours.
            self.last_progress = now
            self.broadcast(machine.resend_own())
            if machine.phase == "seating" and machine.seat_message.sender == machine.me:
                for key in waiting:
                    self.mesh.send(key, machine.seat_message.raw)
            req = self._control(MsgType.RESEND, {"head": machine.transcript.head}, chain=False)
            for key in waiting:
                self.mesh.send(key, req, both_links=True)
                if key in unacked and machine.last_move is not None:
                    # a duplicate: receipt again (over both links, should one be stalled)
                    self.mesh.send(key, machine.last_move.raw, both_links=True)

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
        self.abort_claim = f"{machine.names[msg.sender]} stopped the table: {reason}{with_blame}"
        self.abort_claim_deadline = time.monotonic() + ABORT_GRACE_S
        machine.check_everything_held()  # raises, blaming with evidence, if the claim is ours too

    def _seek_proof(self, fault: TableFault) -> bool:
        """A peer's receipt names another message than ours after a head we share: somebody
        signed two versions, but this peer holds only one. Ask that peer for what it appended
        after the head: with both signed versions the machine raises an equivocation that blames
        their signer with proof. True if asked."""
        if not isinstance(fault, Divergence):
            return False
        req = self._control(MsgType.RESEND, {"head": fault.prev}, chain=False)
        self.mesh.send(fault.acker, req)
        self.divergence = fault
        self.divergence_deadline = time.monotonic() + ABORT_GRACE_S
        return True

    def _in_grace(self) -> bool:
        """True while this peer only checks (after an abort claim, or while seeking a proof);
        raises the fault to stop on once the grace period is over."""
        if self.abort_claim is not None:
            self._claim_expired()
            return True
        if self.divergence is not None:
            if time.monotonic() > self.divergence_deadline:
                raise self.divergence  # no proof came: stop, blaming nobody
            return True
        return False

    def _claim_expired(self) -> None:
        """After the grace period, stop on the other peer's word, blaming nobody: raises the
        fault, so this peer signs and records its own abort saying why it stopped."""
        if self.machine.aborted is not None:
            self.abort_claim = None  # our own checks found the fault (and its culprit) first
        elif self.abort_claim is not None and time.monotonic() > self.abort_claim_deadline:
            claim, self.abort_claim = self.abort_claim, None
            self.machine.check_everything_held()  # what came in during the grace, checked now
            raise TableFault(claim, None)

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
        raw = self._control(MsgType.ABORT, body, chain=True)
        try:
            machine.transcript.append(raw)
        except WireError as exc:
            log.warning("could not record the abort in the transcript: %s", exc)
        machine.transcript.flush(sync=True)
        outgoing = [raw]
        if len(fault.evidence) == 2:
            try:
                proof = self._control(
                    MsgType.EQUIVOCATION, equivocation_body(*fault.evidence), chain=False
                )
                outgoing.insert(0, proof)
            except WireError:
                pass
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
def run_peer(config: PeerConfig) -> dict[str, Any]:
    """Host, join or rejoin a table and play it to the end; returns this peer's result."""
    identity = config.identity
    early: list[bytes] = []
    resume = unfinished_table(config.home)
    if resume is not None:
        seat_raw, public, secret, port = resume.load()
        mesh = Mesh(config.bind, port, identity.public_key, (public, secret))
        config.emit({"event": "rejoining", "folder": str(resume.folder)})
    else:
        mesh = Mesh(config.bind, config.port, identity.public_key)
    try:
        if resume is None:
            if config.host is not None:
                seat_raw = Lobby(config, mesh, config.host).run()
                seat_msg = decode(seat_raw)
                for key, _, endpoint, curve in _seat_entries(seat_msg):
                    if key != identity.public_key:
                        mesh.connect(key, endpoint, curve)
                        mesh.send(key, seat_raw)
            elif config.announcement is not None:
                seat_raw, early = join_table(config, mesh, config.announcement)
            elif config.join is not None:
                seat_raw, early = join_table(config, mesh, query_lobby(config.join))
            else:
                raise PeerError("nothing to do: host a table, join one, or rejoin")
            state = TableState(config.home / "tables" / decode(seat_raw).table_id.hex()[:24])
            state.save(seat_raw, mesh.curve_public, mesh.curve_secret, mesh.port)
        else:
            state = resume
        return _play(config, mesh, state, seat_raw, resume is not None, early)
    finally:
        mesh.close()


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
        transcript, read = Transcript.resume(state.record)
        if read.tail:
            log.warning("the record's last message was cut off by the crash: %s", read.tail)
        machine = TableMachine(identity, seat_msg, secret, mesh.endpoint, curve_raw, None)
        machine.load_record(list(transcript.messages))
        machine.start()
        if machine.transcript.head != transcript.head:
            raise PeerError("the saved record does not replay to the same table state")
        machine.transcript = transcript
    else:
        transcript = Transcript.start(seat_msg, state.record)
        machine = TableMachine(identity, seat_msg, secret, mesh.endpoint, curve_raw, transcript)
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
    return runner.run(resume=resumed)


__all__ = [
    "HostSpec",
    "PeerConfig",
    "PeerError",
    "TableState",
    "query_lobby",
    "raw_to_z85",
    "run_peer",
    "unfinished_table",
]
