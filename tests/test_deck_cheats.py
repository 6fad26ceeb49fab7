"""Cheats at a Druids (2017) round's deal on the mental card table, each caught and blamed on the
right seat with signed evidence: real TablePeers in process (``round_deal``), the cheater
re-signing its own message in flight.

The dealt deck's other cheats live on in the card table's tests, which this file does not repeat:
a wrong share or share proof (``test_deck_table_attacks``: ``test_a_wrong_share_on_a_deal_...``,
``..._share_proof_...``, ``..._replayed_from_an_earlier_deal_...``), a share forged into a record
(``test_deck_table_game::test_the_audit_of_a_record_names_the_seat_of_a_forged_share``), a pass
that duplicates, substitutes, drops or plants cards (``test_deck_table_attacks``:
``test_a_reshuffle_that_duplicates_...``, ``..._substitutes_...``, ``..._drops_...``,
``test_the_last_shuffler_cannot_plant_cards_in_a_new_deck``; between real machines
``test_table_shuffle_attacks``), a false secret at the final reveal, equivocation and signed
garbage (``test_deck_table_attacks``), a show of another seat's position, of another card or
with a forged share (``test_table_ops_v2``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from deck_local import Ed25519Codec, make_codecs, random_scalar, rewrite
from table_local import GAME, N_CARDS_2017, TABLE_ID, TableBus

from druids_p2p.bench.costs import deal_ops
from druids_p2p.bench.tables import make_table
from druids_p2p.deck import DeckFault, DeckParams, MalformedMessage, group
from druids_p2p.deck.cards import card_points
from druids_p2p.deck.params import MAX_CARDS
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.games.druids2017.cards import GAIA
from druids_p2p.games.druids2017.game import DECK, LEAD

Body = dict[str, Any]
FIRST_PASS = 0
"""Operation 0 of a round: the shuffle of ``deck``."""


def round_table(players: int) -> TableBus:
    """A round's table with every key in and nothing dealt yet."""
    return make_table(TABLE_ID, GAME, players, N_CARDS_2017)


def cheat(bus: TableBus, seat: int, kind: str, op: int, mutate: Callable[[Body], None]) -> None:
    """``seat``'s ``kind`` message for operation ``op`` is edited and re-signed by ``seat``."""

    def intercept(sender: int, raw: bytes) -> bytes | None:
        env = bus.codecs[0].open(raw)
        if sender != seat or env.kind != kind or env.body.get("op") != op:
            return raw
        return rewrite(bus.codecs[seat], raw, mutate)

    bus.intercept = intercept


def blamed(info: pytest.ExceptionInfo[DeckFault], bus: TableBus, seat: int, reason: str) -> None:
    """Blamed on ``seat`` for ``reason``; evidence[0] is signed by it, the rest authenticate."""
    fault = info.value
    assert fault.seat == seat, fault
    assert reason in fault.reason, fault.reason
    assert fault.evidence, "a fault carries the signed message(s) that prove it"
    assert bus.codecs[0].open(fault.evidence[0]).seat == seat
    for raw in fault.evidence[1:]:
        bus.codecs[0].open(raw)


def run(bus: TableBus, ops: list[TableOp]) -> None:
    for op in ops:
        bus.push(op)


def fresh(bus: TableBus, card: int) -> tuple[bytes, bytes]:
    """A fresh encryption of ``card`` under the joint key, with randomness of the cheater's."""
    joint = bus.peers[0].state.joint_key
    assert joint is not None
    r = random_scalar()
    return group.base_mul(r), group.add(card_points(N_CARDS_2017)[card], group.mul(r, joint))


def assert_nothing_dealt(bus: TableBus) -> None:
    assert not any(bus.kind(raw) in ("table_share", "table_shares") for _, raw in bus.sent)
    assert all(not peer.known() for peer in bus.peers)


# ------------------------------------------------------------------------------ passes
def test_a_pass_that_replaces_a_card_by_garbage_is_refused() -> None:
    bus = round_table(3)

    def garbage(body: Body) -> None:
        body["c"][2] = group.add(body["c"][2], group.base_mul(random_scalar()))

    cheat(bus, 1, "table_shuffle", FIRST_PASS, garbage)
    with pytest.raises(DeckFault) as info:
        run(bus, deal_ops(3))
    blamed(info, bus, 1, "invalid proof of a shuffle")
    assert_nothing_dealt(bus)


def test_a_pass_with_a_tagged_ciphertext_is_refused() -> None:
    """(k·A, k·C) decrypts to k·M: a tag its author could later recognise, no re-encryption."""
    bus = round_table(3)
    k = random_scalar()

    def tag(body: Body) -> None:
        body["a"][0], body["c"][0] = group.mul(k, body["a"][0]), group.mul(k, body["c"][0])

    cheat(bus, 0, "table_shuffle", FIRST_PASS, tag)
    with pytest.raises(DeckFault) as info:
        run(bus, deal_ops(3))
    blamed(info, bus, 0, "invalid proof of a shuffle")
    assert_nothing_dealt(bus)


@pytest.mark.parametrize("players", [3, 5])
def test_a_lead_pass_planting_a_second_gaia_is_blamed_with_the_transferred_cards_source(
    players: int,
) -> None:
    """The first pass of ``lead``'s reshuffle (Gaia and the cards transferred from ``deck``)
    puts a fresh Gaia in place of a transferred card: a seat would learn where one Gaia went
    and two seats would hold one. Its proof fails; the evidence holds what a judge needs to
    check it: the keys, and the pass that made its input — the last pass of ``deck``, whose top
    cards were transferred (Gaia's ciphertext is ``lead``'s public start: no pass made it)."""
    bus = round_table(players)
    ops = deal_ops(players)
    reshuffle = next(i for i, op in enumerate(ops) if i > 1 and op.kind == "shuffle")
    assert ops[reshuffle].deck == LEAD and ops[reshuffle - 1].kind == "transfer"
    planted = fresh(bus, GAIA)

    def plant(body: Body) -> None:
        body["a"][1], body["c"][1] = planted

    cheat(bus, 0, "table_shuffle", reshuffle, plant)
    with pytest.raises(DeckFault) as info:
        run(bus, ops)
    blamed(info, bus, 0, "invalid proof of a shuffle")
    last = players - 1

    def pass_of(op: int) -> bytes:
        return next(
            raw
            for s, raw in bus.sent
            if s == last
            and bus.kind(raw) == "table_shuffle"
            and bus.codecs[0].open(raw).body["op"] == op
        )

    evidence = info.value.evidence
    assert ops[0].deck == DECK and pass_of(0) in evidence, "deck's last pass: the transfers"
    assert ops[1].kind == "create" and evidence[1:] == (
        pass_of(0),
        *bus.peers[1].state.key_raws(),
    ), "Gaia's ciphertext is public: no pass of lead in the evidence"
    assert set(bus.peers[1].state.key_raws()) <= set(evidence)
    assert_nothing_dealt(bus)


# ------------------------------------------------------------------------------ keys
def test_a_key_with_a_bad_proof_is_blamed() -> None:
    players = 4
    codecs = make_codecs(DeckParams(TABLE_ID, GAME, MAX_CARDS, players, 1))
    bus = make_table(TABLE_ID, GAME, players, N_CARDS_2017, codecs=codecs)
    honest = next(raw for s, raw in bus.sent if s == 3 and bus.kind(raw) == "table_key")
    forged = rewrite(codecs[3], honest, lambda b: b.update(s=random_scalar()))
    peer = TablePeer(TABLE_ID, GAME, players, N_CARDS_2017, codecs[0])
    peer.start()
    with pytest.raises(DeckFault) as info:
        peer.receive(forged)
    blamed(info, bus, 3, "key share has an invalid proof of knowledge")


def test_two_different_keys_from_one_seat_are_equivocation() -> None:
    bus = round_table(3)
    first = next(raw for s, raw in bus.sent if s == 2 and bus.kind(raw) == "table_key")
    second = rewrite(bus.codecs[2], first, lambda b: b.update(s=random_scalar()))
    with pytest.raises(DeckFault) as info:
        bus.peers[0].receive(second)
    blamed(info, bus, 2, "equivocation: two different table_key messages")
    assert info.value.evidence == (first, second)


# ------------------------------------------------------------------------------ shows
def test_showing_a_card_twice_is_blamed() -> None:
    """Seat 1 shows a card, then signs its next show naming the same position again: the
    position has left its hand, so the card cannot be played twice."""
    bus = round_table(3)
    run(bus, deal_ops(3))
    first = bus.peers[1].hand()[0]
    bus.push(TableOp("show", seat=1, zone="trick"), first)
    cheat(bus, 1, "table_show", len(bus.peers[0].state.ops), lambda b: b.update(pos=first))
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("show", seat=1, zone="trick"), bus.peers[1].hand()[0])
    blamed(info, bus, 1, f"showed position {first}, which is not in its hand")


# ------------------------------------------------------------------------------ bad bytes
def test_unauthenticated_bytes_are_rejected_without_blame() -> None:
    bus = round_table(3)
    raw = bus.sent[0][1]
    peer = bus.peers[1]
    with pytest.raises(MalformedMessage):
        peer.receive(raw[:-1] + bytes([raw[-1] ^ 1]))
    body = bus.codecs[0].open(raw).body
    stranger = make_codecs(DeckParams(TABLE_ID, GAME, MAX_CARDS, 3, 1))[0]  # holds no seat here
    with pytest.raises(MalformedMessage):
        peer.receive(stranger.seal("table_key", body))
    replay = Ed25519Codec(
        DeckParams(TABLE_ID, GAME + 1, MAX_CARDS, 3, 1),
        0,
        bus.codecs[0]._private,
        bus.codecs[0].public_keys,
    )
    with pytest.raises(MalformedMessage, match="another table or round"):
        peer.receive(replay.seal("table_key", body))


def test_a_body_for_another_round_is_dropped_not_blamed() -> None:
    """Signed by its seat for this table, but its body names another round (another card
    table of the same game): not this table's message, so nobody is blamed for it here."""
    bus = round_table(3)
    run(bus, deal_ops(3)[:1])
    first = next(raw for s, raw in bus.sent if s == 0 and bus.kind(raw) == "table_shuffle")
    stale = rewrite(bus.codecs[0], first, lambda b: b.update(round=GAME + 1))
    with pytest.raises(MalformedMessage, match="not this one"):
        bus.peers[1].receive(stale)
