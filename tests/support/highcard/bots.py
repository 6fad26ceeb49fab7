"""High card's bots: ``greedy`` (takes a trick when it can, else sheds its lowest card) and the
host's fallback (the lowest legal card: deterministic and instant, the same on every peer).
The ``random`` bot is the built-in one, which plays ``view.legal`` of any game."""

from __future__ import annotations

from typing import Any

from druids_p2p.api import Bot
from highcard.cards import rank, suit
from highcard.engine import View


def low(card: int) -> tuple[int, int]:
    """Lowest first: by rank, then by id."""
    return rank(card), card


def fallback(view: Any) -> int:
    """The lowest legal card."""
    legal: list[int] = list(view.legal)
    return min(legal, key=low)


class GreedyBot(Bot):
    """Leads its highest card; follows with its lowest card that wins, else its lowest card."""

    def choose(self, view: Any) -> int:
        assert isinstance(view, View)
        if view.led < 0:
            return max(view.legal, key=low)
        best = max(rank(c) for _, c in view.trick if suit(c) == view.led)
        winning = [c for c in view.legal if suit(c) == view.led and rank(c) > best]
        return min(winning or view.legal, key=low)
