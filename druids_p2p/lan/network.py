"""Where a peer talks and who may talk to it: its network (loopback unless named), the inbox
endpoints it accepts in a signed message, and the CURVE keys its inbox admits, each bound to its
routing ids.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from zmq.utils import z85

__all__ = [
    "MAX_REMEMBERED_KEYS",
    "MAX_ROUTES",
    "CurveGate",
    "EndpointError",
    "Routes",
    "TableNetwork",
    "TokenBucket",
    "parse_endpoint",
]


# Which network a peer talks on: an IPv4 address of this host and its network's broadcast
# address.
LIMITED_BROADCAST = "255.255.255.255"
LOOPBACK_ADDRESS = "127.0.0.1"
LOOPBACK_BROADCAST = "127.255.255.255"
_LOOPBACK_NET = ipaddress.IPv4Network("127.0.0.0/8")


class InterfaceError(ValueError):
    """The chosen interface or address does not exist here or has no usable IPv4 broadcast."""


class UnsafeDestination(ValueError):
    """A send to an address this library never sends to (the limited broadcast, or a non-IPv4)."""


def check_destination(address: str) -> str:
    """Refuse 255.255.255.255 (and anything that is not a dotted IPv4 literal) before any send.

    Literals only, so that no spelling of the limited broadcast (``"<broadcast>"``, a host name, an
    integer form) can slip past this check into ``sendto``.
    """
    try:
        ip = ipaddress.IPv4Address(address)
    except (ipaddress.AddressValueError, ValueError):
        raise UnsafeDestination(f"not an IPv4 address literal: {address!r}") from None
    if str(ip) == LIMITED_BROADCAST:
        raise UnsafeDestination(
            "refusing to send to 255.255.255.255: it follows the default route onto the real "
            "network; use the chosen network's subnet broadcast address"
        )
    if ip.is_multicast or ip.is_unspecified:
        raise UnsafeDestination(f"refusing to send to {ip}: not a unicast or subnet broadcast")
    return str(ip)


def guarded_sendto(sock: socket.socket, data: bytes, address: str, port: int) -> int:
    """The one way this layer sends a datagram: the destination is checked on every call."""
    return sock.sendto(data, (check_destination(address), port))


@dataclass(frozen=True, slots=True)
class NetChoice:
    """A local IPv4 address to send from and the broadcast address of its network."""

    address: str
    broadcast: str
    name: str

    def __post_init__(self) -> None:
        try:
            ipaddress.IPv4Address(self.address)
        except (ipaddress.AddressValueError, ValueError):
            raise InterfaceError(f"not an IPv4 address: {self.address!r}") from None
        check_destination(self.broadcast)

    @property
    def is_loopback(self) -> bool:
        return ipaddress.IPv4Address(self.address) in _LOOPBACK_NET


LOOPBACK = NetChoice(LOOPBACK_ADDRESS, LOOPBACK_BROADCAST, "lo")


def _ipv4_addrs() -> dict[str, list[tuple[str, str | None, str | None]]]:
    """Interface name -> [(address, netmask, broadcast)] for every IPv4 address of this host."""
    import psutil  # imported late: only network commands need it

    out: dict[str, list[tuple[str, str | None, str | None]]] = {}
    for name, addrs in psutil.net_if_addrs().items():
        for a in addrs:
            if a.family == socket.AF_INET:
                out.setdefault(name, []).append((a.address, a.netmask, a.broadcast))
    return out


def _broadcast_of(name: str, address: str, netmask: str | None, broadcast: str | None) -> str:
    if ipaddress.IPv4Address(address) in _LOOPBACK_NET:
        return LOOPBACK_BROADCAST
    if broadcast:
        bc = ipaddress.IPv4Address(broadcast)
    else:
        if not netmask:
            raise InterfaceError(f"{name} ({address}) has no netmask, hence no broadcast address")
        net = ipaddress.IPv4Network(f"{address}/{netmask}", strict=False)
        if net.prefixlen >= 31:
            raise InterfaceError(f"{name} ({address}/{net.prefixlen}) has no broadcast address")
        bc = net.broadcast_address
    if str(bc) == LIMITED_BROADCAST:
        raise InterfaceError(
            f"{name} ({address}) reports 255.255.255.255 as its broadcast address; refusing it"
        )
    return str(bc)


def _available(table: dict[str, list[tuple[str, str | None, str | None]]]) -> str:
    return ", ".join(f"{n} ({', '.join(a for a, _, _ in v)})" for n, v in sorted(table.items()))


def resolve(interface: str | None = None, address: str | None = None) -> NetChoice:
    """Turn ``--interface`` / ``--address`` into a :class:`NetChoice`; loopback when neither is set.

    Any 127.x address means loopback (Linux owns all of 127/8 on ``lo``), which is how several peers
    on one machine keep distinct addresses.
    """
    if address is not None:
        try:
            ip = ipaddress.IPv4Address(address)
        except (ipaddress.AddressValueError, ValueError):
            raise InterfaceError(f"not an IPv4 address: {address!r}") from None
        address = str(ip)
        if interface is None and ip in _LOOPBACK_NET:
            return NetChoice(address, LOOPBACK_BROADCAST, "lo")
    if interface is None and address is None:
        return LOOPBACK
    table = _ipv4_addrs()
    if interface is not None:
        if interface not in table:
            raise InterfaceError(
                f"no interface {interface!r} with an IPv4 address; known: {_available(table)}"
            )
        candidates = [(interface, *entry) for entry in table[interface]]
        if address is not None:
            candidates = [c for c in candidates if c[1] == address]
            if not candidates:
                if ipaddress.IPv4Address(address) in _LOOPBACK_NET and any(
                    ipaddress.IPv4Address(a) in _LOOPBACK_NET for a, _, _ in table[interface]
                ):
                    return NetChoice(address, LOOPBACK_BROADCAST, interface)
                raise InterfaceError(f"interface {interface!r} has no address {address}")
    else:
        candidates = [(n, *entry) for n, v in table.items() for entry in v if entry[0] == address]
        if not candidates:
            raise InterfaceError(
                f"no interface has the address {address}; known: {_available(table)}"
            )
    name, addr, netmask, broadcast = candidates[0]
    return NetChoice(addr, _broadcast_of(name, addr, netmask, broadcast), name)


def net_choice(net: NetChoice | str | None) -> NetChoice:
    """``net`` as a :class:`NetChoice`: kept if it is one, else resolved from a local IPv4
    address (``None``: loopback), as the beacon sender and listener take it."""
    return net if isinstance(net, NetChoice) else resolve(address=net)


# Which inbox endpoints a peer accepts in a join, a seat message or a seat confirmation.
SCHEME = "tcp://"


class EndpointError(ValueError):
    """An endpoint this peer does not accept (the message is a one-line reason)."""


def parse_endpoint(endpoint: str) -> tuple[ipaddress.IPv4Address, int]:
    """``tcp://A.B.C.D:PORT`` -> (address, port); anything else raises :class:`EndpointError`."""
    if not endpoint.startswith(SCHEME):
        scheme = endpoint.split("://", 1)[0] + "://" if "://" in endpoint else endpoint
        raise EndpointError(f"endpoint {endpoint!r}: only tcp:// is accepted, not {scheme!r}")
    host, sep, port = endpoint[len(SCHEME) :].rpartition(":")
    if not sep or not port.isdigit() or not 1 <= int(port) <= 65535 or port != str(int(port)):
        raise EndpointError(f"endpoint {endpoint!r}: expected tcp://A.B.C.D:PORT")
    try:
        address = ipaddress.IPv4Address(host)
    except (ipaddress.AddressValueError, ValueError):
        raise EndpointError(
            f"endpoint {endpoint!r}: the host must be an IPv4 address literal, not {host!r}"
        ) from None
    return address, int(port)


@dataclass(frozen=True, slots=True)
class TableNetwork:
    """The IPv4 network every endpoint at this table must be on."""

    network: ipaddress.IPv4Network

    @classmethod
    def of_address(cls, address: str) -> TableNetwork:
        """The network of a local inbox address: 127.0.0.0/8 for loopback, else the network of
        the interface holding ``address``; raises :class:`EndpointError` if no interface has it."""
        try:
            ip = ipaddress.IPv4Address(address)
        except (ipaddress.AddressValueError, ValueError):
            raise EndpointError(f"not an IPv4 address: {address!r}") from None
        if ip in _LOOPBACK_NET:
            return cls(_LOOPBACK_NET)
        if ip.is_unspecified or ip.is_multicast:
            raise EndpointError(f"{ip} is not one interface's address: bind to one address")
        for entries in _ipv4_addrs().values():
            for addr, netmask, _ in entries:
                if addr == str(ip) and netmask:
                    return cls(ipaddress.IPv4Network(f"{addr}/{netmask}", strict=False))
        raise EndpointError(f"no interface here has the address {ip}")

    @classmethod
    def of_endpoint(cls, endpoint: str) -> TableNetwork:
        """The network of this peer's own inbox endpoint (see :meth:`of_address`)."""
        address, _ = parse_endpoint(endpoint)
        return cls.of_address(str(address))

    def refusal(self, endpoint: str) -> str | None:
        """Why ``endpoint`` is refused at this table, or None if it is accepted."""
        try:
            address, _ = parse_endpoint(endpoint)
        except EndpointError as exc:
            return str(exc)
        net = self.network
        if address not in net:
            return f"endpoint {endpoint!r} is not on this table's network {net}"
        if address.is_unspecified or address.is_multicast:
            return f"endpoint {endpoint!r} is not a host address"
        if net.prefixlen < 31 and address in (net.network_address, net.broadcast_address):
            return f"endpoint {endpoint!r} is the network's own or broadcast address"
        return None

    def check(self, endpoint: str) -> str:
        """``endpoint`` if accepted, else raises :class:`EndpointError` with the reason."""
        reason = self.refusal(endpoint)
        if reason is not None:
            raise EndpointError(reason)
        return endpoint


# Who may connect to a mesh inbox, and whose each of its routing ids is (``lan/mesh.py``).
log = logging.getLogger("druids_p2p.lan.mesh")

MAX_REMEMBERED_KEYS = 1024
"""Keys the gate remembers admitting while open; past that it assumes a stranger got in."""
MAX_ROUTES = 1024
"""Routing ids the inbox remembers the CURVE key of; past that it forgets the least recently
heard (a route it forgot is bound again by its next frame: forgetting never rebinds)."""


class CurveGate:
    """ZAP credentials provider: which CURVE public keys may connect to our inbox.

    ZAP is asked only at a handshake, so the gate remembers whom it let in while open: the mesh then
    drops those connections (``Mesh.close_gate``).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._allowed: set[bytes] = set()
        self.allowed_raw: frozenset[bytes] = frozenset()
        """The admitted keys, raw (the mesh filters frames by them once the gate is closed)."""
        self._admitted: set[bytes] = set()
        self._admitted_overflow = False
        self.open = True

    def allow(self, raw_keys: Iterable[bytes]) -> None:
        with self._lock:
            self._allowed.update(z85.encode(k) for k in raw_keys)

    def close_to_strangers(self, raw_keys: Iterable[bytes]) -> bool:
        """From now on admit only these keys (the seated peers' CURVE keys). True if a key that
        is not one of them was let in while the gate was open (its connection may be up)."""
        raw = frozenset(raw_keys)
        with self._lock:
            self._allowed = {z85.encode(k) for k in raw}
            self.allowed_raw = raw
            self.open = False
            strangers = self._admitted_overflow or bool(self._admitted - self._allowed)
            # Told once: the caller drops those connections, and a closed gate admits no more.
            self._admitted &= self._allowed
            self._admitted_overflow = False
            return strangers

    def reopen(self) -> None:
        """Admit any key again, as in a lobby (a host opening the next table, whose stand-in
        bot's key nobody knows before its join); closed again once that table is seated."""
        with self._lock:
            self.open = True

    def callback(self, domain: str, key: bytes) -> bool:
        """pyzmq's ZAP hook; ``key`` is the client's Z85-encoded CURVE public key."""
        with self._lock:
            ok = self.open or key in self._allowed
            if ok and self.open:
                if len(self._admitted) < MAX_REMEMBERED_KEYS:
                    self._admitted.add(bytes(key))
                else:
                    self._admitted_overflow = True
        if not ok:
            log.info("refused a CURVE connection from an unknown key")
        return ok


class Routes:
    """The inbox's routing ids, each bound to the CURVE key its first frame authenticated.

    A frame by a routing id bound to another key is refused (with handover off and a fresh
    random routing id for every connection it cannot happen short of guessing one: the check
    holds whatever libzmq does), and a frame for a key goes only to a routing id bound to it."""

    def __init__(self) -> None:
        self._key: dict[bytes, bytes] = {}
        """Routing id -> raw CURVE key, least recently heard first (at most ``MAX_ROUTES``)."""
        self._route: dict[bytes, bytes] = {}
        """Raw CURVE key -> the routing id its latest frame came by (always bound to it)."""

    def bind(self, route: bytes, key: bytes) -> bool:
        """True if a frame that came by ``route`` and authenticated as ``key`` is that key's."""
        routes = self._key
        bound = routes.pop(route, None)
        if bound is not None and bound != key:
            routes[route] = bound
            return False
        routes[route] = key  # last: the least recently heard come first
        self._route[key] = route
        if len(routes) > MAX_ROUTES:
            old_route = next(iter(routes))
            old_key = routes.pop(old_route)
            if self._route.get(old_key) == old_route:
                del self._route[old_key]
        return True

    def route_of(self, key: bytes) -> bytes | None:
        """Where a frame for ``key`` goes over the inbox: a routing id bound to it, or None."""
        return self._route.get(key)

    def bound(self, route: bytes) -> bool:
        return route in self._key

    def keep_only(self, keys: frozenset[bytes]) -> None:
        """Forget the routing ids of every other key (the gate closed to them)."""
        self._key = {r: k for r, k in self._key.items() if k in keys}
        self._route = {k: r for k, r in self._route.items() if k in keys}


@dataclass
class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second of ``clock``; one token per use.

    The one rate limit of the network wing: chat lines per sender, resend requests per seat and
    frames per seated link each take a token from their own bucket.
    """

    capacity: float
    rate: float
    clock: Callable[[], float] = time.monotonic
    tokens: float = field(init=False)
    stamp: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = self.capacity
        self.stamp = self.clock()

    def take(self) -> bool:
        now = self.clock()
        elapsed = max(0.0, now - self.stamp)
        self.stamp = now
        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True
