"""Pacing what the table shows, so a person can follow it.

Bots answer in milliseconds: shown as they arrive, a whole trick flashes by and the next one is
on the table before anyone has read who took the last. So the table screen puts everything a
session tells it in a queue (:class:`Pacer`) and shows it in order, holding after each move for
``move_s`` and after a completed trick for ``trick_s`` (a key ends a trick's hold at once), and
after a round's end until its summary is closed. Nothing is dropped or merged: every move is
shown, never faster than the screen can draw it. The peer is never slowed: it keeps serving the
network while the person's own turn waits at the back of the queue.

The clock is injected (tests drive it by hand).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Pacing:
    """How long the table holds what it just showed (seconds; 0 = not at all)."""

    move_s: float = 0.6
    """After each move (a bot's move stays in view at least this long before the next)."""
    trick_s: float = 3.0
    """After a completed trick: it stays on the table, who played what and who took it."""

    @property
    def off(self) -> bool:
        return self.move_s <= 0 and self.trick_s <= 0


UI_PACING = Pacing()
"""The terminal UI's default: on."""
NO_PACING = Pacing(0.0, 0.0)
"""Everything at once (tests of other things; a table nobody watches)."""


class Pacer(Generic[T]):
    """A queue of things to show and the holds between them."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.queue: deque[T] = deque()
        self.until = 0.0
        """Nothing more is shown before this time."""
        self.blocked = False
        """Held until :meth:`release` (a round summary being read)."""
        self.key_ends_hold = False
        """The current hold is a trick's: any key ends it."""

    def push(self, item: T) -> None:
        self.queue.append(item)

    def hold(self, seconds: float, key_ends: bool = False) -> None:
        """Show nothing more for ``seconds`` from now (a longer hold already on is kept)."""
        if seconds <= 0:
            return
        until = self.clock() + seconds
        if until > self.until:
            self.until = until
            self.key_ends_hold = key_ends

    def block(self) -> None:
        self.blocked = True

    def release(self) -> None:
        """End every hold now (a key, a summary closed)."""
        self.until = 0.0
        self.blocked = False
        self.key_ends_hold = False

    @property
    def holding(self) -> bool:
        return self.blocked or self.clock() < self.until

    def next_ready(self) -> T | None:
        """The next thing to show, if its time has come."""
        if not self.queue or self.holding:
            return None
        if self.until:
            self.until = 0.0
            self.key_ends_hold = False
        return self.queue.popleft()

    def wait_s(self) -> float | None:
        """Seconds until the next thing may be shown (None: nothing waits, or a block)."""
        if not self.queue or self.blocked:
            return None
        return max(0.0, self.until - self.clock())
