"""While a joiner waits for its seat: is the host still there, and how full is its table?

A joiner waits for the seat message as long as the table takes to fill, and a host that left
says nothing: without this, ``druids join`` sat at "joining" in silence for minutes. The host's
lobby socket answers any question with its signed announcement (``lan/lobby.py``), so the
joiner asks it again every :data:`ASK_EVERY_S` while it waits. Only an answer signed by the
host's key, for the lobby joined, counts: it says the host is there and how many seats are
taken; none for :data:`NO_ANSWER_S` says the host does not answer (gone, or the network between
is). Either is said as a ``waiting`` event with the seconds waited, at growing intervals
(:data:`SAY_AT_S`), and at once when the host stops answering or answers again. No message is
added to the protocol: the question is the one ``druids join HOST:PORT`` asks first.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import zmq

from druids_p2p.lan.discovery import Beacon, decode_beacon
from druids_p2p.wire import WireError

ASK_EVERY_S = 1.0
"""How often the host's lobby socket is asked while the joiner waits."""

NO_ANSWER_S = 3.0
"""Without an answer this long, the host is said not to answer."""

SAY_AT_S = (3.0, 8.0, 15.0, 30.0, 60.0)
"""When the wait is said (seconds since the join was sent); then every :data:`SAY_EVERY_S`."""

SAY_EVERY_S = 60.0

QUESTION = b"druids-p2p/v1 lobby?"
"""What ``query_lobby`` asks: the host's lobby answers any message with its announcement."""


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


__all__ = ["ASK_EVERY_S", "NO_ANSWER_S", "SAY_AT_S", "HostWatch"]
