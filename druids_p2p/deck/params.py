"""What the layer above tells the deck about a round, and the deal plan derived from it.

The deck is game-agnostic: it knows card ids 0..N-1, seats 0..n-1, a hand size h and a set of
"required" cards that must be among the k = n*h dealt (Druids: Gaia). Everything else (which card
is which, who leads) belongs to the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_CARDS = 512
"""Keeps a whole-deck shuffle message well under the wire's 64 KiB message limit."""
MAX_SEATS = 8
"""The wire layer's bound on seats at a table."""
MAX_TABLE_ID = 64
MAX_ROUND = 2**32 - 1


@dataclass(frozen=True, slots=True)
class DeckParams:
    """Public parameters of one round's deal; every seat must construct identical ones."""

    table_id: bytes
    round_no: int
    num_cards: int
    seats: int
    hand_size: int
    required: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if not isinstance(self.table_id, bytes) or not 1 <= len(self.table_id) <= MAX_TABLE_ID:
            raise ValueError(f"table_id must be 1..{MAX_TABLE_ID} bytes")
        if not 0 <= self.round_no <= MAX_ROUND:
            raise ValueError(f"round_no must be in 0..{MAX_ROUND}")
        if not 2 <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be in 2..{MAX_SEATS}, not {self.seats}")
        if not 2 <= self.num_cards <= MAX_CARDS:
            raise ValueError(f"num_cards must be in 2..{MAX_CARDS}, not {self.num_cards}")
        if self.hand_size < 1 or self.seats * self.hand_size > self.num_cards:
            raise ValueError(
                f"{self.seats} hands of {self.hand_size} do not fit a deck of {self.num_cards}"
            )
        if any(not 0 <= c < self.num_cards for c in self.required):
            raise ValueError("required cards must be card ids of the deck")
        if len(self.required) > self.dealt:
            raise ValueError("more required cards than dealt cards")

    # ------------------------------------------------------------------ the deal plan
    @property
    def dealt(self) -> int:
        """k = n*h, the number of dealt positions."""
        return self.seats * self.hand_size

    @property
    def passes(self) -> int:
        """Two passes only when some cards stay out of the round and some must not."""
        return 2 if self.required and self.dealt < self.num_cards else 1

    @property
    def required_sorted(self) -> tuple[int, ...]:
        return tuple(sorted(self.required))

    def pass_one_cards(self) -> tuple[int, ...]:
        """Card ids, in order, publicly encrypted as the input of pass 1."""
        if self.passes == 2:
            return tuple(c for c in range(self.num_cards) if c not in self.required)
        return tuple(range(self.num_cards))

    def kept(self, pass_no: int) -> int:
        """How many ciphertexts of a pass's result are used afterwards."""
        if pass_no == 1 and self.passes == 2:
            return self.dealt - len(self.required)
        return self.dealt

    def input_len(self, pass_no: int) -> int:
        return len(self.pass_one_cards()) if pass_no == 1 else self.dealt

    def output_len(self, pass_no: int, seat: int) -> int:
        """The last shuffler of a pass drops the ciphertexts nobody will use (saves work)."""
        return self.kept(pass_no) if seat == self.seats - 1 else self.input_len(pass_no)
