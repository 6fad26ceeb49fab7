"""Invariants of the engine under random legal play (hypothesis drives the seeds)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from druids_p2p.games.druids2017 import (
    GAIA,
    HAND_SIZE,
    Game,
    GameOptions,
    cards_for_move,
    deal,
)
from druids_p2p.games.druids2017.cards import N_DOMAINS, N_VALUES, PILE
from druids_p2p.games.druids2017.playout import play_random_game

seeds = st.integers(min_value=0, max_value=2**32 - 1)
players = st.sampled_from([3, 4, 5])


@settings(max_examples=60, deadline=None)
@given(seed=seeds, n=players, variant=st.booleans())
def test_random_play_never_loses_or_duplicates_a_card(seed: int, n: int, variant: bool) -> None:
    rng = random.Random(seed)
    game = Game(GameOptions(players=n, variant=variant))
    while not game.game_over:
        hands = deal(rng, n)
        dealt = {c for h in hands for c in h}
        assert GAIA in dealt and len(dealt) == n * HAND_SIZE[n]
        game.start_round(hands)
        played: list[int] = []
        steps = 0
        while not game.round_over:
            steps += 1
            assert steps < 200, "a round must end"
            legal = game.legal_moves()
            assert legal, "a live round always has a legal move"
            move = rng.choice(legal)
            rnd = game.round
            assert rnd is not None
            seat = rnd.to_move
            assert seat is not None
            before = Counter(rnd.hand(seat))
            game.play(move)
            gone = list((before - Counter(rnd.hand(seat))).elements())
            if PILE <= move < PILE + N_DOMAINS:
                assert not gone
            else:
                assert len(gone) == 1 and gone[0] in cards_for_move(move)
                played.append(gone[0])
            # Conservation: every dealt card is either still in a hand or has been played (then
            # it sits on a pile or has left play) — never both, never lost, never twice.
            in_hands = [c for seat in range(n) for c in rnd.hand(seat)]
            on_piles = [c for pile in rnd.piles for c in pile]
            assert len(set(in_hands)) == len(in_hands) and len(set(on_piles)) == len(on_piles)
            assert len(set(played)) == len(played)
            assert set(on_piles) <= set(played)
            assert not set(in_hands) & set(played)
            assert set(in_hands) | set(played) == dealt
            assert len(in_hands) + len(played) == len(dealt)
        rnd = game.round
        assert rnd is not None and rnd.scores is not None
        # Scores equal the sum of the tops (the five-domain winner: -3).
        for seat, score in enumerate(rnd.scores):
            tops = [p[-1] % N_VALUES + 1 for p in rnd.piles[seat * 5 : seat * 5 + 5] if p]
            if rnd.ended_by == "five_domains" and len(tops) == N_DOMAINS and score == -3:
                continue
            assert score == sum(tops)
    assert game.winners is not None
    assert sum(game.totals) == sum(sum(s) for s in game.round_scores)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=players, variant=st.booleans())
def test_playout_kernel_agrees_with_engine(seed: int, n: int, variant: bool) -> None:
    record: list[tuple[list[list[int]], list[int]]] = []
    totals, moves = play_random_game(random.Random(seed), n, variant, record)
    game = Game(GameOptions(players=n, variant=variant))
    count = 0
    for hands, round_moves in record:
        game.start_round(hands)
        for move in round_moves:
            assert game.check(move) is None
            game.play(move)
            count += 1
        assert game.round_over
    assert game.game_over and game.totals == totals and count == moves


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=players)
def test_view_never_shows_hidden_cards(seed: int, n: int) -> None:
    rng = random.Random(seed)
    game = Game(GameOptions(players=n))
    game.start_round(deal(rng, n))
    for _ in range(rng.randrange(60)):
        if game.round_over:
            break
        game.play(rng.choice(game.legal_moves()))
    rnd = game.round
    assert rnd is not None
    for seat in range(n):
        view = game.view(seat)
        others = {c for s in range(n) if s != seat for c in rnd.hand(s)}
        assert set(view.hand) == set(rnd.hand(seat))
        # No other seat's hidden card appears anywhere in the view's fields.
        public = {m for t in view.tricks for _, m in t[1]} | {m for _, m in view.trick}
        tops = {c for row in view.pile_tops for c in row if c is not None}
        assert not (others & (set(view.hand) | tops))
        assert not (others & {m for m in public if m < 60})
        assert view.legal == (tuple(game.legal_moves()) if game.to_move == seat else ())
        assert view.hand_sizes == tuple(len(rnd.hand(s)) for s in range(n))


def test_deal_gives_gaia_to_uniform_seats() -> None:
    rng = random.Random(1234)
    counts = Counter(next(s for s, h in enumerate(deal(rng, 4)) if GAIA in h) for _ in range(4000))
    # Chi-square with 3 degrees of freedom; 16.27 is the 0.1% critical value.
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert len(counts) == 4 and chi2 < 16.27


def test_deal_is_uniform_over_cards() -> None:
    rng = random.Random(99)
    counts: Counter[int] = Counter()
    trials = 3000
    for _ in range(trials):
        for c in deal(rng, 3)[0]:
            counts[c] += 1
    # Each non-Gaia card lands in seat 0's hand with probability (45-1)/64 * 15/45 ... by symmetry
    expected = trials * (44 / 64) / 3
    chi2 = sum((counts[c] - expected) ** 2 / expected for c in range(65) if c != GAIA)
    assert chi2 < 120.0  # 63 degrees of freedom, far above the 0.1% value (~103.4) margin
