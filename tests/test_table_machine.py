"""The table protocol with every peer in one process: messages delivered in random order."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_harness import LocalTable, game_of

from druids_p2p.games.druids2017 import GAIA
from druids_p2p.wire import read_record


@pytest.mark.slow
@pytest.mark.parametrize(("players", "rounds"), [(3, 5), (4, 2), (5, 2)])
def test_whole_game_every_peer_agrees(players: int, rounds: int) -> None:
    """Every seat count plays a whole game, one of them all five rounds (a round is a card table
    of its own: two show the hand-over from one to the next as well as five)."""
    table = LocalTable(players=players, rounds=rounds, seed=players)
    table.run()
    heads = {m.transcript.head for m in table.machines}
    assert len(heads) == 1
    totals = {tuple(game_of(m).totals) for m in table.machines}
    assert len(totals) == 1
    for m in table.machines:
        assert m.finished and m.aborted is None
        assert len(game_of(m).round_scores) == rounds
        assert game_of(m).winners is not None
        assert m.rounds_audited == rounds  # each round its own card table, revealed and audited
    orders = {m.order for m in table.machines}
    assert len(orders) == 1


def test_each_peer_learns_only_its_own_hand() -> None:
    """Dealt and the owners' words given, each copy of the round knows its own hand and, of the
    others', only Gaia (the words name its holder); the hands are the deal's."""
    table = LocalTable(players=4, rounds=1, seed=9)
    table.run(
        stop=lambda: all(m.step is not None and m.step.name == "card_move" for m in table.machines)
    )
    hands = []
    for m in table.machines:
        peer = m.card_play.peer
        known = peer.known()
        hands.append({known[p] for p in peer.hand()})
        assert set(known) == set(peer.hand()), "it knows no position but its own"
    holder = next(k for k, h in enumerate(hands) if GAIA in h)
    for k, m in enumerate(table.machines):
        rnd = game_of(m).round
        assert rnd is not None
        seat = m.my_seat
        assert seat is not None
        for other in range(4):
            if other != seat:
                shown = {GAIA} if other == table.machines[holder].my_seat else set()
                assert set(rnd.hand(other)) == shown
        assert set(rnd.hand(seat)) == hands[k]
    union = set().union(*hands)
    assert len(union) == 4 * 14 and GAIA in union


@pytest.mark.parametrize("after", [5, 40, 120, 150, 300])
def test_restart_from_record_rebuilds_state(tmp_path: Path, after: int) -> None:
    """Kill a peer at many points and rebuild it from its record: after ``after`` deliveries of
    a 2-round game of 3 (about 175 a round) it is seating (5), dealing (40), playing (120),
    revealing round 1 (150) or playing round 2 (300)."""
    table = LocalTable(players=3, rounds=2, seed=after, keys_seed=after, records=tmp_path)
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
