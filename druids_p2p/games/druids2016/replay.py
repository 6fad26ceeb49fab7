"""``druids replay --game druids2016``: a game file in (docs/rules-2016.md §6), every ruling
applied, the outcome out; and the demo, which prints such a game. Pure: the caller reads and prints,
and a malformed file raises :class:`ReplayInputError` (exit 2).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

from druids_p2p.games.druids2016.board import (
    Board,
    Setup,
    default_board,
    parse_board,
    parse_square,
    random_setup,
    square_name,
)
from druids_p2p.games.druids2016.game import (
    DRAW,
    MASTER_CAPTURED,
    MASTER_IN_TEMPLE,
    MOVE_LIMIT,
    NO_LEGAL_MOVE,
    REPETITION,
    Game,
)
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.view import position_json, position_lines

NAME = "druids2016"
KEYS = frozenset({"game", "first", "tiles", "placement", "moves", "board"})


class ReplayInputError(ValueError):
    """The input is not a well-formed game file (exit code 2); the message is one line."""


def _expect(cond: bool, message: str) -> None:
    if not cond:
        raise ReplayInputError(message)


def _board(value: Any) -> Board:
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        value = "\n".join(value)
    _expect(isinstance(value, str), "'board' must be a board file's text or a list of its lines")
    try:
        return parse_board(value, "the game file's board")
    except ValueError as exc:
        raise ReplayInputError(str(exc)) from None


def _squares(value: Any, player: str) -> tuple[int, int, int]:
    _expect(
        isinstance(value, list) and len(value) == 3 and all(isinstance(s, str) for s in value),
        f"placement of player {player} must be a list of 3 squares",
    )
    try:
        a, b, c = (parse_square(s) for s in value)
    except ValueError as exc:
        raise ReplayInputError(f"placement of player {player}: {exc}") from None
    return a, b, c


def parse_game_file(text: str) -> tuple[Board, Setup, list[tuple[str, Move]]]:
    """The board, the setup and the moves (each with its token) of a game file, checked."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ReplayInputError(f"not valid JSON: {exc}".splitlines()[0]) from None
    _expect(isinstance(data, dict), "the game file must be a JSON object")
    unknown = set(data) - KEYS
    _expect(not unknown, f"unknown key(s) in the game file: {', '.join(sorted(unknown))}")
    _expect(data.get("game", NAME) == NAME, f'a druids2016 game file says "game": "{NAME}"')
    missing = sorted({"first", "tiles", "placement", "moves"} - set(data))
    _expect(not missing, f"the game file lacks {', '.join(repr(k) for k in missing)}")
    board = _board(data["board"]) if "board" in data else default_board()
    placement = data["placement"]
    _expect(
        isinstance(placement, dict) and set(placement) == {"0", "1"},
        '\'placement\' must be an object with keys "0" and "1"',
    )
    setup = Setup(
        data["first"], data["tiles"], (_squares(placement["0"], "0"), _squares(placement["1"], "1"))
    )
    try:
        setup.check(board)
    except ValueError as exc:
        raise ReplayInputError(str(exc)) from None
    moves = data["moves"]
    _expect(isinstance(moves, list), "'moves' must be a list of move tokens")
    parsed: list[tuple[str, Move]] = []
    for index, token in enumerate(moves):
        _expect(isinstance(token, str), f"move {index}: a move must be a token string")
        try:
            parsed.append((token, Move.from_token(token)))
        except ValueError as exc:
            raise ReplayInputError(f"move {index}: {exc}") from None
    return board, setup, parsed


def outcome_json(game: Game) -> dict[str, Any]:
    """The result (None while the game goes on), the legal moves now, the position."""
    return {
        "result": None if game.result is None else game.result.json(),
        "legal": [move.token() for move in game.legal_moves()],
        "position": position_json(game),
    }


def replay_game(text: str) -> tuple[int, dict[str, Any], Game]:
    """Replay a game file: (exit code, JSON result, the game as far as it went)."""
    board, setup, moves = parse_game_file(text)
    game = Game(setup, board)
    for index, (token, move) in enumerate(moves):
        reason = game.check(move)
        if reason is not None:
            out = outcome_json(game)
            out["error"] = f"move {index} ({token}) is illegal: {reason}"
            out["move"] = index
            return 1, out, game
        game.play_code(move.code)
    return 0, outcome_json(game), game


def replay(text: str) -> tuple[int, dict[str, Any]]:
    """(exit code, JSON result) of a game file; ReplayInputError if it is malformed."""
    code, result, _ = replay_game(text)
    return code, result


def game_record(game: Game) -> dict[str, Any]:
    """The game file of ``game`` as played so far (what :func:`replay` reads back); the board
    is written only when it is not the default layout."""
    record: dict[str, Any] = {
        "game": NAME,
        "first": game.setup.first,
        "tiles": game.setup.tiles,
        "placement": {str(p): [square_name(s) for s in game.setup.placements[p]] for p in (0, 1)},
        "moves": [Move.from_code(entry[0]).token() for entry in game.history],
    }
    if game.board.cells != default_board().cells:
        record["board"] = game.board.text.splitlines()
    return record


# ---- formerly demo.py:
# A whole game told move by move (what ``druids demo --game druids2016`` prints): the board,
# the setup, every move with what it did (River, Cloud, captures, the tile it moved), the end.
#
# The policy choosing the moves is passed in (a seeded random one here; bots come from outside),
# so the same seed tells the same game.

Policy = Callable[[Game], int]
"""Chooses the code of a legal move in a game that is not over."""

ENDS = {
    MASTER_IN_TEMPLE: "its Master Druid reached the opponent's Temple",
    MASTER_CAPTURED: "it captured the opponent's Master Druid",
    NO_LEGAL_MOVE: "the opponent has no legal move",
    REPETITION: "the same position occurred for the third time",
    MOVE_LIMIT: "200 moves were played without a capture",
}


def random_policy(rng: random.Random) -> Policy:
    """A legal move uniformly at random from ``rng``."""
    return lambda game: rng.choice(game.legal_codes())


def play_out(game: Game, policy: Policy) -> Game:
    """Play ``game`` to its end with ``policy`` choosing every move (bounded by the rules)."""
    while game.result is None:
        game.play_code(policy(game))
    return game


def _move_line(game: Game, number: int, code: int) -> str:
    """Play ``code`` on ``game`` and tell it."""
    move = Move.from_code(code)
    side = game.side
    player = game.player(side)
    game.play_code(code)
    _, druid, origin, _, caps, _, _, _, _ = game.history[-1]
    final = game.pos[druid]
    master = " (Master)" if druid == game.master[side] else ""
    text = f"{number:4}. P{player} {move.token():<12} Druid{master} {square_name(origin)}"
    text += f" -> {square_name(final)}"
    for captured, square in caps:
        what = "Master" if captured == game.master[1 - side] else "Druid"
        text += f", captures P{1 - player}'s {what} on {square_name(square)}"
    return text


def game_lines(game: Game) -> Iterator[str]:
    """``game`` (played or not) from its setup on, one line a move, the board at the end."""
    setup, board = game.setup, game.board
    fresh = Game(setup, board, game.options)
    yield (
        f"Druids (2016), Terrain Only: P{setup.first} sits at row 1 and moves first; "
        f"tiles {setup.tiles} on {' '.join(square_name(s) for s in board.starts)}"
    )
    yield from position_lines(fresh)
    for number, entry in enumerate(game.history, 1):
        yield _move_line(fresh, number, entry[0])
    yield from position_lines(fresh)
    result = fresh.result
    if result is None:
        yield f"The game goes on; P{fresh.to_move} is to move."
    elif result.status == DRAW:
        yield f"Drawn after {fresh.ply} moves: {ENDS[result.reason]}."
    else:
        yield f"P{result.winner} wins after {fresh.ply} moves: {ENDS[result.reason]}."


def demo_lines(seed: int, board: Board, policy: Policy | None = None) -> Iterator[str]:
    """A game set up at random from ``seed`` and played by ``policy`` (random by default)."""
    rng = random.Random(seed)
    game = Game(random_setup(rng, board), board)
    yield from game_lines(play_out(game, policy or random_policy(rng)))
