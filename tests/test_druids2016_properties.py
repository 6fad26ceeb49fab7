"""Druids (2016) invariants under random legal play, hypothesis choosing seeds and quiet limits.

Never two Druids on a square; always the five tiles (two Clouds), on distinct squares, none on a
symbol; every game ends within its bound; every legal move passes ``check`` and its token is its
own; undo restores the position exactly; a game's own tokens, replayed, reproduce it.
"""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from druids_p2p.games.druids2016.board import default_board, random_setup
from druids_p2p.games.druids2016.game import Game, Options
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.replay import game_record, play_out, random_policy, replay_game
from druids_p2p.games.druids2016.view import position_json

BOARD = default_board()
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def snapshot(game: Game) -> tuple[object, ...]:
    return (
        list(game.pos),
        list(game.face),
        list(game.occ),
        list(game.tile),
        list(game.tile_sq),
        game.side,
        game.ply,
        game.quiet,
        game.result,
        dict(game.counts),
    )


def check_invariants(game: Game) -> None:
    alive = [p for p in game.pos if p >= 0]
    assert len(alive) == len(set(alive)), "two Druids on one square"
    assert all(game.occ[p] == d for d, p in enumerate(game.pos) if p >= 0)
    assert sum(o >= 0 for o in game.occ) == len(alive)
    assert len(set(game.tile_sq)) == 5, "a tile lost or two on one square"
    assert Counter(game.tile[s] for s in game.tile_sq) == Counter(game.tile_kind)
    assert sorted(game.tile_kind) == [1, 2, 3, 3, 4]
    assert sum(1 for t in game.tile if t) == 5
    assert all(BOARD.tile_ok[s] or s in BOARD.starts for s in game.tile_sq)
    assert all(game.tile[p] != 1 for p in alive), "a Druid on the Mountain"
    assert game.pos[game.master[0]] >= 0 or game.result is not None
    assert game.pos[game.master[1]] >= 0 or game.result is not None


@settings(max_examples=40, deadline=None)
@given(seed=seeds, quiet=st.sampled_from([200, 30, 5]))
def test_properties_invariants_hold_and_every_game_ends(seed: int, quiet: int) -> None:
    rng = random.Random(seed)
    options = Options(quiet_moves=quiet)
    game = Game(random_setup(rng, BOARD), BOARD, options)
    check_invariants(game)
    while game.result is None:
        assert game.ply < options.max_moves, "the game outran its bound"
        codes = game.legal_codes()
        assert codes and len(codes) == len(set(codes))
        tokens = [Move.from_code(c).token() for c in codes]
        assert len(set(tokens)) == len(tokens)
        for code in rng.sample(codes, min(3, len(codes))):
            move = Move.from_code(code)
            assert Move.from_token(move.token()) == move
            assert game.check(move) is None
            before = snapshot(game)
            game.play_code(code)
            check_invariants(game)
            game.undo()
            assert snapshot(game) == before
        game.play_code(rng.choice(codes))
        check_invariants(game)
    assert game.ply <= options.max_moves and game.legal_codes() == []


@settings(max_examples=40, deadline=None)
@given(seed=seeds)
def test_properties_replaying_a_games_own_tokens_reproduces_it(seed: int) -> None:
    rng = random.Random(seed)
    game = play_out(Game(random_setup(rng, BOARD), BOARD), random_policy(rng))
    code, out, again = replay_game(json.dumps(game_record(game)))
    assert code == 0
    assert again.key() == game.key() and again.result == game.result
    assert out["position"] == position_json(game)
    while game.history:
        game.undo()
    fresh = Game(game.setup, BOARD)
    assert snapshot(game) == snapshot(fresh)


@settings(max_examples=30, deadline=None)
@given(seed=seeds)
def test_properties_check_refuses_exactly_the_moves_not_generated(seed: int) -> None:
    rng = random.Random(seed)
    game = Game(random_setup(rng, BOARD), BOARD)
    for _ in range(40):
        if game.result is not None:
            break
        legal = set(game.legal_codes())
        for _ in range(30):
            kind = rng.choice([None, "M", "F", "C", "R"])
            source = rng.randrange(35) if kind == "C" else None
            target = rng.randrange(35) if kind else None
            move = Move(rng.randrange(35), rng.randrange(4), kind, source, target)
            assert (game.check(move) is None) == (move.code in legal)
        game.play_code(rng.choice(sorted(legal)))
