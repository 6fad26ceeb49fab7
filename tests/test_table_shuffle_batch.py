"""A shuffle's passes are taken as soon as they are well formed and their proofs checked in one
batch when the last pass is in (deck.md §10.2): the next seat builds on a pass before anybody has
checked its proof, yet nothing is taken from the deck, and no share of it is sent, before every
proof held; and a batch that fails still blames the first bad pass in seat order, with the same
evidence as a pass checked alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from deck_local import rewrite
from linear_pass import holds_but_the_product, linear_pass
from table_local import CARDS, GAME, TABLE_ID, TableBus, make_table

from druids_p2p.deck import group
from druids_p2p.deck.cards import Deck
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.shuffle import shuffle_step
from druids_p2p.deck.table_audit import audit_record
from druids_p2p.deck.table_messages import TableOp, TableShuffleMsg
from druids_p2p.deck.table_ops import waiting

NUM_CARDS = 16
SHUFFLE = TableOp("shuffle", deck="d", cards=CARDS)


def rewritten_passes(
    bus: TableBus, seats: set[int], change: Callable[[dict[str, Any]], None]
) -> None:
    """Each seat in ``seats`` signs its pass with its body as ``change`` leaves it."""

    def intercept(sender: int, raw: bytes) -> bytes | None:
        if sender not in seats or bus.kind(raw) != "table_shuffle":
            return raw
        return rewrite(bus.codecs[sender], raw, change)

    bus.intercept = intercept


def bad_proofs(bus: TableBus, seats: set[int]) -> None:
    """Each seat in ``seats`` signs its pass with a proof response changed: a well-formed pass
    whose proof does not hold."""

    def wreck(body: dict[str, Any]) -> None:
        body["proof"]["s1"] = body["proof"]["s2"]

    rewritten_passes(bus, seats, wreck)


def refused_before_a_deal(bus: TableBus, seats: int) -> DeckFault:
    """The fault the shuffle raises, pushed with a deal of its deck to every seat after it."""
    with pytest.raises(DeckFault) as info:
        bus.push(SHUFFLE)
        bus.push(TableOp("deals", deck="d", seats=tuple(range(seats))))
    return info.value


def passes(bus: TableBus) -> list[bytes]:
    return [raw for _, raw in bus.sent if bus.kind(raw) == "table_shuffle"]


@pytest.mark.parametrize("seats", [3, 4])
def test_a_bad_first_pass_is_built_on_but_blamed_before_anything_is_dealt(seats: int) -> None:
    """Seat 0's proof is false: every later seat still makes its pass on it (nobody waits for a
    proof to build on a pass), and then every seat blames seat 0, before the deal."""
    bus = make_table(seats, NUM_CARDS, b"batch")
    bad_proofs(bus, {0})
    with pytest.raises(DeckFault) as info:
        bus.push(SHUFFLE)
        bus.push(TableOp("deals", deck="d", seats=tuple(range(seats))))
    assert info.value.seat == 0 and "invalid proof of a shuffle" in info.value.reason
    last = bus.peers[seats - 1].state
    assert (0, seats - 1) in last.slots, "the last seat built its pass on the unproven ones"
    assert len(passes(bus)) == seats - 1, "every other seat's pass was sent before any check"
    assert info.value.evidence[0] == passes(bus)[0]
    assert set(bus.peers[1].state.key_raws()) <= set(info.value.evidence)
    assert not any(bus.kind(raw) == "table_shares" for _, raw in bus.sent)
    for peer in bus.peers:
        assert peer.state.done == 0, "the shuffle never completed"
        assert not peer.state.positions


def test_two_bad_passes_blame_the_first_at_every_honest_seat_and_in_the_audit() -> None:
    """Seats 1 and 2 both sign false proofs: the batch fails, and pass by pass the first bad one
    is seat 1's, at an honest seat as in a replay of the record by a third party; its evidence is
    its pass, the pass its input came from (seat 0's) and the keys."""
    seats = 4
    bus = make_table(seats, NUM_CARDS, b"batch two")
    bad_proofs(bus, {1, 2})
    with pytest.raises(DeckFault) as info:
        bus.push(SHUFFLE)
    made = passes(bus)
    keys = bus.peers[0].state.key_raws()
    assert info.value.seat == 1
    assert info.value.evidence == (made[1], made[0], *keys)
    with pytest.raises(DeckFault) as replayed:
        audit_record(
            TABLE_ID, GAME, seats, NUM_CARDS, bus.codecs[0], [SHUFFLE], [raw for _, raw in bus.sent]
        )
    assert replayed.value.seat == 1 and replayed.value.evidence == info.value.evidence


def test_a_bad_last_pass_is_blamed_with_the_pass_before_it() -> None:
    seats = 3
    bus = make_table(seats, NUM_CARDS, b"batch last")
    bad_proofs(bus, {seats - 1})
    with pytest.raises(DeckFault) as info:
        bus.push(SHUFFLE)
    made = passes(bus)
    assert info.value.seat == seats - 1
    assert info.value.evidence[:2] == (made[-1], made[-2])


def test_honest_passes_complete_the_shuffle_at_every_seat_alike() -> None:
    seats = 4
    bus = make_table(seats, NUM_CARDS, b"batch honest")
    bus.push(SHUFFLE)
    last = bus.codecs[0].open(passes(bus)[-1]).body
    for peer in bus.peers:
        deck = peer.state.decks["d"]
        assert tuple(deck.a) == tuple(last["a"]) and tuple(deck.c) == tuple(last["c"])
        assert deck.source_raws == (passes(bus)[-1],) and deck.shuffles == 1
    assert len({p.state.digest() for p in bus.peers}) == 1


def cut_after(bus: TableBus, seat: int) -> None:
    """Seat ``seat`` and every seat after it never send their passes: the record stops there."""
    held = bus.intercept

    def intercept(sender: int, raw: bytes) -> bytes | None:
        if sender >= seat and bus.kind(raw) == "table_shuffle":
            return None
        return raw if held is None else held(sender, raw)

    bus.intercept = intercept


def test_a_bad_pass_held_when_a_later_seat_falls_silent_is_blamed_not_the_silence() -> None:
    """Seat 0's proof is false and seat 2 never passes: the proofs are not yet checked (the
    shuffle is not complete), so a caller about to blame seat 2 for silence asks the seat to
    prove the passes it holds first (``TablePeer.prove_held``), and so does the audit of the
    record that stops there: seat 0 is blamed, for its pass."""
    seats = 4
    bus = make_table(seats, NUM_CARDS, b"batch cut")
    bad_proofs(bus, {0})
    cut_after(bus, 2)
    bus.push(SHUFFLE)
    peer = bus.peers[3]
    assert peer.state.progress == 2 and waiting(peer.state) == (2,), "it waits for seat 2"
    with pytest.raises(DeckFault) as info:
        peer.prove_held()
    record = [raw for _, raw in bus.sent]
    assert info.value.seat == 0 and info.value.evidence[0] == passes(bus)[0]
    with pytest.raises(DeckFault) as audited:
        audit_record(TABLE_ID, GAME, seats, NUM_CARDS, bus.codecs[0], [SHUFFLE], record)
    assert audited.value.seat == 0 and "invalid proof of a shuffle" in audited.value.reason


def test_honest_passes_held_when_a_seat_falls_silent_leave_the_silence_to_blame() -> None:
    seats = 3
    bus = make_table(seats, NUM_CARDS, b"batch cut honest")
    cut_after(bus, 2)
    bus.push(SHUFFLE)
    for peer in bus.peers:
        peer.prove_held()  # nothing false is held
    record = [raw for _, raw in bus.sent]
    with pytest.raises(DeckFault) as audited:
        audit_record(TABLE_ID, GAME, seats, NUM_CARDS, bus.codecs[0], [SHUFFLE], record)
    assert audited.value.seat == 2 and "no table_shuffle message" in audited.value.reason


def test_a_first_pass_over_a_swapped_public_start_is_blamed_on_its_shuffler() -> None:
    """Seat 0 sends a genuine proof of a shuffle of another public start (card 0 swapped for
    card 9, which the deck does not hold): the batch, which takes the public start's C sides as
    multiples of B plus H (deck.md §7.1), refuses it and blames seat 0 at every other seat,
    before anything is dealt."""
    seats = 4
    bus = make_table(seats, NUM_CARDS, b"batch swapped start")

    def swap(body: dict[str, Any]) -> None:
        state = bus.peers[0].state
        joint = state.joint_key
        assert joint is not None
        sides = state.public()[0]
        cards = (9, *CARDS[1:])
        start = Deck((group.BASE,) * len(cards), tuple(sides[c] for c in cards))
        params = state.context(b"shuffle", "d", 0)
        out, proof = shuffle_step(params, 0, 1, bytes(32), start, joint)
        body.update(TableShuffleMsg(state.round_no, 0, "d", out.a, out.c, proof).to_body())

    rewritten_passes(bus, {0}, swap)
    fault = refused_before_a_deal(bus, seats)
    assert fault.seat == 0 and "invalid proof of a shuffle" in fault.reason
    assert fault.evidence[0] == passes(bus)[0]
    assert not any(bus.kind(raw) == "table_shares" for _, raw in bus.sent)
    for peer in bus.peers[1:]:
        assert peer.state.done == 0 and not peer.state.positions


def test_a_linear_pass_that_is_no_permutation_is_blamed_on_its_shuffler() -> None:
    """Seat 1's pass combines seat 0's output by a matrix whose rows sum to 1 but that is no
    permutation (half a card, a card and a half), with a proof whose every equation but the
    product argument's holds (deck.md §7.1): the batch refuses it and every other seat blames
    seat 1 with its pass, the pass it was built on and the keys, before anything is dealt."""
    seats = 4
    bus = make_table(seats, NUM_CARDS, b"batch linear")

    def combine(body: dict[str, Any]) -> None:
        state = bus.peers[1].state
        joint = state.joint_key
        assert joint is not None
        before = state.slots[(0, 0)].msg
        assert isinstance(before, TableShuffleMsg)
        source = Deck(before.a, before.c)
        params = state.context(b"shuffle", "d", 0)
        out, proof = linear_pass(params, 1, 1, joint, source)
        assert holds_but_the_product(params, 1, 1, joint, source, out, proof)
        body.update(TableShuffleMsg(state.round_no, 0, "d", out.a, out.c, proof).to_body())

    rewritten_passes(bus, {1}, combine)
    fault = refused_before_a_deal(bus, seats)
    made = passes(bus)
    assert fault.seat == 1 and "invalid proof of a shuffle" in fault.reason
    assert fault.evidence[:2] == (made[1], made[0])
    assert set(bus.peers[0].state.key_raws()) <= set(fault.evidence)
    assert not any(bus.kind(raw) == "table_shares" for _, raw in bus.sent)
