"""The game file of issue 31 replayed (exit 0 with result, legal moves and position; 1 naming the
first illegal move; ReplayInputError, one line, for a malformed file) and the demo's telling."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from druids_p2p.games.druids2016.board import default_board, random_setup
from druids_p2p.games.druids2016.game import Game
from druids_p2p.games.druids2016.replay import (
    ReplayInputError,
    demo_lines,
    game_record,
    play_out,
    random_policy,
    replay,
)

START: dict[str, Any] = {
    "first": 1,
    "tiles": "CMFCR",
    "placement": {"0": ["c7", "a7", "e7"], "1": ["c1", "b1", "d1"]},
    "moves": [],
}


def run(**changes: Any) -> tuple[int, dict[str, Any]]:
    return replay(json.dumps({**START, **changes}))


def test_replay_the_start_position_and_its_legal_moves() -> None:
    code, out = run()
    assert code == 0 and out["result"] is None
    position = out["position"]
    assert position["to_move"] == 1 and position["first"] == 1  # player 1 sits at row 1
    assert position["tiles"] == {"a3": "M", "e3": "C", "c4": "C", "a5": "F", "e5": "R"}
    assert {"square": "c1", "facing": "s", "master": True} in position["druids"]["1"]
    assert {"square": "a7", "facing": "n", "master": False} in position["druids"]["0"]
    assert "c1s" not in out["legal"] and "c1n" in out["legal"]  # c1 faces s; c2 is free
    assert "d1e" in out["legal"] and "b1n Fa2" in out["legal"]


def test_replay_exit_1_names_the_first_illegal_move() -> None:
    code, out = run(moves=["d1e", "c7s", "c1s", "e7w"])
    assert code == 1 and out["move"] == 2
    assert out["error"].startswith("move 2 (c1s) is illegal:") and "faces s" in out["error"]


def test_replay_a_move_after_the_end_is_illegal() -> None:
    rng = random.Random(5)
    board = default_board()
    game = play_out(Game(random_setup(rng, board), board), random_policy(rng))
    record = game_record(game)
    code, out = replay(json.dumps({**record, "moves": [*record["moves"], record["moves"][-2]]}))
    assert code == 1 and "the game is over" in out["error"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not valid JSON"),
        ("[]", "JSON object"),
        (json.dumps({**START, "extra": 1}), "unknown key"),
        (json.dumps({k: v for k, v in START.items() if k != "tiles"}), "lacks 'tiles'"),
        (json.dumps({**START, "first": 2}), "'first' must be 0 or 1"),
        (json.dumps({**START, "first": 1.0}), "'first' must be 0 or 1"),
        (json.dumps({**START, "first": 0.0}), "'first' must be 0 or 1"),
        (json.dumps({**START, "first": True}), "'first' must be 0 or 1"),
        (json.dumps({**START, "tiles": "CCMFF"}), "'tiles' must be"),
        (json.dumps({**START, "placement": {"0": ["c7", "a7"], "1": ["c1", "b1", "d1"]}}), "3"),
        (
            json.dumps({**START, "placement": {"0": ["c7", "a7", "e7"], "1": ["c1", "b1", "d2"]}}),
            "row 1",
        ),
        (
            json.dumps({**START, "placement": {"0": ["b7", "a7", "e7"], "1": ["c1", "b1", "d1"]}}),
            "Temple",
        ),
        (
            json.dumps({**START, "placement": {"0": ["c7", "a7", "x9"], "1": ["c1", "b1", "d1"]}}),
            "no square",
        ),
        (json.dumps({**START, "moves": ["d1e", 5]}), "move 1"),
        (json.dumps({**START, "moves": ["d1 e"]}), "is no move"),
        (json.dumps({**START, "board": ". . T . ."}), "the game file's board"),
    ],
)
def test_replay_a_malformed_file_is_one_line_error(text: str, says: str) -> None:
    with pytest.raises(ReplayInputError) as caught:
        replay(text)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_replay_a_board_in_the_file_replaces_the_default() -> None:
    swapped = ["..T..", ".F.M.", "..R..", "*C*C*", "..R..", ".M.F.", "..T.."]  # M and F swapped
    code, out = run(board=swapped, moves=["b1n Fa2"])
    assert code == 1 and "moves a M tile, not F" in out["error"]  # b2 is a Mountain symbol here
    code, out = run(board="\n".join(swapped), moves=["b1n Ma2"])
    assert code == 0 and out["position"]["tiles"]["a2"] == "M"


def test_replay_a_played_game_record_reproduces_its_result() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        board = default_board()
        game = play_out(Game(random_setup(rng, board), board), random_policy(rng))
        assert game.result is not None
        code, out = replay(json.dumps(game_record(game)))
        assert code == 0 and out["result"] == game.result.json() and out["legal"] == []


def test_demo_tells_a_whole_game_the_same_for_the_same_seed() -> None:
    lines = list(demo_lines(11, default_board()))
    assert lines == list(demo_lines(11, default_board()))
    assert lines[0].startswith("Druids (2016), Terrain Only:")
    assert lines[-1].startswith(("P0 wins", "P1 wins", "Drawn"))
    assert any(line.strip().startswith("1. P") for line in lines)
