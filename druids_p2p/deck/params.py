"""What the layer above tells the deck about a round, and the deal plan derived from it.

The deck is game-agnostic: it knows card ids 0..N-1, seats 0..n-1, a hand size h and a set of
"required" cards that must be among the k = n*h dealt (Druids: Gaia). Everything else (which card
is which, who leads) belongs to the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from druids_p2p.deck.encoding import encode_bytes, encode_int

MAX_CARDS = 128
"""Keeps a whole-deck shuffle message with its proof (about 240 bytes a card) under the wire's
64 KiB message limit."""
MAX_SEATS = 8
"""The wire layer's bound on seats at a table."""
MAX_TABLE_ID = 64
SHUFFLE_PASS = 1
"""The ``pass`` of every shuffle: this version deals with one shuffle per seat."""
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
    encoded: bytes = field(default=b"", repr=False, compare=False)
    """``enc(table_id, round_no)``: how every proof's statement begins, encoded once: here, or
    by :meth:`druids_p2p.deck.table_state.TableState.context`, which makes one an operation."""

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
        if self.required:  # (the card table's contexts require none: made once an operation)
            if any(not 0 <= c < self.num_cards for c in self.required):
                raise ValueError("required cards must be card ids of the deck")
            if len(self.required) > self.dealt:
                raise ValueError("more required cards than dealt cards")
        if not self.encoded:
            encoded = encode_bytes(self.table_id) + encode_int(self.round_no)
            object.__setattr__(self, "encoded", encoded)

    # ------------------------------------------------------------------ the deal plan
    @property
    def dealt(self) -> int:
        """k = n*h, the number of dealt positions."""
        return self.seats * self.hand_size

    @property
    def required_sorted(self) -> tuple[int, ...]:
        return tuple(sorted(self.required))

    def shuffled_cards(self) -> tuple[int, ...]:
        """Card ids, in order, publicly encrypted as the input of the shuffle: every card that is
        not required (the required ones are dealt openly placed, see :attr:`kept`)."""
        return tuple(c for c in range(self.num_cards) if c not in self.required)

    @property
    def shuffle_len(self) -> int:
        """How many ciphertexts every shuffle takes and outputs (a proof of a shuffle is about a
        permutation of all of them)."""
        return self.num_cards - len(self.required)

    @property
    def kept(self) -> int:
        """How many ciphertexts of the last shuffle are dealt: positions 0..kept-1. Positions
        kept..k-1 hold the required cards' public encryptions, in id order."""
        return self.dealt - len(self.required)

    def required_position(self, card: int) -> int:
        """Where a required card sits in the final deck (public: its holder is known as soon as
        the assignment is, as the Gaia holder is at the first lead of a physical round)."""
        return self.kept + self.required_sorted.index(card)
