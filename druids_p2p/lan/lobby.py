"""Before a table is seated: the host's lobby (beacon, lobby socket, signed joins, seat message) and
a joiner asking it for a seat, again while it waits so that a host that left is noticed. From then
on every peer is equal (protocol.md §3).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import time
from collections.abc import Callable
from typing import Any

import zmq

from druids_p2p.games.registry import table_options
from druids_p2p.lan.discovery import (
    LOBBY_ID_SIZE,
    Beacon,
    BeaconSender,
    SeatedPlayer,
    TableInfo,
    decode_beacon,
    encode_beacon,
)
from druids_p2p.lan.lobby_query import QUESTION, query_lobby
from druids_p2p.lan.mesh import LobbyMesh
from druids_p2p.lan.peer_config import HostSpec, PeerConfig, PeerError
from druids_p2p.lan.persons import coach_fault, join_refusal
from druids_p2p.lan.seating import (
    Account,
    Admission,
    Door,
    JoinRequest,
    make_join,
    make_seat_message,
    quoted_join,
    same_account,
    unique_name,
)
from druids_p2p.wire import ZERO_HASH, Message, MsgType, WireError, decode, encode

__all__ = [
    "ASK_EVERY_S",
    "LOBBY_DOMAIN",
    "NO_ANSWER_S",
    "SAY_AT_S",
    "HostWatch",
    "Lobby",
    "join_table",
    "lobby_table_id",
    "query_lobby",
    "seat_entries",
]


# While a joiner waits for its seat: is the host still there, and how full is its table?
ASK_EVERY_S = 1.0
"""How often the host's lobby socket is asked while the joiner waits."""

NO_ANSWER_S = 3.0
"""Without an answer this long, the host is said not to answer."""

SAY_AT_S = (3.0, 8.0, 15.0, 30.0, 60.0)
"""When the wait is said (seconds since the join was sent); then every :data:`SAY_EVERY_S`."""

SAY_EVERY_S = 60.0


class HostWatch:
    """Ask the host's lobby socket while waiting for a seat, and say how the wait goes."""

    def __init__(
        self,
        ctx: zmq.Context[zmq.Socket[bytes]],
        beacon: Beacon,
        emit: Callable[[dict[str, Any]], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.beacon = beacon
        self.emit = emit
        self.clock = clock
        self.address = beacon.info.lobby_address
        self.start = clock()
        self.asked = float("-inf")
        self.answered: float | None = None
        self.seats = (beacon.info.seats_taken, beacon.info.players)
        self.listed: frozenset[bytes] = frozenset()  # the keys its last answer lists as seated
        self.said = 0
        self.said_answering: bool | None = None
        self.sock: zmq.Socket[bytes] | None = None
        if self.address is not None:
            self.sock = ctx.socket(zmq.DEALER)
            self.sock.setsockopt(zmq.LINGER, 0)
            self.sock.setsockopt(zmq.MAXMSGSIZE, 4096)
            self.sock.setsockopt(zmq.SNDHWM, 4)
            self.sock.connect(f"tcp://{self.address}")

    def answering(self, now: float) -> bool | None:
        """Whether the host answers now (None: too soon to tell, or no lobby to ask)."""
        if self.sock is None:
            return None
        if self.answered is None:
            return None if now - self.start < NO_ANSWER_S else False
        return now - self.answered < NO_ANSWER_S

    def tick(self) -> None:
        """Ask, read the answers, and say how the wait goes if it is time to."""
        now = self.clock()
        if self.sock is not None:
            if now - self.asked >= ASK_EVERY_S:
                self.asked = now
                # A full queue: the host has not taken the questions asked (no answer, then).
                with contextlib.suppress(zmq.ZMQError):
                    self.sock.send(QUESTION, zmq.NOBLOCK)
            self._read(now)
        answering = self.answering(now)
        changed = answering is not None and self.said_answering not in (None, answering)
        if changed or now - self.start >= self._next_say():
            self._say(now, answering)

    def _read(self, now: float) -> None:
        assert self.sock is not None
        for _ in range(16):
            try:
                raw = self.sock.recv(zmq.NOBLOCK)
            except zmq.ZMQError:
                return
            try:
                beacon = decode_beacon(raw)
            except WireError:
                continue
            if (beacon.host_key, beacon.lobby_id) == (self.beacon.host_key, self.beacon.lobby_id):
                self.answered = now
                self.seats = (beacon.info.seats_taken, beacon.info.players)
                self.listed = frozenset(seat.key for seat in beacon.info.seats)

    def _next_say(self) -> float:
        if self.said < len(SAY_AT_S):
            return SAY_AT_S[self.said]
        return SAY_AT_S[-1] + SAY_EVERY_S * (self.said - len(SAY_AT_S) + 1)

    def _say(self, now: float, answering: bool | None) -> None:
        waited = int(now - self.start)
        while now - self.start >= self._next_say():
            self.said += 1
        self.said_answering = answering
        taken, players = self.seats
        if answering is False:
            text = (
                f"the host does not answer at {self.address} (waited {waited} s): it may have "
                "left; Ctrl-C stops waiting"
            )
        elif answering:
            text = (
                f"waiting for the table to fill: {taken} of {players} seats taken "
                f"(waited {waited} s)"
            )
        else:
            text = f"waiting for a seat (waited {waited} s)"
        event: dict[str, Any] = {"event": "waiting", "seconds": waited, "answering": answering}
        self.emit(event | {"seats": taken, "players": players, "text": text})

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close(linger=0)
            self.sock = None


# Before a table is seated: the host's lobby, and a joiner asking it for a seat.
log = logging.getLogger(__name__)

LOBBY_DOMAIN = b"druids-p2p/v1 lobby\x00"


def lobby_table_id(lobby_id: bytes) -> bytes:
    """The table id a lobby's joins are signed for (the seated table gets its own)."""
    return hashlib.sha256(LOBBY_DOMAIN + lobby_id).digest()


class Lobby:
    """The host side before seating: beacon, lobby socket, joins."""

    def __init__(
        self,
        config: PeerConfig,
        mesh: LobbyMesh,
        spec: HostSpec,
        invite: tuple[bytes, ...] = (),
        continues: Account | None = None,
        stand_in: bytes | None = None,
    ) -> None:
        """``invite``: seats already linked (a table going on without a seat, ``peer/go_on.py``),
        sent the announcement over the mesh each second until they join. ``continues``: the previous
        table's account, which every joiner but the ``stand_in`` must carry the same (protocol.md
        §4, "Going on").
        """
        self.invite = invite
        self.continues = continues
        self.stand_in = stand_in
        self.fill: tuple[float, Callable[[list[bytes]], list[bytes]]] | None = None
        """A rematch (``peer/session.py``): after this many seconds, the seats of ``invite`` that
        have not joined are handed to the function, which starts a bot for each and returns
        their keys, admitted from then on (the deadline runs on from there)."""
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
        self.admission = Admission(
            Door(config.open_table, tuple(config.allow_joins), config.approve_join)
        )
        self.joins: dict[bytes, bytes] = {}
        """Each seated joiner's raw signed join."""
        self.bots = {self.identity.public_key} if config.is_bot else set()
        """The seated keys a program plays (the host's on its own word, a joiner's on its join)."""
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
            ruleset=self.spec.ruleset,
            coach=bool(getattr(o, "coach", False)),
            seats=tuple(SeatedPlayer(name, key) for key, name, _, _ in self.seats),
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
        try:
            self._gather(cfg.lobby_timeout_s)
            joins = [self.joins[key] for key, _, _, _ in self.seats[1:]]
            keys = [key for key, _, _, _ in self.seats]
            stand_in = keys.index(self.stand_in) if self.stand_in in keys else None
            return make_seat_message(
                self.identity,
                self.seats,
                self.spec.options,
                joins=joins,
                ruleset=self.spec.ruleset,
                continues=self.continues,
                stand_in=stand_in,
                bots=[i for i, key in enumerate(keys) if key in self.bots],
            )
        finally:  # also when nobody filled the table: an open socket would hang the context
            self.close()

    def _gather(self, timeout_s: float) -> None:
        poller = zmq.Poller()
        poller.register(self.socket, zmq.POLLIN)
        start = time.monotonic()
        deadline = start + timeout_s
        invited = 0.0
        while len(self.seats) < self.spec.options.players:
            if self.fill is not None and time.monotonic() > start + self.fill[0]:
                seated = {key for key, _, _, _ in self.seats}
                missing = [key for key in self.invite if key not in seated]
                filler, self.fill = self.fill[1], None
                self.invite = (*self.invite, *filler(missing))
                deadline = time.monotonic() + timeout_s
            if time.monotonic() > deadline:
                raise PeerError("nobody filled the table in time")
            if self.invite and time.monotonic() - invited >= 1.0:
                invited = time.monotonic()
                seated = {key for key, _, _, _ in self.seats}
                for key in self.invite:
                    if key not in seated:
                        self.mesh.send(key, self.announcement())
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
        if any(curve == msg.body["curve"] for _, _, _, curve in self.seats):
            self._reply(routing_id, "join refused: another seat has that CURVE key")
            return
        if len(self.seats) >= self.spec.options.players:
            self._reply(routing_id, "the table is full")
            return
        persons = sum(1 for seat in self.seats if seat[0] not in self.bots)
        coach = bool(getattr(self.spec.options, "coach", False))
        account = self._account_refusal(msg) or join_refusal(
            coach, bool(msg.body.get("bot")), persons
        )
        if account is not None:
            self._reply(routing_id, account)
            self.config.emit({"event": "refused", "name": msg.body["name"], "reason": account})
            return
        name = unique_name(msg.body["name"], [seat[1] for seat in self.seats])
        players = self.spec.options.players
        request = JoinRequest(
            msg.sender, msg.body["name"], name, msg.body["endpoint"], len(self.seats), players
        )
        refusal = self.admission.refusal(request)
        if refusal is not None:
            reason, note = refusal
            self._reply(routing_id, reason)
            self.config.emit(
                {
                    "event": "refused",
                    "name": request.name,
                    "fingerprint": request.fingerprint,
                    "reason": note,
                }
            )
            return
        entry = (msg.sender, name, msg.body["endpoint"], msg.body["curve"])
        self.seats.append(entry)
        self.joins[msg.sender] = msg.raw  # quoted in the seat message: the joiner's own word
        if msg.body.get("bot"):
            self.bots.add(msg.sender)
        self.config.emit({"event": "joined", "name": entry[1], "seats": len(self.seats)})
        if self.beacon is not None:
            self.beacon.update(self.info())

    def _account_refusal(self, msg: Message) -> str | None:
        """At a table going on from a previous one: a joiner that sat there carries the same
        account of it as this host; the stand-in carries none."""
        if self.continues is None:
            return None
        carried = msg.body.get("continues")
        if msg.sender == self.stand_in:
            return None if carried is None else "join refused: the stand-in sat at no table"
        if not same_account(carried, self.continues):
            return "join refused: its account of the previous table is not the host's"
        return None

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


def join_table(
    config: PeerConfig, mesh: LobbyMesh, announcement: bytes, continues: Account | None = None
) -> tuple[bytes, list[bytes]]:
    """Ask for a seat at an announced table and wait for the signed seat message (with
    ``continues``: the account of the previous table this seat carries into the new one).

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
    curve = mesh.curve_public_raw
    join = make_join(identity, offer_id, mesh.endpoint, curve, continues, config.is_bot)
    mesh.send(host_key, join)
    config.emit({"event": "joining", "table": beacon.info.name, "host": beacon.host_name})
    watch = HostWatch(mesh.ctx, beacon, config.emit)  # says how the wait goes, never silent
    try:
        return _wait_for_seat(config, mesh, beacon, join, watch)
    finally:
        watch.close()


def _wait_for_seat(
    config: PeerConfig, mesh: LobbyMesh, beacon: Beacon, join: bytes, watch: HostWatch
) -> tuple[bytes, list[bytes]]:
    """The seat message that seats this joiner, and the table messages that came first."""
    host_key = beacon.host_key
    identity = config.identity
    deadline, renewals = time.monotonic() + config.lobby_timeout_s, mesh.renewed.get(host_key, 0)
    early: list[bytes] = []
    while time.monotonic() < deadline:
        watch.tick()
        if mesh.renewed.get(host_key, 0) != renewals and identity.public_key not in watch.listed:
            renewals = mesh.renewed[host_key]  # its renewed link lost what it held: the join?
            mesh.send(host_key, join)  # (protocol.md §3; a repeated join is ignored)
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
                    table_options(msg.body["options"])
                    if (coach := coach_fault(msg)) is not None:
                        raise ValueError(coach)
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


def seat_entries(seat_msg: Message) -> list[tuple[bytes, str, str, bytes]]:
    """The seat message's seats: (key, name, endpoint, CURVE key) each, in its order."""
    body = seat_msg.body
    return list(zip(body["seats"], body["names"], body["endpoints"], body["curves"], strict=True))
