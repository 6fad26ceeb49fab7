"""Options fixed for a whole game: one per ruling that is a guess, the ruling as default.

RULINGS-2004.md marks three rulings as guesses about the published game; each is a named option
here so that it can change without touching the rest of the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from druids_p2p.games.druids2004.cards import MAX_PLAYERS, MIN_PLAYERS

TIE_ANNOUNCER: Final = "announcer"
"""Equal servants take in turn order starting with the announcer (the ruling)."""
TIE_AFTER_ANNOUNCER: Final = "after_announcer"
"""... starting with the player after the announcer."""
TIE_STARTING_PLAYER: Final = "starting_player"
"""... starting with the game's starting player."""
TIE_ORDERS: Final = (TIE_ANNOUNCER, TIE_AFTER_ANNOUNCER, TIE_STARTING_PLAYER)


@dataclass(frozen=True, slots=True)
class Options:
    """``spaces_per_card`` (ruling: 2), ``tie_order`` (ruling: announcer), ``servants_return``
    (ruling: servants go back into their owners' reserves; False sends them out of the game)."""

    players: int = 4
    spaces_per_card: int = 2
    tie_order: str = TIE_ANNOUNCER
    servants_return: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"Druids (2004) is for 2 to 4 players, not {self.players!r}")
        if not isinstance(self.spaces_per_card, int) or not 1 <= self.spaces_per_card <= 20:
            raise ValueError(
                f"spaces_per_card must be an integer 1..20, not {self.spaces_per_card!r}"
            )
        if self.tie_order not in TIE_ORDERS:
            raise ValueError(
                f"tie_order must be one of {', '.join(TIE_ORDERS)}, not {self.tie_order!r}"
            )
        if not isinstance(self.servants_return, bool):
            raise ValueError(f"servants_return must be true or false, not {self.servants_return!r}")

    @property
    def column_spaces(self) -> int:
        """Spaces the column shows at once: 6 score cards of ``spaces_per_card`` each."""
        return 6 * self.spaces_per_card
