"""During a deals a seat checks only the proofs of the shares of its own cards (deck.md §8.3,
§10.2); another seat's wait until one of that seat's cards is opened, a silence is blamed (or
another peer's abort judged), or the final reveal. Real TablePeer objects in process, seat 2
putting a false share of one of seat 1's cards under a proof made for it: seat 1 blames seat 2
during the deal; seat 0 deals on, then blames seat 2, with the same signed evidence, before it
reads seat 1's card, before it blames a silence, and at the final reveal, never later; the
offline audit blames seat 2 too; an honest deal leaves nothing unchecked after the final reveal,
and a seat that claims a true proof false cannot get its sender blamed."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from deck_local import rewrite
from table_local import GAME, TABLE_ID, TableBus, make_table

from druids_p2p.deck import group, lincomb
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.proofs import prove_open, prove_shares
from druids_p2p.deck.table_audit import audit_record
from druids_p2p.deck.table_messages import TableOp, TableRevealMsg, TableShowMsg
from druids_p2p.deck.table_state import context_params

NUM_CARDS, CARDS, SEATS = 16, tuple(range(12)), 3
BATCH = (0, 1, 2) * 3
"""Nine cards round-robin: positions 1, 4 and 7 are seat 1's."""
DEALS = TableOp("deals", deck="d", seats=BATCH)
SHUFFLE = TableOp("shuffle", deck="d", cards=CARDS)
SHOW = TableOp("show", zone="trick", seat=1)
CHEAT, VICTIM, BYSTANDER = 2, 1, 0
REASON = "table_shares: invalid decryption share proof (one proof for a seat's cards)"


def dealt(seed: bytes, false_share: bool = True) -> tuple[TableBus, list[bytes]]:
    """The shuffle delivered; every seat's ``table_shares`` of ``DEALS`` made, not delivered,
    seat 2's with a false share of position 4 (seat 1's) under a true proof of the shares of
    seat 1's cards, made with seat 2's secret (its challenge holds, its equation does not)."""
    bus = make_table(SEATS, NUM_CARDS, seed)
    bus.push(SHUFFLE)
    made = [raw for peer in bus.peers for raw in peer.push(DEALS)]
    if false_share:
        made[CHEAT] = rewrite(bus.codecs[CHEAT], made[CHEAT], lambda b: _falsify(bus, b))
    return bus, made


def _falsify(bus: TableBus, body: dict[str, Any], op: int = 1, which: int = 1) -> None:
    peer = bus.peers[CHEAT]
    state = peer.state
    mine = [part for part in body["shares"] if state.positions[part["pos"]].owner == VICTIM]
    false = mine[which]  # (position 4 at the first deals)
    false["d"] = group.add(false["d"], state.positions[false["pos"]].a)
    positions = [part["pos"] for part in mine]
    a_list = [state.positions[p].a for p in positions]
    params = context_params(TABLE_ID, GAME, SEATS, b"share", "d", op)
    d_list = [part["d"] for part in mine]
    e, s, t2 = prove_shares(params, CHEAT, peer._secret, peer._key, positions, a_list, d_list)
    (proof,) = [pr for pr in body["proofs"] if pr["seat"] == VICTIM]
    proof |= {"e": e, "s": s, "t2": t2}


def blames_the_cheat(
    bus: TableBus, made: list[bytes], info: pytest.ExceptionInfo[DeckFault]
) -> None:
    fault = info.value
    assert fault.seat == CHEAT and fault.reason == REASON, fault
    assert fault.evidence == (made[CHEAT], bus.peers[BYSTANDER].state.keys[CHEAT].raw)


def bystander_after_the_deal(bus: TableBus, made: list[bytes]) -> None:
    """Seat 0 takes seats 1's and 2's messages: it checks only the proofs of its own cards'
    shares, which hold, so the deals completes and it reads its cards."""
    peer = bus.peers[BYSTANDER]
    assert peer.receive(made[VICTIM]) == [] and peer.receive(made[CHEAT]) == []
    assert peer.state.done == 2 and len(peer.known()) == len(BATCH) // SEATS
    assert sorted(peer.state.unproven) == [VICTIM, CHEAT]


def test_the_seat_whose_card_has_a_false_share_blames_its_sender_during_the_deal() -> None:
    bus, made = dealt(b"victim")
    victim = bus.peers[VICTIM]
    victim.receive(made[BYSTANDER])
    with pytest.raises(DeckFault) as info:
        victim.receive(made[CHEAT])
    blames_the_cheat(bus, made, info)


def test_another_seat_blames_the_sender_before_it_reads_that_seats_shown_card() -> None:
    bus, made = dealt(b"show")
    bystander_after_the_deal(bus, made)
    victim = bus.peers[VICTIM]
    p = victim.state.zone("hand:1")[1]
    a = victim.state.positions[p].a
    d = group.mul(victim._secret, a)
    e, s = prove_open(
        victim.state.context(b"open", "trick", 2), VICTIM, p, victim._secret, victim._key, a, d
    )
    show = TableShowMsg(GAME, 2, p, 0, d, e, s, "trick")
    raw = bus.codecs[VICTIM].seal(show.KIND, show.to_body())
    peer = bus.peers[BYSTANDER]
    peer.push(SHOW)
    with pytest.raises(DeckFault) as info:
        peer.receive(raw)
    blames_the_cheat(bus, made, info)


def test_another_seat_blames_the_sender_before_it_blames_a_silence_or_judges_an_abort() -> None:
    bus, made = dealt(b"held")
    bystander_after_the_deal(bus, made)
    with pytest.raises(DeckFault) as info:
        bus.peers[BYSTANDER].prove_held()
    blames_the_cheat(bus, made, info)


def test_another_seat_blames_the_sender_at_the_final_reveal() -> None:
    bus, made = dealt(b"final")
    bystander_after_the_deal(bus, made)
    peer = bus.peers[BYSTANDER]
    assert len(peer.push(TableOp("final"))) == 1
    reveals = []
    for seat in (VICTIM, CHEAT):
        msg = TableRevealMsg(GAME, 2, bus.peers[seat]._secret)
        reveals.append(bus.codecs[seat].seal(msg.KIND, msg.to_body()))
    peer.receive(reveals[0])
    with pytest.raises(DeckFault) as info:
        peer.receive(reveals[1])
    blames_the_cheat(bus, made, info)
    assert not peer.state.finished, "no secret is made public over an unproven share"


def test_the_offline_audit_checks_every_proof_during_the_deal() -> None:
    bus, made = dealt(b"audit")
    bystander_after_the_deal(bus, made)
    with pytest.raises(DeckFault) as info:
        audit_record(
            TABLE_ID,
            GAME,
            SEATS,
            NUM_CARDS,
            bus.codecs[BYSTANDER],
            [SHUFFLE, DEALS],
            bus.peers[BYSTANDER].transcript(),
        )
    blames_the_cheat(bus, made, info)


def test_an_honest_deal_is_checked_whole_by_the_final_reveal_and_a_false_claim_blames_nobody() -> (
    None
):
    """Honest messages: seat 0 defers the proofs of seats 1's and 2's cards, a check before a
    blame (another peer claiming them false, say) finds them true and blames nobody, and after
    the final reveal nothing is left unchecked."""
    bus, made = dealt(b"honest", false_share=False)
    bystander_after_the_deal(bus, made)
    peer = bus.peers[BYSTANDER]
    peer.prove_held()
    assert peer.state.unproven == {}
    bus2, made2 = dealt(b"honest", false_share=False)
    for seat, raws in enumerate(([made2[1], made2[2]], [made2[0], made2[2]], [made2[0], made2[1]])):
        for raw in raws:
            bus2.peers[seat].receive(raw)
    bus2.push(TableOp("final"))
    assert all(p.state.finished and p.state.unproven == {} for p in bus2.peers)


def test_a_waiting_seat_checks_the_proofs_left_aside_and_takes_the_result_when_due() -> None:
    """``TablePeer.check_unproven`` (what a LAN peer runs while nothing arrives): nothing while
    the table deals (its critical path), then one check for each seat of every proof left, on
    the aside thread; the opening (or a blame, or the final reveal) that needs them takes
    its result: a false share is blamed exactly as without it, an honest deal is left with
    nothing unchecked."""
    bus, made = dealt(b"idle")
    peer = bus.peers[BYSTANDER]
    peer.receive(made[VICTIM])
    assert peer.state.unproven and not peer.check_unproven(), "not while the table deals"
    peer.receive(made[CHEAT])
    assert peer.check_unproven() and not peer.check_unproven(), "one check at a time"
    with pytest.raises(DeckFault) as info:
        peer.prove_held()
    blames_the_cheat(bus, made, info)
    bus, made = dealt(b"idle", false_share=False)
    bystander_after_the_deal(bus, made)
    peer = bus.peers[BYSTANDER]
    assert peer.check_unproven()
    assert peer.state.aside and all(c.future.result() for _, c in peer.state.aside.values())
    peer.prove_held()
    assert peer.state.unproven == {} and peer.state.aside == {}
    assert not peer.check_unproven()


def test_a_check_aside_leaves_a_later_deals_proofs_to_be_checked() -> None:
    """A check started aside after one deals covers that deals' proofs only: a false share in a
    deals after it is still blamed when its proofs are due."""
    bus, made = dealt(b"later", false_share=False)
    for seat, raws in enumerate(([made[1], made[2]], [made[0], made[2]], [made[0], made[1]])):
        for raw in raws:
            bus.peers[seat].receive(raw)
    peer = bus.peers[BYSTANDER]
    assert peer.check_unproven()
    again = TableOp("deals", deck="d", seats=(0, 1, 2))
    more = [raw for p in bus.peers for raw in p.push(again)]
    more[CHEAT] = rewrite(bus.codecs[CHEAT], more[CHEAT], lambda b: _falsify(bus, b, 2, 0))
    peer.receive(more[VICTIM])
    peer.receive(more[CHEAT])
    with pytest.raises(DeckFault) as info:
        peer.prove_held()
    assert info.value.seat == CHEAT and info.value.evidence[0] == more[CHEAT]


def test_an_opening_that_needs_the_check_left_aside_does_not_wait_for_its_starved_thread() -> None:
    """The aside thread may wait long for a core on a loaded machine, and whoever waits
    on it waits as long (issue 29: a 2017 round's first opening held up for tens of ms). Here
    its one worker is kept busy, so the check left aside never starts: the opening that needs
    the proofs checks them itself, at once, blaming a false share exactly as the thread would."""
    release = threading.Event()
    lincomb.aside(release.wait, 30.0)  # the aside pool's one worker, taken until released
    try:
        for false_share in (True, False):
            bus, made = dealt(b"starved", false_share=false_share)
            bystander_after_the_deal(bus, made)
            peer = bus.peers[BYSTANDER]
            assert peer.check_unproven()
            outcome: list[BaseException | None] = []

            def due(peer: Any = peer, outcome: list[BaseException | None] = outcome) -> None:
                try:
                    peer.prove_held()
                    outcome.append(None)
                except DeckFault as fault:
                    outcome.append(fault)

            opener = threading.Thread(target=due, daemon=True)
            opener.start()
            opener.join(10.0)
            assert outcome, "the opening waited for the starved thread"
            if false_share:
                assert isinstance(outcome[0], DeckFault) and outcome[0].seat == CHEAT
                assert outcome[0].reason == REASON
            else:
                assert outcome[0] is None and peer.state.unproven == {}
                assert peer.state.aside == {}
    finally:
        release.set()
