"""Tuned kernels: uniformly random legal play of whole games (benchmarks) and the search bots'
rule-guided rollouts of one round, the rules of :mod:`.rules` written for speed. Tests replay
recorded kernel games through :class:`.game.Game` move for move, and hold the rollout kernel to
the stepwise :class:`.rollout.FastRound`, so they cannot drift apart.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from druids_p2p.games.druids2017.cards import GAIA, HAND_SIZE, ROUNDS_PER_GAME

_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(v for v in range(12) if mask >> v & 1) for mask in range(1 << 12)
)
_POP: tuple[int, ...] = tuple(len(b) for b in _BITS)
_LO: tuple[int, ...] = tuple((m & -m).bit_length() for m in range(1 << 12))
"""Value 1..12 of a mask's lowest card (0: none)."""
_HI: tuple[int, ...] = tuple(m.bit_length() for m in range(1 << 12))
"""Value 1..12 of a mask's highest card (0: none)."""
_LEAD_KEY: tuple[int, ...] = tuple(_HI[m] * 16 + _POP[m] for m in range(1 << 12))
"""The high lead's order of domains: the highest card, then the most cards (0: none)."""
_DOMS5: tuple[tuple[int, ...], ...] = tuple(
    tuple(d for d in range(5) if mask >> d & 1) for mask in range(32)
)
_ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple((lead + i) % n for i in range(n)) for lead in range(n)) for n in HAND_SIZE
}
"""Per table size, the seats in playing order from each leader."""
_BL: tuple[int, ...] = tuple(max(m - 1, 0).bit_length() for m in range(80))
_OTHERS: tuple[int, ...] = tuple(c for c in range(65) if c != GAIA)

Record = list[tuple[list[list[int]], list[int]]]
"""Per round: (hands as card ids per seat, move ids in order)."""


def playout(rng: random.Random, options: Any) -> int:
    """The spec's ``playout`` for a game's options: one whole random game's moves."""
    return play_random_game(rng, options.players, options.variant)[1]


def play_random_game(
    rng: random.Random,
    players: int = 4,
    variant: bool = False,
    record: Record | None = None,
) -> tuple[list[int], int]:
    """Play one whole game with every seat choosing uniformly among its legal moves.

    Returns (totals, number of moves). If ``record`` is given, the deal and moves of each round
    are appended to it in the engine's ids (for checking the kernel against the engine).
    """
    getrandbits = rng.getrandbits
    bits_of, pop, doms5, bl = _BITS, _POP, _DOMS5, _BL
    n = players
    h = HAND_SIZE[n]
    k = n * h
    rec = record is not None
    orders = [tuple((lead + i) % n for i in range(n)) for lead in range(n)]
    totals = [0] * n
    moves = 0
    others = list(_OTHERS)
    for _ in range(ROUNDS_PER_GAME):
        # ---- deal: k-1 of the 64 other cards, then Gaia into a uniform slot of the k.
        for i in range(k - 1):
            m = 64 - i
            b = bl[m]
            r = getrandbits(b)
            while r >= m:
                r = getrandbits(b)
            j = i + r
            others[i], others[j] = others[j], others[i]
        b = bl[k]
        slot = getrandbits(b)
        while slot >= k:
            slot = getrandbits(b)
        gseat = slot // h
        hands = [0] * (n * 5)
        mist = [0] * n
        sick = [0] * n
        dcount = [0] * n
        idx = 0
        rec_moves: list[int] = []
        if rec:
            rec_hands: list[list[int]] = []
        for s in range(n):
            cnt = h - 1 if s == gseat else h
            base = s * 5
            dc = 0
            for c in others[idx : idx + cnt]:
                if c < 60:
                    hands[base + c // 12] |= 1 << (c % 12)
                    dc += 1
                elif c < 63:
                    mist[s] += 1
                else:
                    sick[s] += 1
            dcount[s] = dc
            if rec:
                rec_hands.append(others[idx : idx + cnt] + ([GAIA] if s == gseat else []))
            idx += cnt
        if rec:
            assert record is not None
            record.append((rec_hands, rec_moves))
        # ---- play
        tops = [0] * (n * 5)
        npiles = [0] * n
        leader = gseat
        light = False
        five = -1
        # Gaia's lead opens the first trick: the others follow in it.
        gaia_led = getrandbits(3)
        while gaia_led >= 5:
            gaia_led = getrandbits(3)
        if variant and getrandbits(1):
            light = True
        if rec:
            rec_moves.append((65 if light else 60) + gaia_led)
        seats = orders[leader][1:]
        for trick in range(h):
            touched = 0
            nsick = 0
            ext = [0, 0, 0, 0, 0] if light else [13, 13, 13, 13, 13]
            winner = leader
            if trick:
                led = -1
                best = -1
                seats = orders[leader]
            else:
                led = gaia_led
                best = 0
            moves += n
            for s in seats:
                base = s * 5
                ms = mist[s]
                ss = sick[s]
                if led >= 0 and hands[base + led]:
                    mask = hands[base + led]
                    pc = pop[mask]
                    cnt = pc + (ms > 0) + (ss > 0)
                    b = bl[cnt]
                    r = getrandbits(b)
                    while r >= cnt:
                        r = getrandbits(b)
                    if r < pc:
                        dom = led
                        v = bits_of[mask][r]
                    else:
                        dom = -1
                        v = 0 if (r == pc and ms) else 1
                else:
                    dc = dcount[s]
                    cnt = dc + (ms > 0) + (ss > 0)
                    b = bl[cnt]
                    r = getrandbits(b)
                    while r >= cnt:
                        r = getrandbits(b)
                    if r < dc:
                        dom = 0
                        mask = hands[base]
                        pc = pop[mask]
                        while r >= pc:
                            r -= pc
                            dom += 1
                            mask = hands[base + dom]
                            pc = pop[mask]
                        v = bits_of[mask][r]
                    else:
                        dom = -1
                        v = 0 if (r == dc and ms) else 1
                if dom >= 0:
                    hands[base + dom] ^= 1 << v
                    dcount[s] -= 1
                    val = v + 1
                    if led < 0:
                        led = dom
                    if dom == led and val > best:
                        best = val
                        winner = s
                    if light:
                        if val > ext[dom]:
                            ext[dom] = val
                    elif val < ext[dom]:
                        ext[dom] = val
                    touched |= 1 << dom
                    if rec:
                        rec_moves.append(dom * 12 + v)
                elif v == 0:
                    mist[s] = ms - 1
                    if rec:
                        rec_moves.append(70)
                else:
                    sick[s] = ss - 1
                    nsick += 1
                    if rec:
                        rec_moves.append(71)
            # ---- take the trick
            wb = winner * 5
            for dom in doms5[touched]:
                if not tops[wb + dom]:
                    npiles[winner] += 1
                tops[wb + dom] = ext[dom]
            if npiles[winner] == 5:
                five = winner
                break
            while nsick:
                nsick -= 1
                top5 = tops[wb : wb + 5]
                mx = max(top5)
                if not mx:
                    break
                if top5.count(mx) > 1:
                    tied = [d for d in range(5) if top5[d] == mx]
                    cnt = len(tied)
                    b = bl[cnt]
                    r = getrandbits(b)
                    while r >= cnt:
                        r = getrandbits(b)
                    dom = tied[r]
                    moves += 1
                    if rec:
                        rec_moves.append(72 + dom)
                else:
                    dom = top5.index(mx)
                tops[wb + dom] = 0
                npiles[winner] -= 1
            leader = winner
        for s in range(n):
            if s == five:
                totals[s] -= 3
            else:
                base = s * 5
                totals[s] += (
                    tops[base] + tops[base + 1] + tops[base + 2] + tops[base + 3] + tops[base + 4]
                )
    return totals, moves


class RoundState(Protocol):
    """The fields of :class:`.rollout.FastRound` the rollout kernel reads, plays on and writes
    back (a protocol, so that this module does not import that one, which imports it)."""

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


def _drop_highest_piles(tops: list[int], npiles: list[int], seat: int, count: int) -> None:
    """The policy's Sickles on ``seat``: its highest pile removed ``count`` times, the first of
    equal tops first, while any is left."""
    base = seat * 5
    for _ in range(count):
        top5 = tops[base : base + 5]
        mx = max(top5)
        if not mx:
            return
        tops[base + top5.index(mx)] = 0
        npiles[seat] -= 1


def policy_rollout(
    state: RoundState,
    rand: Callable[[], float],
    randrange: Callable[[int], int],
    high_lead: bool,
    limit: int,
) -> list[int]:
    """The round's scores after :mod:`.rollout`'s policy plays it out, fused into one loop over
    local integers because a call per move cost more than the move; the same ``rand`` and
    ``randrange`` calls as the stepwise path (``high_lead``: ``ModelRound``'s lead)."""
    n = state.n
    last = n - 1
    hands, mist, sick, dcount = state.hands, state.mist, state.sick, state.dcount
    tops, npiles = state.tops, state.npiles
    leader, to_move, pos = state.leader, state.to_move, state.pos
    led, best, winner, touched = state.led, state.best, state.winner, state.touched
    ext, nsick, light = state.ext, state.nsick, state.light
    tricks_left, pending, gaia_seat = state.tricks_left, state.pending, state.gaia_seat
    pop, bits_of, doms5, lows, highs, lead_keys = _POP, _BITS, _DOMS5, _LO, _HI, _LEAD_KEY
    ended = False
    if pending:  # a tied Sickle choice: the policy removes the first highest pile
        _drop_highest_piles(tops, npiles, winner, pending)
        pending = 0
        ended = tricks_left == 0
    if gaia_seat >= 0:  # Gaia's lead: its dark side, naming the seat's longest domain
        base = to_move * 5
        dom, cnt = 0, pop[hands[base]]
        for d in (1, 2, 3, 4):
            if pop[hands[base + d]] > cnt:
                dom, cnt = d, pop[hands[base + d]]
        light = False
        ext = [13, 13, 13, 13, 13]
        gaia_seat = -1
        led = dom
        if best < 0:
            best, winner = 0, to_move
        pos += 1
    orders = _ORDERS[n]
    tricks = 0
    while not ended:
        tricks += 1
        if tricks > limit:
            raise RuntimeError("rollout did not end")  # pragma: no cover - rounds are finite
        for s in orders[leader][pos:]:
            base = s * 5
            # The choice: a domain card (dom, v) or dom -1 with v 0, a Mistletoe, v 1, a Sickle.
            if rand() < 0.1:  # uniformly among the legal moves, in their ascending order
                ms, ss = mist[s], sick[s]
                dom, v = -1, 1
                mask = hands[base + led] if led >= 0 else 0
                if mask:
                    pc = pop[mask]
                    r = randrange(pc + (ms > 0) + (ss > 0))
                    if r < pc:
                        dom, v = led, bits_of[mask][r]
                    elif r == pc and ms:
                        v = 0
                else:
                    pc = dcount[s]
                    r = randrange(pc + (ms > 0) + (ss > 0))
                    if r < pc:
                        dom = 0
                        mask = hands[base]
                        while r >= pop[mask]:
                            r -= pop[mask]
                            dom += 1
                            mask = hands[base + dom]
                        v = bits_of[mask][r]
                    elif r == pc and ms:
                        v = 0
            elif (
                sick[s]
                and pos == last
                and winner != s
                and max(tops[winner * 5 : winner * 5 + 5]) >= 8
            ):
                dom, v = -1, 1  # a Sickle on an opponent's trick with a high pile
            elif led >= 0 and (mask := hands[base + led]):
                lo = lows[mask]
                hi = highs[mask]
                dom, v = led, lo - 1
                if hi > best:
                    good = False
                    if pos == last or hi >= 11:  # would winning now raise this seat's piles?
                        gain = new = 0
                        for d in doms5[touched | (1 << led)]:
                            cur = ext[d]
                            if d == led:
                                if light:
                                    cur = cur if cur > hi else hi
                                elif hi < cur:
                                    cur = hi
                            old = tops[base + d]
                            if not old:
                                new += 1
                            gain += cur - old
                        good = npiles[s] + new < 5 and gain - 3 * nsick > 0
                    if good:
                        v = hi - 1
                    elif lo > best and mist[s]:
                        dom, v = -1, 0
            elif dcount[s]:
                if pos == 0 and high_lead:  # the highest card, ties to the longest domain
                    dom, key = 0, lead_keys[hands[base]]
                    for d in (1, 2, 3, 4):
                        if lead_keys[hands[base + d]] > key:
                            dom, key = d, lead_keys[hands[base + d]]
                    v = highs[hands[base + dom]] - 1
                elif pos == 0:  # the lowest card of the longest domain
                    dom, cnt = 0, pop[hands[base]]
                    for d in (1, 2, 3, 4):
                        if pop[hands[base + d]] > cnt:
                            dom, cnt = d, pop[hands[base + d]]
                    v = lows[hands[base + dom]] - 1
                else:  # void: feed the lowest card
                    dom, val = -1, 99
                    for d in (0, 1, 2, 3, 4):
                        low = lows[hands[base + d]]
                        if low and low < val:
                            dom, val = d, low
                    v = val - 1
            else:
                dom, v = -1, 0 if mist[s] else 1
            # ---- the move
            if dom >= 0:
                hands[base + dom] ^= 1 << v
                dcount[s] -= 1
                v += 1
                if led < 0:
                    led = dom
                if dom == led and v > best:
                    best, winner = v, s
                if light:
                    if v > ext[dom]:
                        ext[dom] = v
                elif v < ext[dom]:
                    ext[dom] = v
                touched |= 1 << dom
            elif v:
                sick[s] -= 1
                nsick += 1
            else:
                mist[s] -= 1
            pos += 1
        # ---- the trick is taken
        w = winner
        wb = w * 5
        for d in doms5[touched]:
            if not tops[wb + d]:
                npiles[w] += 1
            tops[wb + d] = ext[d]
        tricks_left -= 1
        leader = to_move = w
        pos, led, best, touched = 0, -1, -1, 0
        ext = [0, 0, 0, 0, 0] if light else [13, 13, 13, 13, 13]
        if npiles[w] == 5:
            pending, tricks_left = 0, -1
            break
        if nsick:
            _drop_highest_piles(tops, npiles, w, nsick)
        pending = nsick = 0
        ended = tricks_left == 0
    state.leader, state.to_move, state.pos = leader, to_move, pos
    state.led, state.best, state.winner, state.touched = led, best, winner, touched
    state.ext, state.nsick, state.light = ext, nsick, light
    state.tricks_left, state.pending, state.gaia_seat = tricks_left, pending, gaia_seat
    scores = [sum(tops[b : b + 5]) for b in range(0, n * 5, 5)]
    if tricks_left < 0:
        scores[winner] = -3
    return scores
