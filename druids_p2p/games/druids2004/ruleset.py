"""Druids (2004) as a rule set of the registry (``RULESETS["druids2004"]``).

It fits the common part of the seam (name, players, deck size, a new game, tokens); the 2017
game's deal-per-round parts do not apply, so it does not pretend to have them.
"""

from __future__ import annotations

import random
from typing import Any

from druids_p2p.games.druids2004 import cards, moves
from druids_p2p.games.druids2004.options import Options
from druids_p2p.games.druids2004.setup import Setup, random_setup
from druids_p2p.games.druids2004.state import Game2004


class Druids2004Ruleset:
    """Druids (Colovini, Kidult Games, 2004), as settled by RULINGS-2004.md."""

    name = "druids2004"
    min_players = cards.MIN_PLAYERS
    max_players = cards.MAX_PLAYERS
    deck_size = cards.N_CARDS

    def new_game(self, players: int, **options: Any) -> Game2004:
        """A new game: ``setup=Setup(...)`` (given orders), else ``rng=`` or ``seed=`` (random).

        Other keywords are :class:`Options` fields (``spaces_per_card``, ``tie_order``,
        ``servants_return``).
        """
        setup: Setup | None = options.pop("setup", None)
        rng: random.Random | None = options.pop("rng", None)
        seed = options.pop("seed", 0)
        opts = Options(players=players, **options)
        if setup is None:
            setup = random_setup(rng if rng is not None else random.Random(seed), players)
        return Game2004(setup, opts)

    def format_card(self, card: int) -> str:
        return cards.format_card(card)

    def parse_card(self, token: str) -> int:
        return cards.parse_card(token)

    def format_move(self, move: int) -> str:
        return moves.format_move(move)

    def parse_move(self, token: str) -> int:
        return moves.parse_move(token)
