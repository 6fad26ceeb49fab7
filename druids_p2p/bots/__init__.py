"""Bots: the interface (:mod:`~druids_p2p.bots.host`), the ``random`` bot, and the host.

This package is also the *built-in plugin*, registered by the loader like any other plugin so
built-in and third-party bots go through the same validation (the levels: ``bots/host.py``).
"""

from __future__ import annotations

import sys
from typing import Any

from druids_p2p.bots.host import Bot, BotFactory, BotSpec, RandomBot, RegisterBot, level_factory
from druids_p2p.games.registry import games
from druids_p2p.games.spec import LEVELS
from druids_p2p.hookspecs import hookimpl

__all__ = ["Bot", "BotFactory", "BotSpec", "RandomBot"]

BUILTIN_VERSION = "1"


@hookimpl
def druids_register_bots(register: RegisterBot) -> None:
    everyone = tuple(games())
    register(
        BotSpec(
            name="random",
            factory=RandomBot,
            version=BUILTIN_VERSION,
            description="Uniformly random legal moves (the baseline).",
            games=everyone,
        )
    )
    by_name: dict[str, list[tuple[str, BotFactory]]] = {}
    for game, spec in games().items():
        for name, factory in spec.bots.items():
            by_name.setdefault(name, []).append((game, factory))
    for name, made in by_name.items():
        first = made[0][1]  # the default game's, where it has one
        register(
            BotSpec(
                name=name,
                factory=first,
                version=BUILTIN_VERSION,
                # described by its factory's docstring (BotSpec.about) when listed: a process
                # that seats one game's bot imports no other's
                games=tuple(game for game, _ in made),
                factories=tuple((game, f) for game, f in made[1:]),
            )
        )
    for level in LEVELS:
        made_for = [(game, level_factory(game, level)) for game in everyone]
        register(
            BotSpec(
                name=level,
                factory=made_for[0][1],
                version=BUILTIN_VERSION,
                description=f"The {level} level: each game's bot for it (druids bots lists them).",
                games=everyone,
                factories=tuple(made_for[1:]),
            )
        )


def builtin_plugins() -> list[tuple[str, object]]:
    """The built-in plugin under its plugin name: what the loader (``druids_p2p.plugins``)
    registers before any other."""
    return [("builtin", sys.modules[__name__])]


class BuiltinBots:
    """The built-in bots by name, straight from the built-in plugin's hook: how the in-process
    host seats a bot named as a string when no registry is given, without the plugin loader
    (which stands above the bots, so the bots never import it)."""

    def __init__(self) -> None:
        self.bots: dict[str, BotSpec] = {}
        druids_register_bots(self._register)

    def _register(self, spec: BotSpec | None = None, /, **fields: Any) -> None:
        made = spec if spec is not None else BotSpec(**fields)
        self.bots[made.name] = made

    def get(self, name: str) -> BotSpec:
        """The spec of bot ``name``; KeyError with the known names otherwise (as the registry)."""
        try:
            return self.bots[name]
        except KeyError:
            raise KeyError(f"unknown bot {name!r} (known: {', '.join(self.bots)})") from None
