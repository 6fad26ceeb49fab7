"""Whole Druids (2004) games' deck operations at the mental card table: n = 2, 3, 4 real
TablePeer objects in process, every message signed and relayed. Every seat ends with the same
public state, learns exactly what it may, and the final audit of the record passes; cards are
never lost or duplicated (hypothesis)."""

from __future__ import annotations

import random
from collections import Counter

import msgpack
import pytest
from deck_local import rewrite
from hypothesis import given, settings
from hypothesis import strategies as st
from table_game2004 import NUM_CARDS, bot_game_steps
from table_local import GAME, TABLE_ID, TableBus, make_table

from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.table_audit import audit_record
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_state import TableState


def allowed(state: TableState, seat: int) -> set[int]:
    """What ``seat`` may know before the final reveal: its own deals and every public card."""
    return {p for p, pos in enumerate(state.positions) if pos.owner == seat or pos.card is not None}


def play_game(players: int, seed: int) -> tuple[TableBus, list[TableOp]]:
    steps = bot_game_steps(players, seed)
    assert steps[-1].op.kind == "final"
    bus = make_table(players, NUM_CARDS, b"game %d" % seed)
    for step in steps[:-1]:
        bus.push(step.op, step.position)
    state = bus.peers[0].state
    assert Counter(s.op.kind for s in steps)["reveal"] >= 1, "a game with at least one ritual"
    for peer in bus.peers:
        assert peer.state.digest() == state.digest()
        assert set(peer.known()) == allowed(peer.state, peer.seat), f"seat {peer.seat} knows"
    bus.push(steps[-1].op)
    return bus, [s.op for s in steps]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_bot_game_runs_through_the_table_and_audits(players: int) -> None:
    bus, ops = play_game(players, 18 + players)
    digests = {p.state.digest() for p in bus.peers}
    assert len(digests) == 1, "every seat ends with the same public state"
    assert all(p.state.finished for p in bus.peers)
    transcript = bus.peers[0].transcript()
    assert all(set(p.transcript()) == set(transcript) for p in bus.peers)
    audit = audit_record(TABLE_ID, GAME, players, NUM_CARDS, bus.codecs[0], ops, transcript)
    for peer in bus.peers:
        mine = [audit.positions[p].card for p in sorted(peer._cards)]
        assert mine == list(audit.dealt[peer.seat]), "each seat learned its own cards right"
        for p, card in peer.known().items():
            assert audit.positions[p].card == card
    cards = [p.card for p in audit.positions if p.zone is not None]
    cards += [c for deck in audit.decks.values() for c in deck]
    assert sorted(cards) == sorted(bus.peers[0].state.created), "every card exactly once"


def test_the_audit_of_a_record_names_the_seat_of_a_forged_share() -> None:
    bus, ops = play_game(2, 7)
    transcript = list(bus.peers[0].transcript())
    codec = bus.codecs[0]
    at = next(
        i
        for i, raw in enumerate(transcript)
        if codec.open(raw).kind == "table_share" and codec.open(raw).seat == 1
    )
    transcript[at] = rewrite(bus.codecs[1], transcript[at], lambda b: b.update(e=b["s"]))
    with pytest.raises(DeckFault) as info:
        audit_record(TABLE_ID, GAME, 2, NUM_CARDS, codec, ops, transcript)
    assert info.value.seat == 1 and "invalid decryption share proof" in info.value.reason


def test_the_audit_of_a_record_without_a_final_reveal_names_the_missing_seat() -> None:
    bus, ops = play_game(2, 7)
    transcript = [
        raw
        for raw in bus.peers[0].transcript()
        if not (bus.kind(raw) == "table_reveal" and bus.codecs[0].open(raw).seat == 1)
    ]
    with pytest.raises(DeckFault) as info:
        audit_record(TABLE_ID, GAME, 2, NUM_CARDS, bus.codecs[0], ops, transcript)
    assert info.value.seat == 1 and "no table_reveal message" in info.value.reason


KINDS = st.sampled_from(["deal", "turn", "play", "reveal", "return", "reshuffle"])


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(KINDS, st.integers(0, 1), st.integers(0, 2)), max_size=14))
def test_cards_are_never_lost_or_duplicated(moves: list[tuple[str, int, int]]) -> None:
    """Random legal operations on two decks and three zones: after every one, every card is in
    exactly one deck or zone; after the final reveal the audit finds each card once."""
    bus = make_table(2, 12, b"property")
    bus.push(TableOp("shuffle", deck="a", cards=(0, 1, 2, 3, 4)))
    bus.push(TableOp("shuffle", deck="b", cards=(7, 8, 9)))
    state = bus.peers[0].state
    ops = [TableOp("shuffle", deck="a", cards=(0, 1, 2, 3, 4))]
    ops.append(TableOp("shuffle", deck="b", cards=(7, 8, 9)))
    for kind, seat, which in moves:
        deck = "ab"[which % 2]
        zone = f"z{which}"
        op: TableOp | None = None
        position = None
        if kind in ("deal", "turn") and state.decks[deck].a:
            if state.decks[deck].unshuffled_returns:
                op = TableOp("shuffle", deck=deck)
            elif kind == "deal":
                op = TableOp("deal", deck=deck, seat=seat)
            else:
                op = TableOp("turn", deck=deck, zone=zone)
        elif kind == "play" and state.zone(f"hand:{seat}"):
            op, position = TableOp("play", seat=seat, zone=zone), state.zone(f"hand:{seat}")[0]
        elif kind == "reveal":
            op = TableOp("reveal", zone=zone)
        elif kind == "return":
            public = [
                p for p, pos in enumerate(state.positions) if pos.card is not None and pos.zone
            ]
            if public:
                op = TableOp("return", deck=deck, position=public[0])
        elif kind == "reshuffle":
            op = TableOp("shuffle", deck=deck)
        if op is None:
            continue
        bus.push(op, position)
        ops.append(op)
        live = sum(1 for pos in state.positions if pos.zone is not None)
        assert live + sum(len(d.a) for d in state.decks.values()) == len(state.created)
    bus.push(TableOp("final"))
    ops.append(TableOp("final"))
    audit = audit_record(TABLE_ID, GAME, 2, 12, bus.codecs[1], ops, bus.peers[1].transcript())
    cards = [p.card for p in audit.positions if p.zone is not None]
    cards += [c for deck in audit.decks.values() for c in deck]
    assert sorted(cards) == [0, 1, 2, 3, 4, 7, 8, 9]


def test_messages_in_any_order_give_the_same_table() -> None:
    """Every seat is given the whole schedule at once and receives the others' messages in its
    own random order (early ones are kept until their operation comes): the table ends exactly
    as with in-order delivery, down to the state digest."""
    steps = bot_game_steps(2, 5)
    ordered = make_table(2, NUM_CARDS, b"order")
    for step in steps:
        ordered.push(step.op, step.position)
    shuffled = make_table(2, NUM_CARDS, b"order")
    rng = random.Random(3)
    inbox: list[list[bytes]] = [[], []]
    for peer in shuffled.peers:
        for step in steps:
            mine = step.position if step.op.kind == "play" and step.op.seat == peer.seat else None
            for raw in peer.push(step.op, mine):
                inbox[1 - peer.seat].append(raw)
    for _ in range(100_000):
        waiting = [s for s in (0, 1) if inbox[s]]
        if not waiting:
            break
        seat = rng.choice(waiting)
        raw = inbox[seat].pop(rng.randrange(len(inbox[seat])))
        for out in shuffled.peers[seat].receive(raw):
            inbox[1 - seat].append(out)
    assert all(p.state.finished for p in shuffled.peers)
    assert shuffled.peers[0].state.digest() == ordered.peers[0].state.digest()

    def bodies(bus: TableBus) -> set[tuple[int, str, bytes]]:
        """The signed contents (identities are fresh per table, so signatures differ)."""
        opened = [bus.codecs[0].open(raw) for raw in bus.peers[1].transcript()]
        return {(e.seat, e.kind, msgpack.packb(e.body, use_bin_type=True)) for e in opened}

    assert bodies(shuffled) == bodies(ordered)
