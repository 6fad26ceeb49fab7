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
from message_surgery import resign, thaw
from table_harness import LocalTable

from druids_p2p.net.deadlines import Deadlines, debts
from druids_p2p.net.table import TableMachine
from druids_p2p.net.table_types import TableFault
from druids_p2p.wire import MsgType, decode


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
    """Seat-list index 0 rewrites its first ``table_play``: ``pick`` says which position."""
    forged: dict[bytes, bytes] = {}

    def tamper(frm: int, to: int, raw: bytes) -> bytes | None:
        msg = decode(raw)
        if frm != 0 or msg.type is not MsgType.TABLE_PLAY:
            return raw
        if raw not in forged and not forged:
            honest = table.machines[to]
            state = honest.card_play.peer.state
            seat = honest.seat_of(msg.sender)
            hand = state.zone(f"hand:{seat}")
            if pick == "not held":
                others = [p for p in range(len(state.positions)) if p not in hand]
                pos = others[0]
            else:  # a second servant: only when its first play this turn was one
                world = honest.card_play.copy.world
                if not world.servant_played or not str(msg.body["zone"]).startswith("slot:"):
                    return raw
                servants = [p for p in hand if state.positions[p].deck.startswith("reserve:")]
                if not servants:
                    return raw
                pos = servants[0]
            body = thaw(msg.body) | {"pos": pos}
            forged[raw] = resign(table.ids[0], raw, body=body)
        return forged.get(raw, raw)

    table.tamper = tamper
    try:
        table.run()
    except TableFault as fault:
        return fault
    return None


def test_a_card_not_held_is_refused_and_blamed_on_its_player() -> None:
    table = LocalTable(players=3, seed=6, ruleset="druids2004")
    fault = _forge_play(table, "not held")
    assert fault is not None
    culprit = next(m for m in table.machines if m.me != table.ids[0].public_key)
    assert fault.seat == culprit.seat_of(table.ids[0].public_key)
    assert "not in its hand" in str(fault)
    (evidence,) = fault.evidence
    assert decode(evidence).sender == table.ids[0].public_key


def test_two_servants_in_one_turn_are_refused_and_blamed() -> None:
    for seed in range(20, 40):
        table = LocalTable(players=2, seed=seed, ruleset="druids2004")
        fault = _forge_play(table, "second servant")
        if fault is None:
            continue  # seat 0 never played a servant first in a turn: another game
        assert "never two servants in one turn" in str(fault)
        assert fault.seat == table.machines[1].seat_of(table.ids[0].public_key)
        return
    raise AssertionError("no game in 20 had a turn starting with a servant")


def _forge(
    table: LocalTable, kind: MsgType, change: Callable[[dict[str, Any]], None]
) -> TableFault:
    """Seat-list index 0 rewrites its first message of ``kind`` (re-signed, the same bytes to
    everyone); the run must stop on a fault."""
    forged: dict[bytes, bytes] = {}

    def tamper(frm: int, to: int, raw: bytes) -> bytes | None:
        msg = decode(raw)
        if frm != 0 or msg.type is not kind or (forged and raw not in forged):
            return raw
        if raw not in forged:
            body = thaw(msg.body)
            change(body)
            forged[raw] = resign(table.ids[0], raw, body=body)
        return forged[raw]

    table.tamper = tamper
    with pytest.raises(TableFault) as caught:
        table.run()
    return caught.value


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
