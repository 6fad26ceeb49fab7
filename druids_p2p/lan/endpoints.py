"""Which inbox endpoints a peer accepts in a join, a seat message or a seat confirmation.

An endpoint is where other peers will open a connection, so a signed message that names one
decides where this peer sends traffic. Only ``tcp://A.B.C.D:PORT`` on the table's own network is
accepted: never ``ipc://`` or ``inproc://`` (a file or an in-process queue of whoever reads the
message: another user's socket, or this process's own), never a host name (a name resolves to
wherever DNS says), and never an address off the network the table was started on (a table on
loopback never sends off this machine; a LAN table never sends beyond its LAN).

The table's network is the IPv4 network of the address this peer's inbox is bound to: all of
127.0.0.0/8 for loopback (one machine, any 127.x address), else the network (address and netmask)
of the interface that holds that address (``interfaces.py``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from druids_p2p.lan.interfaces import _LOOPBACK_NET, _ipv4_addrs

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


__all__ = ["EndpointError", "TableNetwork", "parse_endpoint"]
