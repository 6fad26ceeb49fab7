"""What a game of Druids (2016) is started with, at a table or in process: the seat message's
fields (the seam's ``TableOptions``) and the engine's draw rules.

The game seats exactly two and has neither rounds nor a variant, so ``variant`` and ``rounds``
are always their defaults (a seat message's are not read); the board is the shipped layout (a
table binds no board file).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from druids_p2p.games.druids2016.game import Options

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
