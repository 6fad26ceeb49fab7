"""The ``example`` bot: get rid of high cards while someone else takes the trick.

A won trick tops its winner's piles with its *lowest* cards, so a bot that avoids winning and
hands its lowest cards to the winners does no harm to itself. But a bot that never wins scores
nothing: it leads its *highest* card, which takes the trick at a moment of its choosing instead of
forcing it to win some worse trick later (leading low, it lost to random play; README "Levels"
has the figure). This one also shows the optional lifecycle hooks: it keeps a count of the tricks
it won, for its own curiosity.
"""

from __future__ import annotations

import random

from druids_p2p.api import (
    GAIA_DARK,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    Bot,
    GameOptions,
    PlayerView,
)


def _value(move: int) -> int:
    return move % N_VALUES + 1


class LowballBot(Bot):
    """Leads high, ducks with its highest losing card, feeds its lowest card to others' tricks."""

    def start_game(
        self, seat: int, options: GameOptions, rng: random.Random, time_budget_ms: float
    ) -> None:
        super().start_game(seat, options, rng, time_budget_ms)
        self.tricks_won = 0

    def choose(self, view: PlayerView) -> int:
        legal = view.legal
        if len(legal) == 1 or legal[0] >= PILE:
            return legal[0]
        if GAIA_DARK <= legal[0] < PLAY_MISTLETOE:  # Gaia: name a random domain (own rng)
            return GAIA_DARK + self.rng.randrange(N_DOMAINS)
        cards = [m for m in legal if m < N_DOMAIN_CARDS]
        if not cards:
            return legal[0]
        led = view.lead_domain
        if led < 0:
            return max(cards, key=_value)  # we lead: our highest card takes the trick now
        following = [m for m in cards if m // N_VALUES == led]
        if not following:
            return min(cards, key=_value)  # void: feed the winner a low card
        best = max(
            (_value(m) for _, m in view.trick if m < N_DOMAIN_CARDS and m // N_VALUES == led),
            default=0,
        )
        losing = [m for m in following if _value(m) < best]
        return max(losing, key=_value) if losing else min(following, key=_value)

    def end_round(self, view: PlayerView) -> None:
        self.tricks_won += sum(1 for trick in view.tricks if trick[2] == self.seat)
