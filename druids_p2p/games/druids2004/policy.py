"""The bots of Druids (2004): the rule and search choosers, the worlds the search samples, the Bots.

Pure functions of what one seat may know and a passed random.Random, so a bot never sees a hidden
card; the Bot classes are thin wrappers the registry hands out."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import (
    GEMS,
    MAX_PLAYERS,
    PLACES,
    PlaceSlot,
    gem_kind,
    is_gem,
    is_servant,
    place_kind,
    servant_owner,
    servant_value,
    servants_of,
)
from druids_p2p.games.druids2004.setup import Options, Setup, shares, taking_order, tie_first
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import HIDDEN, SeatView
from druids_p2p.games.spec import Bot

# Worlds consistent with what one seat has seen: the determinization the search bot samples.
#
# From a :class:`SeatView` every hidden card is a member of a known pool with a known count in each
# hidden place: unknown gems fill the others' hands (their gem counts are public), the others' face-
# down gems on places, their discards and the gem pile; each owner's unknown servants fill its hand,
# its face-down servants on places and its reserve (the seat's own reserve is a known set in an
# unknown order); the unknown places fill the supply. A sample deals each pool uniformly at random
# over its places: consistent with the view, not weighted by how the others played.


def clone(game: Game2004) -> Game2004:
    """A copy that can be played on without touching ``game`` (the log is shared, not copied)."""
    g = Game2004.__new__(Game2004)
    g.__dict__.update(game.__dict__)
    g.hands = [list(h) for h in game.hands]
    g.pile = list(game.pile)
    g.row = [None if p is None else p.copy() for p in game.row]
    g.supply = list(game.supply)
    g.reserves = [list(r) for r in game.reserves]
    g.discards = list(game.discards)
    g.out = list(game.out)
    g.won = [list(w) for w in game.won]
    g.scores = list(game.scores)
    g.log = []
    g.pending = list(game.pending)
    return g


def sample_world(view: SeatView, options: Options, rng: random.Random) -> Game2004:
    """A full game state drawn uniformly among those consistent with ``view``."""
    n, me = view.players, view.seat
    won: list[list[int]] = [[] for _ in range(n)]
    out: list[int] = []
    gone_places = set()
    for r in view.rituals:
        for share in r.shares:
            won[share.owner].extend(share.amulets)
        out.extend(r.discarded)
        gone_places.add(r.place)
        if r.ended is None:
            out.append(r.place)
            if not r.returned:
                out.extend(r.servants)
    known = set(view.hand) | set(view.my_discards) | set(out) | {c for w in won for c in w}
    for place in view.row:
        if place is not None:
            known.update(c for _, c in place.gems if c != HIDDEN)
            known.update(c for _, c in place.servants if c != HIDDEN)
    gems = [g for g in GEMS if g not in known]
    rng.shuffle(gems)
    servants = {q: [c for c in servants_of(q) if c not in known] for q in range(n)}
    for pool in servants.values():
        rng.shuffle(pool)
    hands: list[list[int]] = []
    for q in range(n):
        if q == me:
            hands.append(list(view.hand))
            continue
        k = view.hand_gems[q]
        hand = [gems.pop() for _ in range(k)]
        hand += [servants[q].pop() for _ in range(view.hand_sizes[q] - k)]
        hands.append(hand)
    row: list[PlaceSlot | None] = []
    for place in view.row:
        if place is None:
            row.append(None)
            continue
        slot = PlaceSlot(place.place)
        slot.gems = [(s, c if c != HIDDEN else gems.pop()) for s, c in place.gems]
        slot.servants = [c if c != HIDDEN else servants[q].pop() for q, c in place.servants]
        row.append(slot)
    discards = [(me, c) for c in view.my_discards]
    for q in range(n):
        if q != me:
            discards += [(q, gems.pop()) for _ in range(view.discard_counts[q])]
    pile = gems  # what is left: exactly pile_size gems
    assert len(pile) == view.pile_size, "the view's counts do not add up"
    reserves = [servants[q] for q in range(n)]
    assert [len(r) for r in reserves] == list(view.reserve_sizes)
    supply = [
        p
        for p in PLACES
        if p not in gone_places and all(v is None or v.place != p for v in view.row)
    ]
    rng.shuffle(supply)
    g = Game2004.__new__(Game2004)
    g.options = options
    g.setup = Setup((), (), (), view.start)
    g.hands, g.pile, g.row, g.supply, g.reserves = hands, pile, row, supply, reserves
    g.discards, g.out, g.won = discards, out, won
    g.box = tuple(c for s in range(n, MAX_PLAYERS) for c in servants_of(s))
    g.scores, g.base = list(view.scores), view.base
    g.log, g.pending = [], []
    g.ended_by, g.winners_ = None, None
    g.idle_turns, g.turn, g.seat = view.idle_turns, 0, view.turn_seat
    g.ritual_done, g.plays_made = view.ritual_done, view.plays_made
    g.plays_needed = view.plays_made + view.plays_left
    g.servant_played, g.discarded, g.drawn = view.servant_played, view.discarded, view.drawn
    g.active = view.turn_active
    return g


def is_consistent(world: Game2004, view: SeatView) -> bool:
    """The world shows this seat exactly ``view`` (a check for tests)."""
    mine = world.view(view.seat)
    fields = ("hand", "hand_sizes", "hand_gems", "reserve_sizes", "pile_size", "supply_size")
    if any(getattr(mine, f) != getattr(view, f) for f in fields):
        return False
    return (
        mine.row == view.row
        and mine.legal == view.legal
        and all(is_gem(c) for c in world.pile)
        and all(servant_owner(c) == q for q, r in enumerate(world.reserves) for c in r)
    )


# Move choosers for bots: the ``rule`` heuristics and the determinized-sampling search.
#
# Pure functions of a :class:`SeatView` (what the seat may know), the game's options and a passed
# ``random.Random``: they never see a hidden card. Bots in ``druids_p2p.bots`` wrap them.
#
# * :func:`rule_move` — announce a ritual when its expected margin (over sampled worlds) pays, play
#   gems onto places of their kind where the seat's servants wait, put servants where many gems of
#   the place's kind lie and few servants compete, discard a gem no place in the row wants, draw
#   to keep about two servants in hand.
# * :func:`search_move` — for each candidate move and each sampled world, play the move and a short
#   greedy rollout (until every seat has had a turn), and score the seat's margin plus what the
#   rituals open on the row would pay it; pick the best mean.


RITUAL_WORLDS = 6
RITUAL_THRESHOLD = 0.5
"""Announce only when the expected margin is at least this many points."""


def ritual_points(game: Game2004, slot: int, announcer: int) -> list[int]:
    """Points each seat would get if ``announcer`` held the ritual on ``slot`` now (no column)."""
    n = game.players
    points = [0] * n
    place = game.row[slot]
    if place is None or not place.servants:
        return points
    kind = place_kind(place.place)
    amulets = sum(1 for _, g in place.gems if gem_kind(g) == kind)
    first = tie_first(game.options.tie_order, announcer, game.setup.start, n)
    order = taking_order(place.servants, first, n)
    for servant, take in zip(
        order, shares([servant_value(c) for c in order], amulets), strict=True
    ):
        points[servant_owner(servant)] += take
    return points


def margin(points: Sequence[int], seat: int) -> float:
    n = len(points)
    return points[seat] - (sum(points) - points[seat]) / (n - 1)


# ------------------------------------------------------------------------------ rule
def play_score(view: SeatView, move: int) -> float:
    """How much the rule heuristics like a play (higher is better)."""
    m = mv.decode(move)
    place = view.row[m.slot]
    assert place is not None
    kind = place_kind(place.place)
    mine = sum(1 for q, _ in place.servants if q == view.seat)
    others = len(place.servants) - mine
    if is_gem(m.card):
        if gem_kind(m.card) != kind:
            return 0.1 + 0.05 * others - 0.05 * mine
        return 2.0 + mine - 0.5 * others
    my_gems = sum(1 for q, g in place.gems if q == view.seat and gem_kind(g) == kind)
    hidden = sum(1 for q, _ in place.gems if q != view.seat)
    expected = my_gems + 0.4 * hidden
    value = servant_value(m.card)
    return expected - 0.8 * len(place.servants) - 0.15 * value + (0.6 if mine == 0 else -0.5)


def discard_choice(view: SeatView) -> int | None:
    """A gem no place in the row is of, if the hand holds one."""
    kinds = {place_kind(p.place) for p in view.row if p is not None}
    useless = [c for c in view.hand if is_gem(c) and gem_kind(c) not in kinds]
    return mv.discard_move(min(useless)) if useless else None


def draw_choice(view: SeatView) -> int:
    legal = set(view.legal)
    servants = sum(1 for c in view.hand if is_servant(c))
    if servants < 2 and mv.DRAW_SERVANT in legal:
        return mv.DRAW_SERVANT
    if mv.DRAW_GEM in legal:
        return mv.DRAW_GEM
    return mv.DRAW_SERVANT if mv.DRAW_SERVANT in legal else mv.STOP


def best_ritual(
    view: SeatView, options: Options, rng: random.Random, worlds: int = RITUAL_WORLDS
) -> tuple[int | None, float]:
    """The ritual move with the best expected margin over sampled worlds, and that margin."""
    rituals = [m for m in view.legal if mv.RITUAL <= m < mv.DISCARD]
    if not rituals:
        return None, 0.0
    sampled = [sample_world(view, options, rng) for _ in range(worlds)]
    best, value = None, float("-inf")
    for move in rituals:
        slot = move - mv.RITUAL
        v = sum(margin(ritual_points(w, slot, view.seat), view.seat) for w in sampled) / worlds
        if v > value:
            best, value = move, v
    return best, value


def rule_move(view: SeatView, options: Options, rng: random.Random) -> int:
    """The rule bot's move (one of ``view.legal``)."""
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    ritual, value = best_ritual(view, options, rng)
    if ritual is not None and value >= RITUAL_THRESHOLD:
        return ritual
    plays = [m for m in legal if m < mv.RITUAL]
    if plays:
        return max(plays, key=lambda m: (play_score(view, m), -m))
    discard = discard_choice(view)
    if discard is not None and discard in legal:
        return discard
    return draw_choice(view)


# ---------------------------------------------------------------------------- search
def greedy_move(game: Game2004, rng: random.Random) -> int:
    """The rollout policy, on a full world: quick, a little random, roughly sensible."""
    legal = game.legal_moves()
    if len(legal) == 1:
        return legal[0]
    seat = game.seat
    best, value = None, 0.5
    for move in legal:
        if mv.RITUAL <= move < mv.DISCARD:
            v = margin(ritual_points(game, move - mv.RITUAL, seat), seat)
            if v > value:
                best, value = move, v
    if best is not None:
        return best
    plays = [m for m in legal if m < mv.RITUAL]
    if plays:
        good = []
        for m in plays:
            card, slot = divmod(m, 6)
            place = game.row[slot]
            assert place is not None
            kind = place_kind(place.place)
            if is_gem(card):
                fits = gem_kind(card) == kind
            else:
                fits = sum(1 for _, g in place.gems if gem_kind(g) == kind) > len(place.servants)
            if fits:
                good.append(m)
        pool = good or plays
        return pool[rng.randrange(len(pool))]
    hand = game.hands[seat]
    if mv.DRAW_SERVANT in legal and sum(1 for c in hand if is_servant(c)) < 2:
        return mv.DRAW_SERVANT
    if mv.DRAW_GEM in legal:
        return mv.DRAW_GEM
    return mv.DRAW_SERVANT if mv.DRAW_SERVANT in legal else mv.STOP


def evaluate(game: Game2004, seat: int) -> float:
    """The seat's score margin, plus half of what the open rituals would pay it now."""
    value = margin(game.scores, seat)
    if game.game_over:
        if game.winners_ is not None and seat in game.winners_:
            value += 3.0
        return value
    for slot, place in enumerate(game.row):
        if place is not None and place.servants and place.size >= 3:
            value += 0.5 * margin(ritual_points(game, slot, seat), seat)
    return value


def rollout(game: Game2004, seat: int, rng: random.Random, turns: int) -> float:
    stop_turn = game.turn + turns
    for _ in range(400):
        while game.pending_reshuffle is not None:
            game.shuffle_reserve_random(rng)
        if game.game_over or game.turn >= stop_turn:
            break
        game.play(greedy_move(game, rng))
    return evaluate(game, seat)


def candidates(view: SeatView, options: Options, rng: random.Random, limit: int) -> list[int]:
    """The legal moves worth searching: every non-play move, and the best plays by the rules."""
    legal = list(view.legal)
    plays = [m for m in legal if m < mv.RITUAL]
    rest = [m for m in legal if m >= mv.RITUAL]
    plays.sort(key=lambda m: (-play_score(view, m), m))
    return rest + plays[: max(2, limit - len(rest))]


def search_move(
    view: SeatView, options: Options, rng: random.Random, worlds: int, limit: int = 8
) -> int:
    """Flat Monte Carlo over sampled worlds: the candidate with the best mean evaluation."""
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    cands = candidates(view, options, rng, limit)
    totals = [0.0] * len(cands)
    turns = view.players + 1
    for _ in range(worlds):
        base = sample_world(view, options, rng)
        for i, move in enumerate(cands):
            world = clone(base)
            world.play(move)
            totals[i] += rollout(world, view.seat, rng, turns)
    best = max(range(len(cands)), key=lambda i: totals[i])
    return cands[best]


# The built-in bots for Druids (2004): thin :class:`Bot` wrappers over the pure choosers in
# ``druids_p2p.games.druids2004.policy`` (the ``random`` bot plays both games as it is).


SEARCH_MS_PER_WORLD = 10.0
"""Budget granted per sampled world (the measured cost is about 6 ms here; the rest is headroom)."""
MIN_WORLDS = 2
MAX_WORLDS = 64


def fallback_2004(view: SeatView) -> int:
    """The host's safe move for a seat whose bot failed: ``Stop`` where the seat may stop,
    else its first legal move."""
    return mv.STOP if mv.STOP in view.legal else view.legal[0]


def _options(bot: Bot) -> Options:
    options = bot.options
    if not isinstance(options, Options):
        raise TypeError("this bot plays Druids (2004) only")
    return options


class Rule2004Bot(Bot):
    """Rituals that pay over sampled worlds, gems to their kind, servants where gems wait."""

    def choose(self, view: Any) -> int:
        return rule_move(view, _options(self), self.rng)


class Search2004Bot(Bot):
    """Determinized sampling: worlds consistent with the view, short greedy rollouts per move.

    The number of worlds is fixed by the budget (not by the clock), so games replay exactly.
    """

    def __init__(self, worlds: int | None = None) -> None:
        super().__init__()
        self.fixed_worlds = worlds

    @property
    def worlds(self) -> int:
        if self.fixed_worlds is not None:
            return self.fixed_worlds
        count = int(self.time_budget_ms / SEARCH_MS_PER_WORLD)
        return max(MIN_WORLDS, min(MAX_WORLDS, count))

    def choose(self, view: Any) -> int:
        return search_move(view, _options(self), self.rng, self.worlds)
