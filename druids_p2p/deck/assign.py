"""Which final position goes to which seat: fixed only once the final deck is.

Each seat commits to a 32-byte salt (``salt_hash`` in its ``deck_key``, sent before any shuffle)
and reveals it in ``deck_salt`` once the last shuffle is published. The position -> seat
assignment is a uniform permutation of the k dealt positions drawn from all the salts, so no
shuffler (in particular the last one) knows, while shuffling, which positions will be its own.

    seed = SHA-256(enc("druids-p2p/v1 deck assign", table_id, round, salt_0, ..., salt_{n-1}))
    perm = FisherYates_k(SHAKE-256(enc("druids-p2p/v1 deck assign-perm", seed)))

Seat s holds positions perm[s], perm[s+n], perm[s+2n], ... in that order (its *position order*:
its share batches, its hand and the audit's hands all follow it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from druids_p2p.deck.encoding import TAG_ASSIGN, TAG_ASSIGN_PERM, TAG_SALT, sha256
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.shuffle import ByteStream, fisher_yates

SALT_BYTES = 32


def salt_hash(salt: bytes) -> bytes:
    """SHA-256(enc("druids-p2p/v1 deck salt", salt)): what ``deck_key`` commits to."""
    return sha256(TAG_SALT, salt)


def assignment_seed(params: DeckParams, salts: Sequence[bytes]) -> bytes:
    return sha256(TAG_ASSIGN, params.table_id, params.round_no, *salts)


def assignment_permutation(params: DeckParams, salts: Sequence[bytes]) -> list[int]:
    """A uniform permutation of range(k) (exact rejection sampling, as for shuffles)."""
    if len(salts) != params.seats:
        raise ValueError(f"{len(salts)} salts for {params.seats} seats")
    k = params.dealt
    stream = ByteStream(TAG_ASSIGN_PERM, assignment_seed(params, salts), initial=2 * k)
    return fisher_yates(stream, k)


@dataclass(frozen=True, slots=True)
class Assignment:
    """The round's position -> seat map: seat s holds ``perm[s::n]`` in that order."""

    seats: int
    perm: tuple[int, ...]
    _owner: tuple[int, ...] = field(repr=False, compare=False)
    _index: tuple[int, ...] = field(repr=False, compare=False)

    @classmethod
    def from_perm(cls, seats: int, perm: Sequence[int]) -> Assignment:
        k = len(perm)
        if sorted(perm) != list(range(k)) or k % seats:
            raise ValueError("not a permutation of n*h positions")
        owner = [0] * k
        index = [0] * k
        for i, j in enumerate(perm):
            owner[j] = i % seats
            index[j] = i // seats
        return cls(seats, tuple(perm), tuple(owner), tuple(index))

    @classmethod
    def derive(cls, params: DeckParams, salts: Sequence[bytes]) -> Assignment:
        return cls.from_perm(params.seats, assignment_permutation(params, salts))

    def positions(self, seat: int) -> tuple[int, ...]:
        """Seat ``seat``'s positions, in its position order."""
        return self.perm[seat :: self.seats]

    def owner(self, position: int) -> int:
        return self._owner[position]

    def index(self, position: int) -> int:
        """Where ``position`` sits in its owner's position order (its index in share batches)."""
        return self._index[position]
