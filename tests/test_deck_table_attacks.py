"""Cheats at the mental card table, each refused by the honest seats and blamed on its author with
the signed message as evidence: real TablePeer objects, the cheater re-signing its own message in
flight (tests/table_local.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from deck_local import rewrite
from table_local import CARDS, TableBus, cheat, dealt_table, make_table

from druids_p2p.deck import group
from druids_p2p.deck.cards import card_points
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_ops import waiting
from druids_p2p.deck.table_state import TableOpError

ONE = (1).to_bytes(32, "little")


def blamed(info: pytest.ExceptionInfo[DeckFault], bus: TableBus, seat: int, reason: str) -> None:
    fault = info.value
    assert fault.seat == seat, fault
    assert reason in fault.reason, fault.reason
    assert fault.evidence, "a fault carries its evidence"
    first = bus.codecs[0].open(fault.evidence[0])
    assert first.seat == seat, "evidence[0] is signed by the blamed seat"


def refused(
    bus: TableBus,
    seat: int,
    kind: str,
    mutate: Callable[[dict[str, Any]], None],
    reason: str,
    op: TableOp,
    position: int | None = None,
) -> None:
    """``seat`` edits its next ``kind`` message; ``op`` then fails, blamed on ``seat``."""
    cheat(bus, seat, kind, mutate)
    with pytest.raises(DeckFault) as info:
        bus.push(op, position)
    blamed(info, bus, seat, reason)


def other_point() -> bytes:
    return group.base_mul(group.scalar_from_wide(bytes(range(64))))


def test_a_wrong_share_on_a_deal_is_blamed_on_its_sender() -> None:
    bus = dealt_table()
    refused(
        bus,
        1,
        "table_share",
        lambda b: b.update(d=other_point()),
        "invalid decryption share proof",
        TableOp("deal", deck="d", seat=0),
    )


def test_a_wrong_share_proof_on_a_deal_is_blamed_on_its_sender() -> None:
    bus = dealt_table()
    refused(
        bus,
        2,
        "table_share",
        lambda b: b.update(s=b["e"]),
        "invalid decryption share proof",
        TableOp("deal", deck="d", seat=0),
    )


def test_a_share_for_the_wrong_position_is_blamed_on_its_sender() -> None:
    bus = dealt_table()
    refused(
        bus,
        1,
        "table_share",
        lambda b: b.update(pos=b["pos"] - 1),
        "share for position 5, but operation 7 takes position 6",
        TableOp("deal", deck="d", seat=2),
    )


def test_a_share_replayed_from_an_earlier_deal_fails_its_proof() -> None:
    """Re-signing seat 1's share of an earlier deal for the new operation and position: the proof
    is bound to the operation, so it does not verify there."""
    bus = dealt_table()
    earlier = next(raw for s, raw in bus.sent if s == 1 and bus.kind(raw) == "table_share")
    old = bus.codecs[0].open(earlier).body

    def replay(body: dict[str, Any]) -> None:
        body.update(d=old["d"], e=old["e"], s=old["s"])

    refused(
        bus,
        1,
        "table_share",
        replay,
        "invalid decryption share proof",
        TableOp("deal", deck="d", seat=0),
    )


def test_playing_a_position_not_held_is_blamed_on_the_player() -> None:
    bus = dealt_table()
    theirs = bus.peers[1].hand()[0]
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("play", seat=0, zone="slot:1"), theirs)
    blamed(info, bus, 0, f"played position {theirs}, which is not in its hand")


def test_a_play_replayed_into_a_later_play_is_refused() -> None:
    """Seat 0 plays a card, then re-sends that play signed for its next play: the position has
    left its hand, so the second play is refused (one card cannot be played twice)."""
    bus = dealt_table()
    mine = bus.peers[0].hand()[0]
    bus.push(TableOp("play", seat=0, zone="slot:1"), mine)
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("play", seat=0, zone="slot:2"), mine)
    blamed(info, bus, 0, f"played position {mine}, which is not in its hand")


def test_an_exact_replay_is_a_harmless_redelivery() -> None:
    bus = dealt_table()
    mine = bus.peers[0].hand()[0]
    bus.push(TableOp("play", seat=0, zone="slot:1"), mine)
    play = next(raw for s, raw in bus.sent if bus.kind(raw) == "table_play")
    before = [p.state.digest() for p in bus.peers]
    for peer in bus.peers[1:]:
        assert peer.receive(play) == []
    assert [p.state.digest() for p in bus.peers] == before


def test_a_play_onto_another_zone_than_the_schedule_says_is_blamed() -> None:
    bus = dealt_table()
    refused(
        bus,
        0,
        "table_play",
        lambda b: b.update(zone="discards"),
        "plays onto discards, but operation 7 plays onto slot:1",
        TableOp("play", seat=0, zone="slot:1"),
        bus.peers[0].hand()[0],
    )


def test_claiming_a_wrong_card_at_a_reveal_is_blamed_on_the_liar() -> None:
    bus = dealt_table()
    for seat in range(3):
        bus.push(TableOp("play", seat=seat, zone="slot:3"), bus.peers[seat].hand()[0])
    lie = bus.peers[1].card_at(bus.peers[1].hand()[0])  # a card it holds, not the one it played

    def claim(body: dict[str, Any]) -> None:
        body["opens"][0]["card"] = lie

    refused(
        bus,
        1,
        "table_open",
        claim,
        f"claimed card {lie} at position",
        TableOp("reveal", zone="slot:3"),
    )


def test_a_forged_share_at_a_reveal_is_blamed_on_its_sender() -> None:
    bus = dealt_table()
    bus.push(TableOp("play", seat=2, zone="slot:3"), bus.peers[2].hand()[1])

    def forge(body: dict[str, Any]) -> None:
        body["opens"][0]["d"] = other_point()

    refused(
        bus,
        2,
        "table_open",
        forge,
        "invalid decryption share proof",
        TableOp("reveal", zone="slot:3"),
    )


def test_opening_fewer_positions_than_held_in_the_zone_is_blamed() -> None:
    bus = dealt_table()
    for position in bus.peers[0].hand():
        bus.push(TableOp("play", seat=0, zone="slot:3"), position)

    def withhold(body: dict[str, Any]) -> None:
        del body["opens"][1]

    refused(bus, 0, "table_open", withhold, "hidden there", TableOp("reveal", zone="slot:3"))


def returned_table() -> TableBus:
    """A turned card returned into the deck: the deck must now be reshuffled."""
    bus = dealt_table()
    bus.push(TableOp("turn", deck="d", zone="row:0"))
    bus.push(TableOp("return", deck="d", position=6))
    return bus


def fresh(bus: TableBus, card: int, salt: int = 0) -> tuple[bytes, bytes]:
    """A fresh encryption of ``card`` under the joint key (what a cheat plants)."""
    joint = bus.peers[0].state.joint_key
    assert joint is not None
    r = group.scalar_from_wide(bytes([salt + 3]) * 64)
    return group.base_mul(r), group.add(card_points(16)[card], group.mul(r, joint))


def test_a_reshuffle_that_substitutes_a_card_fails_its_proof() -> None:
    bus = returned_table()
    a, c = fresh(bus, 15)

    def substitute(body: dict[str, Any]) -> None:
        body["a"][0], body["c"][0] = a, c

    refused(
        bus,
        1,
        "table_shuffle",
        substitute,
        "invalid proof of a shuffle",
        TableOp("shuffle", deck="d"),
    )


def test_a_reshuffle_that_duplicates_a_card_fails_its_proof() -> None:
    """Entry 1 replaced by a re-encryption of entry 0: no repeated ciphertext, a bad proof."""
    bus = returned_table()
    joint = bus.peers[0].state.joint_key
    assert joint is not None
    r = group.scalar_from_wide(bytes(range(2, 66)))

    def duplicate(body: dict[str, Any]) -> None:
        body["a"][1] = group.add(body["a"][0], group.base_mul(r))
        body["c"][1] = group.add(body["c"][0], group.mul(r, joint))

    refused(
        bus,
        0,
        "table_shuffle",
        duplicate,
        "invalid proof of a shuffle",
        TableOp("shuffle", deck="d"),
    )


def test_a_reshuffle_that_drops_a_card_is_blamed() -> None:
    bus = returned_table()

    def drop(body: dict[str, Any]) -> None:
        for key in ("a", "c"):
            del body[key][-1]
        for key in ("b", "c", "sp"):
            del body["proof"][key][-1]

    refused(bus, 2, "table_shuffle", drop, "ciphertexts, expected", TableOp("shuffle", deck="d"))


def test_a_message_of_the_wrong_kind_for_the_operation_is_blamed() -> None:
    """Seat 1 answers a deal (operation 7) with a play instead of its share."""
    bus = dealt_table()

    def swap(sender: int, raw: bytes) -> bytes | None:
        if sender != 1 or bus.kind(raw) != "table_share":
            return raw
        body = {"op": 7, "pos": 0, "round": 1, "zone": "slot:1"}
        return bus.codecs[1].seal("table_play", body)

    bus.intercept = swap
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("deal", deck="d", seat=0))
    blamed(info, bus, 1, "table_play for operation 7, which is a deal")


def test_a_message_for_an_operation_that_is_over_is_blamed() -> None:
    bus = dealt_table()
    late = bus.codecs[1].seal(
        "table_share", {"d": other_point(), "e": ONE, "op": 2, "pos": 1, "round": 1, "s": ONE}
    )
    with pytest.raises(DeckFault) as info:
        bus.peers[0].receive(late)
    blamed(info, bus, 1, "table_share for operation 2, which is over")


def test_two_different_messages_for_one_operation_are_equivocation() -> None:
    bus = dealt_table()
    held: list[bytes] = []

    def hold(sender: int, raw: bytes) -> bytes | None:
        if sender == 1:
            held.append(raw)
            return None
        return raw

    bus.intercept = hold
    bus.push(TableOp("deal", deck="d", seat=0))
    (honest,) = held
    forged = rewrite(bus.codecs[1], honest, lambda b: b.update(d=other_point()))
    bus.peers[2].receive(honest)
    with pytest.raises(DeckFault) as info:
        bus.peers[2].receive(forged)
    blamed(info, bus, 1, "equivocation: two different messages for operation 7")
    assert set(info.value.evidence) == {honest, forged}


def test_a_false_secret_at_the_final_reveal_is_blamed() -> None:
    bus = dealt_table()
    refused(
        bus,
        2,
        "table_reveal",
        lambda b: b.update(x=bytes(31) + b"\x01"),
        "revealed secret does not match its table_key",
        TableOp("final"),
    )


def test_drawing_from_an_empty_or_unshuffled_deck_is_the_schedules_error() -> None:
    bus = returned_table()
    with pytest.raises(TableOpError, match="shuffle it first"):
        bus.push(TableOp("deal", deck="d", seat=0))
    empty = make_table(2, 4)
    empty.push(TableOp("shuffle", deck="e", cards=(0,)))
    empty.push(TableOp("deal", deck="e", seat=0))
    with pytest.raises(TableOpError, match="is empty"):
        empty.push(TableOp("deal", deck="e", seat=1))


def test_a_withheld_share_leaves_the_table_waiting_for_exactly_that_seat() -> None:
    """The net layer's deadlines blame silence: the table names whom it waits for."""
    bus = dealt_table()
    bus.intercept = lambda sender, raw: None if sender == 2 else raw
    bus.push(TableOp("deal", deck="d", seat=0))
    state = bus.peers[0].state
    assert state.done == 7 and waiting(state) == (2,)
    assert bus.peers[0].hand() == bus.peers[0].state.zone("hand:0")
    assert 6 not in bus.peers[0].known(), "seat 0 cannot read the card before every share"


def test_a_malformed_body_is_blamed_on_its_signer() -> None:
    bus = dealt_table()
    refused(
        bus,
        1,
        "table_share",
        lambda b: b.update(op=True),
        "malformed table_share",
        TableOp("deal", deck="d", seat=0),
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: TableOp("deal", deck="d"),
        lambda: TableOp("play", seat=0, zone="hand:1"),
        lambda: TableOp("turn", deck="d", zone="bad name"),
        lambda: TableOp("return", deck="d"),
        lambda: TableOp("deal", deck="d", seat=0, cards=(1,)),
        lambda: TableOp("draw", deck="d"),
    ],
)
def test_an_operation_the_table_cannot_express_is_refused(make: Callable[[], TableOp]) -> None:
    with pytest.raises(ValueError):
        make()


def test_a_reshuffle_hides_where_the_returned_card_went() -> None:
    """The returned card's public encryption (B, M + H) is re-encrypted by every pass: no
    ciphertext of the reshuffled deck is a public encryption any more, so nobody, its owner
    included, can tell where it went."""
    bus = returned_table()
    deck = bus.peers[0].state.decks["d"]
    assert group.BASE in deck.a, "the returned card sits openly at the bottom"
    bus.push(TableOp("shuffle", deck="d"))
    assert group.BASE not in deck.a
    assert not deck.unshuffled_returns
    assert len({p.state.digest() for p in bus.peers}) == 1


def test_the_last_shuffler_cannot_plant_cards_in_a_new_deck() -> None:
    """Seat 2, last to shuffle the new deck, replaces its output by fresh encryptions of cards of
    its choice (it would then know every card dealt): its proof of a shuffle fails."""
    bus = make_table(3, 16)

    def plant(body: dict[str, Any]) -> None:
        for t in range(len(body["a"])):
            body["a"][t], body["c"][t] = fresh(bus, 9, t)

    refused(
        bus,
        2,
        "table_shuffle",
        plant,
        "invalid proof of a shuffle",
        TableOp("shuffle", deck="d", cards=CARDS),
    )


def test_passes_go_in_seat_order_and_a_withheld_pass_names_its_seat() -> None:
    bus = make_table(3, 16)
    bus.intercept = lambda sender, raw: None if sender == 1 else raw
    bus.push(TableOp("shuffle", deck="d", cards=CARDS))
    state = bus.peers[2].state
    assert state.progress == 1 and waiting(state) == (1,), "seat 2 waits for seat 1's pass"
    assert (0, 2) not in state.slots, "seat 2 has not shuffled ahead of seat 1"
