"""The table protocol with every peer in one process: messages delivered in random order."""

from __future__ import annotations

from pathlib import Path

import pytest
from druids_p2p.wire.receipt import Receipt
from table_harness import LocalTable, game_of

from druids_p2p.net.table import MAX_BUFFERED
from druids_p2p.net.table_types import Divergence
from druids_p2p.wire import decode, decode_receipt, is_receipt, read_record


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5])
def test_whole_game_every_peer_agrees(players: int) -> None:
    table = LocalTable(players=players, rounds=5, seed=players)
    table.run()
    heads = {m.transcript.head for m in table.machines}
    assert len(heads) == 1
    totals = {tuple(m.game.totals) for m in table.machines}
    assert len(totals) == 1
    for m in table.machines:
        assert m.finished and m.aborted is None
        assert len(m.game.round_scores) == 5
        assert m.game.winners is not None
    orders = {m.order for m in table.machines}
    assert len(orders) == 1


def test_each_peer_learns_only_its_own_hand() -> None:
    table = LocalTable(players=4, rounds=1, seed=9)
    table.run(stop=lambda: all(m.phase == "play" for m in table.machines))
    hands = [set(m.deck.hand()) for m in table.machines]  # type: ignore[union-attr]
    for k, m in enumerate(table.machines):
        rnd = game_of(m).round
        assert rnd is not None
        seat = m.my_seat
        assert seat is not None
        for other in range(4):
            if other != seat:
                assert rnd.hand(other) == [] or m.phase != "play"
        assert set(rnd.hand(seat)) == hands[k]
    union = set().union(*hands)
    assert len(union) == 4 * 14 and 60 in union


@pytest.mark.parametrize("after", [5, 40, 120, 300, 520])
def test_restart_from_record_rebuilds_state(tmp_path: Path, after: int) -> None:
    """Kill a peer at many points (deal, play, reveal) and rebuild it from its record."""
    table = LocalTable(players=3, rounds=5, seed=after, records=tmp_path)
    count = {"n": 0}

    def stop() -> bool:
        count["n"] += 1
        return count["n"] > after

    table.run(stop=stop)
    assert not table.machines[1].finished
    table.restart(1)
    # The restarted peer re-sends its pending messages; everyone carries on to the end.
    table.broadcast(1, table.machines[1].resend_own())
    table.run()
    heads = {m.transcript.head for m in table.machines}
    assert len(heads) == 1 and all(m.finished for m in table.machines)
    for k in range(3):
        read = read_record(tmp_path / f"p{k}.druids")
        assert not read.tail and len(read.messages) == len(table.machines[k].transcript)


def test_receipts_go_to_the_mover_and_the_next_mover_or_to_everyone() -> None:
    """Mid-round a receipt goes to the mover and the next mover (who sees every receipt); when
    nobody else moves next (round over, or a pile pick after a Sickle) it goes to every peer."""
    table = LocalTable(players=4, rounds=1, seed=11)
    seen: dict[str, int] = {}

    def check() -> bool:
        for m in table.machines:
            move, step = m.last_move, m.step
            if move is None or step is None or move.sender == m.me:
                continue
            targets = set(m.receipt_targets())
            if step.name == "move" and step.senders[0] != move.sender:
                assert targets == {move.sender, step.senders[0]} - {m.me}
                seen["pair"] = seen.get("pair", 0) + 1
            else:
                assert targets == set(m.list_keys) - {m.me}
                seen["all"] = seen.get("all", 0) + 1
        return False

    table.run(stop=check)
    assert all(m.finished for m in table.machines)
    assert seen.get("pair", 0) > 0 and seen.get("all", 0) > 0


def test_duplicate_receipts_take_no_room_so_a_different_one_still_counts() -> None:
    """Issue 13 item 7: during a cut every nudge queues the same receipt again, and after the
    cable is back a peer that is behind gets them all at once. Duplicates must not fill the
    buffer of receipts kept for later: a receipt that differs (here one naming another message
    after the same head, which proves its mover signed two versions) must still be kept, and
    checked once the move arrives."""
    table = LocalTable(players=4, rounds=1, seed=5)
    table.run(stop=lambda: not table.queue and any(m.my_turn for m in table.machines))
    k = next(i for i, m in enumerate(table.machines) if m.my_turn)
    j, s = [i for i in range(4) if i != k][:2]
    view = table.machines[k].view()
    assert view is not None
    sent = table.machines[k].play(view.legal[0])
    receipts = [raw for msg in sent for raw in table.machines[s].receive(decode(msg))]
    (receipt,) = [decode_receipt(raw) for raw in receipts if is_receipt(raw)]
    behind = table.machines[j]  # has not got the move yet: it keeps the receipts for later
    acker = table.ids[s].public_key
    for _ in range(3 * MAX_BUFFERED):
        behind.receive_receipt(acker, receipt)
    behind.receive_receipt(acker, Receipt(prev=receipt.prev, msg=bytes(32)))
    with pytest.raises(Divergence):
        for msg in sent:
            behind.receive(decode(msg))
