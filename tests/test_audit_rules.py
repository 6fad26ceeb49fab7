"""``druids audit`` enforces the protocol's musts on a table's record (issue 15, items 2-4).

Each test takes the record of a real table of :class:`TableMachine` peers (``table_harness``),
breaks one rule, and re-signs and re-chains whatever the tamper would otherwise also break
(``message_surgery.rechain``), so that the only thing wrong is the rule under test: canonical
step order, each message's head equal to the head at the start of its step, the schedule, the
seat message, the abort rules. Each must be ``invalid``, at the tampered message, blaming its
signer (``protocol.md`` §9, "Offline audit").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from message_surgery import abort_after, rechain, record_heads, resign
from table_harness import LocalTable

from druids_p2p.audit.audit import audit_file, audit_messages
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import Identity, Message, MsgType, decode, encode
from druids_p2p.wire.record import RecordWriter


@pytest.fixture(scope="module")
def table() -> LocalTable:
    t = LocalTable(players=3, rounds=1, seed=3)
    t.run()
    assert all(m.finished for m in t.machines)
    return t


def record(table: LocalTable, k: int = 0) -> list[bytes]:
    return [m.raw for m in table.machines[k].transcript.messages]


def keys(table: LocalTable) -> dict[bytes, Identity]:
    return {i.public_key: i for i in table.ids}


def play_seat(table: LocalTable, key: bytes) -> int:
    return table.machines[0].order.index(key)


def first(raws: list[bytes], msg_type: MsgType) -> int:
    return next(i for i, raw in enumerate(raws) if decode(raw).type is msg_type)


def test_a_record_re_chained_without_a_tamper_is_still_complete(table: LocalTable) -> None:
    """The surgery itself changes nothing the audit checks: the tests below fail on the tamper."""
    raws = record(table)
    again = rechain(list(raws), keys(table), raws)
    assert again == raws  # deterministic signatures: the very same bytes
    assert audit_messages(again).verdict == "complete"


def test_every_peers_record_is_the_same_canonical_transcript(table: LocalTable) -> None:
    records = [record(table, k) for k in range(3)]
    assert records[0] == records[1] == records[2]
    assert audit_messages(records[0]).verdict == "complete"


def test_two_table_keys_of_one_step_swapped_are_invalid(table: LocalTable) -> None:
    raws = record(table)
    i = first(raws, MsgType.TABLE_KEY)
    swapped = list(raws)
    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    forged = rechain(swapped, keys(table), raws)
    report = audit_messages(forged)
    assert report.verdict == "invalid", report
    assert report.problem is not None and "canonical order" in report.problem.error
    assert report.problem.message_index == i
    assert report.problem.seat == play_seat(table, decode(forged[i]).sender)


def test_a_move_re_signed_with_a_wrong_head_is_invalid(table: LocalTable) -> None:
    raws = record(table)
    i = first(raws, MsgType.TABLE_SHOW) + 2  # a move that plays a card, in the middle of the round
    assert decode(raws[i]).type is MsgType.TABLE_SHOW
    heads = record_heads([decode(r) for r in raws])
    forged = rechain(list(raws), keys(table), raws, heads={i: heads[i - 1]})
    report = audit_messages(forged)
    assert report.verdict == "invalid", report
    assert report.problem is not None and "not the head" in report.problem.error
    assert report.problem.message_index == i
    assert report.problem.seat == play_seat(table, decode(forged[i]).sender)


def test_a_step_message_built_on_another_head_of_its_step_is_invalid(table: LocalTable) -> None:
    """The second table_key of its step carries the head after the first one (its own order's
    head, as wire.md §7 once allowed), not the head at the start of the step."""
    raws = record(table)
    i = first(raws, MsgType.TABLE_KEY) + 1
    heads = record_heads([decode(r) for r in raws])
    forged = rechain(list(raws), keys(table), raws, heads={i: heads[i]})
    report = audit_messages(forged)
    assert report.problem is not None and "at the start of its step" in report.problem.error
    assert report.problem.message_index == i


def test_a_message_of_another_step_is_out_of_schedule(table: LocalTable) -> None:
    """The Gaia holder's lead moved before the owners' words are in: the wrong type for the
    step."""
    raws = record(table)
    word = first(raws, MsgType.MOVE)  # the first owners' word
    lead = first(raws, MsgType.TABLE_SHOW)
    moved = list(raws)
    msg = moved.pop(lead)
    moved.insert(word + 1, msg)
    forged = rechain(moved, keys(table), raws)
    report = audit_messages(forged)
    assert report.problem is not None, report
    assert "table_show when move was due (step card_word)" in report.problem.error
    assert report.problem.message_index == word + 1


def test_a_seat_message_not_built_on_head_0_is_invalid(table: LocalTable) -> None:
    raws = record(table)
    forged = rechain(list(raws), keys(table), raws, heads={0: b"\x01" * 32})
    report = audit_messages(forged)
    assert report.problem is not None and "head_0" in report.problem.error
    assert report.problem.message_index == 0 and report.problem.seat == 0


def test_a_seat_message_not_built_on_head_0_stops_a_live_table_blaming_the_host() -> None:
    """Live, every peer refuses it before sending anything but its confirmation; the record it
    leaves (seat message, its confirmation, its abort) audits as stopped, evidence checked."""
    live = LocalTable(players=3)
    seat_raw = resign(live.ids[0], live.seat_raw, head=b"\x02" * 32)
    machine = TableMachine(
        live.ids[1], decode(seat_raw), live.secrets[1], live.seats[1][2], live.seats[1][3]
    )
    with pytest.raises(TableFault) as stop:
        machine.start()
    assert stop.value.seat == 0 and "head_0" in stop.value.reason
    own = [msg.raw for _, msg in sorted(machine.pending[machine.me].items())]
    heads = record_heads([decode(r) for r in [seat_raw, *own]])
    body = {"reason": stop.value.reason, "seat": 0}
    abort = machine.chain.seal(MsgType.ABORT, body, heads[-1])
    report = audit_messages([seat_raw, *own, abort])
    assert report.verdict == "stopped" and report.stop is not None, report.problem
    assert report.stop.seat == 0 and report.stop.checked and report.stop.message_index == 0


# ------------------------------------------------------------------------------ the abort rules
def _cut_at_move(raws: list[bytes], moves: int) -> list[bytes]:
    """The record up to and including its ``moves``-th move of the game (a card shown or a
    Sickle's pile: not an owners' word or its check)."""
    msgs = [decode(r) for r in raws]
    game = [
        i
        for i, m in enumerate(msgs)
        if m.type is MsgType.TABLE_SHOW
        or (m.type is MsgType.MOVE and str(m.body["move"]).startswith("Pile:"))
    ]
    return raws[: game[moves - 1] + 1]


def test_nothing_of_the_game_follows_an_abort(table: LocalTable) -> None:
    raws = record(table)
    cut = _cut_at_move(raws, 3)
    abort = abort_after(table.ids[1], cut, {"reason": "p1 left the table"})
    forged = rechain(
        [*cut, abort, *raws[len(cut) :]], keys(table), [*cut, abort, *raws[len(cut) :]]
    )
    report = audit_messages(forged)
    assert report.verdict == "invalid", report
    assert report.problem is not None and "nothing of the game follows an abort" in (
        report.problem.error
    )
    assert report.problem.message_index == len(cut)


def test_the_recorders_abort_carries_the_head_before_it(table: LocalTable) -> None:
    cut = _cut_at_move(record(table), 3)
    good = abort_after(table.ids[2], cut, {"reason": "p2 left the table (interrupted)"})
    assert audit_messages([*cut, good]).verdict == "stopped"
    msg: Message = decode(good)
    wrong = encode(
        table.ids[2],
        MsgType.ABORT,
        table_id=msg.table_id,
        seq=msg.seq,
        prev=msg.prev,
        head=decode(cut[-1]).head,
        body={"reason": "p2 left the table (interrupted)"},
    )
    report = audit_messages([*cut, wrong])
    assert report.verdict == "invalid" and report.problem is not None
    assert "head of its record before it" in report.problem.error
    assert report.problem.message_index == len(cut)


def test_another_seats_message_after_an_abort_is_invalid(table: LocalTable) -> None:
    """Only the recorder's own messages of the step it stopped in come before the aborts."""
    raws = record(table)
    cut = _cut_at_move(raws, 3)
    nxt = raws[len(cut)]  # the next move, someone's
    mover = [i.public_key for i in table.ids].index(decode(nxt).sender)
    recorder = (mover + 1) % 3
    stop = abort_after(table.ids[recorder], [*cut, nxt], {"reason": "px left the table"})
    report = audit_messages([*cut, nxt, stop])
    assert report.verdict == "stopped"  # the move is a complete step: fine
    other = abort_after(table.ids[mover], cut, {"reason": "px left the table"})
    after = abort_after(table.ids[recorder], [*cut, other], {"reason": "px left the table"})
    tail = audit_messages([*cut, other, after])
    assert tail.verdict == "stopped" and tail.stop is not None
    assert tail.stop.summary == f"seat {play_seat(table, decode(other).sender)} left"


def test_a_record_file_cut_at_an_entry_boundary_is_a_valid_prefix(
    table: LocalTable, tmp_path: Path
) -> None:
    raws = record(table)
    for cut in (2, 9, len(raws) // 2, len(raws) - 1):
        path = tmp_path / f"cut{cut}.druids"
        writer = RecordWriter.create(path)
        for raw in raws[:cut]:
            writer.append(raw)
        writer.close()
        report = audit_file(path)
        assert report.verdict == "incomplete", (cut, report.problem)
        assert report.exit_code == 3


def test_an_abort_may_come_mid_step_after_the_recorders_own_message(table: LocalTable) -> None:
    """The recorder, last of its keys step, stops before the others' keys are in: its own
    table_key (sent, not yet appended live) and its abort form the stop tail. Another seat's
    message of that unfinished step has no place in it: a live peer appends a step only once
    complete."""
    raws = record(table)
    i = first(raws, MsgType.TABLE_KEY)
    last = decode(raws[i + 2]).sender
    k = [ident.public_key for ident in table.ids].index(last)
    missing = play_seat(table, decode(raws[i]).sender)
    reason = f"p (seat {missing}) unreachable: gone for 40 s with no message while it owed x"
    mine = [*raws[:i], raws[i + 2]]
    stop = abort_after(table.ids[k], mine, {"reason": reason, "seat": missing})
    report = audit_messages([*mine, stop])
    assert report.verdict == "stopped" and report.stop is not None, report.problem
    assert report.stop.seat == missing and report.stop.stopped_by == play_seat(table, last)
    assert (
        report.stop.summary == f"seat {missing} unreachable (the record shows it owing table_key)"
    )
    theirs = [*raws[:i], raws[i + 1], raws[i + 2]]
    forged = audit_messages(
        [*theirs, abort_after(table.ids[k], theirs, {"reason": reason, "seat": missing})]
    )
    assert forged.verdict == "invalid" and forged.problem is not None
    assert "canonical order" in forged.problem.error and forged.problem.message_index == i
