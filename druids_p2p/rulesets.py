"""The registry of rule sets: the one module that knows every game package by name.

It stands beside the games, not inside one: Druids (2017) (``druids_p2p.games.druids2017``) and
Druids (2004) (``druids_p2p.games.druids2004``) never import each other, and everything that runs a
game (network, audit) finds it here by the name its seat message binds. Another game is added by
writing its package and registering it below.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from druids_p2p.games.druids2004.ruleset import Druids2004Ruleset as _Druids2004Ruleset
from druids_p2p.games.druids2017.game import GameOptions
from druids_p2p.games.druids2017.ruleset import DruidsRuleset
from druids_p2p.games.seam import CardTableRuleset, CommonRuleset, Ruleset, TableOptions

DEALT_RULESETS: dict[str, Ruleset] = {DruidsRuleset.name: DruidsRuleset()}
"""The rule sets dealt once per round, which today's table and deck can run."""

CARD_TABLE_RULESETS: dict[str, CardTableRuleset] = {_Druids2004Ruleset.name: _Druids2004Ruleset()}
"""The rule sets played at a mental card table (draws, face-down plays, reveals: deck.md §15)."""

RULESETS: dict[str, CommonRuleset] = {**DEALT_RULESETS, **CARD_TABLE_RULESETS}
"""Every rule set by name; the one a table plays is bound into its table id."""


def dealt_ruleset(name: str) -> Ruleset:
    """The deal-per-round rule set ``name``; ValueError for a game the table cannot deal yet."""
    try:
        return DEALT_RULESETS[name]
    except KeyError:
        known = "a game dealt once per round" if name in RULESETS else "a known rule set"
        raise ValueError(f"{name!r} is not {known}") from None


DEFAULT_ROUNDS = GameOptions().rounds
"""The rounds a table dealt by rounds plays unless its host says otherwise."""

DEFAULT_RULESET = DruidsRuleset.name
"""What a seat message that names no rule set plays (protocol version 1 had only Druids 2017)."""

GAME_HELP = (
    "Rule set: "
    + " or ".join(f"{n} (default)" if n == DEFAULT_RULESET else n for n in RULESETS)
    + "."
)
"""The ``--game`` option's help: every registered rule set."""


def check_game(name: str) -> str:
    """``name`` if it is a registered rule set; ValueError (one line, naming it) otherwise."""
    if name not in RULESETS:
        raise ValueError(f"--game {name!r}: unknown game (known: {', '.join(RULESETS)})")
    return name


def check_players(name: str, players: int) -> None:
    """ValueError (one line, as ``--players``) unless rule set ``name`` seats ``players``."""
    rules = RULESETS[name]
    if not rules.min_players <= players <= rules.max_players:
        seats = [str(n) for n in range(rules.min_players, rules.max_players + 1)]
        which = ", ".join(seats[:-1]) + f" or {seats[-1]}"
        where = "" if name == DEFAULT_RULESET else f" for {name}"
        raise ValueError(f"--players must be {which}{where}, not {players}")


@dataclass(frozen=True)
class SeatOptions:
    """What a seat message's options fix for a game at a card table (players; ``rounds`` and
    ``variant`` are bound into the table id as the wire requires, and the game ignores them)."""

    players: int
    variant: bool
    rounds: int


def ruleset_of(options: Mapping[str, Any]) -> Any:
    """The rule set a seat message's ``options`` name, unchecked: protocol version 1 named
    none, and all its tables played the default game."""
    return options.get("ruleset", DEFAULT_RULESET)


def table_options(options: Mapping[str, Any]) -> tuple[str, TableOptions]:
    """:func:`seat_options` for every game a table can play: a game dealt by rounds, or one at
    a mental card table (its player count checked against the rule set's range)."""
    name = ruleset_of(options)
    if name not in CARD_TABLE_RULESETS:
        return seat_options(options)
    check_players(name, int(options["players"]))
    return name, SeatOptions(
        int(options["players"]), bool(options["variant"]), int(options["rounds"])
    )


def new_table_options(
    name: str, players: int, variant: bool = False, rounds: int = DEFAULT_ROUNDS
) -> TableOptions:
    """What a host of rule set ``name`` puts in its seat message: a game dealt by rounds gets
    its own options; one at a card table the three fields the wire binds, which it ignores
    (``variant`` is Druids 2017's light side, so it is False there, as :meth:`make_options`).

    One function for everything that starts a table (``druids peer --host``, ``play
    --headless``, ``bench table``, a ``--p2p`` tournament), so that they offer the same table."""
    if name in CARD_TABLE_RULESETS:
        return SeatOptions(players, False, rounds)
    dealt_ruleset(name)  # ValueError for a name no table plays
    return GameOptions(players=players, variant=variant, rounds=rounds)


def seat_options(options: Mapping[str, Any]) -> tuple[str, GameOptions]:
    """The rule set a seat message's ``options`` name and the game options they set, checked
    against that rule set's ranges (the wire only bounds them): ValueError says what is wrong.

    One function for the table, the live audit and ``druids audit``, so that all three agree on
    which tables are playable."""
    name = ruleset_of(options)
    if name not in DEALT_RULESETS:
        known = ", ".join(sorted(DEALT_RULESETS))
        what = "which tables cannot play yet" if name in RULESETS else "which is not known here"
        raise ValueError(f"the table names the rule set {name!r}, {what} (tables play {known})")
    game_options = GameOptions(
        players=int(options["players"]),
        variant=bool(options["variant"]),
        rounds=int(options["rounds"]),
    )
    return name, game_options
