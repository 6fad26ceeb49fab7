"""Druids (2004) invariants under random legal play, hypothesis driving seeds and options.

Cards are never lost or duplicated across hands, piles, places, reserves, discards, the won amulets
and the box; scores equal the amulets handed out; views never show another seat's hidden card;
every game ends; a game's record replays it exactly from its orders alone.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from druids_p2p.games.druids2004.cards import N_CARDS, is_gem, servant_owner
from druids_p2p.games.druids2004.hidden import known_to
from druids_p2p.games.druids2004.notation import dumps, replay_game
from druids_p2p.games.druids2004.setup import (
    ENDED_COLUMN,
    TIE_ORDERS,
    Options,
    RitualDone,
    random_setup,
)
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import HIDDEN

seeds = st.integers(min_value=0, max_value=2**32 - 1)
options = st.builds(
    Options,
    players=st.sampled_from([2, 3, 4]),
    spaces_per_card=st.sampled_from([1, 2, 5]),
    tie_order=st.sampled_from(TIE_ORDERS),
    servants_return=st.booleans(),
)
MAX_STEPS = 3000


def every_card(game: Game2004) -> list[int]:
    """Every card wherever it lies (a card in two places shows up twice)."""
    found: list[int] = [c for hand in game.hands for c in hand]
    found += game.pile + game.supply + [c for r in game.reserves for c in r]
    for slot in game.row:
        if slot is not None:
            found += [slot.place, *(g for _, g in slot.gems), *slot.servants]
    found += [g for _, g in game.discards] + game.out + [c for w in game.won for c in w]
    found += list(game.box)
    return found


def check_invariants(game: Game2004) -> None:
    cards = every_card(game)
    assert sorted(cards) == list(range(N_CARDS)), "a card was lost or duplicated"
    won = [len(w) for w in game.won]
    rituals = [r for r in game.log if isinstance(r, RitualDone)]
    points = [0] * game.players
    for r in rituals:
        for share in r.shares:
            points[share.owner] += share.points
    assert points == game.scores
    if game.ended_by == ENDED_COLUMN:
        mover = rituals[-1].shares[-1].owner
        assert all(won[s] == game.scores[s] for s in range(game.players) if s != mover)
        assert game.scores[mover] <= won[mover]
    else:
        assert won == game.scores, "scores equal the amulets handed out"
    assert all(len(h) <= 7 for h in game.hands)
    # The ends come at once: a live game never has nothing left to score, an empty row or a
    # stall it has not noticed.
    if not game.game_over:
        assert not game._nothing_left_now(), "nothing is left to score but the game goes on"
        assert sum(p is not None for p in game.row) + len(game.supply) > 1
        assert game.idle_turns < game.players
    assert all(game.base <= s < game.base + 6 * game.options.spaces_per_card for s in game.scores)


def check_view(game: Game2004, seat: int) -> None:
    view = game.view(seat)
    assert set(view.hand) == set(game.hands[seat])
    for place in view.row:
        if place is None:
            continue
        for owner, gem in place.gems:
            assert (gem != HIDDEN) == (owner == seat)
        for owner, servant in place.servants:
            assert (servant != HIDDEN) == (owner == seat)
            assert servant == HIDDEN or servant_owner(servant) == owner
    assert view.hand_gems == tuple(sum(1 for c in h if is_gem(c)) for h in game.hands)
    for card in view.hand:
        assert seat in known_to(game, card)


@settings(max_examples=150, deadline=None)
@given(seed=seeds, opts=options)
def test_random_play_keeps_every_card_and_every_point(seed: int, opts: Options) -> None:
    rng = random.Random(seed)
    game = Game2004(random_setup(rng, opts.players), opts)
    for _step in range(MAX_STEPS):
        check_invariants(game)
        while game.pending_reshuffle is not None:
            assert game.to_move is None and game.legal_moves() == []
            game.shuffle_reserve_random(rng)
        if game.game_over:
            break
        seat = game.to_move
        assert seat is not None
        legal = game.legal_moves()
        assert legal, "a live game always has a legal move"
        check_view(game, rng.randrange(game.players))
        move = rng.choice(legal)
        assert game.check(move) is None
        game.play(move)
    else:
        raise AssertionError(f"the game did not end within {MAX_STEPS} operations")
    check_invariants(game)
    assert game.winners and game.to_move is None and game.legal_moves() == []


@settings(max_examples=25, deadline=None)
@given(seed=seeds, opts=options)
def test_a_record_replays_the_game_exactly(seed: int, opts: Options) -> None:
    from druids_p2p.games.druids2004.ruleset import play_random

    rng = random.Random(seed)
    game = Game2004(random_setup(rng, opts.players), opts)
    play_random(game, rng)
    code, result, again = replay_game(dumps(game))
    assert code == 0 and result["finished"]
    assert again.log == game.log and again.scores == game.scores
    assert result["ended_by"] == game.ended_by and result["winners"] == game.winners


@settings(max_examples=25, deadline=None)
@given(seed=seeds, n=st.sampled_from([2, 3, 4]))
def test_every_illegal_move_is_refused_with_a_reason(seed: int, n: int) -> None:
    """Off the legal list, check() always names a reason and play() changes nothing."""
    rng = random.Random(seed)
    game = Game2004(random_setup(rng, n), Options(players=n))
    for _ in range(60):
        while game.pending_reshuffle is not None:
            game.shuffle_reserve_random(rng)
        if game.game_over:
            break
        legal = set(game.legal_moves())
        for move in rng.sample(range(603), 40):
            reason = game.check(move)
            assert (reason is None) == (move in legal), (move, reason)
        game.play(rng.choice(sorted(legal)))
