"""The final audit's multiplications by the base point (deck/table_audit.py): once every secret
is out, each ``A`` is ``a·B`` with ``a`` followed through every pass, so the audit checks every
share and decrypts every card with base multiplications only; a seat that did not derive its
pass from its secret (its proof still holds) leaves its points to the generic multiplication,
and the audit finds the same cards and blames the same seat either way."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from table_local import TableBus, make_table

from druids_p2p.bench.tables import counting
from druids_p2p.deck import group
from druids_p2p.deck import table_peer as table_peer_module
from druids_p2p.deck.encoding import sha256
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.shuffle import statement_seed
from druids_p2p.deck.table_audit import audit_state
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_state import Sent

NUM_CARDS = 16
SEATS = 3
OPS = (
    TableOp("shuffle", deck="d", cards=tuple(range(12))),
    TableOp("create", deck="e", cards=(12,)),
    TableOp("transfer", deck="e", source="d"),
    TableOp("shuffle", deck="e"),
    TableOp("deals", deck="e", seats=(0, 1)),
    TableOp("deals", deck="d", seats=(0, 1, 2, 0, 1, 2)),
    TableOp("turn", deck="d", zone="up"),
    TableOp("final"),
)


def dealt(seed: bytes) -> TableBus:
    bus = make_table(SEATS, NUM_CARDS, seed)
    for op in OPS:
        bus.push(op)
    return bus


def truth(bus: TableBus) -> dict[int, int]:
    """Every position's card, as the seat it was dealt to (or everyone, turned up) knows it."""
    out: dict[int, int] = {}
    for peer in bus.peers:
        out.update(peer.known())
    return out


def test_an_honest_tables_audit_multiplies_by_the_base_point_only() -> None:
    bus = dealt(b"base only")
    state = bus.peers[1].state
    with counting() as ops:
        ops.current = "audit"
        audit = audit_state(state)
    counted = ops.of("audit")
    assert counted["mul"] == 0 and counted["base"] > 0
    assert {p.index: p.card for p in audit.positions} == truth(bus)


def test_a_pass_not_derived_from_its_secret_is_audited_by_generic_multiplications(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 1 shuffles with a seed of its own (a valid pass and proof that the revealed secret
    does not explain): the audit finds the same cards, and still blames a false share."""
    real = statement_seed

    def own_seed(secret: bytes, params: DeckParams, seat: int, *rest: Any) -> bytes:
        seed = real(secret, params, seat, *rest)
        return sha256(b"another seed", seed) if seat == 1 else seed

    monkeypatch.setattr(table_peer_module, "statement_seed", own_seed)
    bus = dealt(b"own seed")
    state = bus.peers[0].state
    with counting() as ops:
        ops.current = "audit"
        audit = audit_state(state)
    assert ops.of("audit")["mul"] > 0
    assert {p.index: p.card for p in audit.positions} == truth(bus)
    sent = state.positions[0].shares[2]
    state.positions[0].shares[2] = Sent(2, replace(sent.msg, share=group.BASE), sent.raw)
    with pytest.raises(DeckFault) as info:
        audit_state(state)
    assert info.value.seat == 2 and info.value.evidence == (sent.raw,)
    assert info.value.reason == "audit: its share of position 0 is not its secret times A"
