"""Cheats and silence at a Druids (2004) table of real table machines, each blamed on its seat.

A cheating seat's messages are rewritten in flight and re-signed with its own key (as a
cheating peer would sign them, ``message_surgery.resign``); every honest machine must refuse
the message and name that seat with the signed message as evidence. A withheld message is owed
for its step, and the table's deadlines (a fake clock here) blame the seat that owes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from card_table_cheater import body_with, cheater_seat, forge
from table_harness import LocalTable

from druids_p2p.peer.deadlines import Deadlines, debts
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import Message, MsgType, decode


def _stuck_table(players: int, seed: int, drop: MsgType, culprit: int) -> LocalTable:
    """A table whose seat ``culprit`` (seat-list index) never sends any ``drop`` message."""
    table = LocalTable(players=players, seed=seed, ruleset="druids2004")

    def tamper(frm: int, to: int, raw: bytes) -> bytes | None:
        return None if frm == culprit and decode(raw).type is drop else raw

    table.tamper = tamper
    table.run()
    return table


def _overdue(machine: TableMachine, after: float) -> str | None:
    tracker = Deadlines(step_s=30.0, move_s=300.0, away_s=3.0)
    tracker.update(debts(machine, machine.has_next), 0.0)
    heard = dict.fromkeys(machine.list_keys, after - 0.5)  # keepalives still come
    late = tracker.check(after, heard)
    return None if late is None else late.reason(str(machine.seat_of(late.debt.key)))


@pytest.mark.parametrize(
    "drop", [MsgType.TABLE_SHARE, MsgType.TABLE_SHUFFLE, MsgType.TABLE_OPEN, MsgType.TABLE_REVEAL]
)
def test_a_withheld_share_pass_opening_or_reveal_is_blamed_past_the_deadline(
    drop: MsgType,
) -> None:
    table = _stuck_table(3, 5, drop, culprit=1)
    key = table.ids[1].public_key
    for k, machine in enumerate(table.machines):
        if k == 1:
            continue
        owed = [d for d in debts(machine, machine.has_next)]
        assert [(d.key, d.what, d.human) for d in owed] == [(key, drop.label, False)]
        assert _overdue(machine, 29.0) is None, "not before the step deadline"
        seat = machine.seat_of(key)
        reason = _overdue(machine, 31.0)
        assert (
            reason
            == f"{seat} withheld {drop.label} past the deadline (30 s) while sending other messages"
        )


def test_a_mover_at_a_card_table_keeps_the_long_move_limit() -> None:
    table = LocalTable(players=2, seed=3, ruleset="druids2004")
    table.run(stop=lambda: any(m.my_turn for m in table.machines))
    table.run(stop=lambda: not table.queue and any(m.my_turn for m in table.machines))
    (mover,) = [m for m in table.machines if m.my_turn]
    other = next(m for m in table.machines if m is not mover)
    (debt,) = debts(other, other.has_next)
    assert debt.key == mover.me and debt.human
    assert _overdue(other, 200.0) is None, "a person has the move limit, not the step deadline"
    assert "did not make its move within the move limit of 300 s" in (_overdue(other, 301) or "")


def _forge_play(table: LocalTable, pick: str) -> TableFault | None:
    """The cheater's first ``table_play`` it can forge: ``pick`` says which position."""

    def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any] | None:
        state = honest.card_play.peer.state
        hand = state.zone(f"hand:{honest.seat_of(msg.sender)}")
        if pick == "not held":
            pos = next(p for p in range(len(state.positions)) if p not in hand)
        else:  # a second servant: only when its first play this turn was one
            world = honest.card_play.copy.world
            if not world.servant_played or not str(msg.body["zone"]).startswith("slot:"):
                return None
            servants = [p for p in hand if state.positions[p].deck.startswith("reserve:")]
            if not servants:
                return None
            pos = servants[0]
        return body_with(msg, pos=pos)

    forgery, fault = forge(table, MsgType.TABLE_PLAY, rewrite)
    assert fault is None or fault.evidence[0] == forgery.forged
    return fault


def test_a_card_not_held_is_refused_and_blamed_on_its_player() -> None:
    table = LocalTable(players=3, seed=6, ruleset="druids2004")
    fault = _forge_play(table, "not held")
    assert fault is not None
    assert fault.seat == cheater_seat(table)
    assert "not in its hand" in str(fault)
    assert decode(fault.evidence[0]).sender == table.ids[0].public_key


def test_two_servants_in_one_turn_are_refused_and_blamed() -> None:
    for seed in range(20, 40):
        table = LocalTable(players=2, seed=seed, ruleset="druids2004")
        fault = _forge_play(table, "second servant")
        if fault is None:
            continue  # seat 0 never played a servant first in a turn: another game
        assert "never two servants in one turn" in str(fault)
        assert fault.seat == cheater_seat(table)
        return
    raise AssertionError("no game in 20 had a turn starting with a servant")


def _forge(
    table: LocalTable, kind: MsgType, change: Callable[[dict[str, Any]], None]
) -> TableFault:
    """The cheater rewrites its first message of ``kind``; the run must stop on a fault."""

    def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any]:
        body = body_with(msg)
        change(body)
        return body

    forgery, fault = forge(table, kind, rewrite)
    assert fault is not None and fault.evidence[0] == forgery.forged
    return fault


def test_a_wrong_card_claimed_at_a_ritual_opening_is_blamed_on_its_owner() -> None:
    table = LocalTable(players=3, seed=8, ruleset="druids2004")

    def claim_another(body: dict[str, Any]) -> None:
        opening = body["opens"][0]
        opening["card"] = (opening["card"] + 1) % 90

    fault = _forge(table, MsgType.TABLE_OPEN, claim_another)
    key = table.ids[0].public_key
    assert fault.seat == table.machines[1].seat_of(key)
    assert "claimed card" in str(fault) and decode(fault.evidence[0]).sender == key


def test_a_false_secret_at_the_final_reveal_is_blamed_on_its_seat() -> None:
    table = LocalTable(players=2, seed=9, ruleset="druids2004")

    def other_secret(body: dict[str, Any]) -> None:
        body["x"] = bytes([1]) + bytes(31)

    fault = _forge(table, MsgType.TABLE_REVEAL, other_secret)
    key = table.ids[0].public_key
    assert fault.seat == table.machines[1].seat_of(key)
    assert "revealed secret does not match its table_key" in str(fault)
