"""The ``rule`` bot: a hand-written player that knows the scoring (docs/rules.md §4–5): a pile
scores its top card and a won trick tops it with its lowest, so feed winners low cards and win only
tricks worth it. A one-trick lookahead on the view alone, no state, no randomness, so
:func:`rule_move` is also the host's deterministic fallback and a rollout policy.
"""

from __future__ import annotations

import functools

from druids_p2p.games.druids2017.cards import (
    GAIA_DARK,
    HAND_SIZE,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
)
from druids_p2p.games.druids2017.rules import FIVE_DOMAIN_SCORE
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.spec import Bot

# Tuned against the random bot on duplicate deals (see tests/test_bots_strength.py).
EARLY_WEIGHT = 0.45
"""How much a pile-top change counts on the first trick (it counts fully on the last)."""
BETA = 0.6
"""Chance that a later player holding a higher card of the led domain actually plays one."""
GAMMA = 0.6
"""Chance that a later player holding a lower card of the led domain drops it on our win."""
MISTLETOE_COST = 5.0
SICKLE_COST = 5.0
"""What holding a special card is worth at the start of a round (nothing on the last trick)."""
FOUR_PILE_RISK = 3.0
"""Penalty for reaching a fourth pile early: the next trick won may bring the fifth."""
FIVE_DOMAIN_EXTRA = 3.0
"""What a fifth domain costs beyond the −3 itself: the rest of the round is lost too."""
SHED = 0.12
"""Per point of face value above the middle: shedding high cards avoids forced wins later."""
DISCARD_FIFTH = 0.4
"""Chance that a player void in the led domain discards a given other domain it holds."""


@functools.cache
def unseen_values(mask: int) -> tuple[int, ...]:
    """The values (1-12) a 12-bit mask of a domain's seen cards leaves unseen, made once a mask:
    a search asks the rule bot in many worlds, and building these lists was a third of its
    setup (a table of all 4,096 masks would cost every process ~4 ms at import)."""
    return tuple(v + 1 for v in range(N_VALUES) if not mask >> v & 1)


class RuleBot(Bot):
    """Hand-written heuristics: feeds winners low cards, sheds high ones, dodges a fifth domain;
    fast and deterministic.

    The heuristic player: stateless, about 0.1 ms a move."""

    def choose(self, view: PlayerView) -> int:
        return rule_move(view)


def fallback_move(view: PlayerView) -> int:
    """The host's safe move for a seat whose bot failed: the rule bot's choice (deterministic,
    well under a millisecond), else the first legal move if even that fails."""
    try:
        move = rule_move(view)
    except Exception:
        return view.legal[0]
    return move if move in view.legal else view.legal[0]


def rule_move(view: PlayerView) -> int:
    """The rule bot's move in ``view`` (which must have the seat to move and legal moves)."""
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    if view.pending_pile_choice:
        return _pile_choice(view)
    if GAIA_DARK <= legal[0] < PLAY_MISTLETOE:
        return _gaia_choice(view)
    return _Evaluator(view).best(legal)


def _my_counts(view: PlayerView) -> list[int]:
    counts = [0] * N_DOMAINS
    for card in view.hand:
        if card < N_DOMAIN_CARDS:
            counts[card // N_VALUES] += 1
    return counts


def _gaia_choice(view: PlayerView) -> int:
    """Name the domain where our cards add up highest (dark side): the others are short of it, so
    the Gaia trick stays small and the first trick strips them of cards that could beat ours later.
    """
    strength = [0] * N_DOMAINS
    for card in view.hand:
        if card < N_DOMAIN_CARDS:
            strength[card // N_VALUES] += card % N_VALUES + 1
    domain = max(range(N_DOMAINS), key=lambda d: (strength[d], -d))
    return GAIA_DARK + domain


def _pile_choice(view: PlayerView) -> int:
    """Tied piles score the same; give up the one in the domain we are least likely to win again.

    A domain we hold many cards of is one we will win tricks in: keeping that pile means such a
    win replaces a top instead of adding a pile towards the fatal fifth.
    """
    counts = _my_counts(view)
    domain = min(view.pending_pile_choice, key=lambda d: (counts[d], d))
    return PILE + domain


class _Evaluator:
    """Everything the move scores share, computed once per decision."""

    def __init__(self, view: PlayerView) -> None:
        tops = [[0] * N_DOMAINS for _ in range(view.players)]
        for seat, row in enumerate(view.pile_tops):
            t = tops[seat]
            for d, card in enumerate(row):
                if card is not None:
                    t[d] = card % N_VALUES + 1
        # Seen cards (ours and played) and voids shown by not following.
        seen = [0] * N_DOMAINS
        specials_seen = 0
        void = [[False] * N_DOMAINS for _ in range(view.players)]
        for card in view.hand:
            if card < N_DOMAIN_CARDS:
                seen[card // N_VALUES] |= 1 << (card % N_VALUES)
            else:
                specials_seen += 1
        for trick in view.tricks:
            specials_seen += _scan(trick[1], seen, void)
        specials_seen += _scan(view.trick, seen, void)
        # The trick so far.
        led = view.lead_domain
        best_seat, best_val = view.leader, -1
        lows: dict[int, int] = {}
        sickles = 0
        for seat, move in view.trick:
            if move < N_DOMAIN_CARDS:
                d = move // N_VALUES
                val = move % N_VALUES + 1
                if d == led and val > best_val:
                    best_seat, best_val = seat, val
                cur = lows.get(d)
                if cur is None or (val > cur if view.light else val < cur):
                    lows[d] = val
            elif move < PLAY_MISTLETOE:
                if best_val < 0:
                    best_seat, best_val = seat, 0
            elif move == PLAY_SICKLE:
                sickles += 1
        self.setup(view.seat, view.light, tops, seen, specials_seen, void, view.hand_sizes)
        self.trick_state(led, best_seat, best_val, lows, sickles, len(view.trick))

    def setup(
        self,
        me: int,
        light: bool,
        tops: list[list[int]],
        seen: list[int],
        specials_seen: int,
        void: list[list[bool]],
        hand_sizes: tuple[int, ...] | list[int],
    ) -> None:
        """What a decision knows besides the trick: pile tops (values, 0 for none) per seat, the
        cards it has seen per domain (a 12-bit mask: its hand and every card played this round),
        how many special cards it has seen, the revealed voids and every seat's hand size.
        Separate from the view so that a search can ask the rule bot in a sampled world
        (``rule_model``) without building a view."""
        n = len(tops)
        self.me = me
        self.n = n
        self.light = light
        self.tops = tops
        self.scores = [sum(t) for t in tops]
        self.npiles = [sum(1 for v in t if v) for t in tops]
        self.void = void
        unseen = [unseen_values(mask) for mask in seen]
        total = sum(len(vals) for vals in unseen)
        # Gaia is always seen once play is under way; 4 Mistletoes and Sickles in all.
        total += max(0, 4 + 1 - specials_seen)
        self.unseen = unseen
        self.total_unseen = max(total, 1)
        self.frac = [hand_sizes[p] / self.total_unseen for p in range(n)]
        total_tricks = HAND_SIZE[n]
        remaining = max(hand_sizes[me] - 1, 0)
        self.rem_frac = remaining / total_tricks
        progress = 1.0 - remaining / max(total_tricks - 1, 1)
        self.weight = EARLY_WEIGHT + (1.0 - EARLY_WEIGHT) * progress

    def trick_state(
        self, led: int, best_seat: int, best_val: int, lows: dict[int, int], sickles: int, k: int
    ) -> None:
        """The trick so far: led domain, who is winning it with what, the lowest (light side:
        highest) value per domain in it, its Sickles, and how many cards it holds."""
        self.led = led
        self.best_seat = best_seat
        self.best_val = best_val
        self.lows = lows
        self.sickles = sickles
        self.later = [(self.me + i) % self.n for i in range(1, self.n - k)]

    # ------------------------------------------------------------ outcomes
    def _five_value(self, seat: int) -> float:
        """A fifth domain for ``seat``: final, so not discounted."""
        loss = self.scores[seat] - FIVE_DOMAIN_SCORE
        if seat == self.me:
            return -(loss + FIVE_DOMAIN_EXTRA)
        return loss / (self.n - 1)

    def _outcome(self, winner: int, lows: dict[int, int], sickles: int) -> float:
        """Our utility if ``winner`` takes a trick holding ``lows`` (top per domain) and Sickles."""
        tops = self.tops[winner][:]
        for d, val in lows.items():
            tops[d] = val
        npiles = 0
        for v in tops:
            if v:
                npiles += 1
        if npiles == N_DOMAINS:
            return self._five_value(winner)
        for _ in range(sickles):
            high = max(tops)
            if not high:
                break
            tops[tops.index(high)] = 0
            npiles -= 1
        delta = sum(tops) - self.scores[winner]
        if winner == self.me:
            u = self.weight * delta
            if npiles == N_DOMAINS - 1 and self.npiles[winner] < N_DOMAINS - 1:
                u -= FOUR_PILE_RISK * self.rem_frac
            return u
        return -self.weight * delta / (self.n - 1)

    def _my_win(self, led: int, lows: dict[int, int], sickles: int) -> float:
        """Our utility if we end up winning: later players may still drop low cards on us."""
        later = self.later
        if not later:
            return self._outcome(self.me, lows, sickles)
        frac, void = self.frac, self.void
        adjusted = dict(lows)
        if not self.light:
            low = lows[led]
            below = [v for v in self.unseen[led] if v < low]
            if below:
                miss = 1.0
                for p in later:
                    if not void[p][led]:
                        miss *= 1.0 - GAMMA * (1.0 - (1.0 - frac[p]) ** len(below))
                q = 1.0 - miss
                mean_below = sum(below) / len(below)
                adjusted[led] = round(low - q * (low - mean_below)) or 1
        u = self._outcome(self.me, adjusted, sickles)
        # The fifth domain may come as someone's discard onto our win.
        tops = self.tops[self.me]
        missing = [d for d in range(N_DOMAINS) if not tops[d] and d not in lows]
        if len(missing) == 1:
            m = missing[0]
            n_led, n_m = len(self.unseen[led]), len(self.unseen[m])
            safe = 1.0
            for p in later:
                p_void = 1.0 if void[p][led] else (1.0 - frac[p]) ** n_led
                has_m = 0.0 if void[p][m] else 1.0 - (1.0 - frac[p]) ** n_m
                safe *= 1.0 - p_void * has_m * DISCARD_FIFTH
            if safe < 1.0:
                u = safe * u + (1.0 - safe) * self._five_value(self.me)
        return u

    # ------------------------------------------------------------- scoring
    def score(self, move: int) -> float:
        me = self.me
        lows = self.lows
        sickles = self.sickles
        led, best_seat, best_val = self.led, self.best_seat, self.best_val
        value = 0
        if move < N_DOMAIN_CARDS:
            d = move // N_VALUES
            value = move % N_VALUES + 1
            if led < 0:
                led = d
            if d == led and value > best_val:
                best_seat, best_val = me, value
            cur = lows.get(d)
            if cur is None or (value > cur if self.light else value < cur):
                lows = dict(lows)
                lows[d] = value
            u = 0.0
        elif move == PLAY_MISTLETOE:
            u = -MISTLETOE_COST * self.rem_frac
        else:
            sickles += 1
            u = -SICKLE_COST * self.rem_frac

        later = self.later
        if not later:
            return u + self._outcome(best_seat, lows, sickles) + self._shed(value, best_seat, 0.0)
        if led < 0:
            # Only specials so far: whoever plays the first domain card later decides.
            share = 1.0 / len(later)
            return u + sum(share * self._outcome(p, lows, sickles) for p in later)

        higher = 0
        for v in self.unseen[led]:
            if v > best_val:
                higher += 1
        beats: list[float] = []
        hold = 1.0
        for p in later:
            if higher and not self.void[p][led]:
                b = BETA * (1.0 - (1.0 - self.frac[p]) ** higher)
            else:
                b = 0.0
            beats.append(b)
            hold *= 1.0 - b
        if best_seat == me:
            u += hold * self._my_win(led, lows, sickles)
        else:
            u += hold * self._outcome(best_seat, lows, sickles)
        total_b = sum(beats)
        if total_b > 0.0:
            rest = (1.0 - hold) / total_b
            for p, b in zip(later, beats, strict=True):
                if b:
                    u += rest * b * self._outcome(p, lows, sickles)
        return u + self._shed(value, best_seat, hold if best_seat == me else 0.0)

    def _shed(self, value: int, best_seat: int, p_win: float) -> float:
        if not value:
            return 0.0
        if best_seat == self.me:
            return SHED * (value - 6.5) * (1.0 - p_win)
        return SHED * (value - 6.5)

    def best(self, legal: tuple[int, ...]) -> int:
        best_move = legal[0]
        best_score = self.score(best_move)
        for move in legal[1:]:
            s = self.score(move)
            if s > best_score:
                best_move, best_score = move, s
        return best_move


def _scan(plays: tuple[tuple[int, int], ...], seen: list[int], void: list[list[bool]]) -> int:
    """Mark played domain cards as seen and record voids; return how many specials were played."""
    led = -1
    specials = 0
    for seat, move in plays:
        if move < N_DOMAIN_CARDS:
            d = move // N_VALUES
            seen[d] |= 1 << (move % N_VALUES)
            if led < 0:
                led = d
            elif d != led:
                void[seat][led] = True
        elif move < PLAY_MISTLETOE:
            led = (move - GAIA_DARK) % N_DOMAINS
            specials += 1
        else:
            specials += 1
    return specials
