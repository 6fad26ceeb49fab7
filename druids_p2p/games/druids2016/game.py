"""The Terrain Only game of Druids (2016) as RULINGS-2016.md rules it: one position that moves are
played on and taken back (a search plays and undoes millions, so moves are integer codes inside),
the legal moves, the end; the table's options and a position arranged by hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from druids_p2p.games.druids2016.board import (
    DIRECTION_NAMES,
    NEIGHBOURS,
    NORTH,
    SOUTH,
    SQUARES,
    TERRAINS,
    TILE_SET,
    Board,
    InvalidSetup,
    Setup,
    parse_square,
    square_name,
)
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.seam import IllegalMove

NO_TILE: Final = 0
K_MOUNTAIN: Final = 1
K_FOREST: Final = 2
K_CLOUD: Final = 3
K_RIVER: Final = 4
KIND_LETTERS: Final = ("", *TERRAINS)
_NB: Final = NEIGHBOURS

WIN: Final = "win"
DRAW: Final = "draw"
MASTER_IN_TEMPLE: Final = "master_in_temple"
MASTER_CAPTURED: Final = "master_captured"
NO_LEGAL_MOVE: Final = "no_legal_move"
REPETITION: Final = "threefold_repetition"
MOVE_LIMIT: Final = "move_limit"
REASONS: Final = (MASTER_IN_TEMPLE, MASTER_CAPTURED, NO_LEGAL_MOVE, REPETITION, MOVE_LIMIT)


@dataclass(frozen=True)
class Options:
    """The two draw rules are rulings, not readings of the seed (RULINGS-2016.md "End of the
    game"): the ``repetitions`` that draw (3) and the ``quiet_moves`` without a capture (200)."""

    repetitions: int = 3
    quiet_moves: int = 200

    def __post_init__(self) -> None:
        if not isinstance(self.repetitions, int) or self.repetitions < 2:
            raise ValueError(f"repetitions must be an integer >= 2, not {self.repetitions!r}")
        if not isinstance(self.quiet_moves, int) or self.quiet_moves < 1:
            raise ValueError(f"quiet_moves must be an integer >= 1, not {self.quiet_moves!r}")

    @property
    def max_moves(self) -> int:
        """No game is longer: 4 non-Master captures each restart the quiet count at most."""
        return 5 * self.quiet_moves


@dataclass(frozen=True)
class Result:
    """How a game ended: ``status`` win or draw, the winning ``winner`` player (None in a
    draw) and the ``reason`` (one of :data:`REASONS`)."""

    status: str
    winner: int | None
    reason: str

    def json(self) -> dict[str, object]:
        return {"status": self.status, "winner": self.winner, "reason": self.reason}


Undo = tuple[int, int, int, int, tuple[tuple[int, int], ...], int, int, int, tuple[int, ...]]
"""(code, druid, from, facing, captured (druid, square), tile index or -1, tile's old square,
quiet count, position key) of a played move, for :meth:`Game.undo`."""


class Game:
    """A game from ``setup`` on ``board``. ``to_move`` and ``result`` speak of players (0, 1);
    internally side 0 is the player at row 1."""

    def __init__(self, setup: Setup, board: Board, options: Options | None = None) -> None:
        setup.check(board)
        self.setup = setup
        self.board = board
        self.options = options or Options()
        self.symbol_kind = tuple(
            KIND_LETTERS.index(board.cells[s]) if board.cells[s] in TERRAINS else NO_TILE
            for s in range(SQUARES)
        )
        self.tile_targets = tuple(s for s in range(SQUARES) if board.tile_ok[s])
        self.tile_kind = [KIND_LETTERS.index(k) for k in setup.tiles]
        self.tile_sq = list(board.starts)
        self.tile = [NO_TILE] * SQUARES
        for index, square in enumerate(self.tile_sq):
            self.tile[square] = self.tile_kind[index]
        self.pos = [-1] * 6
        self.face = [SOUTH] * 3 + [NORTH] * 3
        self.occ = [-1] * SQUARES
        self.master = [0, 3]
        for player in (0, 1):
            side = setup.side_of(player)
            for i, square in enumerate(sorted(setup.placements[player])):
                druid = 3 * side + i
                self.pos[druid], self.occ[square] = square, druid
                if square == board.temples[side]:
                    self.master[side] = druid
        self.side = 0
        self.ply = 0
        self.quiet = 0
        self.result: Result | None = None
        self.history: list[Undo] = []
        self.counts: dict[tuple[int, ...], int] = {self.key(): 1}

    # --- the position -------------------------------------------------------------------
    @property
    def to_move(self) -> int | None:
        """The player to move, None once the game is over."""
        return None if self.result is not None else self.side ^ self.setup.first

    def player(self, side: int) -> int:
        return side ^ self.setup.first

    def key(self) -> tuple[int, ...]:
        """What makes two positions the same (RULINGS-2016.md "Fine points"): side to move,
        each Master's square and facing, the other Druids' as a set, the tiles (Clouds as a
        set)."""
        pos, face, m0, m1 = self.pos, self.face, self.master[0], self.master[1]
        druids = [pos[d] * 4 + face[d] if pos[d] >= 0 else -1 for d in range(6)]
        rest0 = sorted(druids[d] for d in range(3) if d != m0)
        rest1 = sorted(druids[d] for d in range(3, 6) if d != m1)
        kinds, squares = self.tile_kind, self.tile_sq
        clouds = sorted(squares[i] for i in range(5) if kinds[i] == K_CLOUD)
        others = [squares[i] for i in range(5) if kinds[i] != K_CLOUD]
        others.sort(key=lambda s: self.tile[s])
        return (self.side, druids[m0], *rest0, druids[m1], *rest1, *clouds, *others)

    # --- moving -------------------------------------------------------------------------
    def _step_ok(self, side: int, target: int) -> bool:
        if target < 0 or self.tile[target] == K_MOUNTAIN:
            return False
        other = self.occ[target]
        return other < 0 or (other // 3 != side and self.tile[target] != K_FOREST)

    def _resolve(self, druid: int, origin: int, direction: int) -> tuple[int, list[int]]:
        """Where a legal step ends after River and Cloud, and whom it captures (in order)."""
        side, tile, occ = druid // 3, self.tile, self.occ
        final = _NB[origin][direction]
        if tile[final] == K_RIVER:
            beyond = _NB[final][direction]
            if beyond >= 0 and tile[beyond] != K_MOUNTAIN:
                other = occ[beyond]
                if other < 0 or (other // 3 != side and tile[beyond] != K_FOREST):
                    final = beyond
        captured: list[int] = []
        other = occ[final]
        if other >= 0:
            captured.append(other)
        if tile[final] == K_CLOUD:
            cloud = next(
                s for i, s in enumerate(self.tile_sq) if self.tile_kind[i] == K_CLOUD and s != final
            )
            other = occ[cloud]
            if other < 0 or other == druid:
                final = cloud
            elif other // 3 != side:
                captured.append(other)
                final = cloud
        return final, captured

    def _tile_codes(self, step: int, origin: int, final: int) -> list[int]:
        """Every forced tile move after a step ending on ``final`` (a bare step if none)."""
        kind = self.symbol_kind[final]
        if kind == NO_TILE:
            return [step]
        codes: list[int] = []
        tile, occ = self.tile, self.occ
        for index, source in enumerate(self.tile_sq):
            if self.tile_kind[index] != kind:
                continue
            base = step + 140 * (kind + 5 * (source + 1 if kind == K_CLOUD else 0))
            for square in self.tile_targets:
                if tile[square] or square == source:
                    continue
                if kind != K_FOREST and occ[square] >= 0 and square != origin:
                    continue
                codes.append(base + 25200 * (square + 1))
        return codes or [step]

    def legal_codes(self) -> list[int]:
        """The codes of every legal move (:meth:`Move.from_code` reads one), each tile
        destination a move of its own."""
        if self.result is not None:
            return []
        side, pos, face = self.side, self.pos, self.face
        codes: list[int] = []
        for druid in range(3 * side, 3 * side + 3):
            origin = pos[druid]
            if origin < 0:
                continue
            for direction in range(4):
                if direction == face[druid] or not self._step_ok(side, _NB[origin][direction]):
                    continue
                final, _ = self._resolve(druid, origin, direction)
                codes.extend(self._tile_codes(origin * 4 + direction, origin, final))
        return codes

    def legal_moves(self) -> list[Move]:
        return [Move.from_code(code) for code in self.legal_codes()]

    def has_move(self, side: int) -> bool:
        """Whether ``side`` has a legal step (a step always makes at least one move)."""
        for druid in range(3 * side, 3 * side + 3):
            origin = self.pos[druid]
            if origin >= 0:
                for direction in range(4):
                    if direction != self.face[druid] and self._step_ok(
                        side, _NB[origin][direction]
                    ):
                        return True
        return False

    def play_code(self, code: int) -> None:
        """Play the move ``code`` names, which must be one of :meth:`legal_codes` (unchecked:
        the fast path a search takes; :meth:`play` checks)."""
        step, rest = code % 140, code // 140
        kind, rest = rest % 5, rest // 5
        source, target = rest % 36 - 1, rest // 36 - 1
        origin, direction = step >> 2, step & 3
        occ, pos, face, side = self.occ, self.pos, self.face, self.side
        druid = occ[origin]
        final, captured = self._resolve(druid, origin, direction)
        caps = tuple((c, pos[c]) for c in captured)
        occ[origin] = -1
        for c, square in caps:
            occ[square] = pos[c] = -1
        old_face = face[druid]
        pos[druid], face[druid], occ[final] = final, direction, druid
        moved = old_square = -1
        if kind:
            tile_sq = self.tile_sq
            moved = next(
                i
                for i in range(5)
                if self.tile_kind[i] == kind and (kind != K_CLOUD or tile_sq[i] == source)
            )
            old_square = tile_sq[moved]
            self.tile[old_square], self.tile[target], tile_sq[moved] = NO_TILE, kind, target
        quiet = self.quiet
        self.ply += 1
        self.quiet = 0 if caps else quiet + 1
        self.side = 1 - side
        key = self.key()
        seen = self.counts.get(key, 0) + 1
        self.counts[key] = seen
        self.history.append((code, druid, origin, old_face, caps, moved, old_square, quiet, key))
        opponent = 1 - side
        if druid == self.master[side] and final == self.board.temples[opponent]:
            self.result = Result(WIN, self.player(side), MASTER_IN_TEMPLE)
        elif any(c == self.master[opponent] for c, _ in caps):
            self.result = Result(WIN, self.player(side), MASTER_CAPTURED)
        elif not self.has_move(opponent):
            self.result = Result(WIN, self.player(side), NO_LEGAL_MOVE)
        elif seen >= self.options.repetitions:
            self.result = Result(DRAW, None, REPETITION)
        elif self.quiet >= self.options.quiet_moves:
            self.result = Result(DRAW, None, MOVE_LIMIT)

    def undo(self) -> None:
        """Take back the last move played (IndexError if none)."""
        _, druid, origin, old_face, caps, moved, old_square, quiet, key = self.history.pop()
        self.counts[key] -= 1
        if not self.counts[key]:
            del self.counts[key]
        occ, pos = self.occ, self.pos
        occ[pos[druid]] = -1
        for c, square in caps:
            occ[square], pos[c] = c, square
        occ[origin], pos[druid], self.face[druid] = druid, origin, old_face
        if moved >= 0:
            target = self.tile_sq[moved]
            self.tile[old_square] = self.tile[target]
            self.tile[target], self.tile_sq[moved] = NO_TILE, old_square
        self.side = 1 - self.side
        self.ply -= 1
        self.quiet = quiet
        self.result = None

    # --- checked moves ------------------------------------------------------------------
    def check(self, move: Move) -> str | None:
        """Why ``move`` is illegal now, in a player's words, or None if it is legal."""
        if self.result is not None:
            return "the game is over"
        if move.placement:
            return f"{move.token()} places a Druid: the Druids are placed before the first move"
        side, origin, name = self.side, move.square, square_name(move.square)
        druid = self.occ[origin]
        if druid < 0:
            return f"no Druid stands on {name}"
        if druid // 3 != side:
            return f"the Druid on {name} is player {self.player(druid // 3)}'s"
        way = "nesw"[move.direction]
        if move.direction == self.face[druid]:
            return f"the Druid on {name} faces {way} and may not move that way"
        target = _NB[origin][move.direction]
        if target < 0:
            return f"{name}{way} would leave the board"
        there = square_name(target)
        if self.tile[target] == K_MOUNTAIN:
            return f"no Druid may move onto the Mountain on {there}"
        other = self.occ[target]
        if other >= 0 and other // 3 == side:
            return f"{there} holds one of the player's own Druids"
        if other >= 0 and self.tile[target] == K_FOREST:
            return f"the Druid on {there} is in the Forest and cannot be captured"
        final, _ = self._resolve(druid, origin, move.direction)
        codes = self._tile_codes(origin * 4 + move.direction, origin, final)
        if move.code in codes:
            return None
        return self._tile_reason(move, final, codes)

    def _tile_reason(self, move: Move, final: int, codes: list[int]) -> str:
        end = square_name(final)
        kind = self.symbol_kind[final]
        if kind == NO_TILE:
            return f"the move ends on {end}, which has no symbol: no tile moves"
        letter = KIND_LETTERS[kind]
        example = Move.from_code(codes[0]).token()
        if codes == [move.square * 4 + move.direction]:
            return f"no square is free for the {letter} tile: write the move bare ({example})"
        if move.tile is None:
            return (
                f"the move ends on the {letter} symbol on {end}: "
                f"it must move a {letter} tile (e.g. {example})"
            )
        if move.tile != letter:
            return f"the {letter} symbol on {end} moves a {letter} tile, not {move.tile}"
        if move.source is not None and self.tile[move.source] != K_CLOUD:
            return f"no Cloud tile lies on {square_name(move.source)}"
        assert move.target is not None
        return (
            f"the {letter} tile may not go to {square_name(move.target)} (it must go to another "
            "square with no symbol, Star, tile or Druid, off the Temple rows; "
            "a Forest may go under a Druid)"
        )

    def play(self, move: Move) -> None:
        """Play ``move``; IllegalMove (with :meth:`check`'s reason) if the rules forbid it."""
        reason = self.check(move)
        if reason is not None:
            raise IllegalMove(reason)
        self.play_code(move.code)


# ---- formerly options.py:
# What a game of Druids (2016) is started with, at a table or in process: the seat message's
# fields (the seam's ``TableOptions``) and the engine's draw rules.
#
# The game seats exactly two and has neither rounds nor a variant, so ``variant`` and ``rounds``
# are always their defaults (a seat message's are not read); the board is the shipped layout (a
# table binds no board file).

PLAYERS = 2


@dataclass(frozen=True)
class Options2016:
    """Two seats; ``rules`` the draw rules (threefold repetition, 200 quiet moves)."""

    players: int = PLAYERS
    variant: bool = False
    rounds: int = 1
    rules: Options = field(default_factory=Options)

    def __post_init__(self) -> None:
        if self.players != PLAYERS:
            raise ValueError(f"druids2016 seats exactly {PLAYERS} players, not {self.players}")


# ---- formerly arrange.py:
# A position set up by hand rather than played to: what a rule's test, a puzzle or a screen
# shot starts from. Every piece is named by square, in the notation's words::
#
#     arranged(board, first=0, druids={"c1": "0s*", "b3": "1n"}, tiles={"c4": "C", ...})
#
# puts player 0's Master (``*``) on c1 facing south and a Druid of player 1 on b3 facing north.


def arranged(
    board: Board,
    first: int,
    druids: Mapping[str, str],
    tiles: Mapping[str, str],
    to_move: int | None = None,
    options: Options | None = None,
) -> Game:
    """A game in the position given (``to_move``: the player to move, ``first`` by default);
    InvalidSetup if it breaks an invariant (one Master and at most 3 Druids a player, the five
    tiles, none on a symbol, Star or Temple row unless it started there)."""
    if Counter(tiles.values()) != Counter(TILE_SET):
        raise InvalidSetup(f"the tiles must be C, C, M, F, R, not {sorted(tiles.values())}")
    placed: list[list[tuple[int, int, bool]]] = [[], []]
    for name, spec in druids.items():
        square = parse_square(name)
        if len(spec) not in (2, 3) or spec[0] not in "01" or spec[1] not in DIRECTION_NAMES:
            raise InvalidSetup(f"{name}: {spec!r} is no Druid (player, facing, '*' for Master)")
        master = spec[2:] == "*"
        if spec[2:] not in ("", "*"):
            raise InvalidSetup(f"{name}: {spec!r} is no Druid (player, facing, '*' for Master)")
        placed[int(spec[0])].append((square, DIRECTION_NAMES.index(spec[1]), master))
    for player in (0, 1):
        if len(placed[player]) > 3 or sum(m for _, _, m in placed[player]) != 1:
            raise InvalidSetup(f"player {player} needs 1 to 3 Druids, exactly one the Master")
    game = _blank(board, first, options)
    for player in (0, 1):
        side = game.setup.side_of(player)
        for i, (square, facing, master) in enumerate(placed[player]):
            druid = 3 * side + i
            game.pos[druid], game.face[druid], game.occ[square] = square, facing, druid
            if master:
                game.master[side] = druid
    for index, (name, letter) in enumerate(sorted(tiles.items())):
        square = parse_square(name)
        if not board.tile_ok[square] and square not in board.starts:
            raise InvalidSetup(f"{name}: no tile may lie on a symbol, Star or Temple row")
        game.tile_sq[index], game.tile_kind[index] = square, KIND_LETTERS.index(letter)
        game.tile[square] = game.tile_kind[index]
    if any(game.tile[s] == K_MOUNTAIN for s in game.pos if s >= 0):
        raise InvalidSetup("no Druid may stand on the Mountain tile")
    if to_move is not None:
        game.side = game.setup.side_of(to_move)
    game.counts = {game.key(): 1}
    return game


def _blank(board: Board, first: int, options: Options | None) -> Game:
    """A legal game from ``board``'s start, emptied of every Druid and tile."""
    placements: list[tuple[int, int, int]] = []
    for player in (0, 1):
        side = player ^ first
        temple = board.temples[side]
        others = [s for s in board.back_row(side) if s != temple]
        placements.append((temple, others[0], others[1]))
    game = Game(Setup(first, "".join(TILE_SET), (placements[0], placements[1])), board, options)
    game.pos = [-1] * 6
    game.occ = [-1] * SQUARES
    game.tile = [NO_TILE] * SQUARES
    return game
