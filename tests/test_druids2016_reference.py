"""The engine against a second, deliberately naive reading of RULINGS-2016.md, move by move.

The reference below is written from the rulings' text only (dicts of squares, no codes, no undo):
"A turn" (facing, the four illegal targets), then River, Capture, Cloud, Symbol in that order,
"End of the game" in the "Order of ends", and a position as "board, facings, tiles, player to
move" plus which Druid is each Master. Random games on the default board and on other legal
boards must give the same legal tokens, the same position and the same end after every move.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from druids_p2p.games.druids2016.board import (
    Board,
    default_board,
    parse_board,
    random_setup,
    square_name,
)
from druids_p2p.games.druids2016.game import Game, Options
from druids_p2p.games.druids2016.moves import Move

STEPS = {"n": (0, 1), "e": (1, 0), "s": (0, -1), "w": (-1, 0)}
COLS = "abcde"


def step(square: str, way: str) -> str | None:
    col, row = COLS.index(square[0]) + STEPS[way][0], int(square[1]) + STEPS[way][1]
    return f"{COLS[col]}{row}" if 0 <= col < 5 and 1 <= row <= 7 else None


@dataclass(frozen=True)
class Druid:
    side: int  # 0 sits at row 1
    facing: str
    master: bool


@dataclass
class Ref:
    """A position as the rulings describe it."""

    cells: dict[str, str]  # the printed board: T * . M F C R
    druids: dict[str, Druid]
    tiles: dict[str, str]
    side: int = 0
    quiet: int = 0
    seen: Counter[object] = field(default_factory=Counter)
    limit: int = 200  # moves without a capture that draw
    result: tuple[str, int | None, str] | None = None  # status, winning side, reason

    def key(self) -> object:
        return (self.side, frozenset(self.druids.items()), frozenset(self.tiles.items()))

    def temple(self, side: int) -> str:
        row = "1" if side == 0 else "7"
        return next(s for s, c in self.cells.items() if c == "T" and s[1] == row)

    def steps(self) -> list[tuple[str, str, str]]:
        """Every legal step of the side to move: (from, direction, square entered)."""
        out: list[tuple[str, str, str]] = []
        for origin, druid in self.druids.items():
            if druid.side != self.side:
                continue
            for way in "nesw":
                target = step(origin, way)
                if way == druid.facing or target is None or self.tiles.get(target) == "M":
                    continue
                there = self.druids.get(target)
                if there and (there.side == self.side or self.tiles.get(target) == "F"):
                    continue
                out.append((origin, way, target))
        return out

    def outcomes(self) -> dict[str, Ref]:
        """Every legal move's token and the position it leads to."""
        out: dict[str, Ref] = {}
        for origin, way, target in self.steps():
            self._resolve(origin, way, target, out)
        return out

    def _resolve(self, origin: str, way: str, target: str, out: dict[str, Ref]) -> None:
        druids, tiles = dict(self.druids), self.tiles
        mover = druids.pop(origin)
        captured: list[Druid] = []
        end = target
        if tiles.get(end) == "R":  # 1. River
            beyond = step(end, way)
            if beyond is not None and tiles.get(beyond) != "M":
                there = druids.get(beyond)
                if not (there and (there.side == mover.side or tiles.get(beyond) == "F")):
                    end = beyond
        if end in druids:  # 2. Capture
            captured.append(druids.pop(end))
        if tiles.get(end) == "C":  # 3. Cloud
            other = next(s for s, k in tiles.items() if k == "C" and s != end)
            there = druids.get(other)
            if not (there and there.side == mover.side):
                if there:
                    captured.append(druids.pop(other))
                end = other
        druids[end] = Druid(mover.side, way, mover.master)
        base = f"{origin}{way}"
        symbol = self.cells[end] if self.cells[end] in "MFCR" else None
        choices: list[tuple[str, dict[str, str]]] = []
        if symbol is not None:  # 4. Symbol
            for source in sorted(s for s, k in tiles.items() if k == symbol):
                for square in sorted(self.cells):
                    if (
                        self.cells[square] != "."
                        or square[1] in "17"
                        or square in tiles
                        or (square in druids and symbol != "F")
                    ):
                        continue
                    moved = {s: k for s, k in tiles.items() if s != source}
                    moved[square] = symbol
                    name = f"C{source}>{square}" if symbol == "C" else f"{symbol}{square}"
                    choices.append((f"{base} {name}", moved))
        for token, new_tiles in choices or [(base, dict(tiles))]:
            quiet = 0 if captured else self.quiet + 1
            nxt = Ref(self.cells, dict(druids), new_tiles, 1 - self.side, quiet, Counter(self.seen))
            nxt.limit = self.limit
            nxt.seen[nxt.key()] += 1
            opp = 1 - mover.side
            if mover.master and end == self.temple(opp):
                nxt.result = ("win", mover.side, "master_in_temple")
            elif any(c.master for c in captured):
                nxt.result = ("win", mover.side, "master_captured")
            elif not nxt.steps():
                nxt.result = ("win", mover.side, "no_legal_move")
            elif nxt.seen[nxt.key()] >= 3:
                nxt.result = ("draw", None, "threefold_repetition")
            elif nxt.quiet >= nxt.limit:
                nxt.result = ("draw", None, "move_limit")
            out[token] = nxt


def reference_start(game: Game) -> Ref:
    board, setup = game.board, game.setup
    cells = {square_name(s): board.cells[s] for s in range(35)}
    tiles = {square_name(s): k for s, k in zip(board.starts, setup.tiles, strict=True)}
    druids: dict[str, Druid] = {}
    for player in (0, 1):
        side = setup.side_of(player)
        for s in setup.placements[player]:
            druids[square_name(s)] = Druid(
                side, "s" if side == 0 else "n", s == board.temples[side]
            )
    ref = Ref(cells, druids, tiles, limit=game.options.quiet_moves)
    ref.seen[ref.key()] = 1
    return ref


def engine_view(game: Game) -> tuple[dict[str, Druid], dict[str, str]]:
    druids = {
        square_name(game.pos[d]): Druid(d // 3, "nesw"[game.face[d]], d == game.master[d // 3])
        for d in range(6)
        if game.pos[d] >= 0
    }
    tiles = {square_name(s): " MFCR"[game.tile[s]] for s in range(35) if game.tile[s]}
    return druids, tiles


def choose(rng: random.Random, ref: Ref, outcomes: dict[str, Ref]) -> str:
    """A random legal token, often one that repeats a position or captures (random play alone
    seldom repeats a position three times or captures twice in one move)."""
    tokens = sorted(outcomes)
    repeats = [t for t in tokens if outcomes[t].seen[outcomes[t].key()] >= 2]
    captures = [t for t in tokens if len(outcomes[t].druids) < len(ref.druids)]
    doubles = [t for t in captures if len(outcomes[t].druids) < len(ref.druids) - 1]
    for pool, chance in ((doubles, 1.0), (repeats, 0.6), (captures, 0.2)):
        if pool and rng.random() < chance:
            return rng.choice(pool)
    return rng.choice(tokens)


def compare_game(board: Board, seed: int, quiet: int) -> None:
    rng = random.Random(seed)
    game = Game(random_setup(rng, board), board, Options(quiet_moves=quiet))
    ref = reference_start(game)
    while True:
        assert engine_view(game) == (ref.druids, ref.tiles), f"ply {game.ply}"
        if ref.result is not None or game.result is not None:
            assert game.result is not None and ref.result is not None, f"ply {game.ply}"
            status, side, reason = ref.result
            winner = None if side is None else game.player(side)
            assert (game.result.status, game.result.winner, game.result.reason) == (
                status,
                winner,
                reason,
            )
            return
        outcomes = ref.outcomes()
        legal = sorted(m.token() for m in game.legal_moves())
        assert legal == sorted(outcomes), f"ply {game.ply}"
        token = choose(rng, ref, outcomes)
        game.play(Move.from_token(token))
        ref = outcomes[token]


OTHER_BOARDS = [
    # the symbols moved about: Clouds next to the River, a Mountain beside a Temple
    ". . T . .\nM . . . F\n. R C . .\n* F * M *\n. . C R .\nF . . . M\n. . T . .\n",
    # Stars on row 2, Clouds on row 6, every kind of symbol on one side
    ". T . . .\n. C R C .\n. . M . .\n. F . . .\n. . . . .\n* . * . *\n. . . T .\n",
]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), quiet=st.sampled_from([200, 12]))
def test_reference_every_move_of_random_games_agrees_on_the_default_board(
    seed: int, quiet: int
) -> None:
    compare_game(default_board(), seed, quiet)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), which=st.sampled_from([0, 1]))
def test_reference_every_move_of_random_games_agrees_on_other_boards(seed: int, which: int) -> None:
    compare_game(parse_board(OTHER_BOARDS[which], f"board {which}"), seed, 200)


def test_reference_the_other_boards_are_legal_and_unlike_the_default() -> None:
    starts = [["c4", "a3", "a5", "e3", "e5"], ["c2", "a3", "b2", "d2", "e3"]]
    for index, text in enumerate(OTHER_BOARDS):
        board = parse_board(text, f"board {index}")
        assert board.cells != default_board().cells
        assert [square_name(s) for s in board.starts] == starts[index]
