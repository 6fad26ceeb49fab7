"""The ``random`` bot: a uniform choice among the legal moves, from the bot's own seeded rng.

It is the baseline every other bot is measured against, and the opponent ``check_bot`` uses.
"""

from __future__ import annotations

from druids_p2p.bots.base import Bot
from druids_p2p.games.druids2017.view import PlayerView


class RandomBot(Bot):
    """Plays uniformly at random among ``view.legal``; reproducible through its seeded rng."""

    def choose(self, view: PlayerView) -> int:
        legal = view.legal
        return legal[self.rng.randrange(len(legal))]
