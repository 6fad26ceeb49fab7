"""The owners' word fit (``hidden.fit_words``) is exact: it finds an arrangement whenever one
exists, and only then.

Positions are drawn by hypothesis (gems face down on the six places, discards, gems out of play)
and taken from real games played until the owners' word is asked. Each seat's copy holds a world
in which the gems hidden from it are shuffled; the true words must fit it, the relabelling must
be a permutation of the hidden gems that makes every other seat's word true, and words that no
arrangement fits (checked against every arrangement, by brute force, on small positions) must
give None.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004 import hidden as ow
from druids_p2p.games.druids2004.cards import GEMS, PLACES, ROW_SLOTS, PlaceSlot, gem, place
from druids_p2p.games.druids2004.policy import clone
from druids_p2p.games.druids2004.setup import Options, random_setup
from druids_p2p.games.druids2004.state import Game2004

Where = tuple[str, int, int]
"""Where a gem lies: ("slot", seat, slot), ("discard", seat, 0) or ("out", 0, 0)."""


def _position(players: int, places: list[int], where: dict[int, Where]) -> Game2004:
    """A game whose row holds ``places`` with the gems ``where`` puts there (the rest of the
    state is a fresh setup's: ``fit_words`` reads only the row and the discards)."""
    game = Game2004(random_setup(random.Random(0), players, start=0), Options(players=players))
    game.row = [PlaceSlot(p) for p in places]
    game.discards = []
    for g, (what, seat, k) in sorted(where.items()):
        if what == "slot":
            slot = game.row[k]
            assert slot is not None
            slot.gems.append((seat, g))
        elif what == "discard":
            game.discards.append((seat, g))
    return game


def _hidden_from(game: Game2004, me: int, known: set[int]) -> list[int]:
    """The gems ``me`` cannot see: the others' face-down gems and discards it does not know."""
    down = [g for p in game.row if p is not None for s, g in p.gems if s != me]
    return [g for g in down + [g for s, g in game.discards if s != me] if g not in known]


def _known_to(game: Game2004, me: int, also: set[int]) -> set[int]:
    """``me``'s own gems (face down or discarded), every gem out of play, and ``also``."""
    down = {g for p in game.row if p is not None for s, g in p.gems if s != me}
    others = down | {g for s, g in game.discards if s != me}
    return (set(GEMS) - others) | also


def _relabelled(game: Game2004, f: dict[int, int]) -> Game2004:
    """``game`` with each face-down or discarded gem ``g`` replaced by ``f[g]`` where given."""
    after = clone(game)
    for p in after.row:
        if p is not None:
            p.gems = [(s, f.get(g, g)) for s, g in p.gems]
    after.discards = [(s, f.get(g, g)) for s, g in after.discards]
    return after


def _scrambled(game: Game2004, hidden: list[int], rng: random.Random) -> Game2004:
    """``game`` with the gems in ``hidden`` shuffled among their positions: a seat's world."""
    order = list(hidden)
    rng.shuffle(order)
    return _relabelled(game, dict(zip(hidden, order, strict=True)))


def _words_of(game: Game2004) -> dict[int, bool]:
    return {s: ow.holds_match(game, s) for s in ow.owners(game)}


def _agrees(
    world: Game2004, me: int, known: set[int], words: dict[int, bool], fit: dict[int, int]
) -> None:
    """``fit`` is a permutation of the gems hidden from ``me`` making every other word true."""
    hidden = set(_hidden_from(world, me, known))
    assert set(fit) == hidden and sorted(fit.values()) == sorted(hidden)
    after = _relabelled(world, fit)
    for seat, word in words.items():
        if seat != me:
            assert ow.holds_match(after, seat) == word, (seat, word)


@st.composite
def positions(draw: st.DrawFn, max_gems: int = 54) -> tuple[Game2004, int, set[int]]:
    """A position (places, every gem somewhere), a seat, and some others' gems it knows."""
    players = draw(st.integers(2, 4))
    places = draw(st.permutations(PLACES))[:ROW_SLOTS]
    kinds = st.sampled_from(["slot", "discard", "out"])
    where: dict[int, Where] = {}
    gems = draw(st.lists(st.sampled_from(GEMS), unique=True, max_size=max_gems))
    for g in gems:
        what = draw(kinds)
        where[g] = (what, draw(st.integers(0, players - 1)), draw(st.integers(0, ROW_SLOTS - 1)))
    game = _position(players, places, where)
    me = draw(st.integers(0, players - 1))
    others = sorted(_hidden_from(game, me, set()))
    also = (
        set(draw(st.lists(st.sampled_from(others), unique=True, max_size=3))) if others else set()
    )
    return game, me, also


@settings(max_examples=300, deadline=None)
@given(positions(), st.randoms(use_true_random=False))
def test_the_true_words_always_fit_a_seats_world(
    case: tuple[Game2004, int, set[int]], rng: random.Random
) -> None:
    truth, me, also = case
    known = _known_to(truth, me, also)
    world = _scrambled(truth, _hidden_from(truth, me, known), rng)
    words = _words_of(truth)
    fit = ow.fit_words(world, known, me, words)
    assert fit is not None, "an honest table's words found to fit nothing"
    _agrees(world, me, known, words, fit)


def _arrangements(world: Game2004, me: int, known: set[int]) -> Iterator[dict[int, int]]:
    hidden = _hidden_from(world, me, known)
    for order in permutations(hidden):
        yield dict(zip(hidden, order, strict=True))


@settings(max_examples=300, deadline=None)
@given(positions(max_gems=14), st.data())
def test_words_fit_exactly_when_some_arrangement_fits_them(
    case: tuple[Game2004, int, set[int]], data: st.DataObject
) -> None:
    """Any words at all (true or not): None exactly when no arrangement of the hidden gems makes
    every other seat's word true, by trying every arrangement (positions kept small for it)."""
    world, me, also = case
    known = _known_to(world, me, also)
    if len(_hidden_from(world, me, known)) > 7:
        return  # too many arrangements to try them all
    words = {s: data.draw(st.booleans()) for s in ow.owners(world)}
    fit = ow.fit_words(world, known, me, words)
    some = any(
        all(ow.holds_match(_relabelled(world, f), s) == w for s, w in words.items() if s != me)
        for f in _arrangements(world, me, known)
    )
    assert (fit is not None) == some
    if fit is not None:
        _agrees(world, me, known, words, fit)


def test_words_that_fit_nothing_give_none() -> None:
    """Seat 1's only face-down gem lies on a black place, and every gem hidden from seat 0 is
    black: its word no cannot be true, and seat 2's yes on a white place cannot either."""
    black = [gem(0, n) for n in range(1, 10)]
    where: dict[int, Where] = {black[0]: ("slot", 1, 0), black[1]: ("slot", 2, 1)}
    where |= {g: ("discard", 2, 0) for g in black[2:4]}
    world = _position(3, [place(k, 0) for k in range(6)], where)
    known = _known_to(world, 0, set())
    assert ow.fit_words(world, known, 0, {1: False, 2: False}) is None
    assert ow.fit_words(world, known, 0, {1: True, 2: True}) is None
    fit = ow.fit_words(world, known, 0, {1: True, 2: False})
    assert fit is not None
    _agrees(world, 0, known, {1: True, 2: False}, fit)


def test_three_yes_words_each_resting_on_one_gem_among_thirty_are_found() -> None:
    """The old random search's miss: seats 1-3 each said yes and each has one face-down gem, on
    a black, a white and a red place; among the 30 gems hidden from seat 0 (the other 27 are
    discards of the three other kinds) one only of each of these kinds. A random arrangement
    fits with chance 1/(30*29*28), so 200 shuffles find one about once in 120 tables."""
    slots = {gem(k, 1): ("slot", 1 + k, k) for k in range(3)}
    discards = {gem(k, n): ("discard", 1 + n % 3, 0) for k in range(3, 6) for n in range(1, 10)}
    truth = _position(4, [place(k, 0) for k in range(6)], slots | discards)
    world = _relabelled(truth, {gem(0, 1): gem(3, 1), gem(3, 1): gem(0, 1)})
    known = _known_to(truth, 0, set())
    words = {1: True, 2: True, 3: True}
    assert {s: ow.holds_match(world, s) for s in words} == {1: False, 2: True, 3: True}
    fit = ow.fit_words(world, known, 0, words)
    assert fit is not None
    _agrees(world, 0, known, words, fit)


def _asked_positions(players: int, seed: int) -> Iterator[Game2004]:
    """Each position of a real game (uniformly random legal moves on the true game, which
    reach the end of the pile far more often than the rule bots) at which the words are
    asked: the first move to leave the end to face-down gems, and every ritual after it."""
    rng = random.Random(seed)
    game = Game2004(random_setup(rng, players, start=0), Options(players=players))
    for _ in range(3000):
        if game.game_over:
            return
        if game.pending_reshuffle is not None:
            game.shuffle_reserve_random(rng)
            continue
        move = rng.choice(game.legal_moves())
        trial = clone(game)
        trial.play(move)
        ritual = mv.decode(move).kind == mv.KIND_RITUAL
        if ow.asks(trial) and (ritual or not ow.asks(game)):
            yield trial
        game.play(move)


def test_the_true_words_of_real_games_fit_every_seats_world() -> None:
    """Real games, at every point the words are asked: at every seat, with its own gems and the
    gems out of play known and the rest shuffled, the true words fit."""
    asked = 0
    for seed in range(30):
        players = 2 + seed % 3
        for truth in _asked_positions(players, seed):
            words = _words_of(truth)
            for me in range(players):
                known = _known_to(truth, me, set())
                hidden = _hidden_from(truth, me, known)
                world = _scrambled(truth, hidden, random.Random(seed * 7 + me))
                fit = ow.fit_words(world, known, me, words)
                assert fit is not None, (seed, me)
                _agrees(world, me, known, words, fit)
            asked += 1
    assert asked > 20, "the games tried hardly ever asked for the owners' word"
