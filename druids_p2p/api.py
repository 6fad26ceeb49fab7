"""The public plugin API: everything a bot author imports, from this one module.

A plugin (a file in ``plugins/``, a package with a ``druids_p2p.bots`` entry point) writes::

    from druids_p2p.api import Bot, BotSpec, PlayerView, RegisterBot, hookimpl

    class MyBot(Bot):
        def choose(self, view: PlayerView) -> int:
            return view.legal[0]

    @hookimpl
    def druids_register_bots(register: RegisterBot) -> None:
        register(BotSpec(name="mybot", factory=MyBot, version="1.0"))

What is here, and stays here under :data:`API_VERSION`:

- the bot interface: :class:`Bot`, :class:`BotSpec`, ``BotFactory``; the hook marker
  :data:`hookimpl` and the ``register`` callback's type :class:`RegisterBot`;
- what a Druids (2017) bot sees and is started with: :class:`PlayerView`, :class:`GameOptions`;
- cards and moves (small integers): the constants and helpers below, and the notation
  (:func:`format_move`, :func:`parse_move`, :func:`format_card`, :func:`parse_card`);
- moves as values (1.1): :class:`Move` (Druids 2017; ``Move.of(id)``, ``Move.from_token(text)``,
  ``move.id``, ``move.token()``), :data:`MOVES` (every one, by id) and :class:`Move2004`. A
  bot's ``choose`` may return a move id or its game's ``Move``: the host reads it once as its id;
- :func:`rule_move`, the built-in heuristic as a function (a fallback or a rollout policy), and
  :class:`RandomBot`, the baseline opponent;
- Druids (2004): :class:`Options2004` (what its bots are started with) and :class:`SeatView2004`
  (what they see);
- testing a bot: :func:`check_bot`, :func:`duplicate_margin`, :func:`registered_plugin`, and
  :func:`play_local_game` (one game in-process: how a failure's seed is reproduced).

The modules these come from are internal and may move; this module is the contract (an
import-linter contract and ``tests/test_layers.py`` check that ``plugins/``, ``examples/`` and
docs/plugins.md import nothing else). A change that breaks a plugin written against it raises
:data:`API_VERSION`'s major number; additions raise the minor one.
"""

from __future__ import annotations

from druids_p2p.bots.base import Bot, BotFactory, BotSpec, RegisterBot
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.bots.random_bot import RandomBot
from druids_p2p.bots.rule_bot import rule_move
from druids_p2p.games.druids2004 import Options as Options2004
from druids_p2p.games.druids2004 import SeatView as SeatView2004
from druids_p2p.games.druids2004.moves import Move as Move2004
from druids_p2p.games.druids2017.cards import (
    DOMAINS,
    GAIA,
    GAIA_BARE,
    GAIA_DARK,
    GAIA_LIGHT,
    HAND_SIZE,
    MISTLETOES,
    N_CARDS,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_MOVES,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    SICKLES,
    card_domain,
    card_value,
    cards_for_move,
    domain_card,
    is_gaia_move,
    is_mistletoe,
    is_pile_move,
    is_sickle,
    move_for_card,
)
from druids_p2p.games.druids2017.game import GameOptions
from druids_p2p.games.druids2017.notation import (
    MOVES,
    Move,
    format_card,
    format_move,
    parse_card,
    parse_move,
)
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.hookspecs import hookimpl
from druids_p2p.testing import check_bot, duplicate_margin, registered_plugin

API_VERSION = "1.1"
"""``MAJOR.MINOR`` of this module's surface: a plugin may check the major number."""

__all__ = [
    "API_VERSION",
    "DOMAINS",
    "GAIA",
    "GAIA_BARE",
    "GAIA_DARK",
    "GAIA_LIGHT",
    "HAND_SIZE",
    "MISTLETOES",
    "MOVES",
    "N_CARDS",
    "N_DOMAINS",
    "N_DOMAIN_CARDS",
    "N_MOVES",
    "N_VALUES",
    "PILE",
    "PLAY_MISTLETOE",
    "PLAY_SICKLE",
    "SICKLES",
    "Bot",
    "BotFactory",
    "BotSpec",
    "GameOptions",
    "Move",
    "Move2004",
    "Options2004",
    "PlayerView",
    "RandomBot",
    "RegisterBot",
    "SeatView2004",
    "card_domain",
    "card_value",
    "cards_for_move",
    "check_bot",
    "domain_card",
    "duplicate_margin",
    "format_card",
    "format_move",
    "hookimpl",
    "is_gaia_move",
    "is_mistletoe",
    "is_pile_move",
    "is_sickle",
    "move_for_card",
    "parse_card",
    "parse_move",
    "play_local_game",
    "registered_plugin",
    "rule_move",
]
