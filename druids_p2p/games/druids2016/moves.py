"""A move as a value and its token in the rulings' notation (docs/rules-2016.md §6): ``b1e``, ``b1n
Fd3``, ``b3n Ca5>d3``, and a placement ``@b1``, a move too so it is chosen like any other. Each has
one position-independent integer ``code``, interned on first use (docs/games.md "Moves as values":
about 186,000 codes, too many to make at import).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from druids_p2p.games.druids2016.board import (
    CLOUD,
    DIRECTION_NAMES,
    SQUARES,
    TERRAINS,
    parse_square,
    square_name,
)

_TOKEN: Final = re.compile(
    r"([a-e][1-7])([nesw])(?: (?:([MFR])([a-e][1-7])|C([a-e][1-7])>([a-e][1-7])))?"
)
_PLACE_TOKEN: Final = re.compile(r"@([a-e][1-7])")
_KINDS: Final = ("", *TERRAINS)
PLACE: Final = 140 * 5 * 36 * 36
"""A placement's code is ``PLACE + square``: above every step's (the step codes end below)."""
PLACE_DIRECTION: Final = -1
"""The ``direction`` of a placement (it is no step)."""
_INTERNED: dict[int, Move] = {}


@dataclass(frozen=True, slots=True)
class Move:
    """The Druid on ``square`` steps ``direction`` (0-3: n e s w); ``tile`` (M, F, C or R) is the
    kind of the tile its symbol forces to ``target``, from ``source`` for a Cloud (else None)."""

    square: int
    direction: int
    tile: str | None = None
    source: int | None = None
    target: int | None = None

    def __post_init__(self) -> None:
        if self.direction == PLACE_DIRECTION and 0 <= self.square < SQUARES:
            if self.tile is not None or self.source is not None or self.target is not None:
                raise ValueError(f"a placement on square {self.square} moves no tile")
            return
        if not 0 <= self.square < SQUARES or not 0 <= self.direction < 4:
            raise ValueError(f"no move from square {self.square} in direction {self.direction}")
        if self.tile is None:
            ok = self.source is None and self.target is None
        elif self.tile == CLOUD:
            ok = self.source is not None and self.target is not None
        else:
            ok = self.tile in TERRAINS and self.source is None and self.target is not None
        squares = [s for s in (self.source, self.target) if s is not None]
        if not ok or any(not 0 <= s < SQUARES for s in squares):
            raise ValueError(f"no move has tile {self.tile!r} from {self.source} to {self.target}")

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return Move.of, (self.code,)  # a copy (pickle, deepcopy) is the one value again

    @property
    def placement(self) -> bool:
        """Whether this is a placement (``@b1``) rather than a step."""
        return self.direction == PLACE_DIRECTION

    @property
    def id(self) -> int:
        """The seam's move id: :attr:`code`."""
        return self.code

    def token(self) -> str:
        """The move's one token: ``b1e``, ``b1n Fd3``, ``b3n Ca5>d3``, ``@b1``."""
        if self.placement:
            return f"@{square_name(self.square)}"
        step = f"{square_name(self.square)}{DIRECTION_NAMES[self.direction]}"
        if self.tile is None or self.target is None:
            return step
        if self.source is not None:
            return f"{step} {self.tile}{square_name(self.source)}>{square_name(self.target)}"
        return f"{step} {self.tile}{square_name(self.target)}"

    @classmethod
    def from_token(cls, token: str) -> Move:
        """The move a canonical token names; ValueError naming the token otherwise."""
        place = _PLACE_TOKEN.fullmatch(token) if isinstance(token, str) else None
        if place is not None:
            return _intern(cls(parse_square(place.group(1)), PLACE_DIRECTION))
        match = _TOKEN.fullmatch(token) if isinstance(token, str) else None
        if match is None:
            raise ValueError(
                f"{token!r} is no move (write e.g. 'b1e', 'b1n Fd3', 'b3n Ca5>d3' or '@b1')"
            )
        square, direction, kind, target, source, cloud_target = match.groups()
        step = (parse_square(square), DIRECTION_NAMES.index(direction))
        if kind is not None:
            return _intern(cls(*step, kind, None, parse_square(target)))
        if source is not None:
            return _intern(cls(*step, CLOUD, parse_square(source), parse_square(cloud_target)))
        return _intern(cls(*step))

    @staticmethod
    def of(move_id: int) -> Move:
        """The move with ``move_id`` (its :attr:`code`); ValueError for an id that is none."""
        return Move.from_code(move_id)

    @staticmethod
    def place(square: int) -> Move:
        """The placement of a Druid on ``square``."""
        return Move.from_code(PLACE + square)

    @property
    def code(self) -> int:
        """A small integer naming the move (the same in every position)."""
        if self.direction == PLACE_DIRECTION:
            return PLACE + self.square
        source = 0 if self.source is None else self.source + 1
        target = 0 if self.target is None else self.target + 1
        kind = _KINDS.index(self.tile or "")
        return self.square * 4 + self.direction + 140 * (kind + 5 * (source + 36 * target))

    @classmethod
    def from_code(cls, code: int) -> Move:
        """The move :attr:`code` names; ValueError for a number that names none."""
        if isinstance(code, bool) or not isinstance(code, int) or code < 0:
            raise ValueError(f"no move has code {code!r}")
        known = _INTERNED.get(code)
        if known is not None:
            return known
        if code >= PLACE:
            if code >= PLACE + SQUARES:
                raise ValueError(f"no move has code {code}")
            return _intern(cls(code - PLACE, PLACE_DIRECTION))
        step, rest = code % 140, code // 140
        kind, rest = rest % 5, rest // 5
        source, target = rest % 36, rest // 36
        if target > SQUARES:
            raise ValueError(f"no move has code {code}")
        return _intern(
            cls(
                step // 4,
                step % 4,
                _KINDS[kind] or None,
                None if source == 0 else source - 1,
                None if target == 0 else target - 1,
            )
        )


def _intern(move: Move) -> Move:
    """The one value of ``move``'s code (``move`` itself the first time)."""
    return _INTERNED.setdefault(move.code, move)
