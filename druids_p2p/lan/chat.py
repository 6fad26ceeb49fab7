"""Table talk: short signed text lines every seated peer shows, never part of the game.

A chat line is a signed ``chat`` message (docs/protocol/wire.md §5) sent like a keepalive hello:
out of chain (seq 0, zero prev), so it takes no sequence slot, is never appended to the
transcript or the record, and can never be quoted in an equivocation proof. Nothing of the game
waits for one, so a lost, dropped or flooded line cannot stall or stop the table, and only the
seated peer who signed a line can be shown saying it.

What a receiver checks (protocol.md §11), in order, dropping the line at the first failure:

1. the envelope (``wire.decode``: size, shape, the ``text`` bound of 200 bytes of printable UTF-8
   without a bidi control (wire/schema.py), the signature) and that it is for this table from a
   seated key (the session loop's checks);
2. seq 0 and a zero prev (an out-of-chain message), and the text printable again (a line that
   reached this class by another path than the decoder is never shown unchecked);
3. ``n`` above the last ``n`` heard from that sender (a replayed line is shown once);
4. the sender's token bucket (``BURST`` lines at once, then one per ``REFILL_S``): a flood is
   cut down to that rate, its excess dropped silently.

A malformed or forged line is counted as a bad message like any other frame that fails the
envelope checks; an excess, replayed or out-of-chain line is only dropped. None of them is ever
blamed as a cheat, and bots never see chat at all.
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable
from typing import Any

from druids_p2p.lan.network import TokenBucket
from druids_p2p.wire import ZERO_HASH, Message, MsgType, encode
from druids_p2p.wire.schema import MAX_CHAT_N, MAX_CHAT_TEXT, unprintable

log = logging.getLogger(__name__)

BURST = 5
"""Lines a peer may say at once."""
REFILL_S = 2.0
"""Then one more line every this many seconds."""
OUTBOX_SIZE = 16
"""Lines typed but not yet sent (the session loop sends them on its next tick)."""


class ChatRefused(ValueError):
    """A line this peer was asked to say cannot be sent: one line for the user."""


def check_text(text: str) -> str:
    """The line as it will be signed (surrounding blanks trimmed), or :class:`ChatRefused`."""
    line = text.strip()
    if not line:
        raise ChatRefused("an empty line is not sent")
    bad = unprintable(line)
    if bad is not None:
        raise ChatRefused(f"a chat line is one line of printable text, without {bad}")
    if len(line.encode("utf-8")) > MAX_CHAT_TEXT:
        raise ChatRefused(f"a chat line is at most {MAX_CHAT_TEXT} bytes of text")
    return line


class ChatOutbox:
    """Lines the user typed, handed from the UI's thread to the session loop's (thread-safe)."""

    def __init__(self) -> None:
        self._lines: queue.Queue[str] = queue.Queue(OUTBOX_SIZE)

    def say(self, text: str) -> None:
        """Queue a line; :class:`ChatRefused` if it is not one to send, or too many wait."""
        line = check_text(text)
        try:
            self._lines.put_nowait(line)
        except queue.Full:
            raise ChatRefused("too many lines are waiting to be sent") from None

    def take(self) -> list[str]:
        out: list[str] = []
        while len(out) < OUTBOX_SIZE:
            try:
                out.append(self._lines.get_nowait())
            except queue.Empty:
                break
        return out


class TableChat:
    """One peer's chat at its seated table: signs its own lines, checks and shows others'.

    ``machine`` is the table machine (its identity, table id, names and seats are read, never
    changed); ``emit`` gets a ``{"event": "chat", "seat", "name", "text"}`` event per line shown,
    ours included, so a UI logs it and a headless peer's event log keeps it."""

    def __init__(
        self,
        machine: Any,
        emit: Callable[[dict[str, Any]], None],
        clock: Callable[[], float] = time.monotonic,
        outbox: ChatOutbox | None = None,
        wall_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self.machine = machine
        self.emit = emit
        self.clock = clock
        self.outbox = outbox
        self.wall_ms = wall_ms
        self.buckets: dict[bytes, TokenBucket] = {}
        self.last_n: dict[bytes, int] = {}
        self.my_n = 0
        self.dropped = 0
        """Lines refused by checks 2–4 (never counted as bad messages, never blamed)."""

    def _bucket(self, key: bytes) -> TokenBucket:
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(float(BURST), 1.0 / REFILL_S, self.clock)
        return bucket

    def _show(self, key: bytes, text: str) -> None:
        machine = self.machine
        seat = machine.seat_of(key) if machine.order else None
        name = str(machine.names.get(key, "?"))
        self.emit({"event": "chat", "seat": seat, "name": name, "text": text})

    def outgoing(self) -> list[bytes]:
        """The typed lines to broadcast now, signed (each also shown here, as ours)."""
        if self.outbox is None:
            return []
        return [raw for line in self.outbox.take() if (raw := self.say(line)) is not None]

    def say(self, text: str) -> bytes | None:
        """Sign one line of ours (None if our own bucket is empty: the others would drop it)."""
        line = check_text(text)
        machine = self.machine
        if not self._bucket(machine.me).take():
            self.dropped += 1
            self.emit({"event": "chat_refused", "text": "chat: too fast, that line was not sent"})
            return None
        self.my_n = min(MAX_CHAT_N, max(self.my_n + 1, self.wall_ms()))
        raw = encode(
            machine.identity,
            MsgType.CHAT,
            table_id=machine.table_id,
            seq=0,
            prev=ZERO_HASH,
            head=machine.transcript.head,
            body={"n": self.my_n, "text": line},
        )
        self._show(machine.me, line)
        return raw

    def receive(self, msg: Message) -> bool:
        """A decoded ``chat`` from a seated key of this table: shown (True) or dropped."""
        key = msg.sender
        if msg.seq != 0 or msg.prev != ZERO_HASH or key == self.machine.me:
            return self._drop("a chat line inside a chain", key)
        text = str(msg.body["text"])
        bad = unprintable(text)
        if bad is not None:
            return self._drop(f"a chat line with {bad}", key)
        n = int(msg.body["n"])
        if n <= self.last_n.get(key, 0):
            return self._drop("a chat line heard before (replayed)", key)
        if not self._bucket(key).take():
            return self._drop("a chat line over the rate limit", key)
        self.last_n[key] = n
        self._show(key, text)
        return True

    def _drop(self, why: str, key: bytes) -> bool:
        self.dropped += 1
        log.info("dropped %s from %s", why, self.machine.names.get(key, "?"))
        return False
