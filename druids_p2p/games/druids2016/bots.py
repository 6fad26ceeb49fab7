"""Druids (2016)'s bots as the spec names them: thin :class:`Bot` wrappers over the pure
policies (``rule`` in :mod:`.policy`, ``search`` in :mod:`.search`; the built-in ``random`` bot
plays ``view.legal`` as it is), and the host's fallback.

A bot rebuilds the position from its view (:meth:`SeatView.game`) and thinks on it. A placement
(``@b1``) is chosen at random from the bot's own rng: the placements are hidden from each other,
so no position tells a better one. The search's budget is in nodes, from the time budget (so a
game replays exactly on any machine), with the time budget itself as a cap.
"""

from __future__ import annotations

import time
from typing import Any, Final

from druids_p2p.games.druids2016.policy import Budget, Policy, rule_move
from druids_p2p.games.druids2016.search import search_move
from druids_p2p.games.druids2016.view import SeatView
from druids_p2p.games.spec import Bot

NODES_PER_MS: Final = 24
"""Search nodes granted per millisecond of budget: an idle core visits about 50 a ms, so the
nodes run out in about half the budget there (and the game replays exactly); on a loaded core
the clock (below) stops the search first."""
TIME_SHARE: Final = 0.5
"""The share of the time budget the bot may use (counted from the call, the position's rebuild
included) before the search stops, whatever its nodes. The rest is headroom for a loaded
machine: on 2 cores at load 10, a move capped at 60-70% of 100 ms still ran past 120 ms in
2-9% of moves (the process waits its turn for a core), so that 99% of moves keep within 120%
of the budget (``druids bench bots`` reports the p99)."""


def fallback_2016(view: Any) -> int:
    """The smallest legal move id: deterministic and instant, the same on every peer."""
    return int(min(view.legal))


def _choose(bot: Bot, view: Any, policy: Policy) -> int:
    if not isinstance(view, SeatView):
        raise TypeError("this bot plays Druids (2016) only")
    if view.setup is None:  # placing: hidden from each other, nothing to search
        return int(view.legal[bot.rng.randrange(len(view.legal))])
    start = time.perf_counter()
    game = view.game()
    left = bot.time_budget_ms * TIME_SHARE / 1000 - (time.perf_counter() - start)
    budget = Budget(
        nodes=max(1, int(bot.time_budget_ms * NODES_PER_MS)),
        seconds=max(0.001, left),
        clock=time.perf_counter,
    )
    return policy(game, bot.rng, budget).code


class Rule2016Bot(Bot):
    """Wins at once, never lets a win through, keeps Druids, brings its Master on (two plies)."""

    def choose(self, view: Any) -> int:
        return _choose(self, view, rule_move)


class Search2016Bot(Bot):
    """Alpha-beta with iterative deepening over the whole position, within the budget."""

    def choose(self, view: Any) -> int:
        return _choose(self, view, search_move)
