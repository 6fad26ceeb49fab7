"""Honest Druids (2017) rounds dealt at the mental card table among 3, 4 and 5 in-process
TablePeers (``round_ops``: shuffles, transfers, deals): hands, privacy, every card shown face
up, the final reveal and the audit of the record."""

from __future__ import annotations

import itertools

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from deck_local import Ed25519Codec
from table_local import GAME, N_CARDS_2017, TABLE_ID, TableBus, dealt_round

from druids_p2p.bench.costs import deal_ops
from druids_p2p.bench.tables import make_table
from druids_p2p.deck import DeckParams, NotReady, group
from druids_p2p.deck.cards import card_table
from druids_p2p.deck.table_audit import TableAudit, audit_record, audit_state
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.games.druids2017.cards import GAIA, HAND_SIZE
from druids_p2p.games.druids2017.game import LEAD

FINAL = TableOp("final")


def hands_of(bus: TableBus) -> list[list[int]]:
    """Each seat's cards as it read them itself, in the order dealt."""
    return [[peer.card_at(p) for p in peer.hand()] for peer in bus.peers]


def audit(bus: TableBus, ops: list[TableOp], codec: Ed25519Codec | None = None) -> TableAudit:
    """The offline audit of seat 0's record (the operations and its transcript)."""
    players = len(bus.peers)
    return audit_record(
        TABLE_ID,
        GAME,
        players,
        N_CARDS_2017,
        codec or bus.codecs[0],
        ops,
        bus.peers[0].transcript(),
    )


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_peer_gets_exactly_its_own_hand(players: int) -> None:
    bus = dealt_round(players, b"hand %d" % players)
    hands = hands_of(bus)
    h = HAND_SIZE[players]
    assert [len(hand) for hand in hands] == [h] * players
    dealt = [c for hand in hands for c in hand]
    assert len(dealt) == len(set(dealt)) == players * h
    assert all(0 <= c < N_CARDS_2017 for c in dealt)
    # Gaia is some seat's lead card, the first dealt to it; every seat got one lead card
    assert [hand[0] for hand in hands].count(GAIA) == 1
    state = bus.peers[0].state
    assert [state.positions[peer.hand()[0]].deck for peer in bus.peers] == [LEAD] * players
    for peer in bus.peers:
        assert set(peer.known()) == set(peer.hand()), "a seat knows its own cards, no other"
    # the deal every peer read is the one the audit reconstructs from the record
    bus.push(FINAL)
    result = audit(bus, [*deal_ops(players), FINAL])
    assert [list(cards) for cards in result.dealt] == hands
    undealt = [c for deck in result.decks.values() for c in deck]
    assert sorted(undealt + dealt) == list(range(N_CARDS_2017))
    for peer in bus.peers:
        assert audit_state(peer.state).dealt == result.dealt


@pytest.mark.parametrize("players", [3, 4, 5])
def test_no_peer_can_decrypt_another_seats_cards_before_the_reveal(players: int) -> None:
    """For every position a seat does not hold (and every card left in a deck), no combination
    of the shares published so far, its own among them, decrypts to a card: the holder's
    share is never published before it shows the card."""
    bus = dealt_round(players, b"private %d" % players)
    table = card_table(N_CARDS_2017)
    state = bus.peers[0].state
    hidden = [
        (pos.c, [s.msg.share for s in pos.shares.values()], pos.owner) for pos in state.positions
    ]
    for name, deck in state.decks.items():
        hidden += [(c, [], None) for c in deck.c]
        assert name != LEAD or not deck.c, "the lead deck is dealt out"
    for me in range(players):
        for c, shares, owner in hidden:
            if owner == me:
                continue
            assert owner is None or len(shares) == players - 1  # every share but the holder's
            for size in range(len(shares) + 1):
                for subset in itertools.combinations(shares, size):
                    point = c if not subset else group.sub(c, group.sum_points(list(subset)))
                    assert point not in table


def test_no_share_is_sent_before_every_pass_of_every_shuffle() -> None:
    """Nothing is dealt from a deck before every seat's pass over it is in: the keys, then the
    2n passes (``deck``, then ``lead`` — created as Gaia, no pass — after the transfers), then
    the shares: one
    ``table_shares`` a seat for each of the two ``deals`` (``lead``, then ``deck``)."""
    players = 4
    bus = dealt_round(players, b"order")
    kinds = [bus.kind(raw) for _, raw in bus.sent]
    shuffles = [i for i, k in enumerate(kinds) if k == "table_shuffle"]
    shares = [i for i, k in enumerate(kinds) if k == "table_shares"]
    keys = [i for i, k in enumerate(kinds) if k == "table_key"]
    assert len(keys) == players and len(shuffles) == 2 * players and len(shares) == 2 * players
    assert len(kinds) == len(keys) + len(shuffles) + len(shares)
    assert max(keys) < min(shuffles) and max(shuffles) < min(shares)


@pytest.mark.parametrize("players", [3, 5])
def test_showing_every_card_then_the_audit_agrees(players: int) -> None:
    bus = dealt_round(players, b"show %d" % players)
    hands = hands_of(bus)
    ops = deal_ops(players)
    shown: list[tuple[int, int, int]] = []
    for turn in range(HAND_SIZE[players]):
        for peer in bus.peers:
            held = peer.hand()
            p = held[(turn * 7) % len(held)]
            card = peer.card_at(p)
            show = TableOp("show", seat=peer.seat, zone="trick")
            bus.push(show, p)
            ops.append(show)
            shown.append((peer.seat, p, card))
    for peer in bus.peers:
        state = peer.state
        assert state.zone("trick") == tuple(p for _, p, _ in shown)
        for seat, p, card in shown:
            opened = state.positions[p].opened
            assert opened is not None and opened.seat == seat and state.positions[p].card == card
    assert sorted(c for _, _, c in shown) == sorted(c for hand in hands for c in hand)
    bus.push(FINAL)
    ops.append(FINAL)
    results = [audit_state(peer.state) for peer in bus.peers]
    assert all(r == results[0] for r in results)
    assert [results[0].positions[p].card for _, p, _ in shown] == [c for _, _, c in shown]
    # a third party holding only the record and the public keys gets the same answer
    observer = Ed25519Codec(
        DeckParams(TABLE_ID, GAME, 128, players, 1),
        0,
        Ed25519PrivateKey.generate(),
        bus.codecs[0].public_keys,
    )
    assert audit(bus, ops, observer) == results[0]
    # a record listing every show before the deals' shares is placed in schedule order
    raws = list(bus.peers[0].transcript())
    kinds = [observer.open(raw).kind for raw in raws]
    shows = [r for r, k in zip(raws, kinds, strict=True) if k == "table_show"]
    rest = [r for r, k in zip(raws, kinds, strict=True) if k != "table_show"]
    first_share = kinds.index("table_shares")
    early = rest[:first_share] + shows + rest[first_share:]
    assert audit_record(TABLE_ID, GAME, players, N_CARDS_2017, observer, ops, early) == results[0]


def test_out_of_order_delivery_still_deals() -> None:
    """Every seat is given the whole deal at once and its messages are delivered newest
    first: the table ends exactly where in-order delivery would."""
    players = 4
    bus = make_table(TABLE_ID, GAME, players, N_CARDS_2017)  # keys exchanged, nothing else
    outbox: list[tuple[int, bytes]] = []
    for peer in bus.peers:
        for op in deal_ops(players):
            outbox += [(peer.seat, raw) for raw in peer.push(op)]
    for _ in range(100_000):
        if not outbox:
            break
        sender, raw = outbox.pop()
        for peer in bus.peers:
            if peer.seat != sender:
                outbox[:0] = [(peer.seat, r) for r in peer.receive(raw)]
    assert not outbox
    assert len({peer.state.digest() for peer in bus.peers}) == 1
    dealt = [c for hand in hands_of(bus) for c in hand]
    assert len(set(dealt)) == players * HAND_SIZE[players] and GAIA in dealt


def test_redelivery_is_harmless_and_a_card_waits_for_its_deal() -> None:
    """The last deals' positions are in their seats' hands at once, but their cards are read
    only when the last seat's shares are in; then every message delivered again, or echoed
    back to its sender, changes nothing."""
    players = 3
    bus = make_table(TABLE_ID, GAME, players, N_CARDS_2017)
    ops = deal_ops(players)
    for op in ops[:-1]:
        bus.push(op)
    last = ops[-1]
    assert last.kind == "deals" and last.seats[-1] == players - 1
    receiver = bus.peers[last.seats[-1]]
    late = (receiver.seat + 1) % players
    held: list[bytes] = []

    def hold(sender: int, raw: bytes) -> bytes | None:
        if sender == late:
            held.append(raw)
            return None
        return raw

    bus.intercept = hold
    bus.push(last)
    bus.intercept = None
    p = receiver.hand()[-1]
    with pytest.raises(NotReady):
        receiver.card_at(p)
    (share,) = held
    assert receiver.receive(share) == []
    assert receiver.card_at(p) in range(N_CARDS_2017)
    for peer in bus.peers:
        if peer is not receiver and peer.seat != late:
            peer.receive(share)
    bus.sent.append((late, share))
    before = [peer.state.digest() for peer in bus.peers]
    assert len(set(before)) == 1
    for sender, raw in bus.sent:  # every message a second time
        for peer in bus.peers:
            if peer.seat != sender:
                assert peer.receive(raw) == []
        assert bus.peers[sender].receive(raw) == []  # own messages echoed back
    assert [peer.state.digest() for peer in bus.peers] == before
    assert all(len(peer.hand()) == HAND_SIZE[players] for peer in bus.peers)


def test_params_are_validated() -> None:
    with pytest.raises(ValueError):
        DeckParams(b"", 0, 65, 3, 15)
    with pytest.raises(ValueError):
        DeckParams(b"t", 0, 65, 5, 14)
    with pytest.raises(ValueError):
        DeckParams(b"t", 0, 65, 1, 15)
    with pytest.raises(ValueError):
        DeckParams(b"t", 0, 65, 3, 15, frozenset({65}))
    with pytest.raises(ValueError):
        DeckParams(b"t", 0, 4, 2, 1, frozenset({0, 1, 2}))
