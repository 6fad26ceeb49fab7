"""Which network a peer talks on: an IPv4 address of this host and its network's broadcast address.

Beacons are broadcast, and a broadcast to the wrong place is either lost (wrong subnet) or leaks
onto a network the user did not choose. So the choice is explicit (an interface name or one of its
addresses), the default is loopback, and the limited broadcast address 255.255.255.255, which
follows the default route onto whatever network that is, is refused everywhere.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

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
