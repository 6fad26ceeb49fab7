"""Uniformity of the deal: the permutation function, the two-pass plan, and real deals.

Seeds are fixed, so these tests are deterministic; the thresholds are chi-square quantiles at
p = 1e-4 (Wilson-Hilferty), and a deliberately biased shuffle is shown to fail the same test so
that passing means something.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter

import pytest
from deck_local import LocalBus, deal, make_table, seeded_entropy
from druids_p2p.deck.assign import assignment_permutation
from druids_p2p.deck.peer import Entropy

from druids_p2p.deck import Assignment, DeckParams
from druids_p2p.deck.shuffle import ByteStream, derive_permutation, fisher_yates, uniform_below

HAND = {3: 15, 4: 14, 5: 13}
GAIA = 60


def chi2_critical(df: int, z: float = 3.719) -> float:
    """Upper quantile of chi-square(df) at the normal quantile z (z = 3.719: p = 1e-4)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def chi2(counts: list[int], expected: list[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(counts, expected, strict=True))


def seed_of(*parts: int) -> bytes:
    return hashlib.sha256(b"stats" + b"".join(p.to_bytes(4, "big") for p in parts)).digest()


def druids(players: int) -> DeckParams:
    return DeckParams(b"S" * 32, 1, 65, players, HAND[players], frozenset({GAIA}))


def plain_deal(params: DeckParams, seeds: list[bytes]) -> list[int]:
    """The deal on card ids, with the same permutations and plan as the encrypted deal."""
    cards = list(params.shuffled_cards())
    for seat in range(params.seats):
        perm = derive_permutation(params, seat, 1, seeds[seat], len(cards))
        cards = [cards[perm[t]] for t in range(params.shuffle_len)]
    return cards[: params.kept] + list(params.required_sorted)


# ------------------------------------------------------------------------ the permutation itself
def test_small_permutations_are_exactly_uniform() -> None:
    params = druids(3)
    counts = Counter(
        tuple(derive_permutation(params, 0, 1, seed_of(i), 4)) for i in range(24 * 400)
    )
    assert len(counts) == 24
    assert chi2(list(counts.values()), [400.0] * 24) < chi2_critical(23)


def test_positions_of_a_65_card_shuffle_are_uniform() -> None:
    params = druids(5)
    runs = 65 * 60
    grid = [[0] * 65 for _ in range(65)]
    for i in range(runs):
        for pos, card in enumerate(derive_permutation(params, 2, 1, seed_of(7, i), 65)):
            grid[card][pos] += 1
    flat = [c for row in grid for c in row]
    assert chi2(flat, [runs / 65] * len(flat)) < chi2_critical(64 * 64)


def test_the_statistic_rejects_a_biased_shuffle() -> None:
    """Sattolo's variant (j < i) never leaves a card in place: the same test must catch it."""
    runs = 65 * 60
    grid = [[0] * 65 for _ in range(65)]
    for i in range(runs):
        stream = ByteStream(b"biased", seed_of(9, i))
        perm = list(range(65))
        for k in range(64, 0, -1):
            j = uniform_below(stream, k)
            perm[k], perm[j] = perm[j], perm[k]
        for pos, card in enumerate(perm):
            grid[card][pos] += 1
    flat = [c for row in grid for c in row]
    assert chi2(flat, [runs / 65] * len(flat)) > chi2_critical(64 * 64)


def test_uniform_below_has_no_modulo_bias() -> None:
    stream = ByteStream(b"bias", b"x")
    counts = Counter(uniform_below(stream, 3) for _ in range(30_000))
    assert chi2([counts[v] for v in range(3)], [10_000.0] * 3) < chi2_critical(2)
    assert fisher_yates(ByteStream(b"one", b""), 1) == [0]


# ------------------------------------------------------------------------ the deal plan
@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("honest", ["all", "one"])
def test_gaia_seat_hand_index_and_cards_are_uniform(players: int, honest: str) -> None:
    """With one honest seat among fixed-seed cheaters, the deal is still uniform. Gaia sits at
    the public position k-1 (deck.md §6.3); which seat holds it and where it falls in that
    seat's hand come from the salted assignment alone, and are uniform."""
    params = druids(players)
    k, h = params.dealt, params.hand_size
    runs = 3000
    gaia_index: Counter[int] = Counter()
    first_card: Counter[int] = Counter()
    dealt: Counter[int] = Counter()
    gaia_seat: Counter[int] = Counter()
    for i in range(runs):
        if honest == "all":
            seeds = [seed_of(players, i, s) for s in range(players)]
            salts = [seed_of(players, i, s, 1) for s in range(players)]
        else:  # every seat but one reuses the same seed and salt every deal
            good = i % players
            seeds = [seed_of(players, i, s) if s == good else bytes(32) for s in range(players)]
            salts = [seed_of(players, i, s, 1) if s == good else bytes(32) for s in range(players)]
        cards = plain_deal(params, seeds)
        assert len(set(cards)) == k and cards.index(GAIA) == params.required_position(GAIA)
        assignment = Assignment.derive(params, salts)
        gaia_seat[assignment.owner(k - 1)] += 1
        gaia_index[assignment.index(k - 1)] += 1
        first_card[cards[0]] += 1
        dealt.update(cards)
    seats = [gaia_seat[s] for s in range(players)]
    assert chi2(seats, [runs / players] * players) < chi2_critical(players - 1)
    assert chi2([gaia_index[t] for t in range(h)], [runs / h] * h) < chi2_critical(h - 1)
    # position 0 holds each non-required card with probability 1/64
    assert chi2([first_card[c] for c in range(65) if c != GAIA], [runs / 64] * 64) < chi2_critical(
        63
    )
    if k < 65:  # every non-required card is out of the round equally often
        out = [runs - dealt[c] for c in range(65) if c != GAIA]
        expected = runs * (65 - k) / 64
        assert chi2(out, [expected] * 64) < chi2_critical(63)


# ------------------------------------------------------------------------ real encrypted deals
@pytest.mark.slow
def test_encrypted_deals_follow_the_plain_model() -> None:
    """The crypto path deals exactly what the plan says for the revealed seeds, Gaia included."""
    gaia_seats: Counter[int] = Counter()
    for i in range(12):
        players = 3 + i % 3
        params = DeckParams(seed_of(i), i, 65, players, HAND[players], frozenset({GAIA}))

        def entropy(s: int, i: int = i) -> Entropy:
            return seeded_entropy(seed_of(100, i, s))

        peers = make_table(params, entropy=entropy)
        bus = deal(peers)
        for p in peers:
            bus.post(p.seat, [p.reveal()])
        bus.run()
        result = peers[0].audit()
        seeds = [peers[0].log.reveals[s].msg.seed for s in range(players)]
        assert list(result.deal) == plain_deal(params, seeds)
        assert [list(h) for h in result.hands] == [list(p.hand()) for p in peers]
        gaia_seats[next(s for s, h in enumerate(result.hands) if GAIA in h)] += 1
    assert sum(gaia_seats.values()) == 12


def test_local_bus_counts_every_message() -> None:
    params = druids(3)
    peers = make_table(params)
    bus = LocalBus(peers)
    bus.start()
    bus.run()
    # commit, key, one shuffle, salt and shares from each of 3 seats
    assert bus.messages == 3 * 5


# ------------------------------------------------------------------------ the position assignment
def test_small_assignments_are_exactly_uniform() -> None:
    """k = 4 positions: all 24 assignments occur equally often as the salts vary."""
    params = DeckParams(b"S" * 32, 1, 4, 2, 2)
    runs = 24 * 400
    counts = Counter(
        tuple(assignment_permutation(params, [seed_of(11, i), bytes(32)])) for i in range(runs)
    )
    assert len(counts) == 24
    assert chi2(list(counts.values()), [400.0] * 24) < chi2_critical(23)


@pytest.mark.parametrize("players", [3, 5])
def test_assignment_is_uniform_with_one_honest_salt(players: int) -> None:
    """Every other seat fixes its salt: each position still lands at a uniform rank of the
    assignment, so a given position (one a last shuffler would plant a copy at) goes to a
    uniform seat."""
    params = druids(players)
    k, n = params.dealt, players
    runs = k * 60
    grid = [[0] * k for _ in range(k)]
    seat_of_zero: Counter[int] = Counter()
    for i in range(runs):
        good = i % n
        salts = [seed_of(12, i, s) if s == good else bytes([s]) * 32 for s in range(n)]
        a = Assignment.derive(params, salts)
        assert sorted(a.perm) == list(range(k))
        for rank, j in enumerate(a.perm):
            grid[j][rank] += 1
        seat_of_zero[a.owner(k - 1)] += 1
    flat = [c for row in grid for c in row]
    assert chi2(flat, [runs / k] * len(flat)) < chi2_critical(k * k - 1)
    assert chi2([seat_of_zero[s] for s in range(n)], [runs / n] * n) < chi2_critical(n - 1)


def test_assignment_layout() -> None:
    """Seat s holds perm[s], perm[s+n], ... in that order; owner and index invert it."""
    params = druids(4)
    a = Assignment.derive(params, [bytes([s]) * 32 for s in range(4)])
    for s in range(4):
        assert a.positions(s) == tuple(a.perm[s::4])
        for t, j in enumerate(a.positions(s)):
            assert a.owner(j) == s and a.index(j) == t
    assert sorted(j for s in range(4) for j in a.positions(s)) == list(range(params.dealt))
    # every salt matters, and so does their order
    b = Assignment.derive(params, [bytes([s]) * 32 for s in (1, 0, 2, 3)])
    assert a.perm != b.perm
