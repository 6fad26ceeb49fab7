"""In-process card tables for the tests: the benches' bus (``druids_p2p.bench.table_deck``) and a
Druids (2017) round's deal (``druids_p2p.bench.round_deal``), with reproducible entropy."""

from __future__ import annotations

import hashlib

from deck_local import seeded_entropy

from druids_p2p.bench.round_deal import deal_round
from druids_p2p.bench.table_deck import TableBus
from druids_p2p.bench.table_deck import make_table as make_bench_table
from druids_p2p.games.druids2017.cards import N_CARDS as N_CARDS_2017

__all__ = ["GAME", "N_CARDS_2017", "TABLE_ID", "TableBus", "dealt_round", "make_table"]

TABLE_ID = hashlib.sha256(b"druids-p2p card table test").digest()
GAME = 1


def make_table(seats: int, num_cards: int, seed: bytes = b"table") -> TableBus:
    """``seats`` started table peers with reproducible entropy and fresh Ed25519 identities."""
    return make_bench_table(
        TABLE_ID, GAME, seats, num_cards, lambda s: seeded_entropy(seed + b"/%d" % s)
    )


def dealt_round(players: int, seed: bytes = b"round", round_no: int = GAME) -> TableBus:
    """A Druids (2017) round's table, dealt (round_ops: shuffles, transfers, deals), with
    reproducible entropy: each seat holds its hand, Gaia is at one seat's ``lead`` position."""
    return deal_round(
        players,
        TABLE_ID,
        round_no,
        entropy=lambda s: seeded_entropy(seed + b"/%d" % s),
    )
