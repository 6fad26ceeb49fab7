"""Hearing the tables on the LAN, and which one a name means. Everything heard is untrusted: the
list of tables is bounded per host key, per address and in all, so a flood churns only its
sender's own entries; and a table name is not an identity, so a name heard from two host keys is
ambiguous and never resolved by chance: the joiner must pin one by fingerprint.
"""

from __future__ import annotations

import logging
import re
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from druids_p2p.lan.discovery import (
    DEFAULT_PORT,
    MAX_BEACON_SIZE,
    TableAnnouncement,
    decode_beacon,
)
from druids_p2p.lan.network import NetChoice, net_choice
from druids_p2p.wire.identity import fingerprint
from druids_p2p.wire.msgtypes import WireError

# Hearing the tables on the LAN: the bounded list of tables kept from the beacons received.
log = logging.getLogger(__name__)

DEFAULT_EXPIRY = 5.0
"""About five missed beacons: survives a little loss, yet a vanished host drops off quickly."""
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
MAX_DROPPED = 64
"""Tables dropped for want of room that the listener still shows (the most recently heard)."""
MAX_DATAGRAMS_PER_POLL = 4096


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

    Bound to the broadcast address, so every peer on one host hears every beacon; discovery.md has
    the checks that keep a flooder to its own slots. ``clock`` lets tests expire tables.
    """

    def __init__(
        self,
        net: NetChoice | str | None = None,
        port: int = DEFAULT_PORT,
        *,
        expiry: float = DEFAULT_EXPIRY,
        clock: Callable[[], float] = time.monotonic,
        keep: Callable[[bytes], bool] | None = None,
    ) -> None:
        self.net = net_choice(net)
        self.keep = keep
        """True for a host key the user pinned or confirmed; may change while listening."""
        self.port = port
        self.expiry = expiry
        self.clock = clock
        self.stats: Counter[str] = Counter()
        self._tables: dict[tuple[bytes, bytes], TableAnnouncement] = {}
        self._tombstones: dict[tuple[bytes, bytes], _Tombstone] = {}
        self._per_key: Counter[bytes] = Counter()
        self._per_source: Counter[str] = Counter()
        self._dropped: dict[tuple[bytes, bytes], TableAnnouncement] = {}
        """Tables dropped for room, most recently heard last (bounded by MAX_DROPPED)."""
        self._last_drop: float | None = None
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
                heard = TableAnnouncement(beacon, (address, int(source[1])), now, now)
                self._remember_dropped(key, heard)
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
        replaces (if the key has its fill), or, for a kept host in a full list, which stranger's;
        else why it is dropped (``source_full``, ``table_full``).

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
        source_full = self._per_source[address] - same_source >= MAX_TABLES_PER_SOURCE
        table_full = len(self._tables) - freed >= MAX_TABLES
        if (source_full or table_full) and self.keep is not None and self.keep(host):
            if not table_full:
                return victim, None  # a kept host is not bound by its (maybe forged) address
            stranger = self._least_recent_stranger() if victim is None else None
            if stranger is not None:
                return stranger, None
        if source_full:
            return None, "source_full"
        if table_full:
            return None, "table_full"
        return victim, None

    def _least_recent_stranger(self) -> tuple[bytes, bytes] | None:
        """The least recently heard table of a host not kept: what a kept host's table replaces
        when the list is full (None if every listed table is kept)."""
        keep = self.keep or (lambda key: False)
        strangers = [(t.last_seen, k) for k, t in self._tables.items() if not keep(k[0])]
        return min(strangers)[1] if strangers else None

    def _remember_dropped(self, key: tuple[bytes, bytes], entry: TableAnnouncement) -> None:
        self._last_drop = entry.last_seen
        self._dropped.pop(key, None)
        if len(self._dropped) >= MAX_DROPPED:
            self._dropped.pop(next(iter(self._dropped)))
        self._dropped[key] = entry

    def dropped_tables(self) -> list[TableAnnouncement]:
        """Tables heard but not listed for want of room (a flood?), within ``expiry`` seconds:
        the most recent MAX_DROPPED, oldest first. A table listed since is not among them."""
        now = self.clock()
        for key in [k for k, t in self._dropped.items() if now - t.last_seen > self.expiry]:
            del self._dropped[key]
        return [t for k, t in self._dropped.items() if k not in self._tables]

    @property
    def dropped_for_room(self) -> int:
        """Beacons of new tables dropped so far because the list (or their address's share of
        it) was full: ``table_full`` and ``source_full``."""
        return self.stats["table_full"] + self.stats["source_full"]

    def dropping(self) -> str | None:
        """One line for the user while beacons are being dropped for room (one in the last
        ``expiry`` seconds): some table may be missing from the list. None otherwise."""
        if self._last_drop is None or self.clock() - self._last_drop > self.expiry:
            return None
        return dropped_note(self.dropped_for_room)

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


def dropped_note(count: int) -> str:
    """What to tell the user when ``count`` beacons were dropped for room."""
    return (
        f"{count} beacon{'s' if count != 1 else ''} dropped: the list of tables is full "
        "(a flood?) and a table may be missing; join only a host whose fingerprint you know "
        "(--fingerprint FP)"
    )


def hear(
    net: NetChoice | str | None = None, port: int = DEFAULT_PORT, seconds: float = 2.5
) -> tuple[list[TableAnnouncement], int]:
    """Listen for ``seconds``: the open tables heard, and how many beacons were dropped for room
    meanwhile (the ``druids tables`` command)."""
    with BeaconListener(net, port) as listener:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            listener.poll(left)
        return listener.tables(), listener.dropped_for_room


def discover(
    net: NetChoice | str | None = None, port: int = DEFAULT_PORT, seconds: float = 2.5
) -> list[TableAnnouncement]:
    """Listen for ``seconds`` and return the open tables heard."""
    return hear(net, port, seconds)[0]


# Which announced table ``druids join NAME`` (or the lobby screen) means, and whether its host is
# the one the player expects.
MIN_PIN_DIGITS = 8
FINGERPRINT_DIGITS = 20
_PIN = re.compile(r"[0-9a-f]+")


class BadPin(ValueError):
    """The ``--fingerprint`` text is not a fingerprint prefix (one line for the user)."""


def parse_pin(text: str, option: str = "--fingerprint") -> str:
    """The hex digits of a fingerprint prefix, lower case, or :class:`BadPin` naming ``option``
    (``--fingerprint`` pins a host, ``--allow`` a joiner)."""
    digits = text.strip().lower().replace("-", "").replace(":", "")
    if not _PIN.fullmatch(digits) or len(digits) > FINGERPRINT_DIGITS:
        raise BadPin(
            f"{option} {text!r}: expected hex digits of a fingerprint such as "
            "5282-e6a3-d155-8f01-6430 (as 'druids id' and 'druids tables' show it)"
        )
    if len(digits) < MIN_PIN_DIGITS:
        raise BadPin(
            f"{option} {text!r}: give at least {MIN_PIN_DIGITS} hex digits "
            "(two groups), a shorter prefix is too easy to forge"
        )
    return digits


def pin_matches(pin: str, host_key: bytes) -> bool:
    """True if the host key's fingerprint starts with ``pin`` (as :func:`parse_pin` returns it)."""
    return fingerprint(host_key).replace("-", "").startswith(pin)


def matches_target(table: TableAnnouncement, target: str) -> bool:
    """``target`` is the table's exact name or a prefix of its lobby id in hex (any case)."""
    return table.name == target or table.lobby_id.hex().startswith(target.lower())


@dataclass(frozen=True)
class Choice:
    """What was heard for one target: the tables it names, and those a pin (if any) allows."""

    named: tuple[TableAnnouncement, ...]
    """Every open table the target names, whoever hosts it."""
    pinned: tuple[TableAnnouncement, ...]
    """Of those, the ones whose host matches the pin (all of them without a pin)."""
    pin: str | None

    @property
    def hosts(self) -> int:
        """How many distinct host keys announce a table of this name."""
        return len({t.beacon.host_key for t in self.named})

    @property
    def ambiguous(self) -> bool:
        """Two host keys announce the target and no pin chose between them."""
        return self.pin is None and self.hosts > 1


def choose(tables: Iterable[TableAnnouncement], target: str, pin: str | None) -> Choice:
    named = tuple(t for t in tables if matches_target(t, target))
    if pin is None:
        return Choice(named, named, None)
    pinned = tuple(t for t in named if pin_matches(pin, t.beacon.host_key))
    return Choice(named, pinned, pin)


def candidate_line(table: TableAnnouncement) -> str:
    """One line per candidate, enough to tell them apart and to pin one."""
    b, info = table.beacon, table.info
    return (
        f"  {info.name!r} hosted by {b.host_name} fingerprint {b.host_fingerprint} "
        f"lobby {table.lobby_id.hex()[:8]} at {info.endpoint} (from {table.source[0]})"
    )


def candidate_lines(tables: Sequence[TableAnnouncement]) -> list[str]:
    return [candidate_line(t) for t in tables]


def namesakes(tables: Sequence[TableAnnouncement]) -> dict[str, int]:
    """Table name -> number of distinct host keys announcing it, for names heard from several."""
    keys: dict[str, set[bytes]] = {}
    for t in tables:
        keys.setdefault(t.name, set()).add(t.beacon.host_key)
    return {name: len(k) for name, k in keys.items() if len(k) > 1}
