"""What ``druids bench deal`` and ``druids bench wire`` measure: a game's deal at the mental card
table, and signing and checking move messages."""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from druids_p2p.bench.tables import (
    Ed25519Codec,
    OpCounter,
    TableBus,
    counting,
    make_codecs,
    make_table,
)
from druids_p2p.deck.params import MAX_CARDS, DeckParams
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_peer import Entropy
from druids_p2p.games.registry import RULESETS, default_game
from druids_p2p.wire.envelope import decode, encode
from druids_p2p.wire.identity import Identity
from druids_p2p.wire.msgtypes import MsgType


def deal_ops(players: int, game: str | None = None) -> list[TableOp]:
    """The deck's operations of ``game``'s deal (None: the default game's) for ``players``
    seats, as a new seat copy schedules them (the same fields: ``table.card_table_play.table_op``
    does this at a real table)."""
    rules = RULESETS[game or default_game()]
    seat = rules.table_seat(rules.make_options(players), 0, random.Random(0))
    return [
        TableOp(op.kind, op.deck, op.zone, op.seat, op.cards, op.position, op.source, op.seats)
        for op in seat.ops()
    ]


def round_codecs(table_id: bytes, round_no: int, players: int) -> list[Ed25519Codec]:
    """Fresh signing identities for a round's table (made before a timed deal: they live long)."""
    return make_codecs(DeckParams(table_id, round_no, MAX_CARDS, players, 1))


def deal_round(
    players: int,
    table_id: bytes,
    round_no: int = 0,
    *,
    codecs: Sequence[Ed25519Codec] | None = None,
    ops: OpCounter | None = None,
    entropy: Callable[[int], Entropy] | None = None,
    game: str | None = None,
    scheduled: Sequence[TableOp] | None = None,
) -> TableBus:
    """A deal's table from its keys to its last deal (``scheduled``: its operations, if
    already made); each seat then knows its own hand (``bus.peers[s].known()``), nobody any
    other card."""
    cards = RULESETS[game or default_game()].deck_size
    bus = make_table(table_id, round_no, players, cards, entropy, codecs=codecs, ops=ops)
    for op in scheduled if scheduled is not None else deal_ops(players, game):
        bus.push(op)
    return bus


@dataclass(frozen=True, slots=True)
class DealTiming:
    """One deal's CPU per seat (ns, its key, passes, shares and proof checks), its wall time
    with every seat in this one process, and its messages and their bytes."""

    cpu_ns: tuple[int, ...]
    wall_ns: int
    messages: int
    bytes: int


def time_deal(players: int, round_no: int = 0, game: str | None = None) -> DealTiming:
    """One timed deal at a fresh table."""
    table_id = os.urandom(32)
    codecs = round_codecs(table_id, round_no, players)
    ops = deal_ops(players, game)  # the game's schedule is not the deck's work: not timed
    wall = time.perf_counter_ns()
    bus = deal_round(players, table_id, round_no, codecs=codecs, game=game, scheduled=ops)
    wall = time.perf_counter_ns() - wall
    return DealTiming(tuple(bus.cpu_ns), wall, len(bus.sent), bus.bytes)


def count_deal_ops(players: int, game: str | None = None) -> list[dict[str, int]]:
    """Each seat's group operations (``group_ops.OPS``) in one whole deal, from making its key
    to decrypting its hand: the same on every machine, unlike the CPU."""
    with counting() as ops:
        deal_round(players, os.urandom(32), ops=ops, game=game)
    return [ops.of(seat) for seat in range(players)]


@dataclass(frozen=True)
class WireBench:
    n: int
    message_bytes: int
    encode_per_s: float
    decode_per_s: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "message_bytes": self.message_bytes,
            "encode_per_s": round(self.encode_per_s, 1),
            "decode_per_s": round(self.decode_per_s, 1),
        }


def bench_wire(n: int) -> WireBench:
    identity = Identity.from_seed(hashlib.sha256(b"druids-p2p bench").digest(), "bench")
    table_id = hashlib.sha256(b"table").digest()
    head = hashlib.sha256(b"head").digest()
    prevs = [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(n)]
    body = {"round": 2, "move": "Gaia:R"}
    start = time.perf_counter()
    raws = [
        encode(identity, MsgType.MOVE, table_id=table_id, seq=i + 1, prev=p, head=head, body=body)
        for i, p in enumerate(prevs)
    ]
    mid = time.perf_counter()
    for raw in raws:
        decode(raw)
    end = time.perf_counter()
    return WireBench(
        n=n,
        message_bytes=len(raws[0]),
        encode_per_s=n / max(mid - start, 1e-9),
        decode_per_s=n / max(end - mid, 1e-9),
    )
