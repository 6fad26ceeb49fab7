"""A tuned kernel for uniformly random legal play of whole games (benchmarks, rollouts): the rules
of :mod:`.rules` written for speed. Tests replay recorded kernel games through :class:`.game.Game`
move for move, so the two cannot drift apart.
"""

from __future__ import annotations

import random

from druids_p2p.games.druids2017.cards import GAIA, HAND_SIZE, ROUNDS_PER_GAME

_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(v for v in range(12) if mask >> v & 1) for mask in range(1 << 12)
)
_POP: tuple[int, ...] = tuple(len(b) for b in _BITS)
_DOMS5: tuple[tuple[int, ...], ...] = tuple(
    tuple(d for d in range(5) if mask >> d & 1) for mask in range(32)
)
_BL: tuple[int, ...] = tuple(max(m - 1, 0).bit_length() for m in range(80))
_OTHERS: tuple[int, ...] = tuple(c for c in range(65) if c != GAIA)

Record = list[tuple[list[list[int]], list[int]]]
"""Per round: (hands as card ids per seat, move ids in order)."""


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
        first = True
        for _trick in range(h):
            led = -1
            best = -1
            winner = leader
            touched = 0
            nsick = 0
            ext = [0, 0, 0, 0, 0] if light else [13, 13, 13, 13, 13]
            for s in orders[leader]:
                moves += 1
                if first:
                    first = False
                    led = getrandbits(3)
                    while led >= 5:
                        led = getrandbits(3)
                    best = 0
                    if variant and getrandbits(1):
                        light = True
                        ext = [0, 0, 0, 0, 0]
                    if rec:
                        rec_moves.append((65 if light else 60) + led)
                    continue
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
