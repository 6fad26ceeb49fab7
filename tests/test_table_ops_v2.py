"""The card table's three operations of protocol version 2 (transfer and show) with real
TablePeer objects in process (tests/table_local.py): a schedule that uses all three runs and
audits, and every cheat at a show is refused by the honest seats and blamed on its author with
its signed message as evidence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_local import CARDS, GAME, TABLE_ID, TableBus, cheat, make_table
from table_local import dealt_table as shared_dealt_table

from druids_p2p.deck import group
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.table_audit import audit_record, audit_state, secret_fault
from druids_p2p.deck.table_messages import TableOp, TableShowMsg, parse_table_body
from druids_p2p.deck.table_state import Sent, TableOpError
from druids_p2p.games.druids2004.table_seat import SeatOp
from druids_p2p.table.card_table_play import table_op

NUM_CARDS = 16


def dealt_table(seats: int = 3) -> TableBus:
    """The shared cheat table (table_local), with this file's own entropy."""
    return shared_dealt_table(seats, b"v2")


def refused_show(
    bus: TableBus, seat: int, mutate: Callable[[dict[str, Any]], None], reason: str
) -> DeckFault:
    """``seat`` shows its first card into ``trick`` but edits its ``table_show`` in flight: every
    honest seat refuses it, blaming ``seat`` with the signed show first in the evidence."""
    cheat(bus, seat, "table_show", mutate)
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("show", seat=seat, zone="trick"), bus.peers[seat].hand()[0])
    fault = info.value
    assert fault.seat == seat, fault
    assert reason in fault.reason, fault.reason
    first = bus.codecs[0].open(fault.evidence[0])
    assert first.seat == seat and first.kind == "table_show", "evidence[0] is its signed show"
    return fault


def final_audit(bus: TableBus, ops: list[TableOp]) -> None:
    """The final reveal, then the offline audit of the whole record."""
    bus.push(TableOp("final"))
    ops.append(TableOp("final"))
    assert len({p.state.digest() for p in bus.peers}) == 1
    seats = len(bus.peers)
    audit = audit_record(
        TABLE_ID, GAME, seats, NUM_CARDS, bus.codecs[0], ops, bus.peers[0].transcript()
    )
    for peer in bus.peers:
        for p, card in peer.known().items():
            assert audit.positions[p].card == card


# --------------------------------------------------------------------------- transfer
def transfer_schedule(seats: int) -> list[TableOp]:
    """2017's deal in small: Gaia (card 10) alone in ``lead``, seats-1 cards moved onto it from
    ``deck``, ``lead`` reshuffled and dealt one to each seat, then ``deck`` round-robin."""
    ops = [
        TableOp("shuffle", deck="deck", cards=CARDS),
        TableOp("shuffle", deck="lead", cards=(10,)),
    ]
    ops += [TableOp("transfer", deck="lead", source="deck")] * (seats - 1)
    ops.append(TableOp("shuffle", deck="lead"))
    ops += [TableOp("deal", deck="lead", seat=s) for s in range(seats)]
    ops += [TableOp("deal", deck="deck", seat=s) for _ in range(2) for s in range(seats)]
    return ops


def test_a_transfer_moves_the_top_card_unchanged_and_a_reshuffled_deal_is_sound() -> None:
    seats = 3
    bus = make_table(seats, NUM_CARDS, b"transfer")
    ops = transfer_schedule(seats)
    for op in ops[:2]:
        bus.push(op)
    state = bus.peers[0].state
    tops = [(state.decks["deck"].a[t], state.decks["deck"].c[t]) for t in range(seats - 1)]
    for op in ops[2 : 2 + seats - 1]:
        bus.push(op)
    lead = state.decks["lead"]
    assert list(zip(lead.a, lead.c, strict=True))[1:] == tops, "face down, unchanged, in order"
    assert len(state.decks["deck"].a) == len(CARDS) - (seats - 1)
    assert lead.unshuffled_returns, "the destination must be shuffled before it is drawn from"
    for op in ops[2 + seats - 1 :]:
        bus.push(op)
    assert len({p.state.digest() for p in bus.peers}) == 1
    dealt = [card for peer in bus.peers for card in peer._cards.values()]
    assert len(dealt) == 3 * seats and len(set(dealt)) == len(dealt)
    lead_cards = {bus.peers[s].card_at(state.at_op[2 + seats + s]) for s in range(seats)}
    assert 10 in lead_cards and len(lead_cards) == seats
    final_audit(bus, ops)


def test_a_deal_from_a_destination_not_reshuffled_after_a_transfer_is_refused() -> None:
    bus = make_table(2, NUM_CARDS, b"transfer")
    bus.push(TableOp("shuffle", deck="deck", cards=CARDS))
    bus.push(TableOp("shuffle", deck="lead", cards=(10,)))
    bus.push(TableOp("transfer", deck="lead", source="deck"))
    with pytest.raises(TableOpError, match="shuffle it first"):
        bus.push(TableOp("deal", deck="lead", seat=0))


def test_a_transfer_from_or_to_a_missing_or_empty_deck_is_the_schedules_error() -> None:
    bus = make_table(2, NUM_CARDS, b"transfer")
    bus.push(TableOp("shuffle", deck="one", cards=(3,)))
    with pytest.raises(TableOpError, match="there is no deck two"):
        bus.push(TableOp("transfer", deck="two", source="one"))
    bus = make_table(2, NUM_CARDS, b"transfer")
    bus.push(TableOp("shuffle", deck="one", cards=(3,)))
    with pytest.raises(TableOpError, match="there is no deck two"):
        bus.push(TableOp("transfer", deck="one", source="two"))
    bus = make_table(2, NUM_CARDS, b"transfer")
    bus.push(TableOp("shuffle", deck="one", cards=(3,)))
    bus.push(TableOp("shuffle", deck="two", cards=(4,)))
    bus.push(TableOp("transfer", deck="two", source="one"))
    with pytest.raises(TableOpError, match="deck one is empty"):
        bus.push(TableOp("transfer", deck="two", source="one"))


@pytest.mark.parametrize(
    "make",
    [
        lambda: TableOp("transfer", deck="lead"),
        lambda: TableOp("transfer", source="deck"),
        lambda: TableOp("transfer", deck="lead", source="lead"),
        lambda: TableOp("transfer", deck="lead", source="bad name"),
        lambda: TableOp("transfer", deck="lead", source="deck", seat=0),
        lambda: TableOp("deal", deck="d", seat=0, source="e"),
        lambda: TableOp("show", zone="trick"),
        lambda: TableOp("show", seat=0, zone="hand:1"),
        lambda: TableOp("show", seat=0),
    ],
)
def test_a_v2_operation_the_table_cannot_express_is_refused(make: Callable[[], TableOp]) -> None:
    with pytest.raises(ValueError):
        make()


# --------------------------------------------------------------------------- show
def test_a_show_is_accepted_by_every_seat_with_the_right_card() -> None:
    bus = dealt_table()
    shower = bus.peers[1]
    p = shower.hand()[0]
    card = shower.card_at(p)
    for peer in bus.peers:
        assert p not in peer.known() or peer is shower
    bus.push(TableOp("show", seat=1, zone="trick"), p)
    for peer in bus.peers:
        pos = peer.state.positions[p]
        assert peer.known()[p] == card and pos.card == card and pos.zone == "trick"
        assert peer.state.zone("trick") == (p,) and p not in peer.state.zone("hand:1")
        assert pos.opened is not None and pos.opened.seat == 1
    assert len({peer.state.digest() for peer in bus.peers}) == 1
    (raw,) = (raw for s, raw in bus.sent if bus.kind(raw) == "table_show")
    env = bus.codecs[0].open(raw)
    assert tuple(env.body) == ("card", "d", "e", "op", "pos", "round", "s", "zone")
    msg = parse_table_body(env.kind, env.body)
    assert isinstance(msg, TableShowMsg) and msg.card == card and msg.position == p
    final_audit(bus, list(bus.peers[0].state.ops))


def test_a_show_claiming_another_card_than_its_position_holds_is_blamed() -> None:
    bus = dealt_table()
    other = bus.peers[1].card_at(bus.peers[1].hand()[1])  # a card it holds, not the one it shows
    refused_show(bus, 1, lambda b: b.update(card=other), f"claimed card {other} at position")


def test_a_show_of_a_position_not_in_its_hand_is_blamed() -> None:
    bus = dealt_table()
    theirs = bus.peers[2].hand()[0]
    refused_show(
        bus, 1, lambda b: b.update(pos=theirs), f"showed position {theirs}, which is not in"
    )


def test_a_show_of_a_position_never_taken_is_blamed() -> None:
    bus = dealt_table()
    refused_show(bus, 0, lambda b: b.update(pos=4000), "showed position 4000, which is not in")


def test_a_show_with_a_bad_dleq_proof_is_blamed() -> None:
    bus = dealt_table()
    refused_show(bus, 2, lambda b: b.update(s=b["e"]), "invalid decryption share proof")


def test_a_show_with_a_forged_share_is_blamed() -> None:
    """Another point as its share (it would turn the position into any card it likes): the
    DLEQ proof does not hold for it, and the key is in the evidence."""
    bus = dealt_table()
    forged = group.base_mul(group.scalar_from_wide(bytes(range(64))))
    fault = refused_show(bus, 0, lambda b: b.update(d=forged), "invalid decryption share proof")
    assert bus.peers[1].state.keys[0].raw in fault.evidence


def test_a_show_onto_another_zone_than_the_schedule_says_is_blamed() -> None:
    bus = dealt_table()
    refused_show(
        bus, 1, lambda b: b.update(zone="gaia:R"), "shows onto gaia:R, but operation 7 shows onto"
    )


def test_a_show_where_a_face_down_play_is_due_is_blamed() -> None:
    """The schedule says play (face down); seat 0 shows instead: its message is the wrong kind."""
    bus = dealt_table()
    mine = bus.peers[0].hand()[0]
    card = bus.peers[0].card_at(mine)

    def swap(sender: int, raw: bytes) -> bytes | None:
        if sender != 0 or bus.kind(raw) != "table_play":
            return raw
        body = {
            "card": card,
            "d": group.BASE,
            "e": (1).to_bytes(32, "little"),
            "op": 7,
            "pos": mine,
            "round": GAME,
            "s": (1).to_bytes(32, "little"),
            "zone": "trick",
        }
        return bus.codecs[0].seal("table_show", body)

    bus.intercept = swap
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("play", seat=0, zone="trick"), mine)
    assert info.value.seat == 0 and "table_show for operation 7, which is a play" in str(info.value)


def test_a_show_proof_replayed_from_a_reveal_of_the_same_position_fails() -> None:
    """Seat 1's opening share of a position, proven at an earlier reveal, re-signed into a show
    of it: the proof is bound to the operation and zone, so it does not hold there."""
    bus = dealt_table()
    p = bus.peers[1].hand()[0]
    bus.push(TableOp("play", seat=1, zone="slot"), p)
    bus.push(TableOp("reveal", zone="slot"))
    opened = next(raw for s, raw in bus.sent if bus.kind(raw) == "table_open")
    old = bus.codecs[0].open(opened).body["opens"][0]
    refused_show(
        bus,
        1,
        lambda b: b.update(d=old["d"], e=old["e"], s=old["s"]),
        "invalid decryption share proof",
    )


def test_a_seat_can_show_only_a_position_it_was_dealt() -> None:
    bus = dealt_table()
    with pytest.raises(ValueError, match="was not dealt position"):
        bus.peers[0].push(TableOp("show", seat=0, zone="trick"), bus.peers[1].hand()[0])


def test_a_card_id_already_at_the_table_is_refused() -> None:
    bus = dealt_table()
    with pytest.raises(TableOpError, match="already at the table"):
        bus.push(TableOp("shuffle", deck="e", cards=(7, 8)))


def test_the_audit_re_checks_a_show_opening_against_the_revealed_secret() -> None:
    """A show's opening share that is not the shower's secret times A (which its proof rules
    out) is named by the audit, exactly as a reveal's opening is."""
    bus = dealt_table()
    p = bus.peers[1].hand()[0]
    bus.push(TableOp("show", seat=1, zone="trick"), p)
    bus.push(TableOp("final"))
    state = bus.peers[0].state
    opened = state.positions[p].opened
    assert opened is not None and isinstance(opened.msg, TableShowMsg)
    state.positions[p].opened = Sent(1, replace(opened.msg, share=state.positions[p].a), opened.raw)
    reason = f"audit: its opening share of position {p} is not its secret times A"
    with pytest.raises(DeckFault, match=reason):
        audit_state(state)
    reveal = state.slots[(len(state.ops) - 1, 1)]
    secret = reveal.msg.secret  # type: ignore[union-attr]
    fault = secret_fault(state, 1, secret, reveal.raw)
    assert fault is not None and fault.reason == reason
    assert fault.evidence == (reveal.raw, opened.raw)


# --------------------------------------------------------------------------- property
ACTIONS = st.lists(
    st.tuples(st.sampled_from(["transfer", "shuffle"]), st.booleans()), min_size=1, max_size=6
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions=ACTIONS, seed=st.integers(0, 2**16))
def test_after_any_transfers_and_shuffles_every_deal_is_a_distinct_created_card(
    actions: list[tuple[str, bool]], seed: int
) -> None:
    """Two decks (cards 0..3 and 4..6), a mix of transfers either way and shuffles, then every
    card left is dealt: each seat reads distinct cards, and together they are the created set."""
    seats = 2
    bus = make_table(seats, NUM_CARDS, b"prop %d" % seed)
    bus.push(TableOp("shuffle", deck="a", cards=(0, 1, 2, 3)))
    bus.push(TableOp("shuffle", deck="b", cards=(4, 5, 6)))
    decks = bus.peers[0].state.decks
    for kind, a_first in actions:
        one, two = ("a", "b") if a_first else ("b", "a")
        if kind == "shuffle":
            bus.push(TableOp("shuffle", deck=one))
        elif decks[two].a:
            bus.push(TableOp("transfer", deck=one, source=two))
    turn = 0
    for name in ("a", "b"):
        if decks[name].unshuffled_returns:
            bus.push(TableOp("shuffle", deck=name))
        for _ in range(len(decks[name].a)):
            bus.push(TableOp("deal", deck=name, seat=turn % seats))
            turn += 1
    assert len({p.state.digest() for p in bus.peers}) == 1
    dealt = [card for peer in bus.peers for card in peer._cards.values()]
    assert sorted(dealt) == list(range(7)), "distinct cards, the created set, every one"
    for peer in bus.peers:
        assert len(set(peer._cards.values())) == len(peer.hand())


def test_the_seams_operation_reaches_the_deck_with_its_source() -> None:
    """A game's schedule names a transfer's source deck through the seam (``CardOp.source``);
    the net layer's ``table_op`` hands it on to the deck unchanged."""
    op = SeatOp("transfer", deck="lead", source="deck")
    assert table_op(op) == TableOp("transfer", deck="lead", source="deck")
    assert table_op(SeatOp("show", seat=2, zone="trick")) == TableOp("show", seat=2, zone="trick")
