"""Who may connect to a mesh inbox, and whose each of its routing ids is (``lan/mesh.py``).

The :class:`CurveGate` is the inbox's ZAP handler: it admits CURVE keys. :class:`Routes` binds
each routing id the inbox hears to the CURVE key that authenticated its first frame, so that a
routing id never stands for a peer (issue 27 item 1; protocol.md §1).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from zmq.utils import z85

log = logging.getLogger("druids_p2p.lan.mesh")

MAX_REMEMBERED_KEYS = 1024
"""Keys the gate remembers admitting while open; past that it assumes a stranger got in."""
MAX_ROUTES = 1024
"""Routing ids the inbox remembers the CURVE key of; past that it forgets the least recently
heard (a route it forgot is bound again by its next frame: forgetting never rebinds)."""


class CurveGate:
    """ZAP credentials provider: which CURVE public keys may connect to our inbox.

    ZAP is asked once per connection, at its handshake: closing the gate refuses new connections
    only. So the gate also remembers which keys it let in while it was open (to know whether a
    stranger may still hold a connection when it closes), and the mesh drops those connections
    (``Mesh.close_gate``)."""

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


__all__ = ["MAX_REMEMBERED_KEYS", "MAX_ROUTES", "CurveGate", "Routes"]
