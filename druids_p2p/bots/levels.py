"""The levels a person chooses (``easy``, ``normal``, ``hard``) as bots any table can seat.

Each game's spec says which of its bots plays a level, with what budget and how many slips
(``games/spec.py``: :class:`~druids_p2p.games.spec.Level`); here a level becomes a bot named after
it, so that ``--level hard`` is ``bot:hard`` at every seat and a level is measured, seated at a
LAN table or played by a peer process exactly as any other bot is, naming no game.
"""

from __future__ import annotations

import random
from typing import Any

from druids_p2p.games.registry import game_spec
from druids_p2p.games.spec import Bot, BotFactory, Level


class LevelBot(Bot):
    """A game's bot at a level: its budget capped at the level's, and a share of its moves
    replaced by a random legal one (the level's ``blunders``)."""

    def __init__(self, level: Level, inner: Bot) -> None:
        super().__init__()
        self.level = level
        self.inner = inner
        self.slips = random.Random(0)

    def start_game(
        self, seat: int, options: Any, rng: random.Random, time_budget_ms: float
    ) -> None:
        super().start_game(seat, options, rng, time_budget_ms)
        if self.level.blunders:  # a level without slips plays its bot move for move
            self.slips = random.Random(rng.getrandbits(64))
        cap = self.level.budget_ms
        budget = time_budget_ms if cap is None else min(cap, time_budget_ms)
        self.inner.start_game(seat, options, rng, budget)

    def choose(self, view: Any) -> Any:
        move = self.inner.choose(view)  # asked every move: a bot may keep memory between them
        if self.level.blunders and self.slips.random() < self.level.blunders:
            legal = view.legal
            return int(legal[self.slips.randrange(len(legal))])
        return move

    def end_round(self, view: Any) -> None:
        self.inner.end_round(view)

    def end_game(self, view: Any) -> None:
        self.inner.end_game(view)


def level_factory(game: str, name: str) -> BotFactory:
    """What makes game ``game``'s bot for level ``name`` (the spec's :meth:`GameSpec.level`)."""
    from druids_p2p.bots.host import RandomBot

    spec = game_spec(game)
    level = spec.level(name)
    inner: BotFactory = RandomBot if level.bot == "random" else spec.bots[level.bot]

    def make() -> Bot:
        return LevelBot(level, inner())

    make.__doc__ = f"Level {name}: {level.describe()}."
    return make


__all__ = ["LevelBot", "level_factory"]
