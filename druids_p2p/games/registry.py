"""The registry of games: every :class:`~druids_p2p.games.spec.GameSpec` registered under the
entry-point group ``druids_p2p.games``, the built-ins exactly as a third party's. A spec that fails
to load is kept aside and named in the error of whoever asks for it, taking no other game down.
Listing the games reads their specs only; a game's rules are imported (and checked against its
spec) when it is played.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from druids_p2p.games.seam import CardTableRuleset
from druids_p2p.games.spec import GameSpec, load_attr

GROUP = "druids_p2p.games"
"""The entry-point group a game package registers its spec under (``name = "module:SPEC"``)."""

UNUSED_ROUNDS = 5
"""The ``rounds`` a seat message carries for a game played without rounds (protocol.md §11)."""


NO_GAMES = f"no game is registered (entry-point group {GROUP}; is druids-p2p installed?)"
PROGRAM = "druids-p2p"
"""This program's distribution: the only one whose game may be the default, since what a seat
message that names no game plays is the protocol's word (wire.md §6), not a plugin's."""


@dataclass(frozen=True)
class Registry:
    """The loaded games: the good ones by name (the default first, then by name), and why each
    broken one is."""

    specs: dict[str, GameSpec]
    broken: dict[str, str]
    checked: set[str]
    """The games whose rules are imported and checked against their spec (:func:`played`)."""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


@cache
def registry() -> Registry:
    """Read the entry points once (:func:`reload` reads them again)."""
    specs: dict[str, GameSpec] = {}
    broken: dict[str, str] = {}
    seen: dict[str, str] = {}
    ours: set[str] = set()
    for ep in importlib.metadata.entry_points(group=GROUP):
        if ep.name in seen:
            if seen[ep.name] != ep.value:
                broken[ep.name] = f"registered twice ({seen[ep.name]} and {ep.value})"
            continue
        seen[ep.name] = ep.value
        try:
            spec = ep.load()
        except Exception as exc:
            broken[ep.name] = f"{ep.value} failed to load: {_one_line(exc)}"
            continue
        problem = (
            f"{ep.value} is a {type(spec).__name__}, not a GameSpec"
            if not isinstance(spec, GameSpec)
            else f"{ep.value} is named {spec.name!r}"
            if spec.name != ep.name
            else spec.problem()
        )
        if problem is not None:
            broken[ep.name] = problem
        else:
            specs[ep.name] = spec
            if _distribution(ep) == PROGRAM:
                ours.add(ep.name)
    for name in broken:
        specs.pop(name, None)
    for name in [n for n, s in specs.items() if s.default and n not in ours]:
        broken[name] = f"it claims to be the default game, which only {PROGRAM}'s may be"
        del specs[name]
    order = sorted(specs, key=lambda n: (not specs[n].default, n))
    return Registry({n: specs[n] for n in order}, broken, set())


def _distribution(ep: importlib.metadata.EntryPoint) -> str:
    """The normalized name of the distribution that declares ``ep`` ("" if unknown)."""
    dist = getattr(ep, "dist", None)
    name = dist.metadata["Name"] if dist is not None else None
    return str(name or "").lower().replace("_", "-")


def reload() -> None:
    """Forget the loaded games (a test that installs a game plugin)."""
    registry.cache_clear()


def games() -> Mapping[str, GameSpec]:
    """Every registered game by name, the default first."""
    return registry().specs


def _unknown(name: str) -> str:
    """``'name': why it is not here`` (what ``--game`` and a table's seat message are told)."""
    reg = registry()
    if name in reg.broken:
        return f"{name!r}: the game is broken: {reg.broken[name]}"
    if not reg.specs:
        return f"{name!r}: {NO_GAMES}"
    return f"{name!r}: unknown game (known: {', '.join(reg.specs)})"


def default_game() -> str:
    """The game a seat message that names none plays, and ``--game``'s default: the one spec
    that says so, else the first by name; ValueError if no game is registered."""
    reg = registry()
    for name, spec in reg.specs.items():
        if spec.default:
            return name
    if not reg.specs:
        raise ValueError(NO_GAMES)
    return next(iter(reg.specs))


def game_spec(name: str | None = None) -> GameSpec:
    """The spec of game ``name`` (None: the default); ValueError (one line, naming it) if none."""
    name = default_game() if name is None else name
    try:
        return registry().specs[name]
    except KeyError:
        raise ValueError(_unknown(name)) from None


def played(name: str | None = None) -> GameSpec:
    """The spec of game ``name`` (None: the default) with its rules imported and checked against
    it, once; ValueError (one line, naming it) if it has none or they disagree, and the game is
    broken from then on (a spec that names its rules lazily is checked when it is played)."""
    spec = game_spec(name)
    reg = registry()
    if spec.name not in reg.checked:
        problem = spec.problem(load=True)
        if problem is not None:
            reg.broken[spec.name] = problem
            del reg.specs[spec.name]
            raise ValueError(_unknown(spec.name))
        reg.checked.add(spec.name)
    return spec


def check_game(name: str | None) -> str:
    """``name`` (None: the default) if it is a registered game whose rules load; ValueError
    naming it otherwise, as ``--game``."""
    try:
        return played(name).name
    except ValueError as exc:
        raise ValueError(f"--game {exc}") from None


def seats_text(spec: GameSpec) -> str:
    """``"3, 4 or 5"``: the seats ``spec`` plays."""
    seats = [str(n) for n in range(spec.min_players, spec.max_players + 1)]
    return seats[0] if len(seats) == 1 else ", ".join(seats[:-1]) + f" or {seats[-1]}"


def check_players(name: str, players: int) -> None:
    """ValueError (one line, as ``--players``) unless game ``name`` seats ``players``."""
    spec = game_spec(name)
    if not spec.min_players <= players <= spec.max_players:
        where = "" if spec.default else f" for {name}"
        raise ValueError(f"--players must be {seats_text(spec)}{where}, not {players}")


class _Rules(Mapping[str, CardTableRuleset]):
    """The rules of every game that tables of peers can deal, by name: what the table, the
    audit and the records look a seat message's game up in."""

    def __getitem__(self, name: str) -> CardTableRuleset:
        try:
            table = played(name).table
        except ValueError:
            raise KeyError(name) from None
        if table is None:
            raise KeyError(name)
        return table

    def __iter__(self) -> Iterator[str]:
        return (n for n, s in games().items() if s.table is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


RULESETS: Mapping[str, CardTableRuleset] = _Rules()
"""Every game's rules at the table by name (a view of the registry)."""


# ---------------------------------------------------------------------- help text
def game_help() -> str:
    """The ``--game`` option's help: every registered game (never raises: it is built when the
    command line is)."""
    names = list(games())
    if not names:
        return "Game (none registered)."
    return (
        "Game: " + " or ".join(f"{n} (default)" if games()[n].default else n for n in names) + "."
    )


def players_help(what: str = "seats") -> str:
    """``"3, 4 or 5 seats (other: 2 or 3)."``: the seats of every game, the default's
    first."""
    specs = list(games().values())
    if not specs:
        return f"Number of {what}."
    first, *others = specs
    more = "; ".join(f"{s.name}: {seats_text(s)}" for s in others)
    return f"{seats_text(first)} {what}" + (f" ({more})." if more else ".")


def rounds_help() -> str:
    """``--rounds``'s help: the rounds of every game played by rounds."""
    ranges = [(s.name, s.rounds) for s in games().values() if s.rounds]
    if not ranges:
        return "Rounds (no registered game is played by rounds)."
    return "Rounds in the game (" + "; ".join(f"{name}: 1-{n}" for name, n in ranges) + ")."


def variant_help() -> str:
    """``--variant``'s help: what it turns on in each game that has one."""
    said = [(s.name, s.variant) for s in games().values() if s.variant]
    if len(said) == 1:
        return f"Allow {said[0][1]} ({said[0][0]})."
    if not said:
        return "Play the game's variant (no registered game has one)."
    return "Play the game's variant (" + "; ".join(f"{n}: {v}" for n, v in said) + ")."


def default_name() -> str:
    """The default game's name for a command line's default, or "" if none is registered (the
    command then says so in one line when it runs)."""
    try:
        return default_game()
    except ValueError:
        return ""


# ---------------------------------------------------------------------- seat options
@dataclass(frozen=True)
class SeatOptions:
    """What a seat message's options fix (wire.md §6), bound into the table id: the players,
    and ``variant`` and ``rounds``, which a game without them ignores (they are then False and
    :data:`UNUSED_ROUNDS`)."""

    players: int
    variant: bool
    rounds: int
    coach: bool = False
    """The table lets its one person ask the coach (protocol.md §3, "The coach"): any game."""


def ruleset_of(options: Mapping[str, Any]) -> Any:
    """The game a seat message's ``options`` name, unchecked: none names the game whose spec says
    it is the default (wire.md §6), never another in its place ("" if that one is not here)."""
    if "ruleset" in options:
        return options["ruleset"]
    return next((n for n, s in games().items() if s.default), "")


def table_options(options: Mapping[str, Any]) -> tuple[str, SeatOptions]:
    """The game a seat message's ``options`` name and what they set, checked against that game
    (the wire only bounds them): ValueError says what is wrong. One function for the table, the
    live audit and ``druids audit``, so that all three agree on which tables play."""
    name = ruleset_of(options)
    if name not in RULESETS:
        known = ", ".join(sorted(RULESETS))
        raise ValueError(
            f"the table names the rule set {name!r}, which is not known here ({known})"
        )
    seat = SeatOptions(
        int(options["players"]),
        bool(options["variant"]),
        int(options["rounds"]),
        bool(options.get("coach", False)),
    )
    check_players(name, seat.players)
    game_options(name, seat)  # the game's own checks (rounds, variant)
    return name, seat


def game_options(name: str, options: SeatOptions) -> Any:
    """The game's own options for a table's seat options (ValueError out of its ranges)."""
    return game_spec(name).rules.make_options(options.players, options.variant, options.rounds)


def new_table_options(
    name: str,
    players: int,
    variant: bool = False,
    rounds: int = UNUSED_ROUNDS,
    coach: bool = False,
) -> SeatOptions:
    """What a host of game ``name`` puts in its seat message; a game played without rounds or
    variant gets the defaults for them (the wire binds all three).

    One function for everything that starts a table (``druids peer --host``, ``play
    --headless``, ``bench table``, a ``--p2p`` tournament), so that they offer the same table."""
    spec = game_spec(name)
    return SeatOptions(
        players,
        variant if spec.variant else False,
        rounds if spec.rounds else UNUSED_ROUNDS,
        coach,
    )


__all__ = [
    "GROUP",
    "RULESETS",
    "UNUSED_ROUNDS",
    "GameSpec",
    "Registry",
    "SeatOptions",
    "check_game",
    "check_players",
    "default_game",
    "default_name",
    "game_help",
    "game_options",
    "game_spec",
    "games",
    "load_attr",
    "new_table_options",
    "played",
    "players_help",
    "registry",
    "reload",
    "rounds_help",
    "ruleset_of",
    "seats_text",
    "table_options",
    "variant_help",
]
