"""In-process card tables for the tests: the benches' bus (``druids_p2p.bench.tables``) and a
Druids (2017) round's deal (``druids_p2p.bench.costs``), with reproducible entropy."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from deck_local import rewrite, seeded_entropy

from druids_p2p.bench.costs import deal_round
from druids_p2p.bench.tables import TableBus
from druids_p2p.bench.tables import make_table as make_bench_table
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.games.druids2017.cards import N_CARDS as N_CARDS_2017

__all__ = [
    "CARDS",
    "GAME",
    "N_CARDS_2017",
    "TABLE_ID",
    "TableBus",
    "cheat",
    "dealt_round",
    "dealt_table",
    "make_table",
]

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


CARDS = tuple(range(8))
"""The deck of :func:`dealt_table`."""


def dealt_table(seats: int = 3, seed: bytes = b"table") -> TableBus:
    """A shuffled deck of 8 (of 16 card ids), two cards dealt to every seat (positions
    0..2*seats-1): the cheat tests' table."""
    bus = make_table(seats, 16, seed)
    bus.push(TableOp("shuffle", deck="d", cards=CARDS))
    for _ in range(2):
        for seat in range(seats):
            bus.push(TableOp("deal", deck="d", seat=seat))
    return bus


def cheat(bus: TableBus, seat: int, kind: str, mutate: Callable[[dict[str, Any]], None]) -> None:
    """From now on, ``seat``'s next ``kind`` message is edited and re-signed by ``seat``."""
    done = False

    def intercept(sender: int, raw: bytes) -> bytes | None:
        nonlocal done
        if done or sender != seat or bus.kind(raw) != kind:
            return raw
        done = True
        return rewrite(bus.codecs[seat], raw, mutate)

    bus.intercept = intercept
