"""Every ruling of RULINGS-2016.md on hand-set positions: each test names the section it checks.

Board (default): Temples c1/c7, Stars a4 c4 e4, symbols b2 F, d2 M, c3 R, b4 C, d4 C, c5 R, b6 M,
d6 F. Player 0 sits at row 1 (north is towards row 7). Tiles as ``druids2016_positions.TILES``
unless a test lays its own.
"""

from __future__ import annotations

import pytest
from druids2016_positions import TILES as TILES_OF_RULES
from druids2016_positions import druid_at, play, position, tile_at, tokens

from druids_p2p.games.druids2016.game import Options
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.seam import IllegalMove


def reason(game: object, token: str) -> str | None:
    return game.check(Move.from_token(token))  # type: ignore[attr-defined, no-any-return]


# --- A turn: facing -------------------------------------------------------------------------
def test_a_turn_a_druid_may_not_step_the_way_it_faces() -> None:
    game = position({"a3": "0n"})
    assert "faces n" in (reason(game, "a3n") or "")
    assert not tokens(game, "a3n")


def test_a_turn_a_druid_may_step_backwards_and_then_faces_the_way_it_moved() -> None:
    game = play(position({"a3": "0n"}), "a3s")  # a2 holds a Cloud: it goes on to e2
    assert druid_at(game, "e2") == "0s"


def test_a_turn_off_the_board_is_illegal() -> None:
    game = position({"e3": "0n"})
    assert "leave the board" in (reason(game, "e3e") or "")


def test_a_turn_the_mountain_tile_blocks_but_its_symbol_does_not() -> None:
    game = position({"a5": "0s", "b5": "0s"})
    assert "Mountain on a6" in (reason(game, "a5n") or "")
    assert tokens(game, "b5n M")  # b6 is a Mountain symbol: enterable, it moves the tile


def test_a_turn_no_step_onto_an_own_druid() -> None:
    game = position({"a3": "0n", "b3": "0n"})
    assert "own Druids" in (reason(game, "b3w") or "")


def test_a_turn_no_capture_of_a_druid_on_a_forest_tile() -> None:
    game = position({"e5": "0s", "e6": "1n"})  # TILES: the Forest tile is on e6
    assert "Forest" in (reason(game, "e5n") or "")


def test_capture_an_opponent_on_the_square_entered_is_removed() -> None:
    game = play(position({"a3": "0s", "a4": "1n"}), "a3n")
    assert druid_at(game, "a4") == "0n"
    assert game.quiet == 0 and sum(p >= 0 for p in game.pos) == 3


def test_a_turn_a_player_with_no_legal_move_loses() -> None:
    # Player 1's only Druid, its Master on e7, faces west; the Mountain tile on e6 shuts it in.
    tiles = {"c4": "R", "e6": "M", "a6": "F", "e2": "C", "a2": "C"}
    game = play(position({"c1": "0s*", "e7": "1w*"}, tiles, masters=False), "c1e")
    assert game.result is not None
    assert (game.result.status, game.result.winner, game.result.reason) == (
        "win",
        0,
        "no_legal_move",
    )


# --- River ----------------------------------------------------------------------------------
RIVER_A5 = {"c4": "M", "a5": "R", "e6": "F", "e2": "C", "e3": "C"}


def test_river_carries_the_druid_one_square_further() -> None:
    game = play(position({"a6": "0n"}, RIVER_A5), "a6s")
    assert druid_at(game, "a4") == "0s" and druid_at(game, "a5") is None


def test_river_off_the_board_the_druid_stays_on_the_river() -> None:
    game = play(position({"b5": "0e"}, RIVER_A5), "b5w")
    assert druid_at(game, "a5") == "0w"


def test_river_onto_the_mountain_tile_the_druid_stays() -> None:
    tiles = {"c4": "C", "a3": "R", "a2": "M", "e5": "F", "e3": "C"}
    game = play(position({"a4": "0n"}, tiles), "a4s")
    assert druid_at(game, "a3") == "0s"


def test_river_ruling_own_druid_beyond_the_druid_stays() -> None:
    game = play(position({"a6": "0n", "a4": "0n"}, RIVER_A5), "a6s")
    assert druid_at(game, "a5") == "0s" and druid_at(game, "a4") == "0n"


def test_river_ruling_opponent_in_the_forest_beyond_the_druid_stays() -> None:
    tiles = {"c4": "C", "a3": "R", "a2": "F", "e5": "M", "e3": "C"}
    game = play(position({"a4": "0n", "a2": "1n"}, tiles), "a4s")
    assert druid_at(game, "a3") == "0s" and druid_at(game, "a2") == "1n"


def test_river_ruling_opponent_beyond_is_captured() -> None:
    game = play(position({"a6": "0n", "a4": "1s"}, RIVER_A5), "a6s")
    assert druid_at(game, "a4") == "0s" and game.quiet == 0


def test_river_fine_point_an_opponent_on_the_river_is_passed_over() -> None:
    game = play(position({"a6": "0n", "a5": "1s"}, RIVER_A5), "a6s")
    assert druid_at(game, "a4") == "0s" and druid_at(game, "a5") == "1s"


def test_river_fine_point_blocked_push_captures_the_opponent_on_the_river() -> None:
    game = play(position({"a6": "0n", "a5": "1s", "a4": "0n"}, RIVER_A5), "a6s")
    assert druid_at(game, "a5") == "0s" and game.quiet == 0


def test_river_then_cloud_the_druid_also_uses_the_cloud() -> None:
    tiles = {"c4": "M", "e2": "R", "e3": "C", "a5": "C", "a6": "F"}
    game = play(position({"e1": "0s"}, tiles), "e1n")
    assert druid_at(game, "a5") == "0n" and druid_at(game, "e3") is None


# --- Cloud ----------------------------------------------------------------------------------
CLOUDS = {"c4": "M", "e3": "C", "a5": "C", "a6": "F", "e5": "R"}


def test_cloud_moves_the_druid_to_the_other_cloud_facing_the_same_way() -> None:
    game = play(position({"e2": "0s"}, CLOUDS), "e2n")
    assert druid_at(game, "a5") == "0n" and druid_at(game, "e3") is None


def test_cloud_an_own_druid_on_the_other_cloud_keeps_it_where_it_is() -> None:
    game = play(position({"e2": "0s", "a5": "0s"}, CLOUDS), "e2n")
    assert druid_at(game, "e3") == "0n" and druid_at(game, "a5") == "0s"


def test_cloud_an_opponent_on_the_other_cloud_is_captured() -> None:
    game = play(position({"e2": "0s", "a5": "1s"}, CLOUDS), "e2n")
    assert druid_at(game, "a5") == "0n" and game.quiet == 0


def test_cloud_double_capture_in_one_move() -> None:
    game = play(position({"e2": "0s", "e3": "1s", "a5": "1s"}, CLOUDS), "e2n")
    assert druid_at(game, "a5") == "0n" and druid_at(game, "e3") is None
    assert [game.pos[d] >= 0 for d in range(3, 6)].count(True) == 1  # only the Master is left


def test_cloud_fine_point_from_one_cloud_onto_the_other_returns_to_the_first() -> None:
    tiles = {"c4": "M", "a3": "C", "a2": "C", "a6": "F", "e5": "R"}
    game = play(position({"a2": "0s"}, tiles), "a2n")
    assert druid_at(game, "a2") == "0n" and druid_at(game, "a3") is None


def test_end_a_cloud_capture_of_the_master_wins() -> None:
    game = play(position({"e2": "0s", "a5": "1s*", "a1": "0e*"}, CLOUDS, masters=False), "e2n")
    assert game.result is not None and game.result.json() == {
        "status": "win",
        "winner": 0,
        "reason": "master_captured",
    }


# --- Symbol (forced tile moves) -------------------------------------------------------------
TILE_OK = {"a2", "c2", "e2", "a3", "b3", "d3", "e3", "a5", "b5", "d5", "e5", "a6", "c6", "e6"}


def test_symbol_every_free_destination_is_its_own_move() -> None:
    game = position({"b3": "0n", "d5": "1n"})
    moves = tokens(game, "b3s")
    free = TILE_OK - {"a6", "e6", "e2", "a2"}  # the tiles' squares; the Forest may go under d5
    assert sorted(moves) == sorted(f"b3s F{s}" for s in free)
    assert "b3s" not in moves


def test_symbol_a_mountain_goes_to_no_druid_but_to_the_square_just_left() -> None:
    game = position({"b5": "0s", "d5": "1n"})
    moves = tokens(game, "b5n")
    assert "b5n Mb5" in moves and "b5n Md5" not in moves and "b5n Mc6" in moves
    assert "may not go to d5" in (reason(game, "b5n Md5") or "")


def test_symbol_a_forest_moved_from_under_a_druid_leaves_it_there() -> None:
    game = play(position({"b3": "0n", "e6": "1n"}), "b3s Fc2")
    assert druid_at(game, "e6") == "1n" and tile_at(game, "e6") == "" and tile_at(game, "c2") == "F"


def test_symbol_a_cloud_symbol_moves_either_cloud_named_by_its_source() -> None:
    game = position({"b5": "0n"})
    moves = tokens(game, "b5s")
    assert {m.split()[1][:3] for m in moves} == {"Ce2", "Ca2"}
    play(game, "b5s Ca2>b5")
    assert tile_at(game, "b5") == "C" and tile_at(game, "a2") == ""


def test_symbol_tile_move_is_required_and_must_be_of_the_symbol_kind() -> None:
    game = position({"b3": "0n"})
    assert "must move a F tile" in (reason(game, "b3s") or "")
    assert "not M" in (reason(game, "b3s Mc2") or "")
    assert "no symbol" in (reason(game, "b3w Fc2") or "")
    with pytest.raises(IllegalMove):
        game.play(Move.from_token("b3s Fa4"))  # a Star


def test_symbol_ruling_no_free_square_nothing_moves_and_the_move_is_bare() -> None:
    from druids_p2p.games.druids2016.board import parse_board
    from druids_p2p.games.druids2016.game import arranged

    board = parse_board(
        ". . T . .\nM M M M M\n. F F F .\n* C * C *\n. R R R .\nM M M M M\n. . T . .\n", "tight"
    )
    tiles = {"c4": "M", "a3": "C", "a5": "C", "e3": "F", "e5": "R"}
    game = arranged(board, 0, {"c1": "0s*", "b1": "0s", "c7": "1n*"}, tiles)
    assert tokens(game, "b1n") == ["b1n"]  # b2 is a Mountain symbol; no square is free
    assert "write the move bare" in (reason(game, "b1n Ma3") or "")


def test_symbol_fine_point_the_forced_move_is_part_of_a_winning_move() -> None:
    game = position({"b3": "0n", "b2": "1s*", "a1": "0e*"}, masters=False)
    assert "b3s" not in tokens(game) and "b3s Fc2" in tokens(game)
    play(game, "b3s Fc2")
    assert game.result is not None and game.result.reason == "master_captured"


# --- End of the game ------------------------------------------------------------------------
def test_end_the_master_in_the_opponents_temple_wins() -> None:
    game = play(position({"c6": "0s*", "e7": "1w*"}, masters=False), "c6n")
    assert game.result is not None and (game.result.winner, game.result.reason) == (
        0,
        "master_in_temple",
    )


def test_end_another_druid_in_the_temple_does_not_win() -> None:
    game = play(position({"c6": "0s"}), "c6n")
    assert game.result is None


def test_end_ruling_a_river_carrying_the_master_into_the_temple_wins() -> None:
    tiles = {"c4": "M", "c6": "R", "e3": "C", "a5": "C", "e6": "F"}
    game = play(position({"c5": "0s*", "e7": "1w*"}, tiles, masters=False), "c5n")
    assert game.result is not None and game.result.reason == "master_in_temple"


def test_end_the_master_captured_loses() -> None:
    pieces = {"a3": "1n", "a2": "0n*", "c7": "1n*"}
    game = play(position(pieces, CLOUDS, masters=False, to_move=1), "a3s")
    assert game.result is not None and (game.result.winner, game.result.reason) == (
        1,
        "master_captured",
    )


def test_end_ruling_threefold_repetition_counting_the_start() -> None:
    game = position({"a3": "0s", "e5": "1n"})
    shuttle = ["a3n", "e5s", "a4s", "e4n"] * 2
    play(game, *shuttle[:-1])
    assert game.result is None
    play(game, shuttle[-1])
    assert game.result is not None and game.result.json() == {
        "status": "draw",
        "winner": None,
        "reason": "threefold_repetition",
    }


def test_end_fine_point_a_position_includes_which_druid_is_the_master() -> None:
    one = position({"c1": "0s*", "b1": "0s", "c7": "1n*"}, masters=False)
    two = position({"c1": "0s", "b1": "0s*", "c7": "1n*"}, masters=False)
    assert one.key() != two.key()


def test_end_ruling_200_moves_without_a_capture_draw() -> None:
    game = position({"a3": "0s", "e5": "1n"}, options=Options(repetitions=10**6))
    play(game, *(["a3n", "e5s", "a4s", "e4n"] * 50)[:199])
    assert game.result is None and game.quiet == 199
    play(game, "e4n")
    assert game.result is not None and game.result.reason == "move_limit"


def test_end_fine_point_a_winning_200th_move_wins() -> None:
    pieces = {"a3": "0s", "a1": "0e*", "c2": "1n*", "e5": "1n"}
    game = position(pieces, options=Options(repetitions=10**6), masters=False)
    play(game, *(["a3n", "e5s", "a4s", "e4n"] * 50)[:199])
    assert game.quiet == 199 and game.to_move == 1
    play(game, "c2s")
    assert game.result is not None and game.result.reason == "master_in_temple"


def test_end_fine_point_a_capture_restarts_the_200_moves() -> None:
    game = play(position({"a3": "0s", "a5": "1n"}), "a3n")
    assert game.quiet == 1
    play(game, "a5s")
    assert druid_at(game, "a4") == "1s" and game.quiet == 0 and game.ply == 2


def test_end_ruling_the_same_position_is_board_facings_tiles_and_player_to_move() -> None:
    base = position({"a3": "0s", "b3": "0n", "e5": "1n"})
    assert position({"b3": "0n", "a3": "0s", "e5": "1n"}).key() == base.key()
    # two Druids of one player that are not the Master are interchangeable, the Clouds too
    swapped = position({"a3": "0s", "b3": "0n", "e5": "1n"})
    clouds = [i for i, kind in enumerate(swapped.tile_kind) if kind == 3]
    sq = swapped.tile_sq
    sq[clouds[0]], sq[clouds[1]] = sq[clouds[1]], sq[clouds[0]]
    assert swapped.key() == base.key()
    assert position({"a3": "0n", "b3": "0n", "e5": "1n"}).key() != base.key()  # a facing
    assert position({"a3": "0s", "b3": "0n", "e5": "1n"}, to_move=1).key() != base.key()
    moved = {**TILES_OF_RULES, "a6": "F", "e6": "M"}
    assert position({"a3": "0s", "b3": "0n", "e5": "1n"}, moved).key() != base.key()  # a tile


def test_end_fine_point_order_of_ends_no_legal_move_before_the_200_moves() -> None:
    tiles = {"c4": "R", "e6": "M", "a6": "F", "e2": "C", "a2": "C"}
    pieces = {"c1": "0s*", "e7": "1w*"}
    game = position(pieces, tiles, options=Options(quiet_moves=1), masters=False)
    play(game, "c1e")  # the first move is the last the quiet rule allows, and shuts e7 in
    assert game.result is not None and game.result.reason == "no_legal_move"


def test_end_fine_point_order_of_ends_repetition_before_the_200_moves() -> None:
    game = position({"a3": "0s", "e5": "1n"}, options=Options(quiet_moves=8))
    play(game, *["a3n", "e5s", "a4s", "e4n"] * 2)  # the 8th quiet move repeats the start twice
    assert game.result is not None and game.result.reason == "threefold_repetition"
