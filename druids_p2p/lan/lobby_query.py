"""Asking a host's plain lobby socket for its signed announcement: what ``druids join HOST:PORT``
does first, and what a joiner asks again while it waits for its seat (``lobby.py``)."""

from __future__ import annotations

import ipaddress
import socket

import zmq

from druids_p2p.lan.peer_config import PeerError

__all__ = ["QUESTION", "query_lobby"]

QUESTION = b"druids-p2p/v1 lobby?"
"""What ``query_lobby`` asks: the host's lobby answers any message with its announcement."""


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
        sock.send(QUESTION)
        if not sock.poll(int(timeout_s * 1000)):
            raise PeerError(f"no table answers at {target}")
        reply: bytes = sock.recv()
        return reply
    finally:
        sock.close(linger=0)
