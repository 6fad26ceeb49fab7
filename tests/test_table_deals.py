"""The card table's ``deals`` operation (deck.md §10.2): the top cards of a deck dealt to several
seats in one step, each seat's part one signed ``table_shares`` with its share of every position
dealt to another seat. With real TablePeer objects in process (tests/table_local.py): a deals gives
every seat what the same single deals give, the audit re-checks its shares as single ones, and a
``table_shares`` with a position left out, added, out of order, its own, or a bad proof is refused
by every honest seat and blamed on its signer with the signed message as evidence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from deck_local import rewrite
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_local import GAME, TABLE_ID, TableBus, make_table

from druids_p2p.deck import group
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.proofs import prove_shares
from druids_p2p.deck.shuffle_passes import owed_shares
from druids_p2p.deck.table_audit import audit_record, audit_state, secret_fault
from druids_p2p.deck.table_messages import TableOp, TableSharesMsg, parse_table_body
from druids_p2p.deck.table_ops import senders
from druids_p2p.deck.table_state import Sent, TableOpError
from druids_p2p.games.druids2017.game import SeatOp
from druids_p2p.table.card_table_play import table_op
from druids_p2p.wire import MsgType

NUM_CARDS = 16
CARDS = tuple(range(10))
SEATS = 3
BATCH = (0, 1, 2, 0, 1, 2)
"""Two cards to each of three seats, round-robin: positions 0..5, position p to seat p % 3."""


def shuffled(seed: bytes, seats: int = SEATS) -> TableBus:
    bus = make_table(seats, NUM_CARDS, seed)
    bus.push(TableOp("shuffle", deck="d", cards=CARDS))
    return bus


def hands(bus: TableBus) -> list[dict[int, int]]:
    """Each seat's hand as it knows it: position -> card."""
    return [{p: peer.known()[p] for p in peer.hand()} for peer in bus.peers]


def audited(bus: TableBus, ops: list[TableOp]) -> list[tuple[int, ...]]:
    """The final reveal, then the offline audit of the whole record: the cards dealt to each
    seat, as the audit finds them."""
    bus.push(TableOp("final"))
    assert len({p.state.digest() for p in bus.peers}) == 1
    audit = audit_record(
        TABLE_ID,
        GAME,
        len(bus.peers),
        NUM_CARDS,
        bus.codecs[0],
        [*ops, TableOp("final")],
        bus.peers[0].transcript(),
    )
    for peer in bus.peers:
        for p, card in peer.known().items():
            assert audit.positions[p].card == card
    return list(audit.dealt)


# --------------------------------------------------------------------------- honest
def test_a_deals_gives_every_seat_the_hands_the_same_single_deals_give() -> None:
    """Same seeds, same shuffle: one ``deals`` and six single ``deal`` operations take the same
    positions off the deck to the same seats, so every seat learns the same cards; the deals
    costs one ``table_shares`` a seat instead of two shares a card, and both audit."""
    singles = shuffled(b"deals")
    one_by_one = [TableOp("shuffle", deck="d", cards=CARDS)]
    for seat in BATCH:
        one_by_one.append(TableOp("deal", deck="d", seat=seat))
        singles.push(one_by_one[-1])
    batched = shuffled(b"deals")
    at_once = [TableOp("shuffle", deck="d", cards=CARDS), TableOp("deals", deck="d", seats=BATCH)]
    sent_before = len(batched.sent)
    batched.push(at_once[-1])
    assert hands(batched) == hands(singles)
    assert [h for h in hands(batched)] == [
        {p: hands(singles)[s][p] for p in range(len(BATCH)) if p % SEATS == s} for s in range(SEATS)
    ]
    state = batched.peers[0].state
    assert list(state.taken(1)) == list(range(len(BATCH)))
    assert [pos.owner for pos in state.positions] == list(BATCH)
    kinds = [batched.kind(raw) for _, raw in batched.sent[sent_before:]]
    assert kinds == ["table_shares"] * SEATS
    assert len(singles.sent) - sent_before == len(BATCH) * (SEATS - 1)
    for seat, (_, raw) in enumerate(batched.sent[sent_before:]):
        msg = parse_table_body("table_shares", batched.codecs[0].open(raw).body)
        assert isinstance(msg, TableSharesMsg)
        assert [s.position for s in msg.shares] == [p for p in range(6) if p % SEATS != seat]
    assert audited(batched, at_once) == audited(singles, one_by_one)


def test_a_seat_dealt_nothing_shares_every_position_and_one_dealt_everything_sends_nothing() -> (
    None
):
    bus = shuffled(b"owed")
    before = len(bus.sent)
    bus.push(TableOp("deals", deck="d", seats=(0, 0, 1)))
    senders = [bus.codecs[0].open(raw).seat for _, raw in bus.sent[before:]]
    assert senders == [0, 1, 2]
    state = bus.peers[0].state
    assert owed_shares(state, 1, 2) == [0, 1, 2]
    assert owed_shares(state, 1, 0) == [2] and owed_shares(state, 1, 1) == [0, 1]
    before = len(bus.sent)
    bus.push(TableOp("deals", deck="d", seats=(1, 1)))
    assert sorted(bus.codecs[0].open(raw).seat for _, raw in bus.sent[before:]) == [0, 2]
    assert [len(h) for h in hands(bus)] == [2, 3, 0]
    dealt = audited(
        bus,
        [
            TableOp("shuffle", deck="d", cards=CARDS),
            TableOp("deals", deck="d", seats=(0, 0, 1)),
            TableOp("deals", deck="d", seats=(1, 1)),
        ],
    )
    assert [sorted(d) for d in dealt] == [sorted(h.values()) for h in hands(bus)]


def test_a_deals_the_deck_cannot_give_or_to_no_seat_of_the_table_is_the_schedules_error() -> None:
    bus = shuffled(b"short")
    with pytest.raises(TableOpError, match="holds 10 cards, not 11"):
        bus.push(TableOp("deals", deck="d", seats=(0,) * 11))
    bus = shuffled(b"short")
    with pytest.raises(TableOpError, match="is not at this table"):
        bus.push(TableOp("deals", deck="d", seats=(0, 3)))
    for bad in ({"seats": ()}, {"seats": (0,), "seat": 0}, {"seats": (-1,)}, {"seats": [0]}):
        with pytest.raises(ValueError):
            TableOp("deals", deck="d", **bad)
    with pytest.raises(ValueError, match="exactly for deals"):
        TableOp("deal", deck="d", seat=0, seats=(0,))


def test_a_transferred_deck_must_be_shuffled_before_a_deals() -> None:
    bus = make_table(2, NUM_CARDS, b"transfer")
    bus.push(TableOp("shuffle", deck="deck", cards=CARDS))
    bus.push(TableOp("shuffle", deck="lead", cards=(10,)))
    bus.push(TableOp("transfer", deck="lead", source="deck"))
    with pytest.raises(TableOpError, match="shuffle it first"):
        bus.push(TableOp("deals", deck="lead", seats=(0, 1)))


def test_who_owed_a_shuffles_passes_is_kept_once_a_deals_has_emptied_its_deck() -> None:
    """The last shuffler's deck goes on to the deals at once, on its own pass alone, and that
    deals may take every card of the deck (Druids 2017's ``lead``); a table following the
    transcript asks afterwards who owed the shuffle's passes: every seat, not nobody."""
    bus = shuffled(b"drained")
    bus.push(TableOp("deals", deck="d", seats=(0, 1, 2) * 3 + (0,)))
    state = bus.peers[2].state
    assert not state.decks["d"].a
    assert senders(state, 0, state.ops[0]) == (0, 1, 2)
    assert senders(state, 1, state.ops[1]) == (0, 1, 2)
    bus.push(TableOp("shuffle", deck="d"))  # an empty deck: no pass owed
    assert senders(state, 2, state.ops[2]) == ()


def test_the_2017_schedules_deals_pass_through_the_seam_with_their_seats() -> None:
    op = table_op(SeatOp("deals", deck="deck", seats=(0, 1, 2) * 2))
    assert op == TableOp("deals", deck="deck", seats=(0, 1, 2, 0, 1, 2))


# --------------------------------------------------------------------------- cheats
def cheat(bus: TableBus, seat: int, mutate: Callable[[dict[str, Any]], None]) -> None:
    """``seat``'s next ``table_shares`` is edited and re-signed by ``seat`` in flight."""
    done = False

    def intercept(sender: int, raw: bytes) -> bytes | None:
        nonlocal done
        if done or sender != seat or bus.kind(raw) != "table_shares":
            return raw
        done = True
        return rewrite(bus.codecs[seat], raw, mutate)

    bus.intercept = intercept


def refused(bus: TableBus, seat: int, mutate: Callable[[dict[str, Any]], None]) -> DeckFault:
    """``seat`` edits its ``table_shares`` of the deals ``BATCH``: the honest seats refuse it,
    blaming ``seat`` with its signed ``table_shares`` first in the evidence."""
    cheat(bus, seat, mutate)
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("deals", deck="d", seats=BATCH))
    fault = info.value
    assert fault.seat == seat, fault
    first = bus.codecs[0].open(fault.evidence[0])
    assert first.seat == seat and first.kind == "table_shares", "evidence[0]: its signed message"
    assert first.body["op"] == 1
    return fault


def own_share(bus: TableBus, seat: int, p: int) -> dict[str, Any]:
    """A true share of position ``p`` by ``seat`` (its own position: publishing it would open
    its own card to everyone)."""
    return {"d": group.mul(bus.peers[seat]._secret, bus.peers[seat].state.positions[p].a), "pos": p}


def reprove(bus: TableBus, seat: int, body: dict[str, Any]) -> None:
    """``seat`` makes true composite proofs of the shares now in ``body``, one a seat they are
    dealt to (deck.md §8.3)."""
    peer = bus.peers[seat]
    owners: dict[int, list[dict[str, Any]]] = {}
    for part in body["shares"]:
        owners.setdefault(peer.state.positions[part["pos"]].owner, []).append(part)
    params = peer.state.context(b"share", "d", 1)
    body["proofs"] = []
    for owner, parts in sorted(owners.items()):
        positions = [part["pos"] for part in parts]
        a_list = [peer.state.positions[p].a for p in positions]
        d_list = [part["d"] for part in parts]
        e, s, t2 = prove_shares(params, seat, peer._secret, peer._key, positions, a_list, d_list)
        body["proofs"].append({"e": e, "s": s, "seat": owner, "t2": t2})


@pytest.mark.parametrize(
    ("name", "mutate"),
    [
        ("omits one", lambda b: b["shares"].pop(1)),
        ("adds one", lambda b: b["shares"].append(dict(b["shares"][-1], pos=6))),
        ("repeats one", lambda b: b["shares"].append(dict(b["shares"][-1]))),
        ("reorders", lambda b: b["shares"].reverse()),
    ],
)
def test_a_table_shares_with_other_positions_than_owed_is_blamed(
    name: str, mutate: Callable[[dict[str, Any]], None]
) -> None:
    fault = refused(shuffled(b"cheat"), 1, mutate)
    assert fault.reason.startswith("table_shares: shares for positions"), fault.reason
    assert "wants its shares of positions [0, 2, 3, 5]" in fault.reason, name
    assert len(fault.evidence) == 1


def test_a_table_shares_with_a_share_of_its_own_position_is_blamed() -> None:
    """Seat 1 adds its true share of position 1 (dealt to it), with a proof of all its shares
    that holds: the position is not one it owes (its card would be public), so it is blamed
    all the same."""
    bus = shuffled(b"cheat")

    def add_own(body: dict[str, Any]) -> None:
        body["shares"].insert(1, own_share(bus, 1, 1))
        reprove(bus, 1, body)

    fault = refused(bus, 1, add_own)
    assert "shares for positions [0, 1, 2, 3, 5]" in fault.reason, fault.reason


BAD_PROOF = "table_shares: invalid decryption share proof (one proof for a seat's cards)"


def test_a_table_shares_with_a_bad_proof_is_blamed_with_its_key() -> None:
    bus = shuffled(b"cheat")

    def forge(body: dict[str, Any]) -> None:
        body["proofs"][0]["s"] = body["proofs"][0]["e"]  # its proof of seat 0's shares

    fault = refused(bus, 2, forge)
    assert fault.reason == BAD_PROOF
    assert fault.evidence[1] == bus.peers[0].state.keys[2].raw


def test_a_table_shares_with_a_false_share_and_a_proof_for_it_is_blamed() -> None:
    """Two shares swapped under the true proof: the statement (every position with its share)
    is not the one proven, so the proof fails."""
    bus = shuffled(b"cheat")

    def swap(body: dict[str, Any]) -> None:
        first, second = body["shares"][0], body["shares"][1]
        first["d"], second["d"] = second["d"], first["d"]

    fault = refused(bus, 0, swap)
    assert fault.reason == BAD_PROOF


def test_a_table_shares_for_a_single_deal_or_a_share_for_a_deals_is_blamed() -> None:
    """The message must be the operation's kind: a ``table_shares`` for a deal, or a
    ``table_share`` for a deals, convicts its signer."""
    for op, kind, other in (
        (TableOp("deal", deck="d", seat=0), "table_share", "table_shares"),
        (TableOp("deals", deck="d", seats=BATCH), "table_shares", "table_share"),
    ):
        bus = shuffled(b"kind")
        (honest,) = bus.peers[1].push(op)
        assert bus.kind(honest) == kind
        body = dict(bus.codecs[1].open(honest).body)
        if other == "table_shares":
            part = {k: body[k] for k in ("d", "pos")}
            # (any point for T2: the kind is checked first)
            proof = {"e": body["e"], "s": body["s"], "seat": 0, "t2": body["d"]}
            wrong = {"op": body["op"], "round": body["round"], "shares": [part], "proofs": [proof]}
        else:
            proof = {k: body["proofs"][0][k] for k in ("e", "s")}
            wrong = {"op": body["op"], "round": body["round"], **dict(body["shares"][0]), **proof}
        raw = bus.codecs[1].seal(other, dict(sorted(wrong.items())))
        receiver = bus.peers[2]
        receiver.push(op)
        with pytest.raises(DeckFault) as info:
            receiver.receive(raw)
        assert info.value.seat == 1 and info.value.evidence == (raw,)
        assert f"{other} for operation 1, which is a {op.kind}" in info.value.reason


# --------------------------------------------------------------------------- checked early
def test_a_table_shares_is_proven_as_it_arrives_and_a_bad_one_only_when_it_is_judged() -> None:
    """``TablePeer.precheck`` (the table's hold of a step's messages until all are in): a true
    ``table_shares`` of the deals in progress is proven at once, whole, and not checked again;
    one with a bad proof or other positions is not proven, and is blamed when received."""
    bus = shuffled(b"early")
    deals = TableOp("deals", deck="d", seats=BATCH)
    made = {peer.seat: peer.push(deals) for peer in bus.peers}
    assert all(len(out) == 1 for out in made.values())
    peer = bus.peers[0]
    peer.precheck(bus.codecs[0].open(made[1][0]))
    assert peer.state.proven == {made[1][0]}

    def forge(body: dict[str, Any]) -> None:
        body["proofs"][0]["s"] = body["proofs"][0]["e"]  # its proof of seat 0's shares

    forged = rewrite(bus.codecs[2], made[2][0], forge)
    fewer = rewrite(bus.codecs[2], made[2][0], lambda b: b["shares"].pop())
    for bad in (forged, fewer):
        peer.precheck(bus.codecs[0].open(bad))
    assert peer.state.proven == {made[1][0]}
    peer.receive(made[1][0])
    with pytest.raises(DeckFault) as info:
        peer.receive(forged)
    assert info.value.seat == 2 and "invalid decryption share proof" in info.value.reason


# --------------------------------------------------------------------------- the final audit
def test_the_final_audit_rechecks_every_share_of_a_deals_as_a_single_share() -> None:
    """With every secret known, each share a ``table_shares`` carried must be its sender's
    secret times the position's A: one that is not (which a sound proof rules out; here put in
    the state by hand) is its signer's fault, with the signed ``table_shares`` as evidence."""
    bus = shuffled(b"audit")
    bus.push(TableOp("deals", deck="d", seats=BATCH))
    bus.push(TableOp("final"))
    state = bus.peers[0].state
    assert audit_state(state).dealt == tuple(
        tuple(hands(bus)[s][p] for p in sorted(hands(bus)[s])) for s in range(SEATS)
    )
    sent = state.positions[4].shares[2]
    assert bus.codecs[0].open(sent.raw).kind == "table_shares"
    secret = bus.peers[2]._secret
    assert secret_fault(state, 2, secret, b"reveal") is None
    state.positions[4].shares[2] = Sent(2, replace(sent.msg, share=state.positions[4].a), sent.raw)
    with pytest.raises(DeckFault) as info:
        audit_state(state)
    assert info.value.seat == 2 and info.value.evidence == (sent.raw,)
    assert info.value.reason == "audit: its share of position 4 is not its secret times A"
    false = secret_fault(state, 2, secret, b"reveal")
    assert false is not None and false.evidence == (b"reveal", sent.raw)
    assert group.mul(secret, state.positions[4].a) == sent.msg.share


# --------------------------------------------------------------------------- property
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seats=st.integers(2, 4),
    batches=st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=3), min_size=1, max_size=3),
    seed=st.binary(min_size=1, max_size=4),
)
def test_hands_dealt_by_any_deals_are_distinct_complete_and_what_the_audit_finds(
    seats: int, batches: list[list[int]], seed: bytes
) -> None:
    """Any sequence of deals (seats drawn at random, the deck of ten never overdrawn): every
    seat learns exactly the positions dealt to it, no card twice, the public states agree,
    and the audit finds the same cards dealt to the same seats."""
    deal_lists = [tuple(s % seats for s in b) for b in batches]
    bus = shuffled(b"prop" + seed, seats)
    ops = [TableOp("shuffle", deck="d", cards=CARDS)]
    for listed in deal_lists:
        ops.append(TableOp("deals", deck="d", seats=listed))
        bus.push(ops[-1])
    owners = [s for listed in deal_lists for s in listed]
    held = hands(bus)
    for seat in range(seats):
        assert sorted(held[seat]) == [p for p, o in enumerate(owners) if o == seat]
    cards = [c for h in held for c in h.values()]
    assert len(cards) == len(owners) == len(set(cards)) and set(cards) <= set(CARDS)
    assert len(bus.peers[0].state.decks["d"].a) == len(CARDS) - len(owners)
    dealt = audited(bus, ops)
    assert dealt == [tuple(held[s][p] for p in sorted(held[s])) for s in range(seats)]


def test_a_table_shares_is_a_wire_message_of_type_67() -> None:
    assert int(MsgType.TABLE_SHARES) == 67 and MsgType.TABLE_SHARES.label == "table_shares"
