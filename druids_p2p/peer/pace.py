"""Which seats answer their automatic messages late, though within the step deadline.

A seat that sends each automatic message (a card-table step, an owners' word or its check, its
result) just before
the deadline stretches the game by that much every time and is never blamed; the short step
deadline bounds the stretch, and this makes it visible: a seat is shown *slow* once
:data:`SLOW_AT` of its last :data:`WINDOW` automatic messages each came more than half the step
deadline after this peer first saw it owed, and no longer once none of them did (protocol.md §9).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

LATE_FRACTION = 0.5
"""An automatic message is late when it came after this fraction of the step deadline."""
WINDOW = 6
"""How many of a seat's last automatic messages are looked at."""
SLOW_AT = 3
"""Late ones among them that make the seat slow."""


@dataclass(frozen=True)
class PaceNews:
    """A seat became slow (``slow``) or answers promptly again."""

    key: bytes
    slow: bool
    late: int
    """How many of its last :data:`WINDOW` automatic messages were late."""


class Pace:
    """How long each seat took over its automatic messages, and who is slow."""

    def __init__(self, step_s: float) -> None:
        self.late_after_s = step_s * LATE_FRACTION
        self._answers: dict[bytes, deque[bool]] = {}
        self.slow: set[bytes] = set()
        self._news: list[PaceNews] = []
        self.longest_s = 0.0
        """The longest any seat took over an automatic message (reported in the result)."""

    def paid(self, key: bytes, took_s: float) -> None:
        """``key`` sent an automatic message ``took_s`` after this peer first saw it owed."""
        self.longest_s = max(self.longest_s, took_s)
        answers = self._answers.setdefault(key, deque(maxlen=WINDOW))
        answers.append(took_s > self.late_after_s)
        late = sum(answers)
        if key not in self.slow and late >= SLOW_AT:
            self.slow.add(key)
            self._news.append(PaceNews(key, True, late))
        elif key in self.slow and late == 0:
            self.slow.discard(key)
            self._news.append(PaceNews(key, False, late))

    def news(self) -> list[PaceNews]:
        """What changed since the last call."""
        out, self._news = self._news, []
        return out


__all__ = ["LATE_FRACTION", "SLOW_AT", "WINDOW", "Pace", "PaceNews"]
