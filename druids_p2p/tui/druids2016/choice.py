"""Choosing a Druids (2016) move on the board, square by square: the Druid, where it goes, then (on
a terrain symbol) which tile moves where. Pure and without Textual, so keys, mouse and tests take
the same steps, and a complete choice is always one of the engine's legal moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from druids_p2p.games.druids2016.board import DIRECTION_NAMES, NEIGHBOURS, square_name
from druids_p2p.games.druids2016.game import Game
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.policy import clone

TILE_WORDS = {"M": "Mountain", "F": "Forest", "C": "Cloud", "R": "River"}


@dataclass(frozen=True)
class Step:
    """One way the focused Druid can go: onto ``square`` (the neighbour in ``direction``), ending
    on ``final`` after any River push or Cloud jump; ``moves`` are the legal moves of this step
    (more than one: a forced tile move is still to be chosen)."""

    direction: int
    square: int
    final: int
    moves: tuple[Move, ...]

    @property
    def token(self) -> str:
        return f"{square_name(self.moves[0].square)}{DIRECTION_NAMES[self.direction]}"


def final_square(game: Game, move: Move) -> int:
    """Where the moving Druid stands after ``move`` (a legal one), played on a copy."""
    work = clone(game)
    druid = work.occ[move.square]
    work.play_code(move.code)
    return work.pos[druid]


def steps_from(game: Game, legal: Sequence[Move], square: int) -> dict[int, Step]:
    """The steps of the Druid on ``square``, by direction (empty: it cannot move)."""
    by_direction: dict[int, list[Move]] = {}
    for move in legal:
        if move.square == square:
            by_direction.setdefault(move.direction, []).append(move)
    return {
        d: Step(d, NEIGHBOURS[square][d], final_square(game, moves[0]), tuple(moves))
        for d, moves in sorted(by_direction.items())
    }


Outcome = Move | str | None
"""What a chosen square does: a complete legal move to play, a refusal (one line, why), or
None when the choice moved on (a Druid focused, a step or a Cloud chosen, a choice dropped)."""


class Picker:
    """The choice of the player to move, in ``game`` with its ``legal`` moves (the player's own
    Druids are those the legal moves start from)."""

    def __init__(self, game: Game, legal: Sequence[Move]) -> None:
        self.game = game
        self.legal = tuple(legal)
        self.movable = tuple(sorted({m.square for m in self.legal}))
        self.focus: int | None = None
        self.steps: dict[int, Step] = {}
        self.step: Step | None = None
        """The step chosen while its tile move is still to be chosen."""
        self.source: int | None = None
        """The Cloud tile chosen (its square) while its destination is still to be chosen."""

    # ------------------------------------------------------------------ what is shown
    def destinations(self) -> dict[int, int]:
        """The squares that choose a step of the focused Druid, each with its direction: the
        neighbour it steps onto, and where a River or Cloud carries it on, that square too
        (when no other step ends there)."""
        if self.step is not None:
            return {}
        out = {s.square: d for d, s in self.steps.items()}
        for d, s in self.steps.items():
            if s.final != s.square and s.final not in out:
                clash = [o for o in self.steps.values() if o.final == s.final and o is not s]
                if not clash:
                    out[s.final] = d
        return out

    def landings(self) -> frozenset[int]:
        """Where the focused Druid's steps end after a River or Cloud (drawn apart)."""
        return frozenset(s.final for s in self.steps.values() if s.final != s.square)

    def tile_sources(self) -> frozenset[int]:
        """The Cloud tiles to choose from (only when both can move)."""
        if self.step is None or self.source is not None:
            return frozenset()
        sources = {m.source for m in self.step.moves if m.source is not None}
        return frozenset(sources) if len(sources) > 1 else frozenset()

    def tile_targets(self) -> frozenset[int]:
        """The squares the forced tile may go to (once its source, if a Cloud, is known)."""
        if self.step is None or self.tile_sources():
            return frozenset()
        return frozenset(m.target for m in self._tile_moves() if m.target is not None)

    def _tile_moves(self) -> list[Move]:
        assert self.step is not None
        moves = list(self.step.moves)
        sources = {m.source for m in moves}
        if len(sources) > 1 and self.source is not None:
            moves = [m for m in moves if m.source == self.source]
        return moves

    def hint(self) -> str:
        """What the person chooses next, in a line."""
        if self.step is not None:
            kind = TILE_WORDS[self.step.moves[0].tile or "M"]
            land = square_name(self.step.final)
            if self.tile_sources():
                return f"{self.step.token} ends on the Cloud symbol on {land}: choose a Cloud tile"
            return (
                f"{self.step.token} ends on the {kind} symbol on {land}: "
                f"choose where the {kind} tile goes"
            )
        if self.focus is None:
            return "choose one of your Druids (Tab, or a click)"
        ways = ", ".join(
            f"{DIRECTION_NAMES[d]} to {square_name(s.square)}" for d, s in self.steps.items()
        )
        return f"the Druid on {square_name(self.focus)} may go {ways}"

    # ------------------------------------------------------------------ choosing
    def focus_on(self, square: int) -> None:
        """Focus the Druid on ``square`` (one of :attr:`movable`), dropping any step chosen."""
        self.focus = square
        self.steps = steps_from(self.game, self.legal, square)
        self.step = None
        self.source = None

    def cycle(self, delta: int = 1) -> int | None:
        """Focus the next (or previous) Druid that can move: its square."""
        if not self.movable:
            return None
        if self.focus in self.movable:
            i = (self.movable.index(self.focus) + delta) % len(self.movable)
        else:
            i = 0 if delta > 0 else len(self.movable) - 1
        self.focus_on(self.movable[i])
        return self.focus

    def back(self) -> bool:
        """Drop the last choice (Escape): the Cloud, the step, the Druid; False if none."""
        if self.source is not None:
            self.source = None
        elif self.step is not None:
            self.step = None
        elif self.focus is not None:
            self.focus, self.steps = None, {}
        else:
            return False
        return True

    def go(self, direction: int) -> Outcome:
        """Step the focused Druid ``direction`` (the key of a direction)."""
        if self.focus is None:
            return "choose a Druid first (Tab)"
        if self.step is not None:
            return "choose the tile's square first (Escape to choose another step)"
        step = self.steps.get(direction)
        if step is None:
            return self._why_not(direction)
        return self._take(step)

    def choose(self, square: int) -> Outcome:
        """The person chose ``square`` (Enter on it, or a click)."""
        if self.step is not None:
            return self._choose_tile(square)
        destinations = self.destinations()
        if self.focus is not None and square in destinations:
            return self._take(self.steps[destinations[square]])
        if square in self.movable:
            self.focus_on(square)
            return None
        druid = self.game.occ[square]
        if druid >= 0 and druid // 3 == self.game.side:
            return f"the Druid on {square_name(square)} has no legal move"
        if self.focus is not None:
            return f"the Druid on {square_name(self.focus)} cannot go to {square_name(square)}"
        return f"no Druid of yours on {square_name(square)}"

    def _take(self, step: Step) -> Outcome:
        if len(step.moves) == 1:
            return step.moves[0]
        self.step, self.source = step, None
        return None

    def _choose_tile(self, square: int) -> Outcome:
        assert self.step is not None
        sources = self.tile_sources()
        if sources:
            if square not in sources:
                return f"choose one of the Cloud tiles, on {_names(sources)}"
            self.source = square
            return None
        for move in self._tile_moves():
            if move.target == square:
                return move
        kind = TILE_WORDS[self.step.moves[0].tile or "M"]
        return (
            f"the {kind} tile may not go to {square_name(square)}: "
            f"choose one of {_names(self.tile_targets())}"
        )

    def _why_not(self, direction: int) -> str:
        assert self.focus is not None
        reason = self.game.check(Move(self.focus, direction))
        way = f"{square_name(self.focus)}{DIRECTION_NAMES[direction]}"
        return f"{way}: {reason}" if reason else f"{way} is no legal move"


def _names(squares: frozenset[int]) -> str:
    return ", ".join(square_name(s) for s in sorted(squares))
