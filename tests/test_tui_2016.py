"""The Druids (2016) table in the terminal UI (issue 31), driven as a person drives it (Textual's
Pilot): keys and mouse clicks on the board, never calls into the session for the person's moves.

Every test plays at a real :class:`~druids_p2p.tui.druids2016.session.Offline2016` table: the
real engine and the real rule bot; what the person sees is read back from the screen.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from board_keys import synced
from textual.pilot import Pilot
from textual.widgets import Static

from druids_p2p.games.druids2016.board import (
    COLS,
    ROWS,
    Board,
    default_board,
    parse_square,
    square_name,
)
from druids_p2p.games.druids2016.game import Game, arranged
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.policy import Budget, rule_move
from druids_p2p.games.druids2016.replay import replay
from druids_p2p.tui.druids2016.board import CELL_H, CELL_W, LEFT, TOP, BoardView
from druids_p2p.tui.druids2016.session import Chooser, Offline2016, rule_chooser
from druids_p2p.tui.druids2016.table import RECORD_NAME, Druids2016App, GameOver2016

SIZE = (104, 32)
MAX_MOVES = 400
"""More of the person's moves than any game has (the 200-quiet-move rule ends it sooner)."""


def _offset(square: int) -> tuple[int, int]:
    """Where on the board widget a click lands on ``square`` (the middle of its box)."""
    row, col = divmod(square, COLS)
    return LEFT + col * CELL_W + CELL_W // 2, TOP + (ROWS - 1 - row) * CELL_H + 1


async def _click(pilot: Pilot[Any], square: int) -> None:
    await pilot.click(BoardView, offset=_offset(square))
    await pilot.pause()


def _arrows(start: int, target: int) -> list[str]:
    """The arrow keys that take the cursor from ``start`` to ``target`` (up is north)."""
    (r0, c0), (r1, c1) = divmod(start, COLS), divmod(target, COLS)
    vertical = ["up"] * (r1 - r0) if r1 > r0 else ["down"] * (r0 - r1)
    horizontal = ["right"] * (c1 - c0) if c1 > c0 else ["left"] * (c0 - c1)
    return vertical + horizontal


async def _key_to(pilot: Pilot[Any], app: Druids2016App, square: int) -> None:
    """Move the cursor onto ``square`` with the arrow keys and press enter there."""
    await pilot.press(*_arrows(app.table.cursor, square), "enter")
    await pilot.pause()


async def _settle(pilot: Pilot[Any], app: Druids2016App) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


def _text(app: Druids2016App, selector: str) -> str:
    widget = app.screen.query_one(selector, Static)
    return str(widget.render())


def _arranged_app(game: Game, chooser: Chooser | None = None) -> tuple[Druids2016App, Offline2016]:
    """A table whose position is ``game`` (set up by hand), the person player 0."""
    session = Offline2016(
        ("alice", "rule"), {1: chooser or rule_chooser(1)}, setup=game.setup, board=game.board
    )
    session.game = game
    return Druids2016App(session), session


@synced
async def test_a_whole_game_against_the_rule_bot_by_keys(tmp_path: Path) -> None:
    """Place two Druids, then every move by the arrow keys and enter (the Druid, the square it
    goes to, the tile's square when a symbol forces one), until the end screen; enter leaves,
    and the record written replays to the same result."""
    session = Offline2016(("alice", "rule"), {1: rule_chooser(2)}, seed=4)
    app = Druids2016App(session, tmp_path)
    rng, budget = random.Random(9), Budget(nodes=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "place your Druids" in _text(app, "#hint")
        for square in session.place_choices()[:2]:
            await _key_to(pilot, app, square)
        await _settle(pilot, app)
        assert not session.placing
        played = 0
        for _ in range(MAX_MOVES):
            if isinstance(app.screen, GameOver2016):
                break
            game = session.position()
            assert game.to_move == 0
            move = rule_move(game, rng, budget)
            await _key_to(pilot, app, move.square)
            await _key_to(pilot, app, step_square(move))
            picker = app.table.picker
            if picker is not None and picker.tile_sources():
                assert move.source is not None
                await _key_to(pilot, app, move.source)
            if picker is not None and picker.tile_targets():
                assert move.target is not None
                await _key_to(pilot, app, move.target)
            await _settle(pilot, app)
            played += 1
            assert any(line.endswith(f"you {move.token()}") for line in session.log)
        else:
            raise AssertionError("the game did not end")
        assert session.game is not None and session.game.result is not None
        assert played >= 1
        headline = _text(app, "#headline")
        result = session.game.result
        expected = (
            "a draw" if result.winner is None else ("you won" if result.winner == 0 else "rule won")
        )
        assert expected in headline
        await pilot.press("enter")
        await pilot.pause()
    outcome = app.return_value
    assert outcome is not None and outcome["result"] == {
        **result.json(),
        "finished": True,
        "totals": [2 * (p == result.winner) if result.winner is not None else 1 for p in (0, 1)],
        "winners": [result.winner] if result.winner is not None else [0, 1],
    }
    code, replayed = replay((tmp_path / RECORD_NAME).read_text(encoding="utf-8"))
    assert code == 0 and replayed["result"] == result.json()


def step_square(move: Move) -> int:
    """The square the Druid steps onto (the neighbour in its direction)."""
    row, col = divmod(move.square, COLS)
    dr, dc = ((1, 0), (0, 1), (-1, 0), (0, -1))[move.direction]
    return (row + dr) * COLS + col + dc


@synced
async def test_a_move_by_mouse() -> None:
    """A click on a Druid focuses it (its destinations are shown), a click on one plays it."""
    board = default_board()
    game = arranged(
        board, 0, {"c1": "0s*", "b1": "0s", "c7": "1n*"}, _start_tiles(board), to_move=0
    )
    app, session = _arranged_app(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _click(pilot, parse_square("b1"))
        marks = app.screen.query_one(BoardView).marks
        assert marks.focus == parse_square("b1")
        assert marks.destinations == {parse_square("a1"), parse_square("b2")}
        await _click(pilot, parse_square("a1"))
        await _settle(pilot, app)
        assert session.game is not None
        assert Move.from_code(session.game.history[0][0]).token() == "b1w"
        # the last move is highlighted: the person's, or the bot's after it
        last = app.screen.query_one(BoardView).marks.last
        assert len(last) >= 2


def _start_tiles(board: Board) -> dict[str, str]:
    """The tiles on their start squares: Clouds on c4 and e3, Mountain a3, Forest a5, River e5."""
    starts = board.starts
    return {square_name(s): k for s, k in zip(starts, "CMFCR", strict=True)}


@synced
async def test_the_forced_tile_move_is_chosen_on_the_board() -> None:
    """b1n lands on the Forest symbol on b2: the Forest tile's squares light up, a refused
    square is answered with the reason, the square clicked is where the tile goes."""
    board = default_board()
    game = arranged(
        board, 0, {"c1": "0s*", "b1": "0s", "c7": "1n*"}, _start_tiles(board), to_move=0
    )
    legal = [m for m in game.legal_moves() if m.token().startswith("b1n")]
    assert len(legal) > 1 and all(m.tile == "F" for m in legal)
    app, session = _arranged_app(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _click(pilot, parse_square("b1"))
        await pilot.press("n")
        await pilot.pause()
        marks = app.screen.query_one(BoardView).marks
        assert marks.targets == {m.target for m in legal}
        assert "Forest" in _text(app, "#hint")
        await _click(pilot, parse_square("c4"))  # a Star: no tile may go there
        assert "may not go to c4" in _text(app, "#message")
        assert session.game is not None and not session.game.history
        await _click(pilot, parse_square("d3"))
        await _settle(pilot, app)
        assert Move.from_code(session.game.history[0][0]).token() == "b1n Fd3"


@synced
async def test_a_cloud_symbol_asks_which_cloud_then_where() -> None:
    """A Cloud symbol moves either Cloud tile: first the Cloud is chosen, then its square."""
    board = default_board()
    game = arranged(
        board, 0, {"c1": "0s*", "b3": "0e", "c7": "1n*"}, _start_tiles(board), to_move=0
    )
    app, session = _arranged_app(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _key_to(pilot, app, parse_square("b3"))
        await pilot.press("n")
        await pilot.pause()
        marks = app.screen.query_one(BoardView).marks
        assert marks.sources == {parse_square("c4"), parse_square("e3")}  # the two Clouds
        assert not marks.targets
        source = parse_square("e3")
        await _key_to(pilot, app, source)
        targets = app.screen.query_one(BoardView).marks.targets
        assert targets
        await pilot.press("escape")  # back to the choice of the Cloud
        await pilot.pause()
        assert app.screen.query_one(BoardView).marks.sources
        await _key_to(pilot, app, source)
        target = min(targets)
        await _key_to(pilot, app, target)
        await _settle(pilot, app)
        assert session.game is not None
        token = Move.from_code(session.game.history[0][0]).token()
        assert token == f"b3n C{square_name(source)}>{square_name(target)}"


@synced
async def test_a_refused_direction_is_explained_and_nothing_is_played() -> None:
    board = default_board()
    game = arranged(
        board, 0, {"c1": "0s*", "b1": "0s", "c7": "1n*"}, _start_tiles(board), to_move=0
    )
    app, session = _arranged_app(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("tab")  # b1, the first Druid that can move
        await pilot.press("s")
        await pilot.pause()
        assert "b1s: the Druid on b1 faces s and may not move that way" in _text(app, "#message")
        assert session.game is not None and not session.game.history


@synced
async def test_the_end_screen_says_who_won_and_why() -> None:
    """The person's Master steps into the bot's Temple: the end screen says so."""
    board = default_board()
    game = arranged(
        board,
        0,
        {"c1": "0s", "d7": "0e*", "a7": "1n*", "a1": "1s"},
        _start_tiles(board),
        to_move=0,
    )
    assert Move.from_token("d7w") in game.legal_moves()
    app, _ = _arranged_app(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _click(pilot, parse_square("d7"))
        await _click(pilot, parse_square("c7"))
        await pilot.pause()
        assert isinstance(app.screen, GameOver2016)
        assert "you won" in _text(app, "#headline")
        assert _text(app, "#game-over").startswith(
            "Your Master Druid reached rule's Temple on c7.\n1 move was played."
        )
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_value is not None
    assert app.return_value["result"] == {
        "status": "win",
        "winner": 0,
        "reason": "master_in_temple",
        "finished": True,
        "totals": [2, 0],
        "winners": [0],
    }


@synced
async def test_a_placement_off_the_back_row_is_refused() -> None:
    session = Offline2016(("alice", "rule"), {1: rule_chooser(2)}, seed=4)
    app = Druids2016App(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        choices = set(session.place_choices())
        assert app.screen.query_one(BoardView).marks.destinations == choices
        row = 1 if session.drawn.side_of(0) == 0 else 7
        await _click(pilot, parse_square(f"c{4}"))
        assert f"free square of row {row}" in _text(app, "#message")
        assert session.placing and not session.placed
