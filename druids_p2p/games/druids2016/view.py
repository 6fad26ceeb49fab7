"""The position as data and as text: what a replay prints and a demo draws. Every seat sees the
whole position but the other's placement until both are in; :class:`SeatView` is what a bot and a
terminal UI get (the spec's ``view``), so its field names are kept stable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from druids_p2p.games.druids2016.board import (
    COLS,
    DIRECTION_NAMES,
    ROWS,
    SQUARES,
    TERRAINS,
    Board,
    Setup,
    square_name,
)
from druids_p2p.games.druids2016.game import KIND_LETTERS, WIN, Game, Options, Result

DRAWING: Final = "drawing"
"""The first player and the tiles are being drawn (at a table: shuffled and turned)."""
PLACING: Final = "placing"
"""The players place their Druids (two each besides the Master), hidden from each other."""
PLAYING: Final = "playing"
OVER: Final = "over"
ARROWS = "^>v<"
"""A Druid's facing drawn: north (towards row 7), east, south, west."""


def druids_json(game: Game, player: int) -> list[dict[str, Any]]:
    """``player``'s Druids on the board: square, facing, and which is the Master."""
    side = game.setup.side_of(player)
    return [
        {
            "square": square_name(game.pos[d]),
            "facing": DIRECTION_NAMES[game.face[d]],
            "master": d == game.master[side],
        }
        for d in range(3 * side, 3 * side + 3)
        if game.pos[d] >= 0
    ]


def position_json(game: Game) -> dict[str, Any]:
    """The whole position: who sits at row 1, who is to move, the moves played and those since
    the last capture (the 200-move rule), every Druid and every tile."""
    return {
        "first": game.setup.first,
        "to_move": game.to_move,
        "moves": game.ply,
        "since_capture": game.quiet,
        "druids": {str(p): druids_json(game, p) for p in (0, 1)},
        "tiles": {
            square_name(s): KIND_LETTERS[game.tile[s]] for s in range(SQUARES) if game.tile[s]
        },
    }


def _cell(game: Game, square: int) -> str:
    druid = game.occ[square]
    cell = game.board.cells[square]
    ground = KIND_LETTERS[game.tile[square]] or (cell.lower() if cell in TERRAINS else cell)
    if druid < 0:
        return f" {ground}  "
    side = druid // 3
    mark = "*" if druid == game.master[side] else " "
    return f"{ground}{game.player(side)}{ARROWS[game.face[druid]]}{mark}"


def position_lines(game: Game) -> list[str]:
    """The board drawn, row 7 at the top: a tile in capitals (M F C R), a bare symbol in small
    letters, a Druid as its player, an arrow for its facing and ``*`` for the Master."""
    lines = [
        f"  {r + 1} " + " ".join(_cell(game, r * COLS + c) for c in range(COLS))
        for r in reversed(range(ROWS))
    ]
    lines.append("     " + "    ".join("abcde"))
    return lines


@dataclass(frozen=True, slots=True)
class DruidView:
    """A Druid on the board: its ``player``, ``square`` (0-34, a1 = 0), ``facing`` (0-3: n e
    s w) and whether it is that player's ``master``."""

    player: int
    square: int
    facing: int
    master: bool


@dataclass(frozen=True, slots=True)
class SeatView:
    """What ``seat`` may know. Squares are ints (a1 = 0, row-major), moves their ids
    (``Move.of``). ``phase`` is :data:`DRAWING`, :data:`PLACING`, :data:`PLAYING` or
    :data:`OVER`."""

    seat: int
    players: int
    phase: str
    board: Board
    first: int | None
    """The player at row 1, who moves first (None until drawn)."""
    tiles: tuple[tuple[int, str], ...]
    """(square, kind letter M F C R) of every tile, empty until drawn."""
    to_move: int | None
    legal: tuple[int, ...]
    """The legal move ids while this seat is to move, else empty (placements, then steps)."""
    placed: tuple[int, ...]
    """While placing: the back-row squares this seat has chosen so far (the other's are
    hidden). Once play starts: empty (the Druids are in ``druids``)."""
    druids: tuple[DruidView, ...]
    moves: tuple[int, ...]
    """The steps played, in order (ids)."""
    last: int | None
    """The last step played (id), None before the first."""
    ply: int
    since_capture: int
    result: Result | None
    ended_by: str | None
    totals: tuple[int, ...]
    winners: tuple[int, ...] | None
    game_over: bool
    round_scores: tuple[tuple[int, ...], ...]
    """The one round's totals once the game is over, else empty."""
    setup: Setup | None
    """Who sits where, the tiles and both placements, once play starts (a bot rebuilds the
    position from it and ``moves``: :meth:`game`)."""
    rules: Options

    def game(self) -> Game:
        """The position as an engine game (setup and every step replayed): what a bot searches;
        ValueError before play starts."""
        if self.setup is None:
            raise ValueError("the Druids are not placed yet: there is no position to play")
        game = Game(self.setup, self.board, self.rules)
        for code in self.moves:
            game.play_code(code)
        return game


def outcome(result: Result | None) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """(totals, winners) of a result: a win 2-0, a draw 1-1 (both win a tie); none yet:
    (0, 0) and None."""
    if result is None:
        return (0, 0), None
    if result.status == WIN and result.winner is not None:
        totals = tuple(2 if p == result.winner else 0 for p in (0, 1))
        return totals, (result.winner,)
    return (1, 1), (0, 1)


def seat_view(
    seat: int,
    board: Board,
    rules: Options,
    first: int | None,
    tiles: str | None,
    placed: tuple[int, ...],
    game: Game | None,
    to_move: int | None,
    legal: tuple[int, ...],
) -> SeatView:
    """The view of ``seat``: before play (``game`` None) the draw as far as known and this
    seat's own placement; then the whole position."""
    if game is None:
        phase = DRAWING if first is None or tiles is None else PLACING
        laid = tuple(zip(board.starts, tiles, strict=True)) if tiles is not None else ()
        return SeatView(
            seat, 2, phase, board, first, laid, to_move, legal, placed, (), (), None, 0, 0,
            None, None, (0, 0), None, False, (), None, rules,
        )  # fmt: skip
    result = game.result
    totals, winners = outcome(result)
    druids = tuple(
        DruidView(game.player(d // 3), game.pos[d], game.face[d], d == game.master[d // 3])
        for d in range(6)
        if game.pos[d] >= 0
    )
    laid = tuple((s, KIND_LETTERS[game.tile[s]]) for s in range(SQUARES) if game.tile[s])
    moves = tuple(entry[0] for entry in game.history)
    return SeatView(
        seat, 2, PLAYING if result is None else OVER, board, game.setup.first, laid,
        to_move, legal, (), druids, moves, moves[-1] if moves else None, game.ply, game.quiet,
        result, None if result is None else result.reason, totals, winners,
        result is not None, (totals,) if result is not None else (), game.setup, rules,
    )  # fmt: skip
