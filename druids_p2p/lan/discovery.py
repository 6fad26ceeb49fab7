"""Finding tables on the LAN without a server: the signed UDP beacon (its bytes are specified in
docs/protocol/discovery.md) and the host's side that sends one about once a second, with jitter,
and the closing ones. A beacon is an advertisement, not a commitment: a forged or replayed one
can at worst list a table nobody answers for.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import random
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from druids_p2p.games.registry import RULESETS, default_name, table_options
from druids_p2p.lan import DEFAULT_PORT as DEFAULT_PORT  # re-exported
from druids_p2p.lan.network import NetChoice, guarded_sendto, net_choice
from druids_p2p.wire.envelope import split_signed_frame, verify_signature
from druids_p2p.wire.identity import Identity, fingerprint, is_weak_key
from druids_p2p.wire.msgtypes import BadShape, TooLarge, pack, require_canonical, unpack
from druids_p2p.wire.schema import TOKEN_CHARS, Bin, Bool, Int, List, Str, Struct, Tuple, check

# Finding tables on the LAN without a server: hosts broadcast small signed UDP beacons.
BEACON_DOMAIN = b"druids-p2p/v1 beacon\x00"
"""Prefixed to the signed bytes: a beacon signature is never valid as a message, nor vice versa."""
BEACON_VERSION = 1
MAX_BEACON_SIZE = 1200
"""Fits one Ethernet frame with room to spare, so a beacon is never IP-fragmented."""
LOBBY_ID_SIZE = 16
MAX_COUNTER = 2**32 - 1


_MAX_SEATS = 8
_KEY = Bin(32, 32)
_NAME = Str(1, 32, printable=True)
"""The same bound as a display name in wire messages."""
TABLE_NAME = Str(1, 48, printable=True)
"""A table's name in a beacon (the command line checks ``--name`` against it)."""
_SIGNED = Struct(
    {
        "closing": Bool(),
        "counter": Int(0, MAX_COUNTER),
        "curve": _KEY,
        "endpoint": Str(1, 64, printable=True),
        "host": _KEY,
        "host_name": _NAME,
        "lobby": Bin(LOBBY_ID_SIZE, LOBBY_ID_SIZE),
        "name": TABLE_NAME,
        "options": Struct(
            {
                "players": Int(2, _MAX_SEATS),
                "rounds": Int(1, 64),
                "ruleset": Str(1, 16, charset=TOKEN_CHARS),
                "variant": Bool(),
            },
            optional={"coach": Bool()},
        ),
        "seats": List(Tuple((_NAME, _KEY)), 0, _MAX_SEATS),
        "v": Int(0, 255),
    },
    optional={"lobby_port": Int(1, 65535)},
)
_SIGNED_DEPTH = 3  # the map, the seats array, one seat
_ENDPOINT = re.compile(r"tcp://(\d{1,3}(?:\.\d{1,3}){3}):([1-9]\d{0,4})")


@dataclass(frozen=True, slots=True)
class SeatedPlayer:
    """A player already seated at an advertised table."""

    name: str
    key: bytes

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What a host says about its table; the host's own name and key come from its identity."""

    name: str
    endpoint: str
    """Where joiners connect, e.g. ``tcp://10.0.0.2:45123``."""
    curve_key: bytes
    """The host's ZeroMQ CURVE public key (32 raw bytes), so joiners can authenticate the host."""
    players: int = 4
    variant: bool = False
    rounds: int = 5
    """Druids 2017's full game (a beacon of another game states its own)."""
    ruleset: str = field(default_factory=default_name)
    coach: bool = False
    """The table's options turn the coach on: one person, the rest bots (protocol.md §3)."""
    seats: tuple[SeatedPlayer, ...] = ()
    lobby_port: int | None = None
    """The TCP port of the host's plain lobby socket, on the endpoint's address: what
    ``druids join HOST:PORT`` asks (``endpoint`` is the mesh, which only CURVE clients reach)."""

    @property
    def lobby_address(self) -> str | None:
        """``HOST:PORT`` to type after ``druids join``, if the host announced its lobby port."""
        m = _ENDPOINT.fullmatch(self.endpoint)
        if self.lobby_port is None or m is None:
            return None
        return f"{m.group(1)}:{self.lobby_port}"

    @property
    def seats_taken(self) -> int:
        return len(self.seats)

    @property
    def seats_free(self) -> int:
        return max(0, self.players - len(self.seats))

    @property
    def full(self) -> bool:
        return self.seats_free == 0


@dataclass(frozen=True, slots=True)
class Beacon:
    """A decoded, verified beacon."""

    info: TableInfo
    host_key: bytes
    host_name: str
    lobby_id: bytes
    counter: int
    closing: bool
    raw: bytes = field(default=b"", repr=False, compare=False)
    """The datagram as received and verified, to be handed on unchanged (``druids join NAME``
    passes a heard beacon to ``join_table`` instead of asking the host's lobby socket for one).
    Empty for a beacon built by hand; never part of equality."""

    @property
    def host_fingerprint(self) -> str:
        return fingerprint(self.host_key)


@dataclass(frozen=True, slots=True)
class TableAnnouncement:
    """A table as a listener knows it: the latest beacon, where it came from and when."""

    beacon: Beacon
    source: tuple[str, int]
    first_seen: float
    last_seen: float
    """In the listener's clock (``time.monotonic`` unless one was injected)."""

    @property
    def lobby_id(self) -> bytes:
        return self.beacon.lobby_id

    @property
    def info(self) -> TableInfo:
        return self.beacon.info

    @property
    def name(self) -> str:
        return self.beacon.info.name

    @property
    def endpoint(self) -> str:
        return self.beacon.info.endpoint

    def as_json(self) -> dict[str, Any]:
        """The shape ``druids tables --json`` prints (bytes as lower-case hex)."""
        b, info = self.beacon, self.beacon.info
        return {
            "name": info.name,
            "lobby_id": b.lobby_id.hex(),
            "ruleset": info.ruleset,
            "players": info.players,
            "rounds": info.rounds,
            "variant": info.variant,
            "coach": info.coach,
            "seats_taken": info.seats_taken,
            "seats_free": info.seats_free,
            "seats": [
                {"name": s.name, "fingerprint": s.fingerprint, "public_key": s.key.hex()}
                for s in info.seats
            ],
            "host": {
                "name": b.host_name,
                "fingerprint": b.host_fingerprint,
                "public_key": b.host_key.hex(),
            },
            "endpoint": info.endpoint,
            "lobby": info.lobby_address,
            "curve_key": info.curve_key.hex(),
            "counter": b.counter,
            "source": f"{self.source[0]}:{self.source[1]}",
        }


# --- encoding and decoding -----------------------------------------------------------------------


def _check_endpoint(endpoint: str) -> None:
    m = _ENDPOINT.fullmatch(endpoint)
    if m is None:
        raise BadShape(f"beacon.endpoint: expected tcp://IPv4:port, got {endpoint!r}")
    try:
        ip = ipaddress.IPv4Address(m.group(1))
    except ValueError:
        raise BadShape(f"beacon.endpoint: bad IPv4 address in {endpoint!r}") from None
    port = int(m.group(2))
    if not 1 <= port <= 65535:
        raise BadShape(f"beacon.endpoint: port {port} out of range")
    if ip.is_unspecified or ip.is_multicast or str(ip) == "255.255.255.255":
        raise BadShape(f"beacon.endpoint: {ip} is not an address a joiner can connect to")


def _check_fields(fields: Any) -> None:
    """Every check of the signed part but the signature; the same for encoding and decoding."""
    check(_SIGNED, fields, "beacon")
    if fields["v"] != BEACON_VERSION:
        raise BadShape(f"beacon.v: unsupported beacon version {fields['v']} (this peer speaks 1)")
    if is_weak_key(fields["host"]):
        raise BadShape("beacon.host: small-order public key refused")
    _check_endpoint(fields["endpoint"])
    options = fields["options"]
    if options.get("coach") is False:
        raise BadShape("beacon.options.coach: sent only when true (a table without it is off)")
    if options["ruleset"] in RULESETS:  # (a table of a game not known here is listed as such)
        try:
            table_options(options)
        except ValueError as exc:
            raise BadShape(f"beacon.options: {exc}") from None
    seats = fields["seats"]
    if len(seats) > options["players"]:
        raise BadShape(f"beacon.seats: {len(seats)} seated at a {options['players']}-player table")
    keys = [key for _, key in seats]
    if len(set(keys)) != len(keys):
        raise BadShape("beacon.seats: a key is seated twice")
    for i, key in enumerate(keys):
        if is_weak_key(key):
            raise BadShape(f"beacon.seats[{i}]: small-order public key refused")


def encode_beacon(
    identity: Identity, info: TableInfo, lobby_id: bytes, counter: int, closing: bool = False
) -> bytes:
    """Sign one beacon. Checked like a received one first, so a host never sends what peers drop."""
    fields = {
        "closing": bool(closing),
        "counter": counter,
        "curve": info.curve_key,
        "endpoint": info.endpoint,
        "host": identity.public_key,
        "host_name": identity.name,
        "lobby": lobby_id,
        "name": info.name,
        "options": {
            **({"coach": True} if info.coach else {}),  # only when on; sorts first
            "players": info.players,
            "rounds": info.rounds,
            "ruleset": info.ruleset,
            "variant": info.variant,
        },
        "seats": [[s.name, s.key] for s in info.seats],
        "v": BEACON_VERSION,
    }
    if info.lobby_port is not None:  # optional: keys stay in byte order, so it goes after "lobby"
        fields = dict(sorted({**fields, "lobby_port": info.lobby_port}.items()))
    _check_fields(fields)
    signed = pack(fields)
    data = pack([signed, identity.sign(BEACON_DOMAIN + signed)])
    if len(data) > MAX_BEACON_SIZE:
        raise TooLarge(f"beacon of {len(data)} bytes exceeds the {MAX_BEACON_SIZE} byte limit")
    return data


def decode_beacon(data: bytes) -> Beacon:
    """Turn an untrusted datagram into a verified :class:`Beacon`, or raise :class:`WireError`.

    Cheapest checks first (size, msgpack, shape, canonical form), the signature last.
    """
    data, frame, signature = split_signed_frame(data, MAX_BEACON_SIZE, "beacon", "beacon frame")
    signed = frame[0]
    if not isinstance(signature, bytes) or len(signature) != 64:
        raise BadShape("beacon frame: signature must be bin of 64 bytes")
    require_canonical(data, frame, "beacon frame")
    fields = unpack(signed, max_depth=_SIGNED_DEPTH)
    _check_fields(fields)
    require_canonical(signed, fields, "beacon")
    host = fields["host"]
    verify_signature(host, BEACON_DOMAIN + signed, signature, "beacon signature")
    options = fields["options"]
    info = TableInfo(
        name=fields["name"],
        endpoint=fields["endpoint"],
        curve_key=fields["curve"],
        players=options["players"],
        variant=options["variant"],
        rounds=options["rounds"],
        ruleset=options["ruleset"],
        coach=bool(options.get("coach", False)),
        seats=tuple(SeatedPlayer(name, key) for name, key in fields["seats"]),
        lobby_port=fields.get("lobby_port"),
    )
    return Beacon(
        info=info,
        host_key=host,
        host_name=fields["host_name"],
        lobby_id=fields["lobby"],
        counter=fields["counter"],
        closing=fields["closing"],
        raw=data,
    )


# Announcing one table on the LAN: a signed beacon about once a second, and closing ones.
log = logging.getLogger(__name__)

DEFAULT_INTERVAL = 1.0
DEFAULT_JITTER = 0.1
"""Hosts started together would otherwise beacon in lock step for ever."""
CLOSING_REPEATS = 3
"""A closing beacon is repeated because one UDP datagram may be lost (Zyre does the same)."""
CLOSING_SPACING = 0.02


class BeaconSender:
    """Announces one table about once a second from a daemon thread until :meth:`stop`.

    Sent from the chosen address to its network's broadcast address only (discovery.md); a failed
    send is only counted (``send_errors``): the next beacon may get through.
    """

    def __init__(
        self,
        identity: Identity,
        info: TableInfo,
        net: NetChoice | str | None = None,
        port: int = DEFAULT_PORT,
        *,
        lobby_id: bytes | None = None,
        interval: float = DEFAULT_INTERVAL,
        jitter: float = DEFAULT_JITTER,
    ) -> None:
        if not 0.01 <= interval <= 60.0:
            raise ValueError(f"beacon interval must be 0.01..60 s, not {interval}")
        if not 0.0 <= jitter < interval:
            raise ValueError(f"beacon jitter must be in [0, interval), not {jitter}")
        if lobby_id is not None and len(lobby_id) != LOBBY_ID_SIZE:
            raise ValueError(f"lobby id must be {LOBBY_ID_SIZE} bytes")
        if not 1 <= port <= 65535:
            raise ValueError(f"beacon port must be 1..65535, not {port}")
        self.net = net_choice(net)
        self.port = port
        self.identity = identity
        self.lobby_id = lobby_id if lobby_id is not None else os.urandom(LOBBY_ID_SIZE)
        self.interval = interval
        self.jitter = jitter
        self.sent = 0
        self.send_errors = 0
        self._counter = 0
        self._info = info
        encode_beacon(identity, info, self.lobby_id, 0)  # fail now on bad info, not in the thread
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            self._sock.bind((self.net.address, 0))
        except OSError:
            self._sock.close()
            raise

    @property
    def info(self) -> TableInfo:
        return self._info

    @property
    def counter(self) -> int:
        """The counter of the next beacon."""
        return self._counter

    def start(self) -> BeaconSender:
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(
                target=self._run, name=f"beacon-{self.lobby_id.hex()[:8]}", daemon=True
            )
            self._thread.start()
        return self

    def send_now(self, closing: bool = False) -> bool:
        """Send one beacon at once; False if the socket refused it."""
        with self._lock:
            if self._closed or self._counter > MAX_COUNTER:
                return False
            data = encode_beacon(self.identity, self._info, self.lobby_id, self._counter, closing)
            self._counter += 1
        try:
            guarded_sendto(self._sock, data, self.net.broadcast, self.port)
        except OSError as exc:
            self.send_errors += 1
            log.debug("beacon to %s:%d not sent: %s", self.net.broadcast, self.port, exc)
            return False
        self.sent += 1
        return True

    def _send_closing(self) -> None:
        for i in range(CLOSING_REPEATS):
            if i:
                time.sleep(CLOSING_SPACING)
            self.send_now(closing=True)

    def update(self, info: TableInfo) -> None:
        """Announce new table facts at once; a table that just filled up is announced as closing."""
        encode_beacon(self.identity, info, self.lobby_id, 0)  # refuse bad info in the caller
        with self._lock:
            was_full = self._info.full
            self._info = info
        if self._thread is None:
            return
        if info.full and not was_full:
            self._send_closing()
        elif not info.full:
            self.send_now()

    def _run(self) -> None:
        while not self._stopping.is_set():
            if not self._info.full:
                self.send_now()
            delay = self.interval + random.uniform(-self.jitter, self.jitter)
            self._stopping.wait(delay)

    def stop(self, closing: bool = True) -> None:
        """Stop announcing; tell listeners the table is gone unless ``closing`` is False."""
        if self._closed:
            return
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=self.interval + 1.0)
        if closing and self.sent and not self._info.full:
            self._send_closing()
        with self._lock:
            self._closed = True
        self._sock.close()

    def __enter__(self) -> BeaconSender:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
