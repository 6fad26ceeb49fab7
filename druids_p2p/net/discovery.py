"""Finding tables on the LAN without a server: hosts broadcast small signed UDP beacons.

Byte layout (specified in ``docs/protocol/discovery.md``)::

    datagram  = msgpack [signed: bin, signature: bin 64]          (at most 1200 bytes)
    signed    = msgpack map, keys sorted: closing, counter, curve, endpoint, host, host_name,
                lobby, [lobby_port,] name, options, seats, v
    signature = Ed25519(host, BEACON_DOMAIN || signed)

A beacon is an advertisement, not a commitment: it tells a joiner where to connect and which keys
to expect there (the host's Ed25519 key and its ZeroMQ CURVE key), so a forged or replayed beacon
can at worst list a table nobody answers for. Signing still matters: without it anyone on the LAN
could advertise a table under another player's name and key, or close someone else's table.

Everything a listener receives is untrusted. Every datagram passes the same bounded checks as a
wire message (size first, strict canonical msgpack, exact shape, signature last) and a bad one is
counted and dropped; nothing raises out of :meth:`BeaconListener.poll`.
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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from druids_p2p.engine.cards import MAX_PLAYERS, MIN_PLAYERS, ROUNDS_PER_GAME
from druids_p2p.net.interfaces import NetChoice, guarded_sendto, resolve
from druids_p2p.wire.errors import BadShape, TooLarge, WireError
from druids_p2p.wire.identity import Identity
from druids_p2p.wire.keys import fingerprint, is_weak_key
from druids_p2p.wire.safe_msgpack import pack, require_canonical, unpack
from druids_p2p.wire.schema import TOKEN_CHARS, Bin, Bool, Int, List, Str, Struct, Tuple, check
from druids_p2p.wire.signed import split_signed_frame, verify_signature

log = logging.getLogger(__name__)

BEACON_DOMAIN = b"druids-p2p/v1 beacon\x00"
"""Prefixed to the signed bytes: a beacon signature is never valid as a message, nor vice versa."""
BEACON_VERSION = 1
DEFAULT_PORT = 47650
MAX_BEACON_SIZE = 1200
"""Fits one Ethernet frame with room to spare, so a beacon is never IP-fragmented."""
LOBBY_ID_SIZE = 16
MAX_COUNTER = 2**32 - 1
RULESET = "druids2017"

DEFAULT_INTERVAL = 1.0
DEFAULT_JITTER = 0.1
"""Hosts started together would otherwise beacon in lock step for ever."""
DEFAULT_EXPIRY = 5.0
"""About five missed beacons: survives a little loss, yet a vanished host drops off quickly."""
CLOSING_REPEATS = 3
"""A closing beacon is repeated because one UDP datagram may be lost (Zyre does the same)."""
CLOSING_SPACING = 0.02
MAX_TABLES = 256
"""Bound of the table list, so that a flood of beacons signed by fresh keys cannot eat memory."""
MAX_TABLES_PER_KEY = 4
"""Tables listed for one host key. A key's fifth table replaces its own least recently heard one,
so a host that restarted (new lobby id) shows its new table, and a key flooding fresh lobby ids
only ever churns its own four entries: it can never push another key's table out."""
MAX_TABLES_PER_SOURCE = 32
"""Tables listed from one source address (IPv4, any port). Many keys sent from one machine fill
only these slots; further new tables from there are dropped, never anyone else's. Room for every
table a LAN party runs on one machine (all of loopback counts as one source per address)."""
MAX_TOMBSTONES = 1024
MAX_DATAGRAMS_PER_POLL = 4096

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
            }
        ),
        "seats": List(Tuple((_NAME, _KEY)), 0, _MAX_SEATS),
        "v": Int(0, 255),
    },
    optional={"lobby_port": Int(1, 65535)},
)
_SIGNED_DEPTH = 3  # the map, the seats array, one seat
_ENDPOINT = re.compile(r"tcp://(\d{1,3}(?:\.\d{1,3}){3}):([1-9]\d{0,4})")


@dataclass(frozen=True, slots=True)
class Seat:
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
    rounds: int = ROUNDS_PER_GAME
    ruleset: str = RULESET
    seats: tuple[Seat, ...] = ()
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
    if options["ruleset"] == RULESET:
        if not MIN_PLAYERS <= options["players"] <= MAX_PLAYERS:
            raise BadShape(f"beacon.options.players: {RULESET} is for 3 to 5 players")
        if options["rounds"] > ROUNDS_PER_GAME:
            raise BadShape(f"beacon.options.rounds: {RULESET} has at most {ROUNDS_PER_GAME}")
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
        seats=tuple(Seat(name, key) for name, key in fields["seats"]),
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


def _choose(net: NetChoice | str | None) -> NetChoice:
    return net if isinstance(net, NetChoice) else resolve(address=net)


# --- sending -------------------------------------------------------------------------------------


class BeaconSender:
    """Announces one table about once a second from a daemon thread until :meth:`stop`.

    ``net`` is a :class:`NetChoice`, a local IPv4 address, or ``None`` for loopback. The socket is
    bound to the chosen address so that beacons leave with the right source address, and they go
    only to that network's broadcast address. A full table is announced as closing and then stays
    silent until :meth:`update` frees a seat. Send errors (a cable pulled, no buffer space) are
    counted in ``send_errors`` and otherwise ignored: the next beacon may get through.
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
        self.net = _choose(net)
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


# --- listening -----------------------------------------------------------------------------------


_DROP_REASON = {
    "TooLarge": "too_large",
    "Malformed": "malformed",
    "BadShape": "bad_shape",
    "BadSignature": "bad_signature",
}


def _decrement(counts: Counter[Any], item: object) -> None:
    counts[item] -= 1
    if counts[item] <= 0:
        del counts[item]


@dataclass
class _Tombstone:
    counter: int
    until: float


class BeaconListener:
    """Keeps the list of tables heard on one network; single-threaded, driven by :meth:`poll`.

    The socket is bound to the network's broadcast address (with SO_REUSEADDR and SO_REUSEPORT), so
    any number of peers on one host hear every beacon, and only beacons sent to that network.
    Tables are keyed by (host key, lobby id): a forged beacon can only ever touch entries signed by
    its own key. A key holds at most ``MAX_TABLES_PER_KEY`` entries (its oldest makes room for its
    newest) and a source address at most ``MAX_TABLES_PER_SOURCE`` (further new ones are dropped),
    so one flooder fills its own slots, never the whole list. A beacon whose counter is not above
    the last one seen for its table is dropped as stale, so reordered or replayed datagrams cannot
    roll a table back or reopen a closed one.
    ``clock`` exists so that tests can expire tables without sleeping.
    """

    def __init__(
        self,
        net: NetChoice | str | None = None,
        port: int = DEFAULT_PORT,
        *,
        expiry: float = DEFAULT_EXPIRY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.net = _choose(net)
        self.port = port
        self.expiry = expiry
        self.clock = clock
        self.stats: Counter[str] = Counter()
        self._tables: dict[tuple[bytes, bytes], TableAnnouncement] = {}
        self._tombstones: dict[tuple[bytes, bytes], _Tombstone] = {}
        self._per_key: Counter[bytes] = Counter()
        self._per_source: Counter[str] = Counter()
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if hasattr(socket, "SO_REUSEPORT"):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            try:
                sock.bind((self.net.broadcast, port))
            except OSError as exc:  # systems that cannot bind a broadcast address
                log.debug("binding %s failed (%s); listening on all", self.net.broadcast, exc)
                sock.bind(("", port))
        except OSError:
            sock.close()
            raise
        self._sock: socket.socket | None = sock

    def fileno(self) -> int:
        """For callers that wait on several sockets with ``selectors``."""
        return self._sock.fileno() if self._sock is not None else -1

    def handle(self, data: bytes, source: tuple[str, int]) -> TableAnnouncement | None:
        """Take in one datagram: the table it created or refreshed, None if dropped or closing.

        Never raises: whatever is wrong with the datagram is counted in ``stats`` and logged at
        debug level.
        """
        self.stats["received"] += 1
        try:
            return self._handle(data, source)
        except WireError as exc:
            reason = _DROP_REASON.get(type(exc).__name__, "invalid")
        except Exception as exc:  # a bug here must not take the lobby down
            reason = "error"
            log.debug("beacon handling failed", exc_info=exc)
        self.stats["dropped"] += 1
        self.stats[reason] += 1
        log.debug("dropped datagram from %s:%s (%s)", source[0], source[1], reason)
        return None

    def _drop(self, reason: str, source: tuple[str, int]) -> None:
        self.stats["dropped"] += 1
        self.stats[reason] += 1
        log.debug("dropped beacon from %s:%s (%s)", source[0], source[1], reason)

    def _handle(self, data: bytes, source: tuple[str, int]) -> TableAnnouncement | None:
        beacon = decode_beacon(data)
        now = self.clock()
        key = (beacon.host_key, beacon.lobby_id)
        old = self._tables.get(key)
        stone = self._tombstones.get(key)
        last = old.beacon.counter if old is not None else stone.counter if stone else -1
        if beacon.counter <= last:
            self._drop("stale", source)
            return None
        if beacon.closing:
            self._remove(key)
            if len(self._tombstones) >= MAX_TOMBSTONES and key not in self._tombstones:
                self._tombstones.pop(next(iter(self._tombstones)))
            self._tombstones[key] = _Tombstone(beacon.counter, now + 2 * self.expiry)
            self.stats["closed"] += 1
            return None
        address = str(source[0])
        victim = None
        if old is None:
            victim, refusal = self._make_room(beacon.host_key, address, now)
            if refusal is not None:
                self._drop(refusal, source)
                return None
        self._tombstones.pop(key, None)
        entry = TableAnnouncement(
            beacon=beacon,
            source=(address, int(source[1])),
            first_seen=old.first_seen if old is not None else now,
            last_seen=now,
        )
        if victim is not None:
            self._remove(victim)
            self.stats["evicted"] += 1
        self._put(key, entry)
        self.stats["accepted"] += 1
        return entry

    def _make_room(
        self, host: bytes, address: str, now: float
    ) -> tuple[tuple[bytes, bytes] | None, str | None]:
        """For a new table of ``host`` heard from ``address``: which entry of the same key it
        replaces (if the key has its fill), or why it is dropped (``source_full``, ``table_full``).

        Nothing is removed here, so a dropped beacon costs the list nothing."""
        if (
            self._per_key[host] >= MAX_TABLES_PER_KEY
            or self._per_source[address] >= MAX_TABLES_PER_SOURCE
            or len(self._tables) >= MAX_TABLES
        ):
            self._expire(now)
        victim: tuple[bytes, bytes] | None = None
        freed = same_source = 0
        if self._per_key[host] >= MAX_TABLES_PER_KEY:
            own = [(t.last_seen, k) for k, t in self._tables.items() if k[0] == host]
            victim = min(own)[1]
            freed = 1
            same_source = int(self._tables[victim].source[0] == address)
        if self._per_source[address] - same_source >= MAX_TABLES_PER_SOURCE:
            return None, "source_full"
        if len(self._tables) - freed >= MAX_TABLES:
            return None, "table_full"
        return victim, None

    def _put(self, key: tuple[bytes, bytes], entry: TableAnnouncement) -> None:
        old = self._tables.get(key)
        if old is not None:
            self._per_source[old.source[0]] -= 1
        else:
            self._per_key[key[0]] += 1
        self._per_source[entry.source[0]] += 1
        self._tables[key] = entry

    def _remove(self, key: tuple[bytes, bytes]) -> None:
        old = self._tables.pop(key, None)
        if old is None:
            return
        _decrement(self._per_key, key[0])
        _decrement(self._per_source, old.source[0])

    def _expire(self, now: float) -> None:
        for key in [k for k, t in self._tables.items() if now - t.last_seen > self.expiry]:
            self._remove(key)
            self.stats["expired"] += 1
        for key in [k for k, s in self._tombstones.items() if now > s.until]:
            del self._tombstones[key]

    def tables(self) -> list[TableAnnouncement]:
        """The open tables heard within ``expiry`` seconds, by table name then host."""
        self._expire(self.clock())
        return sorted(
            self._tables.values(), key=lambda t: (t.name, t.beacon.host_name, t.beacon.host_key)
        )

    def poll(self, timeout: float = 0.0) -> list[TableAnnouncement]:
        """Wait up to ``timeout`` seconds for beacons, take in all that are queued, return tables.

        Returns as soon as the queue is drained after at least one datagram (or after at most
        ``MAX_DATAGRAMS_PER_POLL``), so a caller's loop stays responsive under a flood.
        """
        sock = self._sock
        if sock is None:
            raise ValueError("listener is closed")
        end = time.monotonic() + max(0.0, timeout)
        for got in range(MAX_DATAGRAMS_PER_POLL):
            wait = end - time.monotonic() if got == 0 else 0.0
            try:
                if wait > 0:
                    sock.settimeout(wait)
                else:
                    sock.setblocking(False)
                data, source = sock.recvfrom(MAX_BEACON_SIZE + 1)
            except (TimeoutError, BlockingIOError, InterruptedError):
                break
            except OSError as exc:
                self.stats["socket_error"] += 1
                log.debug("beacon socket error: %s", exc)
                break
            self.handle(data, source)
        return self.tables()

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> BeaconListener:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def discover(
    net: NetChoice | str | None = None, port: int = DEFAULT_PORT, seconds: float = 2.5
) -> list[TableAnnouncement]:
    """Listen for ``seconds`` and return the open tables heard (the ``druids tables`` command)."""
    with BeaconListener(net, port) as listener:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            listener.poll(left)
        return listener.tables()
