"""A network split is told apart from a cheat (issue 13 item 5).

Real :class:`TableRunner` peers (``attack_arena.Arena``) on a fake clock; a "cable" is cut
by dropping every frame to and from one peer from a given step on. The peers that still hear each
other record the silent seat as *unreachable* (a liveness verdict, never a proof of cheating); the
cut-off peer, which hears from nobody, records that it lost contact with the table and blames
nobody; a peer that stops on another's word keeps that seat's claim apart from its own blame; and
every such record audits as "valid, stopped: …", not "invalid".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_arena import Arena, no_linger
from test_table_deadlines import MOVE_S, STEP_S, clocked_arena, drain, pass_time

from druids_p2p.audit.audit import audit_messages
from druids_p2p.audit.audit_card_table import CardTableReplay
from druids_p2p.audit.schedule import ScheduleWalk
from druids_p2p.wire import MsgType, decode

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


def cut_cable(arena: Arena, k: int) -> None:
    """From now on nothing reaches peer k or leaves it (its link is down), queued frames too."""
    arena.tamper = lambda frm, to, raw: None if k in (frm, to) else raw


def canonical_parts_agree(arena: Arena) -> None:
    """Records of one table differ only in their stop tails (protocol.md §9, "Aborts in a
    record"): what comes before them is one canonical transcript, the shorter a prefix."""
    parts = []
    for m in arena.machines:
        msgs = list(m.transcript.messages)
        walk = ScheduleWalk(m.transcript)
        end = walk.run()  # the seating's; the card tables' replay finds where their tail begins
        if walk.seated_at is not None:
            replay = CardTableReplay(msgs, walk, m.card_rules, m.options)
            replay.run()
            end = replay.i
        parts.append([x.raw for x in msgs[:end]])
    for x in parts:
        for y in parts:
            shorter, longer = sorted((x, y), key=len)
            assert longer[: len(shorter)] == shorter


def verdict(arena: Arena, k: int) -> tuple[str, str, int | None]:
    report = audit_messages([m.raw for m in arena.machines[k].transcript.messages])
    assert report.stop is not None, (report.verdict, report.problem)
    return report.verdict, report.stop.summary, report.stop.seat


@pytest.mark.parametrize("phase", ["deal", "play"])
def test_a_cut_peer_blames_nobody_and_the_others_record_it_unreachable(
    tmp_path: Path, phase: str
) -> None:
    """Cut at the owners' words (every peer owes its word, once the deal is out) or at the lead
    (a human's move)."""
    arena = clocked_arena(tmp_path, seed=70, cheater=None)  # type: ignore[arg-type]
    if phase == "deal":
        arena.run(stop=lambda: all(m.step and m.step.name == "card_word" for m in arena.machines))
        cut = 2
    else:
        arena.run(stop=lambda: all(m.step and m.step.name == "card_move" for m in arena.machines))
        step = arena.machines[0].step
        assert step is not None
        (holder,) = step.senders  # Gaia's holder, to lead
        cut = next(k for k in range(3) if arena.ids[k].public_key != holder)
    cut_cable(arena, cut)
    arena.run()
    assert not any(arena.stopped(k) for k in range(3))
    limit = STEP_S if phase == "deal" else MOVE_S
    pass_time(arena, 3 * limit + 10, step=1.0 if phase == "deal" else 2.0)
    seat = arena.seat(cut)
    for k in (k for k in range(3) if k != cut):
        fault = arena.machines[k].aborted
        assert fault is not None and fault.seat == seat, fault
        assert "unreachable: gone for" in fault.reason and "withheld" not in fault.reason
        kind, summary, blamed = verdict(arena, k)
        assert kind == "stopped" and blamed == seat
        assert summary.startswith(f"seat {seat} unreachable"), summary
    alone = arena.machines[cut].aborted
    assert alone is not None and alone.seat is None, alone
    assert "lost contact with the table" in alone.reason
    last = arena.machines[cut].transcript.messages[-1]
    assert last.type is MsgType.ABORT and "seat" not in last.body
    assert verdict(arena, cut) == ("stopped", "lost contact with the table", None)
    result = arena.runners[cut]._result()
    assert result["blame"] is None and result["claim"] is None
    canonical_parts_agree(arena)


def test_a_peer_stopped_on_anothers_word_records_the_seat_blamed_as_that_peers_claim(
    tmp_path: Path,
) -> None:
    """Peer 0 hears peer 1's abort blaming seat S for a move this peer does not wait for (the
    mover is gone, but peer 0 still has the move limit to run): after the grace period it stops
    on peer 1's word. Its record holds peer 1's abort and its own, and the audit names seat S
    as peer 1's claim; its result says the same, apart from its own (empty) blame."""
    arena = clocked_arena(tmp_path, seed=71, cheater=None)  # type: ignore[arg-type]
    arena.run(stop=lambda: any(m.phase == "play" for m in arena.machines))
    drain(arena)
    claimant, listener = 1, 0
    machine = arena.machines[claimant]
    blamed = 2
    seat = arena.seat(blamed)
    from druids_p2p.table.table_state import TableFault

    reason = f"p2 (seat {seat}) unreachable: gone for 40 s with no message while it owed move"
    arena._fault(claimant, TableFault(reason, seat))
    assert machine.transcript.messages[-1].type is MsgType.ABORT
    for _ in range(3):
        drain(arena)
        arena.expire_abort_claims()
    fault = arena.machines[listener].aborted
    assert fault is not None and fault.seat is None and "stopped on" in fault.reason, fault
    result = arena.runners[listener]._result()
    assert result["blame"] is None
    assert result["claim"] == {"by": arena.seat(claimant), "seat": seat}
    report = audit_messages([m.raw for m in arena.machines[listener].transcript.messages])
    assert report.verdict == "stopped" and report.stop is not None, report.problem
    assert report.stop.summary.startswith(f"seat {seat} unreachable")
    assert report.stop.seat == seat and report.stop.claimed_by == arena.seat(claimant)
    assert str(report.stop).endswith(f"(on seat {arena.seat(claimant)}'s word)")


def test_a_partial_split_does_not_get_the_innocent_seat_blamed(tmp_path: Path) -> None:
    """C's first shuffle reaches A but not B, then C's cable is cut. B cannot shuffle without
    it; A, holding it, waits for B's shuffle. B is innocent: it must not be blamed for
    withholding (it asks the peers it still hears for what it lacks and goes on), and the table
    stops on C, which nobody hears, recorded unreachable; C itself lost contact."""
    arena = clocked_arena(tmp_path, seed=72, cheater=None)  # type: ignore[arg-type]
    arena.run(stop=lambda: all(m.order for m in arena.machines))
    order = arena.machines[0].order
    index = {i.public_key: k for k, i in enumerate(arena.ids)}
    c, b, a = (index[key] for key in order)  # c shuffles first, b next
    state = {"cut": False}

    def tamper(frm: int, to: int, raw: bytes) -> bytes | None:
        first = frm == c and not state["cut"]
        if first and decode(raw).type is MsgType.TABLE_SHUFFLE:
            state["cut"] = True
            return raw if to == a else None
        return None if state["cut"] and c in (frm, to) else raw

    arena.tamper = tamper
    arena.run()
    pass_time(arena, 4 * STEP_S)
    seat_c = arena.seat(c)
    for k in (a, b):
        fault = arena.machines[k].aborted
        assert fault is not None and fault.seat == seat_c, (k, fault)
        assert "unreachable" in fault.reason, fault
        kind, summary, blamed = verdict(arena, k)
        assert kind == "stopped" and blamed == seat_c, summary
    alone = arena.machines[c].aborted
    assert alone is not None and alone.seat is None and "lost contact" in alone.reason, alone
    canonical_parts_agree(arena)
