"""Whole Druids (2004) games between real table machines in one process (the 2017 table's
harness, its random delivery order): seating, the card table's steps, the audit, the result."""

from __future__ import annotations

import pytest
from table_harness import LocalTable

from druids_p2p.deck.table_audit import audit_state
from druids_p2p.wire import MsgType


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 4)])
def test_table_machines_play_a_whole_druids2004_game(players: int, seed: int) -> None:
    table = LocalTable(players=players, seed=seed, ruleset="druids2004")
    table.run()
    machines = table.machines
    assert all(m.finished for m in machines), [m.phase for m in machines]
    assert len({m.head for m in machines}) == 1, "every peer's record is the same"
    outcomes = {tuple(map(tuple, (m.outcome()[0], m.outcome()[1] or ()))) for m in machines}
    assert len(outcomes) == 1
    states = [m.card_play.peer.state for m in machines]
    assert all(s.finished for s in states) and len({s.digest() for s in states}) == 1
    audit = audit_state(states[0])
    put = sorted(c for op in states[0].ops for c in op.cards)
    in_zones = [p.card for p in audit.positions if p.zone]
    in_decks = [c for deck in audit.decks.values() for c in deck]
    assert sorted(in_zones + in_decks) == put, "every card at the table, exactly once"
    record = machines[0].transcript.messages
    kinds = {m.type for m in record}
    assert {MsgType.TABLE_KEY, MsgType.TABLE_SHUFFLE, MsgType.TABLE_SHARE} <= kinds
    assert {MsgType.TABLE_PLAY, MsgType.TABLE_OPEN, MsgType.TABLE_REVEAL, MsgType.MOVE} <= kinds
    assert [m.type for m in record[-players:]] == [MsgType.RESULT] * players


def test_the_owners_word_is_a_step_of_the_table() -> None:
    """Random bots at 4 seats soon empty the pile with gems still face down on the places:
    whether the game ends "nothing left" is then the owners' signed word (``Word:yes`` /
    ``Word:no`` moves, one step), and every peer goes on alike to the end."""
    for seed in range(10):
        table = LocalTable(players=4, seed=100 + seed, ruleset="druids2004")
        table.run()
        record = table.machines[0].transcript.messages
        words = [m for m in record if m.type is MsgType.MOVE and m.body["move"].startswith("Word:")]
        if words:
            assert all(m.finished for m in table.machines)
            assert len({m.head for m in table.machines}) == 1
            return
    raise AssertionError("no game in 10 asked for the owners' word")
