"""The pure rules engine of Druids (Amigo, 2017) (docs/rules.md): no I/O, no clock, no randomness it
is not handed. Cards and moves are small integers with a text notation; :data:`SPEC` is the game as
the registry knows it, its bots, coach and playout named (imported when used: a peer imports only
the bot it seats).
"""

from druids_p2p.games.druids2017.cards import (
    DOMAINS,
    GAIA,
    HAND_SIZE,
    N_CARDS,
    ROUNDS_PER_GAME,
    cards_for_move,
    deal,
    deal_from_seed,
    move_for_card,
)
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
from druids_p2p.games.spec import GameSpec, Level, exports

_HERE = "druids_p2p.games.druids2017"


SPEC = GameSpec(
    name=DruidsRuleset.name,
    title="Druids (2017)",
    rules=DruidsRuleset(),
    view=PlayerView,
    options=GameOptions,
    rounds=ROUNDS_PER_GAME,
    variant="Gaia's light side",
    players=(3, 5),
    bots={
        "rule": f"{_HERE}.rule_bot:RuleBot",
        "pimc": f"{_HERE}.search:PimcBot",
        "ismcts": f"{_HERE}.ismcts:IsmctsBot",
        "search": f"{_HERE}.search:SearchBot",
    },
    levels={  # measured in README ("Levels")
        "easy": Level("rule", blunders=0.5),
        "normal": Level("rule"),
        "hard": Level("search"),
    },
    fallback=f"{_HERE}.rule_bot:fallback_move",
    playout=f"{_HERE}.playout:playout",
    coach=f"{_HERE}.coach:coach",
    ui="druids_p2p.tui.druids2017.table:UI",
    api={
        **exports(
            "druids_p2p.games.druids2017.cards",
            *("DOMAINS", "GAIA", "GAIA_BARE", "GAIA_DARK", "GAIA_LIGHT", "HAND_SIZE"),
            *("MISTLETOES", "N_CARDS", "N_DOMAIN_CARDS", "N_DOMAINS", "N_MOVES", "N_VALUES"),
            *("PILE", "PLAY_MISTLETOE", "PLAY_SICKLE", "SICKLES", "card_domain", "card_value"),
            *("cards_for_move", "domain_card", "is_gaia_move", "is_mistletoe", "is_pile_move"),
            *("is_sickle", "move_for_card"),
        ),
        **exports("druids_p2p.games.druids2017.game", "GameOptions"),
        **exports(
            "druids_p2p.games.druids2017.notation",
            *("MOVES", "Move", "format_card", "format_move", "parse_card", "parse_move"),
        ),
        **exports("druids_p2p.games.druids2017.view", "PlayerView"),
        **exports("druids_p2p.games.druids2017.rule_bot", "rule_move"),
    },
    default=True,
)
"""Druids (2017) as the registry knows it: the default game (every version-1 table's)."""

__all__ = [
    "DOMAINS",
    "ENDED_FIVE_DOMAINS",
    "ENDED_HANDS_EMPTY",
    "GAIA",
    "HAND_SIZE",
    "N_CARDS",
    "ROUNDS_PER_GAME",
    "SPEC",
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
