"""Fast rule-guided rollouts of one round from any position: the inner loop of the search bot. The
round flattened to integer lists, copied cheaply per rollout, played by a compact ``rule`` policy
with a little randomness: the search's strength comes mostly from this policy.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import cycle
from typing import TypeVar

from druids_p2p.games.druids2017.cards import (
    GAIA_DARK,
    GAIA_LIGHT,
    N_DOMAIN_CARDS,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
)
from druids_p2p.games.druids2017.playout import _BITS, _DOMS5, _POP, policy_rollout
from druids_p2p.games.druids2017.rules import Round

_Round = TypeVar("_Round", bound="FastRound")


class FastRound:
    """A copyable integer snapshot of a live :class:`Round` (see the module docstring)."""

    __slots__ = (
        "best",
        "dcount",
        "ext",
        "gaia_seat",
        "hands",
        "leader",
        "led",
        "light",
        "mist",
        "n",
        "npiles",
        "nsick",
        "pending",
        "pos",
        "sick",
        "to_move",
        "tops",
        "touched",
        "tricks_left",
        "variant",
        "winner",
    )

    n: int
    hands: list[int]
    mist: list[int]
    sick: list[int]
    dcount: list[int]
    tops: list[int]
    npiles: list[int]
    leader: int
    to_move: int
    pos: int
    led: int
    best: int
    winner: int
    touched: int
    ext: list[int]
    nsick: int
    light: bool
    tricks_left: int
    pending: int
    gaia_seat: int
    variant: bool

    @classmethod
    def from_round(cls, rnd: Round) -> FastRound:
        if rnd.to_move is None:
            raise ValueError("the round is over")
        f = cls()
        n = f.n = rnd.players
        f.hands = list(rnd.hands)
        f.mist = [len(m) for m in rnd.mistletoes]
        f.sick = [len(s) for s in rnd.sickles]
        pops = [_POP[m] for m in rnd.hands]
        f.dcount = [sum(pops[b : b + 5]) for b in range(0, n * 5, 5)]
        tops = f.tops = [p[-1] % 12 + 1 if p else 0 for p in rnd.piles]
        f.npiles = [5 - tops[b : b + 5].count(0) for b in range(0, n * 5, 5)]
        f.leader = rnd.leader
        f.to_move = rnd.to_move
        f.light = rnd.light
        f.variant = rnd.variant
        f.gaia_seat = rnd.gaia_holder if not rnd.plays else -1
        f.tricks_left = rnd.hand_size[rnd.to_move]  # the current trick included
        f.pending = rnd.pending_sickles
        f.pos = len(rnd.trick)
        f.led = rnd.lead_domain
        f.best = -1
        f.winner = rnd.leader
        f.touched = 0
        f.nsick = 0
        f.ext = [0] * 5 if f.light else [13] * 5
        for seat, move in rnd.trick:
            f._account(seat, move)
        if rnd.pending_sickles:
            f.winner = rnd.to_move
        return f

    @classmethod
    def from_deal(cls, hands: list[list[int]], variant: bool = False) -> FastRound:
        """The round at its first move from a deal of card ids (Gaia in one hand): cheaper than
        building the engine's :class:`Round`, for search bots that replay sampled worlds."""
        f = cls()
        n = f.n = len(hands)
        f.gaia_seat = max(f._fill_hands(hands), 0)
        f.tops = [0] * (n * 5)
        f.npiles = [0] * n
        f.leader = f.to_move = f.winner = f.gaia_seat
        f.light = False
        f.variant = variant
        f.tricks_left = len(hands[0])
        f.pending = 0
        f.pos = 0
        f.led = -1
        f.best = -1
        f.touched = 0
        f.nsick = 0
        f.ext = [13] * 5
        return f

    def copy(self) -> FastRound:
        f = type(self).__new__(type(self))
        f.n = self.n
        f.hands = self.hands[:]
        f.mist = self.mist[:]
        f.sick = self.sick[:]
        f.dcount = self.dcount[:]
        f.tops = self.tops[:]
        f.npiles = self.npiles[:]
        f.leader = self.leader
        f.to_move = self.to_move
        f.pos = self.pos
        f.led = self.led
        f.best = self.best
        f.winner = self.winner
        f.touched = self.touched
        f.ext = self.ext[:]
        f.nsick = self.nsick
        f.light = self.light
        f.tricks_left = self.tricks_left
        f.pending = self.pending
        f.gaia_seat = self.gaia_seat
        f.variant = self.variant
        return f

    def with_hands(self: _Round, hands: Sequence[Sequence[int]]) -> _Round:
        """This position with every seat's hand now replaced by ``hands`` (card ids; Gaia only
        where it is still to be led). What play has shown (piles, the trick, whose turn, what a
        subclass keeps) is the same in every world a search samples at one position, so one
        replayed world and a sample's hands make the next world without replaying the round."""
        f = self.copy()
        assert isinstance(f, type(self))
        f._fill_hands(hands)
        return f

    def _fill_hands(self, hands: Sequence[Sequence[int]]) -> int:
        """Set every seat's hand from card ids; returns the seat holding Gaia (-1: none)."""
        n = self.n
        masks = self.hands = [0] * (n * 5)
        mist = self.mist = [0] * n
        sick = self.sick = [0] * n
        dcount = self.dcount = [0] * n
        gaia = -1
        for seat, hand in enumerate(hands):
            base = seat * 5
            for card in hand:
                if card < N_DOMAIN_CARDS:
                    dom = card // 12
                    masks[base + dom] |= 1 << (card - dom * 12)
                    dcount[seat] += 1
                elif card == GAIA_DARK:
                    gaia = seat
                elif card < 63:
                    mist[seat] += 1
                else:
                    sick[seat] += 1
        return gaia

    def _account(self, seat: int, move: int) -> None:
        """Fold a card already on the table into the trick summary (no hand change)."""
        if move < N_DOMAIN_CARDS:
            dom, val = divmod(move, 12)
            val += 1
            if self.led < 0:
                self.led = dom
            if dom == self.led and val > self.best:
                self.best, self.winner = val, seat
            if self.light:
                if val > self.ext[dom]:
                    self.ext[dom] = val
            elif val < self.ext[dom]:
                self.ext[dom] = val
            self.touched |= 1 << dom
        elif move < PLAY_MISTLETOE:
            self.led = (move - GAIA_DARK) % 5
            if self.best < 0:
                self.best, self.winner = 0, seat
        elif move == PLAY_SICKLE:
            self.nsick += 1

    def play(self, move: int) -> bool:
        """Apply a legal move of the seat to move. Returns True when the round has ended."""
        s = self.to_move
        if self.pending:
            return self._remove(s * 5 + move - PILE)
        if move < N_DOMAIN_CARDS:  # (``_account`` inlined: the replay of every world runs it)
            dom = move // 12
            val = move - dom * 12
            self.hands[s * 5 + dom] ^= 1 << val
            self.dcount[s] -= 1
            val += 1
            led = self.led
            if led < 0:
                led = self.led = dom
            if dom == led and val > self.best:
                self.best = val
                self.winner = s
            ext = self.ext
            if self.light:
                if val > ext[dom]:
                    ext[dom] = val
            elif val < ext[dom]:
                ext[dom] = val
            self.touched |= 1 << dom
        elif move < PLAY_MISTLETOE:
            self.light = move >= GAIA_LIGHT
            self.ext = [0] * 5 if self.light else [13] * 5
            self.gaia_seat = -1
            self._account(s, move)
        elif move == PLAY_MISTLETOE:
            self.mist[s] -= 1
        else:
            self.sick[s] -= 1
            self.nsick += 1
        pos = self.pos = self.pos + 1
        if pos < self.n:
            self.to_move = s + 1 if s + 1 < self.n else 0
            return False
        return self._take()

    def _take(self) -> bool:
        w = self.winner
        wb = w * 5
        tops = self.tops
        for dom in _DOMS5[self.touched]:
            if not tops[wb + dom]:
                self.npiles[w] += 1
            tops[wb + dom] = self.ext[dom]
        self.tricks_left -= 1
        self.leader = self.to_move = w
        self.pos = 0
        self.led = -1
        self.best = -1
        self.touched = 0
        self.ext = [0] * 5 if self.light else [13] * 5
        if self.npiles[w] == 5:
            self.pending = 0
            self.tricks_left = -1  # ended by five domains; the winner is self.winner
            return True
        self.pending = self.nsick
        self.nsick = 0
        return self._sickles()

    def _sickles(self) -> bool:
        """Apply forced Sickle removals; stop at a tie (the winner must choose)."""
        wb = self.winner * 5
        while self.pending:
            top5 = self.tops[wb : wb + 5]
            mx = max(top5)
            if not mx:
                self.pending = 0
                break
            if top5.count(mx) > 1:
                return False
            self._remove_now(wb + top5.index(mx))
        return self.tricks_left == 0

    def _remove_now(self, index: int) -> None:
        self.tops[index] = 0
        self.npiles[index // 5] -= 1
        self.pending -= 1

    def _remove(self, index: int) -> bool:
        self._remove_now(index)
        return self._sickles()

    def scores(self) -> list[int]:
        """Round scores once over (the five-domain winner scores -3)."""
        n, tops = self.n, self.tops
        out = [sum(tops[s * 5 : s * 5 + 5]) for s in range(n)]
        if self.tricks_left < 0:
            out[self.winner] = -3
        return out

    def legal(self) -> list[int]:
        s = self.to_move
        if self.pending:
            top5 = self.tops[s * 5 : s * 5 + 5]
            mx = max(top5)
            return [PILE + d for d in range(5) if top5[d] == mx]
        if self.gaia_seat >= 0:
            return list(range(GAIA_DARK, GAIA_LIGHT + 5 if self.variant else GAIA_LIGHT))
        base = s * 5
        led = self.led
        hands = self.hands
        if led >= 0 and hands[base + led]:
            first = led * 12
            moves = [first + v for v in _BITS[hands[base + led]]]
        else:
            moves = [d * 12 + v for d in range(5) for v in _BITS[hands[base + d]]]
        if self.mist[s]:
            moves.append(PLAY_MISTLETOE)
        if self.sick[s]:
            moves.append(PLAY_SICKLE)
        return moves

    # ------------------------------------------------------------------ policy
    def policy_move(self, rng: random.Random) -> int:
        """The rule-guided rollout choice for the seat to move."""
        s = self.to_move
        if self.pending:
            top5 = self.tops[s * 5 : s * 5 + 5]
            return PILE + top5.index(max(top5))
        if self.gaia_seat >= 0:
            base = s * 5
            # Name the domain where this seat holds the most cards (it will follow it anyway).
            return GAIA_DARK + max(range(5), key=lambda d: _POP[self.hands[base + d]])
        if rng.random() < 0.1:
            moves = self.legal()
            return moves[rng.randrange(len(moves))]
        return self.greedy_move()

    def greedy_move(self) -> int:
        """The policy's choice without its random tenth: also the opponent model of inference."""
        s = self.to_move
        if self.pending:
            top5 = self.tops[s * 5 : s * 5 + 5]
            return PILE + top5.index(max(top5))
        if self.gaia_seat >= 0:
            base = s * 5
            return GAIA_DARK + max(range(5), key=lambda d: _POP[self.hands[base + d]])
        base = s * 5
        led = self.led
        hands = self.hands
        opp_winning = self.pos > 0 and self.winner != s
        if self.sick[s] and opp_winning and self.pos == self.n - 1:
            wb = self.winner * 5
            if max(self.tops[wb : wb + 5]) >= 8:
                return PLAY_SICKLE
        if led >= 0 and hands[base + led]:
            mask = hands[base + led]
            lo = (mask & -mask).bit_length()  # value 1..12 of the lowest
            hi = mask.bit_length()
            if hi > self.best:
                if self._winning_is_good(s, hi):
                    return led * 12 + hi - 1
                if lo > self.best and self.mist[s]:
                    return PLAY_MISTLETOE
            return led * 12 + lo - 1
        if self.pos == 0:
            if self.dcount[s]:
                return self._lead(base)
            return PLAY_MISTLETOE if self.mist[s] else PLAY_SICKLE
        # Void (or nothing led yet): feed the lowest domain card, preferring a new domain for
        # an opponent who is winning (pushes it toward five), else keep specials for later.
        if self.dcount[s]:
            best_card, best_val = -1, 99
            for d in range(5):
                mask = hands[base + d]
                if mask:
                    val = (mask & -mask).bit_length()
                    if val < best_val:
                        best_card, best_val = d * 12 + val - 1, val
            return best_card
        return PLAY_MISTLETOE if self.mist[s] else PLAY_SICKLE

    def _lead(self, base: int) -> int:
        """The domain card to lead: the lowest of the seat's longest domain."""
        hands = self.hands
        d = max(range(5), key=lambda d: _POP[hands[base + d]])
        mask = hands[base + d]
        return d * 12 + (mask & -mask).bit_length() - 1

    def _winning_is_good(self, s: int, card_value: int) -> bool:
        """Would taking the trick now (with ``card_value``) raise this seat's pile tops?"""
        if self.pos < self.n - 1 and card_value < 11:
            return False  # others still to play: only commit a near-certain winner
        base = s * 5
        tops = self.tops
        gain = 0
        new = 0
        touched = self.touched | (1 << self.led)
        for dom in _DOMS5[touched]:
            cur = self.ext[dom]
            if dom == self.led:
                cur = max(cur, card_value) if self.light else min(cur, card_value)
            old = tops[base + dom]
            if not old:
                new += 1
            gain += cur - old
        if self.npiles[s] + new >= 5:
            return False
        return gain - 3 * self.nsick > 0


def rollout(state: FastRound, rng: random.Random, limit: int = 400) -> list[int]:
    """Play the round to its end with the rollout policy; returns the round scores. The two
    policies here run in :func:`.playout.policy_rollout`'s fused loop; a subclass with its own
    policy steps through it."""
    high_lead = _KERNEL_LEAD.get(type(state))
    if high_lead is not None:
        return policy_rollout(state, rng.random, rng.randrange, high_lead, limit)
    for _ in range(limit):
        if state.play(state.policy_move(rng)):
            return state.scores()
    raise RuntimeError("rollout did not end")  # pragma: no cover - rounds are finite


def rollout_draws(state: FastRound, draws: Sequence[float], limit: int = 400) -> list[int]:
    """:func:`rollout` with its randomness read from ``draws`` (uniform in [0, 1), taken in turn,
    and from the start again should they run out; ``randrange(k)`` is ``int(u * k)``) instead of
    a generator: a search that rolls every legal move of a world out on common random numbers
    draws them once per world, where seeding a generator per rollout costs a quarter of one."""
    high_lead = _KERNEL_LEAD.get(type(state))
    if high_lead is None:
        raise TypeError(f"no rollout kernel plays {type(state).__name__}'s policy")
    rand = cycle(draws).__next__

    def randrange(k: int) -> int:
        return min(int(rand() * k), k - 1)

    return policy_rollout(state, rand, randrange, high_lead, limit)


class ModelRound(FastRound):
    """The rollout policy with leads modelled on the ``rule`` bot's: the seat's highest card
    (ties: of its longest domain), as the rule bot sheds high cards when it leads. This agrees
    with the rule bot's lead about half the time where the lowest-card lead agrees 4% of the
    time, which matters both in rollouts and as the opponent model of inference."""

    __slots__ = ()

    def _lead(self, base: int) -> int:
        hands = self.hands
        best = -1
        key = -1
        for d in range(5):
            mask = hands[base + d]
            if mask:
                k = mask.bit_length() * 16 + _POP[mask]
                if k > key:
                    key, best = k, d
        return best * 12 + hands[base + best].bit_length() - 1


_KERNEL_LEAD: dict[type[FastRound], bool] = {FastRound: False, ModelRound: True}
"""The classes whose policy the rollout kernel plays, and whether it leads high."""
