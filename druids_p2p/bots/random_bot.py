"""The ``random`` bot: a uniform choice among the legal moves, from the bot's own seeded rng.

It is the baseline every other bot is measured against, and the opponent ``check_bot`` uses; it
plays every registered game (every game's view has ``legal``).
"""

from __future__ import annotations

from typing import Any

from druids_p2p.bots.base import Bot


class RandomBot(Bot):
    """Plays uniformly at random among ``view.legal``; reproducible through its seeded rng."""

    def choose(self, view: Any) -> int:
        legal = view.legal
        return int(legal[self.rng.randrange(len(legal))])
