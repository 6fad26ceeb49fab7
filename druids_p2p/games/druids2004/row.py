"""The row of mystic places: what was played on each place, face down until its ritual."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class PlaceSlot:
    """A mystic place in the row with what was played on it (hidden until its ritual)."""

    place: int
    gems: list[tuple[int, int]] = field(default_factory=list)
    """(seat that played it, gem), in the order played."""
    servants: list[int] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.gems) + len(self.servants)

    def copy(self) -> PlaceSlot:
        return PlaceSlot(self.place, list(self.gems), list(self.servants))
