"""In-process card tables for the tests: the table bench's bus (``druids_p2p.bench.table_deck``)
with reproducible entropy, as deck_local does for the deal."""

from __future__ import annotations

import hashlib

from deck_local import seeded_entropy

from druids_p2p.bench.table_deck import TableBus
from druids_p2p.bench.table_deck import make_table as make_bench_table

__all__ = ["GAME", "TABLE_ID", "TableBus", "make_table"]

TABLE_ID = hashlib.sha256(b"druids-p2p card table test").digest()
GAME = 1


def make_table(seats: int, num_cards: int, seed: bytes = b"table") -> TableBus:
    """``seats`` started table peers with reproducible entropy and fresh Ed25519 identities."""
    return make_bench_table(
        TABLE_ID, GAME, seats, num_cards, lambda s: seeded_entropy(seed + b"/%d" % s)
    )
