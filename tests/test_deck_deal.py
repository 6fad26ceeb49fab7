"""Honest deals among 3, 4 and 5 in-process peers: hands, privacy, opening, reveal and audit."""

from __future__ import annotations

import itertools

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from deck_local import Ed25519Codec, LocalBus, deal, make_codecs, make_table, seeded_entropy
from druids_p2p.deck.peer import DeckPeer

from druids_p2p.deck import (
    DeckParams,
    NotReady,
    Opened,
    audit_transcript,
    group,
)
from druids_p2p.deck.cards import card_table

N_CARDS = 65
GAIA = 60
HAND = {3: 15, 4: 14, 5: 13}


def druids_params(players: int, round_no: int = 0, table: bytes = b"T" * 32) -> DeckParams:
    return DeckParams(table, round_no, N_CARDS, players, HAND[players], frozenset({GAIA}))


def honest_table(players: int, seed: bytes | None = None) -> list[DeckPeer]:
    params = druids_params(players)
    entropy = None if seed is None else (lambda s: seeded_entropy(seed + bytes([s])))
    peers = make_table(params, entropy=entropy)
    deal(peers)
    return peers


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_peer_gets_exactly_its_own_hand(players: int) -> None:
    peers = honest_table(players)
    params = peers[0].params
    hands = [p.hand() for p in peers]
    assert all(len(h) == params.hand_size for h in hands)
    dealt = [c for h in hands for c in h]
    assert len(dealt) == len(set(dealt)) == players * HAND[players]
    assert GAIA in dealt
    assert all(0 <= c < N_CARDS for c in dealt)
    # the deal every peer agreed on is the one the audit reconstructs
    bus = LocalBus(peers)
    for p in peers:
        bus.post(p.seat, [p.reveal()])
    bus.run()
    for p in peers:
        result = p.audit()
        assert [list(h) for h in result.hands] == [list(h) for h in hands]
        assert sorted(result.undealt + tuple(dealt)) == list(range(N_CARDS))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_no_peer_can_decrypt_another_seats_cards_before_the_reveal(players: int) -> None:
    peers = honest_table(players)
    params = peers[0].params
    table = card_table(N_CARDS)
    for me in peers:
        final = me.final_deck
        assert final is not None
        assignment = me.assignment
        assert assignment is not None
        for j in range(params.dealt):
            owner = assignment.owner(j)
            if owner == me.seat:
                continue
            known = me.published_shares(j)
            assert owner not in known  # the owner's share is never published before it plays
            # every combination of the shares this peer knows (its own included) yields no card
            for size in range(len(known) + 1):
                for subset in itertools.combinations(known.values(), size):
                    point = (
                        final.c[j]
                        if not subset
                        else group.sub(final.c[j], group.sum_points(list(subset)))
                    )
                    assert point not in table


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_assignment_is_a_permutation_agreed_by_every_peer_and_the_audit(players: int) -> None:
    peers = honest_table(players)
    params = peers[0].params
    first = peers[0].assignment
    assert first is not None
    assert sorted(first.perm) == list(range(params.dealt))
    assert all(p.assignment == first for p in peers)
    for p in peers:
        assert p.positions(p.seat) == first.perm[p.seat :: players]
        assert len(p.hand()) == params.hand_size
    bus = LocalBus(peers)
    for p in peers:
        bus.post(p.seat, [p.reveal()])
    bus.run()
    for p in peers:
        result = p.audit()
        assert result.assignment == first
        for s in range(players):
            assert result.hands[s] == tuple(result.deal[j] for j in first.positions(s))


def test_no_salt_is_sent_before_the_final_deck_and_no_share_before_every_salt() -> None:
    params = druids_params(4)
    codecs = make_codecs(params)
    peers = make_table(params, codecs=codecs)
    bus = LocalBus(peers)
    kinds: list[str] = []

    def watch(sender: int, raw: bytes) -> bytes:
        kinds.append(codecs[0].open(raw).kind)
        return raw

    bus.start()
    bus.run(watch)
    last_shuffle = max(i for i, k in enumerate(kinds) if k == "deck_shuffle")
    salts = [i for i, k in enumerate(kinds) if k == "deck_salt"]
    shares = [i for i, k in enumerate(kinds) if k == "deck_shares"]
    assert len(salts) == len(shares) == 4
    assert min(salts) > last_shuffle
    assert min(shares) > max(salts)


@pytest.mark.parametrize("players", [3, 5])
def test_playing_every_card_then_audit_agrees(players: int) -> None:
    params = druids_params(players)
    codecs = make_codecs(params)
    peers = make_table(params, codecs=codecs)
    deal(peers)
    bus = LocalBus(peers)
    order: list[Opened] = []
    hands = {p.seat: list(p.hand()) for p in peers}
    for turn in range(HAND[players]):
        for p in peers:
            card = hands[p.seat][(turn * 7) % len(hands[p.seat])]
            hands[p.seat].remove(card)
            raw = p.open_card(card)
            bus.post(p.seat, [raw])
            bus.run()
            j = next(o.position for o in p.opened if o.card == card)
            order.append(Opened(p.seat, j, card))
    for p in peers:
        assert list(p.opened) == order
    for p in peers:
        bus.post(p.seat, [p.reveal()])
    bus.run()
    results = [p.audit() for p in peers]
    assert all(r == results[0] for r in results)
    assert list(results[0].opened) == order
    # a third party holding only the transcript and the public keys gets the same answer
    observer = Ed25519Codec(params, 0, Ed25519PrivateKey.generate(), codecs[0].public_keys)
    again = audit_transcript(peers[0].params, peers[2].transcript(), observer)
    assert again.hands == results[0].hands
    # openings logged before the salts (a reordered record) are placed once the salts are in
    raws = list(peers[2].transcript())
    kinds = [observer.open(r).kind for r in raws]
    opens = [r for r, k in zip(raws, kinds, strict=True) if k == "deck_open"]
    rest = [r for r, k in zip(raws, kinds, strict=True) if k != "deck_open"]
    first_salt = next(i for i, r in enumerate(rest) if observer.open(r).kind == "deck_salt")
    early = rest[:first_salt] + opens + rest[first_salt:]
    assert audit_transcript(params, early, observer) == results[0]
    assert again.opened == results[0].opened


def test_out_of_order_delivery_still_deals() -> None:
    params = druids_params(4)
    peers = make_table(params)
    outbox: list[tuple[int, bytes]] = []
    for p in peers:
        outbox += [(p.seat, r) for r in p.start()]
    # deliver newest first (reverse order), repeatedly, until quiet
    while outbox:
        sender, raw = outbox.pop()
        for p in peers:
            if p.seat != sender:
                outbox[:0] = [(p.seat, r) for r in p.receive(raw)]
    hands = [c for p in peers for c in p.hand()]
    assert len(set(hands)) == params.dealt and GAIA in hands


def test_redelivery_is_harmless_and_hand_waits_for_the_deal() -> None:
    params = druids_params(3)
    peers = make_table(params)
    with pytest.raises(NotReady):
        peers[0].hand()
    bus = LocalBus(peers)
    bus.start()
    seen: list[tuple[int, bytes]] = []

    def record(sender: int, raw: bytes) -> bytes:
        seen.append((sender, raw))
        return raw

    bus.run(intercept=record)
    for sender, raw in seen:  # every message a second time
        for p in peers:
            if p.seat != sender:
                assert p.receive(raw) == []
        assert peers[sender].receive(raw) == []  # own messages echoed back
    assert all(p.deal_complete for p in peers)


def test_generic_parameters_without_required_cards() -> None:
    params = DeckParams(b"generic", 7, 20, 2, 6, frozenset())
    assert params.shuffle_len == 20 and params.kept == 12
    peers = make_table(params)
    deal(peers)
    cards = [c for p in peers for c in p.hand()]
    assert len(set(cards)) == 12


def test_required_cards_when_the_whole_deck_is_dealt() -> None:
    params = DeckParams(b"generic", 0, 12, 3, 4, frozenset({0, 11}))
    assert params.shuffle_len == 10 and params.kept == 10
    peers = make_table(params)
    deal(peers)
    assert sorted(c for p in peers for c in p.hand()) == list(range(12))


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
