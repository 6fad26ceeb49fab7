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
  :class:`RandomBot`, the baseline opponent;
- testing a bot: :func:`check_bot`, :func:`duplicate_margin`, :func:`registered_plugin`, and
  :func:`play_local_game` (one game in-process: how a failure's seed is reproduced);
- each registered game's names for its bots (its spec's ``api``: what its bots see and are
  started with, its cards, moves and notation, its heuristics), looked up when first imported.
  Druids (2017)'s are ``PlayerView``, ``GameOptions``, ``Move``, ``MOVES``, the card constants
  and helpers, ``format_move``/``parse_move``/``format_card``/``parse_card`` and ``rule_move``;
  Druids (2004)'s ``SeatView2004``, ``Options2004`` and ``Move2004``. A bot's ``choose`` may
  return a move id or its game's ``Move``: the host reads it once as its id.

The modules these come from are internal and may move; this module is the contract (an
import-linter contract and ``tests/test_layers.py`` check that ``plugins/``, ``examples/`` and
docs/plugins.md import nothing else). A change that breaks a plugin written against it raises
:data:`API_VERSION`'s major number; additions raise the minor one.
"""

from __future__ import annotations

from typing import Any as _Any

from druids_p2p.bots.host import Bot, BotFactory, BotSpec, RandomBot, RegisterBot
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.games.registry import games as _games
from druids_p2p.games.registry import load_attr as _load_attr
from druids_p2p.hookspecs import hookimpl
from druids_p2p.testing import check_bot, duplicate_margin, registered_plugin

API_VERSION = "1.1"
"""``MAJOR.MINOR`` of this module's surface: a plugin may check the major number."""

__all__ = [
    "API_VERSION",
    "Bot",
    "BotFactory",
    "BotSpec",
    "RandomBot",
    "RegisterBot",
    "check_bot",
    "duplicate_margin",
    "hookimpl",
    "play_local_game",
    "registered_plugin",
]
"""The names for every game; each registered game's own are found by :func:`__getattr__`."""


def _game_names() -> dict[str, str]:
    """Every registered game's API names, each as ``"module:attr"`` (the first game to name
    one has it: the default game first)."""
    names: dict[str, str] = {}
    for spec in _games().values():
        for name, target in spec.api.items():
            names.setdefault(name, target)
    return names


def __getattr__(name: str) -> _Any:
    """A game's API name (PEP 562), imported from where its spec says."""
    target = _game_names().get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _load_attr(target)


def __dir__() -> list[str]:
    return sorted({*globals(), *_game_names()})
