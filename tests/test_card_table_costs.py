"""What each kind of move costs the table in messages (counted in the record, never timed), and
which latency class the bench files it under (``net/move_kinds.py``)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from table_harness import LocalTable

from druids_p2p.deck import group
from druids_p2p.net.move_kinds import MOVE_KINDS, move_kind
from druids_p2p.wire import Message, MsgType

_MOVES = (MsgType.MOVE, MsgType.TABLE_PLAY)


def _after_each_draw(record: Sequence[Message]) -> list[tuple[Message, Sequence[Message]]]:
    """Each ``Draw:`` move and the messages up to the next move (draws the game's end
    follows, with its final reveal, are left out: they are the end's cost)."""
    out = []
    for i, msg in enumerate(record):
        if msg.type is not MsgType.MOVE or not str(msg.body["move"]).startswith("Draw:"):
            continue
        rest = record[i + 1 :]
        end = next((j for j, m in enumerate(rest) if m.type in _MOVES), None)
        if end is not None:
            out.append((msg, rest[:end]))
    return out


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (4, 5)])
def test_a_draw_costs_one_round_of_messages(players: int, seed: int) -> None:
    """The drawer's signed move, then one share of the drawn position from every other seat,
    and the table is ready for the next move: nothing else, no second round."""
    table = LocalTable(players=players, seed=seed, ruleset="druids2004")
    table.run()
    assert all(m.finished for m in table.machines)
    record = table.machines[0].transcript.messages
    draws = _after_each_draw(record)
    assert len(draws) >= 3, "a game draws several times"
    for move, following in draws:
        assert [m.type for m in following] == [MsgType.TABLE_SHARE] * (players - 1)
        assert len({m.sender for m in following}) == players - 1
        assert move.sender not in {m.sender for m in following}
        assert len({m.body["pos"] for m in following}) == 1, "every share opens one position"


def test_the_shares_that_arrive_before_the_last_of_their_step_are_checked_as_they_arrive() -> None:
    """At every seat some shares had their proof checked while the table still held them
    for the rest of their step (``TablePeer.precheck``), and each of those is in the record."""
    table = LocalTable(players=4, seed=5, ruleset="druids2004")
    table.run()
    for machine in table.machines:
        assert machine.card_play is not None
        proven = machine.card_play.peer.state.proven
        shares = {m.raw for m in machine.transcript.messages if m.type is MsgType.TABLE_SHARE}
        assert proven and proven <= shares


def test_the_joint_key_is_the_sum_of_the_seat_keys_and_computed_once() -> None:
    table = LocalTable(players=3, seed=7, ruleset="druids2004")
    table.run()
    play = table.machines[0].card_play
    assert play is not None
    state = play.peer.state
    keys = [state.keys[s].msg.key for s in range(state.seats)]
    joint = state.joint_key
    assert joint == group.sum_points(keys)
    assert state.joint_key is joint, "asked again: the same value, not a new sum"


@pytest.mark.parametrize(
    ("kinds", "game_over", "kind"),
    [
        (["deal"], False, "draw"),
        (["play"], False, "play"),
        ([], False, "play"),
        (["turn"], False, "play"),
        (["reveal", "return", "turn"], False, "ritual"),
        (["reveal", "return", "return", "shuffle", "shuffle", "deal"], False, "reshuffle"),
        (["reveal", "return", "final"], False, "end"),
        (["deal"], True, "end"),
    ],
)
def test_a_moves_latency_class_is_the_costliest_work_it_set_off(
    kinds: list[str], game_over: bool, kind: str
) -> None:
    assert move_kind(kinds, game_over) == kind
    assert kind in MOVE_KINDS
