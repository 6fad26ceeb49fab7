"""Bots: the interface (:mod:`~druids_p2p.bots.base`), the built-in players, and the host.

This package is also the *built-in plugin*: the loader registers it like any other plugin, so
built-in and third-party bots go through the same validation. The ``pimc`` search bot lives in
``druids_p2p.bots.pimc``; it is imported only when the bots are listed, and is left out if the
module is not there.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from druids_p2p.bots.base import Bot, BotFactory, BotSpec, RegisterBot
from druids_p2p.bots.druids2004 import Rule2004Bot, Search2004Bot
from druids_p2p.bots.random_bot import RandomBot
from druids_p2p.bots.rule_bot import RuleBot, rule_move
from druids_p2p.hookspecs import hookimpl

__all__ = ["Bot", "BotFactory", "BotSpec", "RandomBot", "RuleBot", "rule_move"]

BUILTIN_VERSION = "1"
BOTH_GAMES = ("druids2017", "druids2004")


@hookimpl
def druids_register_bots(register: RegisterBot) -> None:
    register(
        BotSpec(
            name="random",
            factory=RandomBot,
            version=BUILTIN_VERSION,
            description="Uniformly random legal moves (the baseline).",
            games=BOTH_GAMES,
        )
    )
    register(
        BotSpec(
            name="rule",
            factory=RuleBot,
            version=BUILTIN_VERSION,
            description="Hand-written heuristics: feeds winners low cards, sheds high ones, "
            "dodges a fifth domain; fast and deterministic.",
            games=BOTH_GAMES,
            factories=(("druids2004", Rule2004Bot),),
        )
    )


class PimcPlugin:
    """Registers the search bot if its module exists; a separate plugin so that a broken search
    module is reported on its own instead of taking ``random`` and ``rule`` down with it."""

    @hookimpl
    def druids_register_bots(self, register: RegisterBot) -> None:
        try:
            module = importlib.import_module("druids_p2p.bots.pimc")
        except ModuleNotFoundError as exc:
            if exc.name == "druids_p2p.bots.pimc":
                return  # an install without the search bot: the others still load
            raise
        pimc_bot = module.PimcBot
        doc_lines = (pimc_bot.__doc__ or "").strip().splitlines()
        register(
            BotSpec(
                name="pimc",
                factory=pimc_bot,
                version=str(getattr(module, "VERSION", BUILTIN_VERSION)),
                description=str(getattr(module, "DESCRIPTION", "") or (doc_lines[:1] or [""])[0]),
                games=BOTH_GAMES,
                factories=(("druids2004", Search2004Bot),),
            )
        )


def builtin_plugins() -> list[tuple[str, object]]:
    """The built-in plugins (this package, and the search bot's), under their plugin names: what
    the loader (``druids_p2p.plugins``) registers before any other."""
    return [("builtin", sys.modules[__name__]), ("builtin-pimc", PimcPlugin())]


class BuiltinBots:
    """The built-in bots by name, straight from the built-in plugins' hooks: how the in-process
    host seats a bot named as a string when no registry is given, without the plugin loader
    (which stands above the bots, so the bots never import it)."""

    def __init__(self) -> None:
        self.bots: dict[str, BotSpec] = {}
        druids_register_bots(self._register)  # the plugins of builtin_plugins(), in order
        PimcPlugin().druids_register_bots(self._register)

    def _register(self, spec: BotSpec | None = None, /, **fields: Any) -> None:
        made = spec if spec is not None else BotSpec(**fields)
        self.bots[made.name] = made

    def get(self, name: str) -> BotSpec:
        """The spec of bot ``name``; KeyError with the known names otherwise (as the registry)."""
        try:
            return self.bots[name]
        except KeyError:
            raise KeyError(f"unknown bot {name!r} (known: {', '.join(self.bots)})") from None
