"""The bot interface: a bot sees its seat's view (Druids 2017: a ``PlayerView``), never the state.

A bot object lives for one game at one seat, so it may keep memory across the game's moves. It is
handed its own seeded ``random.Random`` so tournaments are reproducible whatever process runs it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from druids_p2p.games.druids2017.game import GameOptions
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.seam import GameMove

if TYPE_CHECKING:
    from druids_p2p.games.druids2004.options import Options as Options2004

DEFAULT_GAME = "druids2017"


class Bot:
    """Subclass and override :meth:`choose`; the other hooks are optional."""

    def __init__(self) -> None:
        self.seat = -1
        self.options: GameOptions | Options2004 = GameOptions()
        self.rng = random.Random(0)
        self.time_budget_ms = 100.0

    def start_game(
        self,
        seat: int,
        options: GameOptions | Options2004,
        rng: random.Random,
        time_budget_ms: float,
    ) -> None:
        """Called once before the first move of a game (the options say which game it is)."""
        self.seat = seat
        self.options = options
        self.rng = rng
        self.time_budget_ms = time_budget_ms

    def choose(self, view: PlayerView) -> int | GameMove:
        """Return one of ``view.legal``: its move id, or the game's ``Move`` value for it (the
        host reads it as its id, once). Must not take longer than the budget."""
        raise NotImplementedError

    def end_round(self, view: PlayerView) -> None:
        """Called with the final view of each round (scores are in ``view.round_scores``)."""

    def end_game(self, view: PlayerView) -> None:
        """Called once when the game is over."""


BotFactory = Callable[[], Bot]


@dataclass(frozen=True)
class BotSpec:
    """What a plugin registers: a named, versioned way to make a bot."""

    name: str
    factory: BotFactory
    version: str = "0"
    description: str = ""
    source: str = field(default="built-in", compare=False)
    games: tuple[str, ...] = (DEFAULT_GAME,)
    """The rule sets this bot plays (names of ``druids_p2p.rulesets.RULESETS``)."""
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
