"""A game as one value: the :class:`GameSpec` a game package hands the registry through its
``druids_p2p.games`` entry point (docs/games.md), so that nothing that runs games names one. Only
the seam's types appear here. Its heavy parts may be named as ``"module:attr"`` and are then
imported when first read: a process imports only the game it plays (a thousand peer processes
in the test suite).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, TypeVar, cast

from druids_p2p.games.seam import CardTableRuleset, CommonRuleset, MoveValues


class Bot:
    """A player of some game's seats: subclass and override :meth:`choose`; the rest is optional. It
    sees its seat's view, never the state, and gets its own seeded ``random.Random`` so games replay
    in any process. Beside the spec so a game's bots live in its folder (re-exported as
    ``api.Bot``).
    """

    def __init__(self) -> None:
        self.seat = -1
        self.options: Any = None
        """The game's options (its spec's ``options`` type), set by :meth:`start_game`."""
        self.rng = random.Random(0)
        self.time_budget_ms = 100.0

    def start_game(
        self, seat: int, options: Any, rng: random.Random, time_budget_ms: float
    ) -> None:
        """Called once before the first move of a game (the options say which game it is)."""
        self.seat = seat
        self.options = options
        self.rng = rng
        self.time_budget_ms = time_budget_ms

    def choose(self, view: Any) -> Any:
        """Return one of ``view.legal``: its move id, or the game's ``Move`` value for it (the
        host reads it as its id, once). Must not take longer than the budget."""
        raise NotImplementedError

    def end_round(self, view: Any) -> None:
        """Called with the final view of each round (scores are in ``view.round_scores``)."""

    def end_game(self, view: Any) -> None:
        """Called once when the game is over."""


BotFactory = Callable[[], Bot]
Fallback = Callable[[Any], int]
"""A seat's safe move for its view when its bot failed: deterministic and cheap, since every
peer computes the same one."""
Coach = Callable[[Any], tuple[int, str]]
"""The coach of a game (``GameSpec.coach``): for a seat's view with legal moves (the game's
``view`` type, what a bot sees), the move its strongest bot would play and one line saying why,
drawn from the position, naming the move in the game's notation ("lead Y12: every yellow above
it is gone"). Only at a table with the coach on (protocol.md §3: one person, the rest bots)."""
Playout = Callable[[random.Random, Any], int]
"""One whole game of uniformly random legal moves with the given options, drawing from the
generator: its number of moves (``druids bench engine``)."""


def load_attr(target: str) -> Any:
    """What ``"module:attr"`` names, imported now."""
    module, _, attr = target.partition(":")
    value: Any = importlib.import_module(module)
    for part in attr.split("."):
        value = getattr(value, part)
    return value


_T = TypeVar("_T")
_REQUIRED: Any = object()


class Lazy(Generic[_T]):
    """A :class:`GameSpec` field given as its value or as ``"module:attr"``, imported when first
    read (then kept): a spec that names its parts so imports none of them until they are used."""

    def __init__(self, default: _T = _REQUIRED) -> None:
        self.default = default
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, spec: object | None, owner: type | None = None) -> _T:
        if spec is None:  # the class's own: the dataclass's default, if the field has one
            if self.default is _REQUIRED:
                raise AttributeError(self.name)
            return self.default
        value = spec.__dict__[self.name]
        if isinstance(value, str):
            try:
                value = spec.__dict__[self.name] = load_attr(value)
            except AttributeError as exc:  # out of a read, it would pass for the field's absence
                raise ImportError(f"{value}: {exc}") from None
        return cast(_T, value)

    def __set__(self, spec: object, value: _T | str) -> None:
        spec.__dict__[self.name] = value

    def loaded(self, spec: object) -> bool:
        """Whether ``spec``'s value is here (given as one, or imported since)."""
        return not isinstance(spec.__dict__[self.name], str)


class _Deferred:
    """A bot factory named as ``"module:attr"``: imported when a bot is made or described."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __call__(self) -> Bot:
        return cast(Bot, load_attr(self.target)())

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return cast(str | None, load_attr(self.target).__doc__)

    def __repr__(self) -> str:
        return f"<bot {self.target}>"


class _Bots(Mapping[str, "BotFactory"]):
    """A spec's bots by name; one named as ``"module:attr"`` is imported when made."""

    def __init__(self, bots: Mapping[str, BotFactory | str]) -> None:
        self._bots = {n: _Deferred(b) if isinstance(b, str) else b for n, b in bots.items()}

    def __getitem__(self, name: str) -> BotFactory:
        return self._bots[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._bots)

    def __len__(self) -> int:
        return len(self._bots)

    __hash__ = object.__hash__  # a field's default (never changed)


class BotsField:
    """:attr:`GameSpec.bots`: ``{name: factory or "module:attr"}`` in, factories out."""

    def __get__(self, spec: object | None, owner: type | None = None) -> Mapping[str, BotFactory]:
        return _Bots({}) if spec is None else cast(_Bots, spec.__dict__["bots"])

    def __set__(self, spec: object, value: Mapping[str, BotFactory | str]) -> None:
        spec.__dict__["bots"] = _Bots(value)


def first_legal(view: Any) -> int:
    """The fallback of a game that names none: the first of ``view.legal``."""
    return int(view.legal[0])


LEVELS = ("easy", "normal", "hard")
"""The levels a person chooses (``druids play --level``), weakest first."""


@dataclass(frozen=True)
class Level:
    """Which of a game's bots plays at one level, and how: a person picks a level, not a bot,
    and the game's folder, which measured them, says which bot that is (README's ladder)."""

    bot: str
    """One of the game's own bots (its spec's ``bots``) or ``random``."""
    budget_ms: float | None = None
    """Its time a move at most (the table's budget if that is less); None: the table's."""
    blunders: float = 0.0
    """The share of its moves replaced by a uniformly random legal move, 0 to 1: a weaker
    player that still plays its bot's game between its slips."""

    def describe(self) -> str:
        """``rule, one move in 2 at random`` or ``pimc at 30 ms a move at most``."""
        text = self.bot
        if self.budget_ms is not None:
            text += f" at {self.budget_ms:g} ms a move at most"
        if self.blunders:
            text += f", one move in {1 / self.blunders:.3g} at random"
        return text

    def problem(self, bots: Mapping[str, BotFactory]) -> str | None:
        """Why this level cannot be played with a game's ``bots``, or None."""
        if self.bot != "random" and self.bot not in bots:
            return f"its bot {self.bot!r} is not one of the game's ({', '.join(bots) or 'none'})"
        if self.budget_ms is not None and not self.budget_ms > 0:
            return f"its budget {self.budget_ms:g} ms is not positive"
        if not 0.0 <= self.blunders <= 1.0:
            return f"its share of random moves {self.blunders:g} is not 0 to 1"
        return None


def default_levels(bots: Mapping[str, BotFactory]) -> dict[str, Level]:
    """The levels of a game that measured none: easy is ``random``, normal its first bot and
    hard its last (a game lists its bots simplest first); ``random`` throughout without bots."""
    names = list(bots) or ["random"]
    return {"easy": Level("random"), "normal": Level(names[0]), "hard": Level(names[-1])}


@dataclass(frozen=True, eq=False)
class GameSpec:
    """Everything the program knows of one game (the fields are documented in docs/games.md).
    ``rules``, ``view``, ``options``, ``fallback``, ``playout``, ``coach`` and each of ``bots``
    may be given as ``"module:attr"`` (:class:`Lazy`), imported when first read; the rest is
    what the registry lists without them (names, seats, rounds, variant, levels)."""

    name: str
    """Its name: ``--game``, the ``ruleset`` a seat message binds into the table id, records."""
    title: str
    """What a person reads ("Druids (2017)")."""
    rules: Lazy[CommonRuleset] = Lazy()
    """The rules: a new game, the in-process loop's steps, the record, ``replay`` and ``describe``
    (``druids demo``); a :class:`CardTableRuleset` (a seat's copy, an onlooker) if tables of
    peers can deal it. Its ``table_flags`` say which of ``rounds`` and ``variant`` it reads."""
    view: Lazy[type] = Lazy()
    """What a bot of this game sees (``Bot.choose``'s argument)."""
    options: Lazy[type] = Lazy()
    """What a bot of this game is started with (``Bot.start_game``'s options)."""
    players: tuple[int, int] | None = None
    """The fewest and most players, as its rules say (checked when they load): what the help
    and ``--players`` read without importing them; None: read from the rules."""
    rounds: int = 0
    """The most rounds a game may have (``--rounds`` 1 to this, by default this); 0 for a game
    played without rounds."""
    variant: str = ""
    """What ``--variant`` turns on ("Gaia's light side"); empty for a game without one."""
    bots: BotsField = BotsField()
    """Its own bots by name (each name's description: the first line of its factory's docstring);
    the built-in ``random`` bot plays every game besides."""
    fallback: Lazy[Fallback] = Lazy(first_legal)
    playout: Lazy[Playout | None] = Lazy(None)
    """Its fast random playout, if it has one (else ``druids bench engine`` plays random bots
    through the in-process loop)."""
    ui: str = ""
    """Its terminal UI as ``"module:attr"`` (a ``druids_p2p.tui.game_ui.GameUI``), imported only
    when a UI is opened; empty if it has none."""
    api: Mapping[str, str] = field(default_factory=dict)
    """Names the plugin API (``druids_p2p.api``) re-exports for this game's bots, each as
    ``"module:attr"``."""
    coach: Lazy[Coach | None] = Lazy(None)
    """Its coach (a person learning against bots asks it for a move and why), if it has one."""
    levels: Mapping[str, Level] = field(default_factory=dict)
    """Which bot plays each of :data:`LEVELS` (``druids play --level``), as measured in README;
    a level it does not name is :func:`default_levels`'."""
    default: bool = False
    """The game a seat message that names none plays (wire.md §6: every version-1 table) and
    ``--game`` defaults to; at most one registered game says so."""

    @property
    def min_players(self) -> int:
        return self.players[0] if self.players is not None else self.rules.min_players

    @property
    def max_players(self) -> int:
        return self.players[1] if self.players is not None else self.rules.max_players

    @property
    def default_players(self) -> int:
        """The seats a command that is not told offers: 4 where the game seats 4."""
        return max(self.min_players, min(4, self.max_players))

    def level(self, name: str) -> Level:
        """The bot that plays level ``name`` (one of :data:`LEVELS`) of this game."""
        if name not in LEVELS:
            raise ValueError(f"no level {name!r} (levels: {', '.join(LEVELS)})")
        return self.levels.get(name) or default_levels(self.bots)[name]

    @property
    def notation(self) -> MoveValues:
        """Its move values (``Move.of(id)``, ``Move.from_token``, ``move.token()``)."""
        return self.rules.Move

    @cached_property
    def table(self) -> CardTableRuleset | None:
        """Its rules at a mental card table; None for a game listed for replay and demo only."""
        return self.rules if isinstance(self.rules, CardTableRuleset) else None

    def problem(self, load: bool = False) -> str | None:
        """Why this spec cannot be registered (its parts disagree), or None. Its rules are
        checked if they are here, or ``load``: then imported (an ImportError is a problem)."""
        if self.players is not None and not 2 <= self.players[0] <= self.players[1] <= 8:
            return f"it seats {self.players[0]} to {self.players[1]} (a table seats 2 to 8)"
        if self.ui and ":" not in self.ui:
            return f"its ui {self.ui!r} is not 'module:attr'"
        for name, level in self.levels.items():
            why = (
                f"it has no level {name!r}, only {', '.join(LEVELS)}"
                if name not in LEVELS
                else level.problem(self.bots)
            )
            if why is not None:
                return f"level {name}: {why}" if name in LEVELS else why
        if not (load or GameSpec.__dict__["rules"].loaded(self)):
            return None
        try:
            rules = self.rules
        except Exception as exc:
            return f"its rules {self.__dict__['rules']} do not load: {type(exc).__name__}: {exc}"
        if rules.name != self.name:
            return f"its rules are named {rules.name!r}, not {self.name!r}"
        flags: frozenset[str] = getattr(rules, "table_flags", frozenset())
        said = {f for f, on in (("rounds", self.rounds), ("variant", self.variant)) if on}
        if set(flags) != said:
            return (
                f"its rules read {sorted(flags)} of a seat message, its spec offers {sorted(said)}"
            )
        seats = (rules.min_players, rules.max_players)
        if self.players is not None and self.players != seats:
            return f"it says it seats {self.players[0]} to {self.players[1]}, its rules {seats}"
        if not 2 <= seats[0] <= seats[1] <= 8:
            return f"it seats {seats[0]} to {seats[1]} (a table seats 2 to 8)"
        return None


def exports(module: str, *names: str) -> dict[str, str]:
    """``{name: "module:name"}`` for :attr:`GameSpec.api`."""
    return {name: f"{module}:{name}" for name in names}


__all__ = [
    "LEVELS",
    "Bot",
    "BotFactory",
    "Coach",
    "Fallback",
    "GameSpec",
    "Lazy",
    "Level",
    "Playout",
    "default_levels",
    "exports",
    "first_legal",
    "load_attr",
]
