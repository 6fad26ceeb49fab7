"""Druids (2016)'s rules behind the seam: the one object its spec names as the game's rules,
translating the seam's calls to the engine, the in-process game, the table seat and the game file;
and the seat's text (a seat's lines, a typed move).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

from druids_p2p.games.druids2016 import moves as mv
from druids_p2p.games.druids2016 import table_seat as ts
from druids_p2p.games.druids2016.board import COLS, ROWS, TERRAINS, default_board, square_name
from druids_p2p.games.druids2016.game import PLAYERS, Options2016
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.replay import NAME, game_lines, game_record, replay
from druids_p2p.games.druids2016.state import Druids2016State, draw_start
from druids_p2p.games.druids2016.table_seat import ONLOOKER, Druids2016Seat
from druids_p2p.games.druids2016.view import ARROWS, PLACING, SeatView
from druids_p2p.games.seam import CommonGameState, GameMove, Streams

PLACEMENTS = 4
"""The placement moves before the first step (two a player)."""


class Druids2016Ruleset:
    """Druids (Rodiek, Hyperbole Games, 2016), the Terrain Only variant of RULINGS-2016.md."""

    name = NAME
    min_players = PLAYERS
    max_players = PLAYERS
    deck_size = ts.N_CARDS
    table_flags: frozenset[str] = frozenset()
    Move = mv.Move
    """The game's move values (the seam's ``MoveValues``): steps and placements."""

    def new_game(self, players: int, **options: Any) -> Druids2016State:
        """A new game with the first player and tiles drawn from ``seed=`` (default 0)."""
        opts = Options2016(players=players)
        first, tiles = draw_start(random.Random(options.get("seed", 0)))
        return Druids2016State(default_board(), opts.rules, first, tiles)

    def format_card(self, card: int) -> str:
        return ts.format_card(card)

    def parse_card(self, token: str) -> int:
        return ts.parse_card(token)

    def typed_move(self, move: GameMove) -> str:
        return move.token()

    def parse_typed_move(self, token: str) -> mv.Move:
        return parse_typed_move(token)

    def seat_lines(self, view: Any) -> list[str]:
        if not isinstance(view, SeatView):
            raise TypeError(f"{NAME} shows its SeatView, not {type(view).__name__}")
        return seat_lines(view)

    # ------------------------------------------------------------ the in-process loop
    def make_options(
        self, players: int, variant: bool = False, rounds: int | None = None
    ) -> Options2016:
        """Two players; ``variant`` and ``rounds`` are other games' (this one has neither)."""
        return Options2016(players=players)

    def max_moves(self, players: int, rounds: int) -> int:
        return PLACEMENTS + Options2016().rules.max_moves

    def start(self, options: Any, streams: Streams) -> Druids2016State:
        first, tiles = draw_start(streams("setup", 0))
        return Druids2016State(default_board(), _options(options).rules, first, tiles)

    def chance(self, state: CommonGameState, streams: Streams) -> list[list[int]] | None:
        return None  # drawn at the start: nothing is left to chance

    def in_play(self, state: CommonGameState) -> Druids2016State:
        return _state(state)

    def round_result(self, state: CommonGameState) -> tuple[list[int], str] | None:
        game = _state(state)
        return None if game.ended_by is None else (game.totals, game.ended_by)

    def record(
        self,
        state: CommonGameState,
        deals: Sequence[Sequence[Sequence[int]]],
        moves: Sequence[Sequence[int]],
    ) -> dict[str, Any]:
        """The game file (docs/rules-2016.md §6, with ``"game"``); before play starts, the
        placements so far (the file is then not a whole game)."""
        game = _state(state)
        if game.game is not None:
            return game_record(game.game)
        return {
            "game": NAME,
            "first": game.first,
            "tiles": game.tiles,
            "placement": {str(p): [square_name(s) for s in game.placed[p]] for p in (0, 1)},
            "moves": [],
        }

    def replay(self, text: str) -> tuple[int, dict[str, Any]]:
        """(0, outcome) or (1, outcome with ``error`` and ``move``); ValueError (one line) for
        a malformed file."""
        code, out = replay(text)
        if code:
            out["ok"] = False
        return code, out

    def describe(self, state: CommonGameState) -> Iterator[str]:
        game = _state(state)
        if game.game is None:
            return iter([f"P{game.first} at row 1, tiles {game.tiles}: the Druids are not placed"])
        return game_lines(game.game)

    # ------------------------------------------------------------ the mental card table
    def table_seat(self, options: Any, seat: int, rng: random.Random) -> Druids2016Seat:
        return Druids2016Seat(_options(options), seat)

    def onlooker(self, options: Any) -> Druids2016Seat:
        """The placements are revealed before play and every step is public: what is public
        follows the whole game."""
        return Druids2016Seat(_options(options), ONLOOKER)


def playout(rng: random.Random, options: Any) -> int:
    """One game of uniformly random moves (placements and steps): its number of moves."""
    first, tiles = draw_start(rng)
    game = Druids2016State(default_board(), _options(options).rules, first, tiles)
    count = 0
    while game.to_move is not None:
        game.play(rng.choice(game.legal_moves()))
        count += 1
    return count


def _options(options: Any) -> Options2016:
    if not isinstance(options, Options2016):
        raise TypeError(f"{NAME} plays with its Options2016, not {type(options).__name__}")
    return options


def _state(state: object) -> Druids2016State:
    if not isinstance(state, Druids2016State):
        raise TypeError(f"{NAME} plays a Druids2016State, not {type(state).__name__}")
    return state


__all__ = ["RULES", "Druids2016Ruleset", "playout"]


# ---- formerly seat_text.py:
# A seat's view as a person at a plain terminal reads it, and the moves as it types them.


def _cell(view: SeatView, square: int, tiles: dict[int, str]) -> str:
    cell = view.board.cells[square]
    ground = tiles.get(square) or (cell.lower() if cell in TERRAINS else cell)
    druid = next((d for d in view.druids if d.square == square), None)
    if druid is None:
        mine = square in view.placed
        return f"{ground}{view.seat}? " if mine else f" {ground}  "
    return f"{ground}{druid.player}{ARROWS[druid.facing]}{'*' if druid.master else ' '}"


def seat_lines(view: SeatView) -> list[str]:
    """The board (row 7 on top; a tile in capitals, a bare symbol in small letters, a Druid as
    its player, its facing and ``*`` for the Master), then whose move it is and the legal
    moves."""
    tiles = dict(view.tiles)
    lines = [
        f"  {r + 1} " + " ".join(_cell(view, r * COLS + c, tiles) for c in range(COLS))
        for r in reversed(range(ROWS))
    ]
    lines.append("     " + "    ".join("abcde"))
    if view.first is not None:
        lines.append(f"P{view.first} sits at row 1 and moved first; you are P{view.seat}")
    if view.phase == PLACING and view.placed:
        lines.append("your Druids so far: " + " ".join(square_name(s) for s in view.placed))
    if view.legal:
        lines.append("legal: " + " ".join(Move.of(m).token() for m in view.legal))
    if view.result is not None:
        lines.append(f"game over: {view.ended_by}, winners {list(view.winners or ())}")
    return lines


def parse_typed_move(text: str) -> Move:
    """A move as typed: its token, or a bare square (``b1``) for a placement."""
    token = " ".join(text.split())
    if re.fullmatch(r"[a-e][1-7]", token):
        token = "@" + token
    return Move.from_token(token)


RULES = Druids2016Ruleset()
"""The rules, as the game's spec names them (``GameSpec.rules``)."""
