"""A share's proof checked as it arrives, while the rest of its deal are on their way
(``TablePeer.precheck``): a draw then waits for one proof at the end, not one per seat. The
check stores nothing and judges nothing: a bad share is still blamed when it is received."""

from __future__ import annotations

import pytest
from deck_local import rewrite
from table_local import TableBus, make_table

from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.table_messages import TableOp

CARDS = tuple(range(8))


def _shares_of_a_deal(seats: int = 3) -> tuple[TableBus, list[bytes]]:
    """A shuffled deck; the next deal (to seat 0) pushed at every seat, its shares made but
    not yet delivered: (the table, each other seat's share)."""
    bus = make_table(seats, 16)
    bus.push(TableOp("shuffle", deck="d", cards=CARDS))
    deal = TableOp("deal", deck="d", seat=0)
    shares = [raw for peer in bus.peers for raw in peer.push(deal)]
    assert [bus.kind(raw) for raw in shares] == ["table_share"] * (seats - 1)
    return bus, shares


def test_a_share_checked_on_arrival_is_not_checked_again_and_nothing_is_stored() -> None:
    bus, (first, second) = _shares_of_a_deal()
    drawer = bus.peers[0]
    before = (dict(drawer.state.slots), list(drawer.state.raws), drawer.state.done)
    drawer.precheck(bus.codecs[0].open(first))
    assert drawer.state.proven == {first}
    assert (dict(drawer.state.slots), list(drawer.state.raws), drawer.state.done) == before
    drawer.precheck(bus.codecs[0].open(first))  # a re-delivery: still the one
    assert drawer.state.proven == {first}
    assert drawer.receive(first) == [] and drawer.state.done == before[2]
    drawer.receive(second)
    assert drawer.state.done == before[2] + 1 and len(drawer.hand()) == 1
    assert drawer.known()[drawer.hand()[0]] in CARDS


def test_a_share_with_a_bad_proof_is_not_proven_early_and_is_blamed_when_received() -> None:
    bus, (first, second) = _shares_of_a_deal()
    forged = rewrite(bus.codecs[1], first, lambda b: b.update(s=b["e"]))
    drawer = bus.peers[0]
    drawer.precheck(bus.codecs[0].open(forged))
    assert drawer.state.proven == set()
    drawer.receive(second)
    with pytest.raises(DeckFault) as info:
        drawer.receive(forged)
    assert info.value.seat == 1 and "invalid decryption share proof" in info.value.reason


def test_a_share_for_an_operation_not_begun_here_is_left_for_its_step() -> None:
    bus = make_table(3, 16)
    bus.push(TableOp("shuffle", deck="d", cards=CARDS))
    deal = TableOp("deal", deck="d", seat=0)
    share = bus.peers[1].push(deal)[0]
    drawer = bus.peers[0]  # has not been given the deal yet
    drawer.precheck(bus.codecs[0].open(share))
    assert drawer.state.proven == set()
    assert drawer.push(deal) == []  # the receiver of a deal sends no share
    drawer.precheck(bus.codecs[0].open(share))  # now its deal has begun here
    assert drawer.state.proven == {share}
