"""A game of Druids (2004) as values: its options and setup before play, the log it writes in play.

Two implementations agree on a game by these values, not by a seed: the options its rulings fix,
every pile's order, and one frozen record per operation (with the ritual rule the records show)."""

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
    servant_owner,
    servant_value,
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
    """A setup with the named cards where asked (``row``: the first places; ``gems[s]``,
    ``servants[s]``: seat ``s``'s; ``pile``: the gem pile's top), every other card in id order: for
    worked examples and tests.
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


# The log of Druids (2004), a frozen record per operation, and the ritual rule the records show.
#
# A ritual's take order and amounts are read (and tested) on their own, next to the reasons its
# records give for each take.


# The log: one frozen record per applied operation, appended in order (as pokerkit does).
#
# Moves make :class:`Played`, :class:`RitualDone`, :class:`Discarded`, :class:`Drew` and
# :class:`Stopped`; the game itself adds :class:`Reshuffled` (a reserve's new order),
# :class:`TurnEnded` and :class:`GameEnded`. The notation is written from this log, and the views'
# public history is read from it.


ENDED_COLUMN = "column"
ENDED_ROW = "row"
ENDED_NOTHING_LEFT = "nothing_left"
ENDED_STALL = "stall"
END_REASONS = (ENDED_COLUMN, ENDED_ROW, ENDED_NOTHING_LEFT, ENDED_STALL)

TAKE_VALUE = "value"
"""The servant took as many amulets as its value."""
TAKE_SHORT = "short"
"""Fewer than its value: only that many were left."""
TAKE_NONE_LEFT = "none_left"
"""None: the servants before it had taken every amulet (+0)."""
TAKE_NO_AMULETS = "no_amulets"
"""None: no gem on the place was of its kind, so the ritual made no amulet (+0)."""
TAKE_LAST = "last"
"""The last servant: every amulet that remained, more or fewer than its value."""
TAKE_REASONS = (TAKE_VALUE, TAKE_SHORT, TAKE_NONE_LEFT, TAKE_NO_AMULETS, TAKE_LAST)


@dataclass(frozen=True, slots=True)
class Played:
    """``seat`` played ``card`` face down onto the place in ``slot``."""

    seat: int
    card: int
    slot: int


@dataclass(frozen=True, slots=True)
class Share:
    """One servant's part of a ritual: the amulets it took and the points its owner moved, and
    why (so that a screen can explain every +0 and every tie without redoing the rules)."""

    servant: int
    owner: int
    amulets: tuple[int, ...]
    points: int
    why: str = TAKE_VALUE
    """How many it took, by the distribution rule: one of ``TAKE_REASONS``."""
    tied: tuple[int, ...] = ()
    """The other servants of its value in this ritual, in taking order: equal values take in
    turn order from the ritual's ``tie_first`` seat."""
    blocked_by: tuple[int, ...] = ()
    """Set when the score column ended the game on this share: the seats whose pawns stood on
    the column's bottom card, so it could not move on (``points`` then fall short of the
    amulets, and this owner alone wins)."""


@dataclass(frozen=True, slots=True)
class RitualDone:
    """A ritual ``seat`` announced on ``slot``: everything it revealed and handed out.

    ``shares`` lists the servants in taking order; after a column end only those that took
    before it (``ended`` is then ``"column"``). ``turned`` is the place turned into the slot.
    """

    seat: int
    slot: int
    place: int
    gems: tuple[tuple[int, int], ...]
    """(seat that played it, gem) in the order played."""
    servants: tuple[int, ...]
    """In the order played."""
    amulets: tuple[int, ...]
    discarded: tuple[int, ...]
    """Gems of other kinds: out of the game."""
    shares: tuple[Share, ...]
    returned: tuple[int, ...]
    """Servants back into their reserves (empty when they leave the game or the column ended)."""
    turned: int | None
    ended: str | None
    tie_order: str = "announcer"
    """The tie-order option (``options.TIE_ORDERS``) that ordered equal servants."""
    tie_first: int | None = None
    """The seat from which equal servants take in turn order (by ``tie_order``)."""


@dataclass(frozen=True, slots=True)
class Discarded:
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class Drew:
    """``seat`` drew ``card`` from ``source``: ``"gem"`` (the gem pile) or ``"servant"``."""

    seat: int
    source: str
    card: int


@dataclass(frozen=True, slots=True)
class Stopped:
    """``seat`` ended its turn by choice."""

    seat: int


@dataclass(frozen=True, slots=True)
class Reshuffled:
    """Seat ``seat``'s reserve after a ritual returned servants to it, top first."""

    seat: int
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """``active``: a card was played or drawn or a ritual announced (the stall counts others)."""

    seat: int
    active: bool


@dataclass(frozen=True, slots=True)
class GameEnded:
    reason: str
    winners: tuple[int, ...]
    scores: tuple[int, ...]


Record = Played | RitualDone | Discarded | Drew | Stopped | Reshuffled | TurnEnded | GameEnded
MOVE_RECORDS = (Played, RitualDone, Discarded, Drew, Stopped)


# The order in which a ritual's servants take, and how many amulets each takes.
#
# Kept apart from the state so the distribution rule can be read (and tested) on its own: lowest
# value first, equal values in turn order from a seat the tie-order option names, each taking its
# value while amulets remain, the last servant taking every amulet left.


def tie_first(tie_order: str, announcer: int, start: int, players: int) -> int:
    """The seat from which equal servants take in turn order."""
    if tie_order == TIE_ANNOUNCER:
        return announcer
    if tie_order == TIE_AFTER_ANNOUNCER:
        return (announcer + 1) % players
    if tie_order == TIE_STARTING_PLAYER:
        return start
    raise ValueError(f"unknown tie order {tie_order!r}")


def taking_order(servants: Sequence[int], first: int, players: int) -> list[int]:
    """Servants sorted by value, equal values in seat order starting at ``first``."""
    return sorted(servants, key=lambda c: (servant_value(c), (servant_owner(c) - first) % players))


def take_reasons(values: Sequence[int], takes: Sequence[int], amulets: int) -> list[str]:
    """Why each servant (in taking order, values ``values``) took its ``takes``: one of the
    records' ``TAKE_REASONS`` a share carries."""
    out: list[str] = []
    left = amulets
    for i, (value, take) in enumerate(zip(values, takes, strict=True)):
        if amulets == 0:
            out.append(TAKE_NO_AMULETS)
        elif left == 0:
            out.append(TAKE_NONE_LEFT)
        elif i == len(values) - 1:
            out.append(TAKE_LAST)
        else:
            out.append(TAKE_VALUE if take == value else TAKE_SHORT)
        left -= take
    return out


def tied_with(order: Sequence[int]) -> list[tuple[int, ...]]:
    """For each servant in taking order, the others of its value (in taking order)."""
    return [
        tuple(o for o in order if o != c and servant_value(o) == servant_value(c)) for c in order
    ]


def shares(values: Sequence[int], amulets: int) -> list[int]:
    """Amulets each servant takes, in taking order: its value while any remain; the last all."""
    left = amulets
    out: list[int] = []
    for i, value in enumerate(values):
        take = left if i == len(values) - 1 else min(value, left)
        out.append(take)
        left -= take
    return out
