"""The ``rule`` bot's own choice inside a sampled world: an exact opponent model for search.

:class:`RuleRound` runs the rule bot's evaluator on the world's integers, so its
:meth:`RuleRound.greedy_move` is exactly ``rule_move`` of that seat's view (a test checks it)
at a third of a rollout's cost: a search can weigh worlds by the observed plays and roll out.
:class:`Evidence` gives the same likelihood of every observed play without replaying a world,
from caches shared by all the worlds of one decision (about 0.1 ms a world mid-round).
"""

from __future__ import annotations

import random

from druids_p2p.games.druids2017.cards import (
    GAIA_DARK,
    MISTLETOES,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    SICKLES,
)
from druids_p2p.games.druids2017.playout import _BITS, _POP
from druids_p2p.games.druids2017.rollout import FastRound, ModelRound
from druids_p2p.games.druids2017.rule_bot import GAMMA, _Evaluator, unseen_values
from druids_p2p.games.druids2017.rules import Round

_VALSUM = tuple(sum(v + 1 for v in range(12) if m >> v & 1) for m in range(1 << 12))

EPSILON = 0.05
"""Share of random moves in rule-model rollouts, so that worlds do not all play alike."""


class RuleRound(ModelRound):
    """A :class:`ModelRound` that also keeps what is public (cards played, voids, specials
    played) and answers with the ``rule`` bot's move for the seat to move."""

    __slots__ = ("played", "specials", "voids")

    played: list[int]
    """Per domain, a 12-bit mask of the cards played this round."""
    voids: list[int]
    """Per seat, a 5-bit mask of the domains it showed it holds none of."""
    specials: int
    """Gaia, Mistletoes and Sickles played this round."""

    @classmethod
    def from_round(cls, rnd: Round) -> RuleRound:
        f = super().from_round(rnd)
        assert isinstance(f, RuleRound)
        f.played = [0] * N_DOMAINS
        f.voids = [0] * f.n
        f.specials = 0
        for trick in rnd.tricks:
            f._observe_trick(trick.plays)
        f._observe_trick(rnd.trick)
        return f

    def _observe_trick(self, plays: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> None:
        led = -1
        for seat, move in plays:
            if move < N_DOMAIN_CARDS:
                d = move // N_VALUES
                self.played[d] |= 1 << (move % N_VALUES)
                if led < 0:
                    led = d
                elif d != led:
                    self.voids[seat] |= 1 << led
            elif move < PLAY_MISTLETOE:
                led = (move - GAIA_DARK) % N_DOMAINS
                self.specials += 1
            else:
                self.specials += 1

    @classmethod
    def from_deal(cls, hands: list[list[int]], variant: bool = False) -> RuleRound:
        f = super().from_deal(hands, variant)
        assert isinstance(f, RuleRound)
        f.played = [0] * N_DOMAINS
        f.voids = [0] * f.n
        f.specials = 0
        return f

    def copy(self) -> RuleRound:
        f = super().copy()
        assert isinstance(f, RuleRound)
        f.played = self.played[:]
        f.voids = self.voids[:]
        f.specials = self.specials
        return f

    def play(self, move: int) -> bool:
        if not self.pending:
            if move < N_DOMAIN_CARDS:
                d = move // N_VALUES
                self.played[d] |= 1 << (move % N_VALUES)
                if self.led >= 0 and d != self.led:
                    self.voids[self.to_move] |= 1 << self.led
            elif move <= PLAY_SICKLE:
                self.specials += 1
        return super().play(move)

    def policy_move(self, rng: random.Random) -> int:
        if rng.random() < EPSILON:
            moves = self.legal()
            return moves[rng.randrange(len(moves))]
        return self.greedy_move()

    def plain(self) -> ModelRound:
        """The same position as a :class:`ModelRound` (sharing its lists: copy it before play),
        whose rollouts skip the public bookkeeping this class keeps."""
        f = ModelRound.__new__(ModelRound)
        for name in FastRound.__slots__:
            setattr(f, name, getattr(self, name))
        return f

    def cheap_move(self, rng: random.Random) -> int:
        """The cheap rollout policy's choice (:class:`ModelRound`'s), for the rest of a rollout."""
        if self.pending or self.gaia_seat >= 0 or rng.random() >= 0.1:
            return ModelRound.greedy_move(self)
        moves = self.legal()
        return moves[rng.randrange(len(moves))]

    def greedy_move(self) -> int:
        """Exactly ``rule_move`` of the view of the seat to move."""
        s = self.to_move
        base = s * 5
        hands = self.hands
        if self.pending:
            legal = self.legal()
            if len(legal) == 1:
                return legal[0]
            return min(legal, key=lambda m: (_POP[hands[base + m - PILE]], m - PILE))
        if self.gaia_seat >= 0:
            return GAIA_DARK + max(range(5), key=lambda d: (_VALSUM[hands[base + d]], -d))
        legal = self.legal()
        if len(legal) == 1:
            return legal[0]
        return self.evaluator().best(tuple(legal))

    def evaluator(self) -> _Evaluator:
        """The rule bot's evaluator of the view of the seat to move (a card to play)."""
        s = self.to_move
        base = s * 5
        hands = self.hands
        n = self.n
        tops = self.tops
        ev = _Evaluator.__new__(_Evaluator)
        sizes = [
            self.dcount[p] + self.mist[p] + self.sick[p] + (p == self.gaia_seat) for p in range(n)
        ]
        seen = [self.played[d] | hands[base + d] for d in range(5)]
        voids = self.voids
        ev.setup(
            s,
            self.light,
            [tops[p * 5 : p * 5 + 5] for p in range(n)],
            seen,
            self.specials + self.mist[s] + self.sick[s],
            [[bool(voids[p] >> d & 1) for d in range(5)] for p in range(n)],
            sizes,
        )
        ext = self.ext
        lows = {d: ext[d] for d in range(5) if self.touched >> d & 1}
        ev.trick_state(self.led, self.winner, self.best, lows, self.nsick, self.pos)
        return ev


class Evidence:
    """The other seats' observed plays of this round, weighed in any world by the rule model
    without replaying it: the rule bot's score of a move reads the seat's hand only through its
    cards of the domain the move leads or follows (and how many it holds of the one domain its
    piles would still lack), the rest of its view being public. So one public position per play,
    scores cached by that part of the hand and shared by every world, and each seat's factor
    cached by its hand: the same likelihood as :meth:`~.determinize.WorldSampler.replay`'s
    (a test checks it) at a fraction of its cost."""

    def __init__(self, trust: float) -> None:
        self.trust = trust
        self.plays: list[_Play] = []
        self._seat_cache: dict[tuple[int, ...], float] = {}
        self._by_seat: dict[int, list[_Play]] | None = None

    def observe(self, state: RuleRound, move: int, later: list[int]) -> None:
        """Count the play of ``move`` by the seat to move in ``state`` (a consistent world), whose
        card plays from this one on are ``later`` (card ids)."""
        self.plays.append(_Play(state, move, later))
        self._by_seat = None

    def weight(self, hidden: list[list[int]]) -> float:
        """The likelihood of the observed plays given these current hands of the seats."""
        weight = 1.0
        for seat in self.seats():
            weight *= self.seat_factor(seat, hidden[seat])
        return weight

    def seats(self) -> list[int]:
        """The seats with plays counted, in the order of their first."""
        if self._by_seat is None:
            by_seat: dict[int, list[_Play]] = {}
            for play in self.plays:
                by_seat.setdefault(play.seat, []).append(play)
            self._by_seat = by_seat
        return list(self._by_seat)

    def seat_factor(self, seat: int, cards: list[int]) -> float:
        """The likelihood of ``seat``'s counted plays if it holds ``cards`` now (the factors of
        the seats are independent: a seat's choices read only its own hand)."""
        if self._by_seat is None:
            self.seats()
        assert self._by_seat is not None
        plays = self._by_seat.get(seat)
        if not plays:
            return 1.0
        masks = _masks(cards)
        key = (*masks, seat)
        factor = self._seat_cache.get(key)
        if factor is None:
            factor = 1.0
            trust = self.trust
            for play in plays:
                factor *= play.factor(masks, trust)
            self._seat_cache[key] = factor
        return factor


def _masks(cards: list[int]) -> list[int]:
    """What the rule bot's scores read of a hand: a 12-bit mask of values per domain, then its
    Mistletoes and its Sickles counted."""
    masks = [0] * 7
    for card in cards:
        if card < N_DOMAIN_CARDS:
            masks[card // N_VALUES] |= 1 << card % N_VALUES
        elif card in MISTLETOES:
            masks[5] += 1
        elif card in SICKLES:
            masks[6] += 1
    return masks


class _Play:
    """One observed play and its public position: the rule bot's evaluator there, built once."""

    __slots__ = (
        "adjusted",
        "bounds",
        "card_scores",
        "d2",
        "ev",
        "follow_reads",
        "follows",
        "later",
        "led",
        "lows",
        "move",
        "played",
        "scores",
        "seat",
        "tops",
    )

    def __init__(self, state: RuleRound, move: int, later: list[int]) -> None:
        self.seat = state.to_move
        self.move = move
        self.ev = state.evaluator()
        self.led = state.led
        self.played = state.played[:]
        self.lows = set(self.ev.lows)
        self.tops = self.ev.tops[self.seat]
        self.later = _masks(later)
        self.scores: dict[tuple[int, int, int, int], tuple[int, float]] = {}
        self.d2: dict[int, tuple[int, int]] = {}
        self.card_scores: dict[tuple[int, ...], float] = {}
        self.bounds: dict[int, tuple[int, int, int]] = {}
        self.follows: dict[tuple[int | bool, ...], float] = {}
        """Factors of a following seat, by what the choice reads of its hand."""
        for group in (*range(N_DOMAINS), PLAY_MISTLETOE, PLAY_SICKLE):
            self._domains(group)
        self.follow_reads = (-1, -1)
        if self.led >= 0:
            self.follow_reads = (self.d2[self.led][1], self.d2[PLAY_MISTLETOE][1])
        self.adjusted: dict[tuple[int, int], int] = {}

    def _domains(self, group: int) -> tuple[int, int]:
        """The domain whose unseen cards the scores of a group's moves read, and the one whose
        unseen count they may read (the only domain its piles would lack; -1: none)."""
        if group < N_DOMAINS:
            dom = group
            first = self.led if self.led >= 0 else dom
            lows = self.lows | {dom}
        else:
            first = self.led
            lows = self.lows
        missing = [d for d in range(N_DOMAINS) if not self.tops[d] and d not in lows]
        pair = (first, missing[0] if len(missing) == 1 else -1)
        self.d2[group] = pair
        return pair

    def factor(self, hand: list[int], trust: float) -> float:
        """The likelihood of this play when the seat's hand now is ``hand`` (5 domain masks,
        Mistletoes, Sickles): trust in the rule bot's choice, the rest uniform."""
        later = self.later
        masks = [hand[0] | later[0], hand[1] | later[1], hand[2] | later[2]]
        masks.append(hand[3] | later[3])
        masks.append(hand[4] | later[4])
        led = self.led
        mist = hand[5] + later[5] > 0
        sick = hand[6] + later[6] > 0
        key: tuple[int | bool, ...] = ()
        if led >= 0 and masks[led]:
            # Following: the choice reads the seat's cards of the led domain and at most two
            # counts (the fifth domain's, for a card and for a special).
            a, b = self.follow_reads
            key = (masks[led], _POP[masks[a]] if a >= 0 else -1, _POP[masks[b]] if b >= 0 else -1)
            key += (mist, sick)
            found = self.follows.get(key)
            if found is not None:
                return found
            groups = [led]
            count = _POP[masks[led]]
        else:
            groups = [d for d in range(5) if masks[d]]
            count = 0
            for d in groups:
                count += _POP[masks[d]]
        if mist:
            groups.append(PLAY_MISTLETOE)
            count += 1
        if sick:
            groups.append(PLAY_SICKLE)
            count += 1
        if count < 2:
            factor = 1.0
        else:
            factor = (trust if self._chosen(groups, masks) else 0.0) + (1.0 - trust) / count
        if key:
            self.follows[key] = factor
        return factor

    def _chosen(self, groups: list[int], masks: list[int]) -> bool:
        """Whether the observed move is the rule bot's choice among these groups of legal moves
        (in the order it scans them: the first of equal scores wins): its own group first, the
        others only until one beats it."""
        move = self.move
        own = move // N_VALUES if move < N_DOMAIN_CARDS else move
        best, score = self._best(own, masks)
        if best != move:
            return False
        before = True
        for group in groups:
            if group == own:
                before = False
                continue
            other = self._best(group, masks)[1]
            if other > score or (before and other == score):
                return False
        return True

    def _best(self, group: int, masks: list[int]) -> tuple[int, float]:
        """The rule bot's best move of one group of the legal moves (a domain's cards, or a
        special) and its score: what it reads of the hand is the key of a cache."""
        d1, d2 = self.d2[group]
        key = (
            group,
            masks[group] if group < N_DOMAINS else 0,
            masks[d1] if d1 >= 0 else 0,
            _POP[masks[d2]] if d2 >= 0 else 0,
        )
        found = self.scores.get(key)
        if found is None:
            if group < N_DOMAINS:
                moves = [group * N_VALUES + v for v in _BITS[masks[group]]]
            else:
                moves = [group]
            best_move, best_score = moves[0], self._card_score(moves[0], d1, d2, masks)
            for move in moves[1:]:
                score = self._card_score(move, d1, d2, masks)
                if score > best_score:
                    best_move, best_score = move, score
            found = self.scores[key] = (best_move, best_score)
        return found

    def _card_score(self, move: int, d1: int, d2: int, masks: list[int]) -> float:
        """The rule bot's score of ``move``: of the hand it reads how many cards of domain
        ``d1`` lie above the trick's best after the move, how many below its lowest and their
        sum, how many in all, and how many of domain ``d2`` (the cache's key)."""
        above, below, reads = self.bounds.get(move) or self._bounds(move)
        held = masks[d1] if d1 >= 0 else 0
        key: tuple[int, ...]
        if reads == _READS_NONE:
            key = (move,)
        elif reads == _READS_HIGHER:
            key = (move, _POP[held & above])
        else:
            under = held & below
            adjusted = self.adjusted.get((move, under)) if below else 0
            if adjusted is None:
                adjusted = self.adjusted[move, under] = self._adjusted(move, below, under)
            key = (
                move,
                _POP[held & above],
                adjusted,
                _POP[held] if d2 >= 0 else -1,
                _POP[masks[d2]] if d2 >= 0 else -1,
            )
        score = self.card_scores.get(key)
        if score is None:
            ev = self.ev
            played = self.played
            if d1 >= 0:
                seen = played[d1] | held
                ev.unseen[d1] = unseen_values(seen)
            if d2 >= 0:
                seen = played[d2] | masks[d2]
                ev.unseen[d2] = unseen_values(seen)
            score = self.card_scores[key] = ev.score(move)
        return score

    def _adjusted(self, move: int, below: int, held: int) -> int:
        """What the rule bot expects its winning card's pile to show once the later seats
        dropped what they may below it (``_Evaluator._my_win``'s sum, on the unseen values
        below the trick's lowest, ``below`` less those ``held``)."""
        ev = self.ev
        free = below & ~self.played[ev.led if ev.led >= 0 else move // N_VALUES] & ~held
        count = _POP[free]
        low = _POP[below] + 1
        if not count:
            return low
        miss = 1.0
        led = ev.led if ev.led >= 0 else move // N_VALUES
        for p in ev.later:
            if not ev.void[p][led]:
                miss *= 1.0 - GAMMA * (1.0 - (1.0 - ev.frac[p]) ** count)
        q = 1.0 - miss
        return round(low - q * (low - _VALSUM[free] / count)) or 1

    def _bounds(self, move: int) -> tuple[int, int, int]:
        """The values (a 12-bit mask) above the trick's best after ``move``, those below its
        lowest card of the led domain after it, and what of the hand the score reads: nothing
        (the trick's last card), how many cards are above the best (someone else wins it), or
        more (the move wins it for now: what may still fall under it, and the fifth domain)."""
        ev = self.ev
        best = ev.best_val
        led = ev.led
        low = None
        wins = False
        if move < N_DOMAIN_CARDS:
            dom, value = divmod(move, N_VALUES)
            value += 1
            if led < 0:
                led = dom
            if dom == led and value > best:
                best = value
                wins = True
            low = ev.lows.get(led)
            if dom == led and (low is None or (value > low if ev.light else value < low)):
                low = value
        elif led >= 0:
            low = ev.lows.get(led)
            wins = ev.best_seat == ev.me
        above = sum(1 << v for v in range(N_VALUES) if v + 1 > best)
        below = 0 if low is None else sum(1 << v for v in range(N_VALUES) if v + 1 < low)
        if ev.light:
            below = 0  # the light side's score does not read what lies below
        reads = _READS_NONE if not ev.later else _READS_ALL if wins else _READS_HIGHER
        self.bounds[move] = (above, below, reads)
        return above, below, reads


_READS_NONE, _READS_HIGHER, _READS_ALL = 0, 1, 2

__all__ = ["Evidence", "RuleRound"]
