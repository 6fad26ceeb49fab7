"""The pure rules engine: Druids (Amigo, 2017) and the small game interface the rest talks to.

No I/O, no clock, no randomness it is not handed. Everything a peer, bot or UI needs:

    >>> from druids_p2p.games.druids2017 import Game, GameOptions, deal_from_seed, parse_move
    >>> game = Game(GameOptions(players=4))
    >>> rnd = game.start_round(deal_from_seed(7, 4))
    >>> game.check(parse_move("G1")) is not None   # the Gaia holder must lead Gaia first
    True
    >>> game.play(game.legal_moves()[0])            # Gaia naming green

Cards and moves are small integers (``engine.cards``) with a text notation (``engine.notation``).
"""

from druids_p2p.games.druids2017.cards import (
    DOMAINS,
    GAIA,
    HAND_SIZE,
    N_CARDS,
    ROUNDS_PER_GAME,
    cards_for_move,
    move_for_card,
)
from druids_p2p.games.druids2017.deal import deal, deal_from_seed
from druids_p2p.games.druids2017.game import Game, GameOptions
from druids_p2p.games.druids2017.notation import (
    format_card,
    format_move,
    parse_card,
    parse_hand,
    parse_move,
    parse_move_token,
)
from druids_p2p.games.druids2017.rules import (
    ENDED_FIVE_DOMAINS,
    ENDED_HANDS_EMPTY,
    Round,
)
from druids_p2p.games.druids2017.ruleset import DruidsRuleset
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.seam import IllegalMove, InvalidDeal

__all__ = [
    "DOMAINS",
    "ENDED_FIVE_DOMAINS",
    "ENDED_HANDS_EMPTY",
    "GAIA",
    "HAND_SIZE",
    "N_CARDS",
    "ROUNDS_PER_GAME",
    "DruidsRuleset",
    "Game",
    "GameOptions",
    "IllegalMove",
    "InvalidDeal",
    "PlayerView",
    "Round",
    "cards_for_move",
    "deal",
    "deal_from_seed",
    "format_card",
    "format_move",
    "move_for_card",
    "parse_card",
    "parse_hand",
    "parse_move",
    "parse_move_token",
]
