"""The public plugin API: everything a bot author imports, from this one module (docs/plugins.md).

The modules these come from are internal and may move; this module is the contract, checked by an
import-linter contract, and versioned by :data:`API_VERSION` (a break raises its major number).
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
