"""The registry of rule sets: the one module that knows every game package by name.

It stands beside the games, not inside one: Druids (2017) (``druids_p2p.games.druids2017``) and
Druids (2004) (``druids_p2p.games.druids2004``) never import each other, and everything that runs a
game (network, audit) finds it here by the name its seat message binds. Every game is played at the
one mental card table (protocol version 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from druids_p2p.games.druids2004.ruleset import Druids2004Ruleset as _Druids2004Ruleset
from druids_p2p.games.druids2017.game import GameOptions
from druids_p2p.games.druids2017.ruleset import DruidsRuleset
from druids_p2p.games.seam import CardTableRuleset

RULESETS: dict[str, CardTableRuleset] = {
    DruidsRuleset.name: DruidsRuleset(),
    _Druids2004Ruleset.name: _Druids2004Ruleset(),
}
"""Every rule set by name; the one a table plays is bound into its table id."""

DEFAULT_ROUNDS = GameOptions().rounds
"""The rounds a game played by rounds has unless its host says otherwise."""

DEFAULT_RULESET = DruidsRuleset.name
"""What a seat message that names no rule set plays."""

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
    """What a seat message's options fix (wire.md §6), bound into the table id: the players,
    and ``variant`` and ``rounds``, which a game without them ignores (they are then False and
    the default)."""

    players: int
    variant: bool
    rounds: int


def ruleset_of(options: Mapping[str, Any]) -> Any:
    """The rule set a seat message's ``options`` name, unchecked (none names the default)."""
    return options.get("ruleset", DEFAULT_RULESET)


def table_options(options: Mapping[str, Any]) -> tuple[str, SeatOptions]:
    """The rule set a seat message's ``options`` name and what they set, checked against that
    rule set (the wire only bounds them): ValueError says what is wrong. One function for the
    table, the live audit and ``druids audit``, so that all three agree on which tables play."""
    name = ruleset_of(options)
    if name not in RULESETS:
        known = ", ".join(sorted(RULESETS))
        raise ValueError(
            f"the table names the rule set {name!r}, which is not known here ({known})"
        )
    seat = SeatOptions(int(options["players"]), bool(options["variant"]), int(options["rounds"]))
    check_players(name, seat.players)
    game_options(name, seat)  # the game's own checks (rounds, variant)
    return name, seat


def game_options(name: str, options: SeatOptions) -> Any:
    """The game's own options for a table's seat options (ValueError out of its ranges)."""
    return RULESETS[name].make_options(options.players, options.variant, options.rounds)


def new_table_options(
    name: str, players: int, variant: bool = False, rounds: int = DEFAULT_ROUNDS
) -> SeatOptions:
    """What a host of rule set ``name`` puts in its seat message; a game played without rounds
    or variant gets the defaults for them (the wire binds all three).

    One function for everything that starts a table (``druids peer --host``, ``play
    --headless``, ``bench table``, a ``--p2p`` tournament), so that they offer the same table."""
    check_game(name)
    flags = RULESETS[name].table_flags
    return SeatOptions(
        players,
        variant if "variant" in flags else False,
        rounds if "rounds" in flags else DEFAULT_ROUNDS,
    )
