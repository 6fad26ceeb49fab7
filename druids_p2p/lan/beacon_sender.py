"""Announcing one table on the LAN: a signed beacon about once a second, and closing ones.

The beacon's format is :mod:`.discovery`'s (specified in ``docs/protocol/discovery.md``); this is
only the host's side: the cadence (with jitter), the broadcast socket, and the closing beacons
that tell listeners a table is gone or full.
"""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time
from types import TracebackType

from druids_p2p.lan.discovery import (
    DEFAULT_PORT,
    LOBBY_ID_SIZE,
    MAX_COUNTER,
    TableInfo,
    encode_beacon,
)
from druids_p2p.lan.interfaces import NetChoice, guarded_sendto, net_choice
from druids_p2p.wire.identity import Identity

log = logging.getLogger(__name__)

DEFAULT_INTERVAL = 1.0
DEFAULT_JITTER = 0.1
"""Hosts started together would otherwise beacon in lock step for ever."""
CLOSING_REPEATS = 3
"""A closing beacon is repeated because one UDP datagram may be lost (Zyre does the same)."""
CLOSING_SPACING = 0.02


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
