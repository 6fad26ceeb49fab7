"""The ``rule`` bot's own choice inside a sampled world: an exact opponent model for search.

:class:`RuleRound` runs the rule bot's evaluator on the world's integers, so its
:meth:`RuleRound.greedy_move` is exactly ``rule_move`` of that seat's view (a test checks it)
at a third of a rollout's cost: a search can weigh worlds by the observed plays and roll out.
"""

from __future__ import annotations

import random

from druids_p2p.games.druids2017.cards import (
    GAIA_DARK,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
)
from druids_p2p.games.druids2017.rollout import FastRound, ModelRound
from druids_p2p.games.druids2017.rule_bot import _Evaluator
from druids_p2p.games.druids2017.rules import Round

_POP = tuple(bin(m).count("1") for m in range(1 << 12))
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
        best = self.best
        ev.trick_state(self.led, self.winner, best, lows, self.nsick, self.pos)
        return ev.best(tuple(legal))


__all__ = ["RuleRound"]
