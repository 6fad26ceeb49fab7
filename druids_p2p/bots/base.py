"""The bot interface a plugin registers against (a bot sees its seat's view, never the state), and
``random``, the baseline every other bot is measured against and which plays every game."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from druids_p2p.games.registry import default_name
from druids_p2p.games.spec import Bot, BotFactory


def _default_games() -> tuple[str, ...]:
    return (default_name(),)


@dataclass(frozen=True)
class BotSpec:
    """What a plugin registers: a named, versioned way to make a bot."""

    name: str
    factory: BotFactory
    version: str = "0"
    description: str = ""
    source: str = field(default="built-in", compare=False)
    games: tuple[str, ...] = field(default_factory=_default_games)
    """The games this bot plays (their names in the registry, ``druids_p2p.games.registry``);
    by default the default game."""
    factories: tuple[tuple[str, BotFactory], ...] = ()
    """Game-specific factories (``factory`` makes the bot for every other game it plays)."""

    def plays(self, game: str) -> bool:
        return game in self.games

    def factory_for(self, game: str) -> BotFactory:
        """The factory of this bot for ``game``; ValueError (one line) if it does not play it."""
        if game not in self.games:
            raise ValueError(
                f"bot {self.name!r} does not play {game} (it plays {', '.join(self.games)})"
            )
        return dict(self.factories).get(game, self.factory)


class RegisterBot(Protocol):
    """The ``register`` callback of the ``druids_register_bots`` hook (``druids_p2p.hookspecs``).

    Call it with a :class:`BotSpec`, or with the spec's fields as keywords.
    Invalid registrations are not raised into the plugin: the host reports the plugin and skips it.
    """

    def __call__(
        self,
        spec: BotSpec | None = None,
        /,
        *,
        name: str | None = None,
        factory: BotFactory | None = None,
        version: str = "0",
        description: str = "",
    ) -> None: ...


__all__ = ["Bot", "BotFactory", "BotSpec", "RegisterBot"]


class RandomBot(Bot):
    """Plays uniformly at random among ``view.legal``; reproducible through its seeded rng."""

    def choose(self, view: Any) -> int:
        legal = view.legal
        return int(legal[self.rng.randrange(len(legal))])
