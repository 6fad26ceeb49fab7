"""Choosing a Druids (2016) move square by square (tui/druids2016/choice.py): in positions
reached by random play, every legal move is reached by the choices a person makes on the board
(the Druid, the square it steps onto, the Cloud, the tile's square), and nothing else is."""

from __future__ import annotations

import random

from druids_p2p.games.druids2016.board import NEIGHBOURS, default_board, random_setup
from druids_p2p.games.druids2016.game import Game
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.tui.druids2016.choice import Picker

GAMES = 12
PLIES = 60


def _chosen(game: Game, move: Move, by_direction_key: bool) -> Move | str | None:
    """The person's choices for ``move``, as the screen hands them to a fresh picker."""
    picker = Picker(game, game.legal_moves())
    assert picker.choose(move.square) is None
    if by_direction_key:
        outcome = picker.go(move.direction)
    else:
        outcome = picker.choose(NEIGHBOURS[move.square][move.direction])
    if isinstance(outcome, Move | str):
        return outcome
    if picker.tile_sources():
        assert move.source in picker.tile_sources()
        assert picker.choose(move.source) is None
    assert move.target in picker.tile_targets()
    return picker.choose(move.target)


def test_every_legal_move_is_chosen_on_the_board_and_only_those() -> None:
    board = default_board()
    seen_tiles = seen_clouds = 0
    for seed in range(GAMES):
        rng = random.Random(seed)
        game = Game(random_setup(rng, board), board)
        for _ in range(PLIES):
            legal = game.legal_moves()
            if not legal:
                break
            for move in legal:
                for keys in (False, True):
                    assert _chosen(game, move, keys) == move, move.token()
                seen_tiles += move.tile is not None
                seen_clouds += move.source is not None
            picker = Picker(game, legal)
            for square in picker.movable:
                picker.focus_on(square)
                assert set(picker.destinations()) >= {s.square for s in picker.steps.values()}
            game.play_code(rng.choice(legal).code)
    assert seen_tiles and seen_clouds  # the forced tile moves (Clouds too) were all covered


def test_a_square_that_is_no_choice_is_refused_with_its_reason() -> None:
    board = default_board()
    game = Game(random_setup(random.Random(3), board), board)
    picker = Picker(game, game.legal_moves())
    empty = next(s for s in range(35) if game.occ[s] < 0)
    reason = picker.choose(empty)
    assert isinstance(reason, str) and "no Druid of yours" in reason
    assert picker.go(0) == "choose a Druid first (Tab)"
