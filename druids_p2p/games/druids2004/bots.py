"""The built-in bots for Druids (2004): thin :class:`Bot` wrappers over the pure choosers in
``druids_p2p.games.druids2004.policy`` (the ``random`` bot plays both games as it is)."""

from __future__ import annotations

from typing import Any

from druids_p2p.games.druids2004 import moves
from druids_p2p.games.druids2004.policy import rule_move, search_move
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.games.spec import Bot

SEARCH_MS_PER_WORLD = 10.0
"""Budget granted per sampled world (the measured cost is about 6 ms here; the rest is headroom)."""
MIN_WORLDS = 2
MAX_WORLDS = 64


def fallback_2004(view: SeatView) -> int:
    """The host's safe move for a seat whose bot failed: ``Stop`` where the seat may stop,
    else its first legal move."""
    return moves.STOP if moves.STOP in view.legal else view.legal[0]


def _options(bot: Bot) -> Options:
    options = bot.options
    if not isinstance(options, Options):
        raise TypeError("this bot plays Druids (2004) only")
    return options


class Rule2004Bot(Bot):
    """Rituals that pay over sampled worlds, gems to their kind, servants where gems wait."""

    def choose(self, view: Any) -> int:
        return rule_move(view, _options(self), self.rng)


class Search2004Bot(Bot):
    """Determinized sampling: worlds consistent with the view, short greedy rollouts per move.

    The number of worlds is fixed by the budget (not by the clock), so games replay exactly.
    """

    def __init__(self, worlds: int | None = None) -> None:
        super().__init__()
        self.fixed_worlds = worlds

    @property
    def worlds(self) -> int:
        if self.fixed_worlds is not None:
            return self.fixed_worlds
        count = int(self.time_budget_ms / SEARCH_MS_PER_WORLD)
        return max(MIN_WORLDS, min(MAX_WORLDS, count))

    def choose(self, view: Any) -> int:
        return search_move(view, _options(self), self.rng, self.worlds)
