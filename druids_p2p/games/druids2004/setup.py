"""A game of Druids (2004) before its first move: the options its rulings fix, every pile's order.

Two implementations agree on a game by its options and card orders, not by a seed, so both are plain
values here; the guessed rulings are options so they can change without touching the engine."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from druids_p2p.games.druids2004.cards import (
    GEMS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLACES,
    START_GEMS,
    format_card,
    servants_of,
)

# Options fixed for a whole game: one per ruling that is a guess, the ruling as default.
#
# RULINGS-2004.md marks three rulings as guesses about the published game; each is a named option
# here so that it can change without touching the rest of the engine.


TIE_ANNOUNCER: Final = "announcer"
"""Equal servants take in turn order starting with the announcer (the ruling)."""
TIE_AFTER_ANNOUNCER: Final = "after_announcer"
"""... starting with the player after the announcer."""
TIE_STARTING_PLAYER: Final = "starting_player"
"""... starting with the game's starting player."""
TIE_ORDERS: Final = (TIE_ANNOUNCER, TIE_AFTER_ANNOUNCER, TIE_STARTING_PLAYER)


@dataclass(frozen=True, slots=True)
class Options:
    """``spaces_per_card`` (ruling: 2), ``tie_order`` (ruling: announcer), ``servants_return``
    (ruling: servants go back into their owners' reserves; False sends them out of the game)."""

    players: int = 4
    spaces_per_card: int = 2
    tie_order: str = TIE_ANNOUNCER
    servants_return: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"Druids (2004) is for 2 to 4 players, not {self.players!r}")
        if not isinstance(self.spaces_per_card, int) or not 1 <= self.spaces_per_card <= 20:
            raise ValueError(
                f"spaces_per_card must be an integer 1..20, not {self.spaces_per_card!r}"
            )
        if self.tie_order not in TIE_ORDERS:
            raise ValueError(
                f"tie_order must be one of {', '.join(TIE_ORDERS)}, not {self.tie_order!r}"
            )
        if not isinstance(self.servants_return, bool):
            raise ValueError(f"servants_return must be true or false, not {self.servants_return!r}")

    @property
    def column_spaces(self) -> int:
        """Spaces the column shows at once: 6 score cards of ``spaces_per_card`` each."""
        return 6 * self.spaces_per_card


# The game as set up: the order of every pile, given or drawn from a passed ``random.Random``.
#
# Two implementations agree on a game by its card orders, not by a seed (ruling "Hidden
# information"), so a :class:`Setup` is the orders themselves; :func:`random_setup` is only a way
# to make one. Orders are listed top card first.
#
# How the orders are used (setup section of docs/rules-2004.md):
#   * ``places``: the first 6 are laid face up in slots 0..5; the other 6 are the supply, top first;
#   * ``gems``: seat 0 takes the first 4, seat 1 the next 4, ...; the rest is the gem pile;
#   * ``reserves[s]``: seat ``s``'s 6 servants; it draws the first 3, the other 3 are its reserve.


class InvalidSetup(ValueError):
    """Orders that cannot be a Druids (2004) setup; the message says which pile is wrong."""


@dataclass(frozen=True, slots=True)
class Setup:
    """Every pile as set up, top first, and the starting seat."""

    places: tuple[int, ...]
    gems: tuple[int, ...]
    reserves: tuple[tuple[int, ...], ...]
    start: int

    @property
    def players(self) -> int:
        return len(self.reserves)


def _same_cards(what: str, order: Sequence[int], cards: Sequence[int]) -> None:
    if len(order) != len(cards):
        raise InvalidSetup(f"{what} must list {len(cards)} cards, not {len(order)}")
    if sorted(order) != sorted(cards):
        wrong = [c for c in order if c not in cards]
        twice = [c for i, c in enumerate(order) if c in order[:i]]
        bad = wrong or twice
        name = format_card(bad[0]) if bad and isinstance(bad[0], int) else repr(bad[:1])
        why = "does not belong there" if wrong else "is listed twice"
        raise InvalidSetup(f"{what}: card {name} {why}")


def validate_setup(setup: Setup, players: int) -> None:
    """Raise InvalidSetup unless ``setup`` is a setup for ``players`` seats."""
    if setup.players != players:
        raise InvalidSetup(f"{players} players need {players} reserves, not {setup.players}")
    if not isinstance(setup.start, int) or not 0 <= setup.start < players:
        raise InvalidSetup(f"the starting seat must be 0..{players - 1}, not {setup.start!r}")
    for what, order in (("places", setup.places), ("gems", setup.gems)):
        if not all(isinstance(c, int) and not isinstance(c, bool) for c in order):
            raise InvalidSetup(f"{what} must be card ids")
    _same_cards("places", setup.places, PLACES)
    _same_cards("gems", setup.gems, GEMS)
    for seat, reserve in enumerate(setup.reserves):
        _same_cards(f"reserve of seat {seat}", reserve, servants_of(seat))


def random_setup(rng: random.Random, players: int, start: int | None = None) -> Setup:
    """A uniformly random setup: places, gems, then each reserve in seat order, then the start.

    The order of the calls on ``rng`` is part of the contract (a seed then names one game).
    """
    places = list(PLACES)
    rng.shuffle(places)
    gems = list(GEMS)
    rng.shuffle(gems)
    reserves = []
    for seat in range(players):
        reserve = list(servants_of(seat))
        rng.shuffle(reserve)
        reserves.append(tuple(reserve))
    first = rng.randrange(players) if start is None else start
    return Setup(tuple(places), tuple(gems), tuple(reserves), first)


def starting_hands(setup: Setup) -> list[list[int]]:
    """Each seat's first hand: its 4 gems, then the 3 servants it drew."""
    n = setup.players
    return [
        [*setup.gems[START_GEMS * s : START_GEMS * (s + 1)], *setup.reserves[s][:3]]
        for s in range(n)
    ]


def arranged_setup(
    players: int,
    start: int = 0,
    *,
    row: Sequence[int] = (),
    gems: dict[int, Sequence[int]] | None = None,
    servants: dict[int, Sequence[int]] | None = None,
    pile: Sequence[int] = (),
) -> Setup:
    """A setup with the named cards where they are asked for, every other card in id order.

    ``row`` are the first places (slot 0 first), ``gems[s]`` seat ``s``'s starting gems,
    ``servants[s]`` its reserve from the top (the first 3 are drawn into its hand), ``pile`` the
    top of the gem pile. For worked examples and tests: it is still just a set of orders.
    """
    gems = gems or {}
    servants = servants or {}
    fixed_gems = [g for s in range(players) for g in gems.get(s, ())] + list(pile)
    free = [g for g in GEMS if g not in fixed_gems]
    order: list[int] = []
    for seat in range(players):
        hand = list(gems.get(seat, ()))
        while len(hand) < START_GEMS:
            hand.append(free.pop(0))
        order.extend(hand)
    order.extend(pile)
    order.extend(free)
    places = list(row) + [p for p in PLACES if p not in row]
    reserves = []
    for seat in range(players):
        top = list(servants.get(seat, ()))
        reserves.append(tuple(top + [c for c in servants_of(seat) if c not in top]))
    setup = Setup(tuple(places), tuple(order), tuple(reserves), start)
    validate_setup(setup, players)
    return setup
