"""Druids (2016) behind the seam: interned move values (steps and placements), the in-process
game with placements hidden from each other, the bots in the one loop, and every game's record
replayed to the same end."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from druids2016_registered import register

from druids_p2p.bots.host import RandomBot
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.games.druids2016 import SPEC
from druids_p2p.games.druids2016.game import Options2016
from druids_p2p.games.druids2016.moves import PLACE, Move
from druids_p2p.games.druids2016.state import Druids2016State
from druids_p2p.games.druids2016.view import PLACING, PLAYING
from druids_p2p.games.registry import game_spec


@pytest.fixture(scope="module")
def meta(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from register(tmp_path_factory.mktemp("meta"))


@pytest.mark.parametrize("token", ["b1e", "b1n Fd3", "b3n Ca5>d3", "@b1", "@e7"])
def test_a_move_value_is_one_object_per_id_and_round_trips(token: str) -> None:
    move = Move.from_token(token)
    assert move.token() == token and Move.of(move.id) is move
    assert pickle.loads(pickle.dumps(move)) is move and copy.deepcopy(move) is move
    assert move.placement == token.startswith("@")


@pytest.mark.parametrize("token", ["b1", "@b8", "b1e ", "b1n  Fd3", "@", PLACE])
def test_a_token_that_is_no_move_is_refused(token: object) -> None:
    with pytest.raises(ValueError):
        Move.from_token(token)  # type: ignore[arg-type]


def test_placements_are_hidden_from_the_other_player_until_both_are_in() -> None:
    rules = SPEC.rules
    assert isinstance(rules, type(SPEC.rules))
    state = rules.start(Options2016(), lambda purpose, i: random.Random(f"{purpose} {i}"))
    assert isinstance(state, Druids2016State)
    first = state.first
    assert state.to_move == first and state.view(first).phase == PLACING
    choice = state.view(first).legal[0]
    assert state.check(PLACE + state.board.temples[0]) is not None  # the Temple is the Master's
    state.play(choice)
    assert state.view(first).placed == (Move.of(choice).square,)
    assert state.view(1 - first).placed == () and state.view(1 - first).legal == ()
    state.play(state.view(first).legal[0])
    assert state.to_move == 1 - first and state.view(1 - first).placed == ()
    for _ in range(2):
        state.play(state.view(1 - first).legal[0])
    view = state.view(first)
    assert view.phase == PLAYING and len(view.druids) == 6 and view.setup is not None
    assert view.legal == tuple(view.game().legal_codes())


@pytest.mark.parametrize("bots", [("rule", "search"), ("search", "random")])
def test_the_bots_play_whole_games_in_the_one_loop_and_each_record_replays(
    meta: Path, bots: tuple[str, str]
) -> None:
    spec = game_spec("druids2016")
    factories = [spec.bots.get(b, RandomBot) for b in bots]
    for seed in range(2):
        result = play_local_game(factories, Options2016(), seed, game="druids2016")
        state = result.state
        assert isinstance(state, Druids2016State) and state.game_over
        record = spec.rules.record(state, [], [])
        code, out = spec.rules.replay(__import__("json").dumps(record))
        assert code == 0 and out["result"]["reason"] == state.ended_by
        assert sum(state.totals) == 2
