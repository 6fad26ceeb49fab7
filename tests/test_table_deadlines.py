"""Every message a seat owes has a deadline, and a peer that stops owing one is blamed.

The honest peers are real :class:`TableRunner` objects (``attack_arena.Arena``) on a fake
clock; the cheater is a bare machine whose messages a tamper hook holds back. A cheater that keeps
sending keepalives must still be blamed once the step deadline passes, and the record says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from attack_arena import Arena, no_linger
from table_harness import game_of

from druids_p2p.net.audit import audit_messages
from druids_p2p.net.deadlines import Deadlines, Debt
from druids_p2p.net.table_types import TableFault
from druids_p2p.wire import ZERO_HASH, MsgType, decode, encode, is_receipt

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too

STEP_S = 30.0
MOVE_S = 300.0


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def clocked_arena(
    tmp_path: Path, seed: int, cheater: int = 1, players: int = 3, rounds: int = 1
) -> Arena:
    """An arena whose runners read ``arena.clock`` and use the default deadlines."""
    arena = Arena(tmp_path, players=players, rounds=rounds, seed=seed, cheater=cheater)
    clock = FakeClock()
    arena.clock = clock  # type: ignore[attr-defined]
    for runner in arena.runners.values():
        runner.clock = clock
        runner.last_progress = clock.now
        runner.deadlines.step_s, runner.deadlines.move_s = STEP_S, MOVE_S
        for key in runner.machine.list_keys:
            runner.last_heard[key] = clock.now
    return arena


def drain(arena: Arena, limit: int = 100_000) -> None:
    """Deliver everything queued (no moves, no expiry of grace periods: the clock does that)."""
    for _ in range(limit):
        if not arena.queue:
            return
        arena.deliver_next()
    raise AssertionError("the queue did not drain")


def hello_from(arena: Arena, k: int) -> bytes:
    """A fresh signed hello of seat-list index k (its ``n``: the fake clock in ms)."""
    m = arena.machines[k]
    n = int(arena.clock.now * 1000)  # type: ignore[attr-defined]
    return encode(
        arena.ids[k],
        MsgType.HELLO,
        table_id=m.table_id,
        seq=0,
        prev=ZERO_HASH,
        head=m.transcript.head,
        body={"name": arena.ids[k].name, "client": "evil/1", "n": n},
    )


def tick(arena: Arena, k: int) -> None:
    """One turn of runner k's loop (as the process runs it), a fault stopping it as it would."""
    if arena.stopped(k):
        return
    try:
        arena.runners[k]._tick()
    except TableFault as fault:
        arena._fault(k, fault)


def pass_time(
    arena: Arena, seconds: float, step: float = 1.0, keepalive: Callable[[], None] | None = None
) -> None:
    """Let ``seconds`` pass on the fake clock, the runners ticking, messages flowing."""
    clock: FakeClock = arena.clock  # type: ignore[attr-defined]
    for _ in range(int(seconds / step)):
        clock.now += step
        if keepalive is not None:
            keepalive()
            drain(arena)
        for k in arena.honest:
            tick(arena, k)
        drain(arena)
        if all(arena.stopped(k) for k in arena.honest):
            return


def withholding(
    arena: Arena, k: int, msg_type: MsgType, round_no: int | None = None
) -> Callable[[int, int, bytes], bytes | None]:
    """A tamper hook: seat-list index k never lets a message of ``msg_type`` out (of round
    ``round_no`` only, if given)."""

    def tamper(frm: int, to: int, raw: bytes) -> bytes | None:
        if frm != k or is_receipt(raw):
            return raw
        msg = decode(raw)
        if msg.type is msg_type and (round_no is None or msg.body.get("round") == round_no):
            return None
        return raw

    return tamper


def say_hello(arena: Arena, k: int) -> Callable[[], None]:
    def send() -> None:
        raw = hello_from(arena, k)
        for j in arena.honest:
            arena.queue.append((k, j, raw))

    return send


def blamed_everywhere(arena: Arena, culprit: int, words: str) -> None:
    seat = arena.seat(culprit)
    for k in arena.honest:
        aborted = arena.machines[k].aborted
        assert aborted is not None, f"peer {k} did not stop"
        assert aborted.seat == seat, (k, aborted.reason)
        assert words in aborted.reason, aborted.reason
        last = arena.machines[k].transcript.messages[-1]
        assert last.type is MsgType.ABORT and last.body["seat"] == seat
        assert words in last.body["reason"]


# ==================================================================== (a) keepalives pay no debt
@pytest.mark.parametrize(
    "msg_type",
    [
        MsgType.DECK_KEY,
        MsgType.DECK_SHUFFLE,
        MsgType.DECK_SALT,
        MsgType.DECK_SHARES,
        MsgType.READY,
        MsgType.DECK_REVEAL,
    ],
)
def test_hellos_do_not_pay_an_owed_deck_message(tmp_path: Path, msg_type: MsgType) -> None:
    arena = clocked_arena(tmp_path, seed=50)
    arena.tamper = withholding(arena, 1, msg_type)
    arena.run()  # everything flows but the withheld message (and the game, for the reveal)
    assert not any(arena.stopped(k) for k in arena.honest)
    pass_time(arena, STEP_S - 2, keepalive=say_hello(arena, 1))
    assert not any(arena.stopped(k) for k in arena.honest), "blamed before the deadline"
    assert not arena.runners[0].away, "a peer sending keepalives is not away"
    pass_time(arena, 10, keepalive=say_hello(arena, 1))
    blamed_everywhere(arena, 1, f"withheld {msg_type.label} past the deadline")
    for k in arena.honest:  # each honest peer found it on its own clock
        assert k in arena.faults and arena.faults[k].seat == arena.seat(1)
    report = audit_messages([m.raw for m in arena.machines[0].transcript.messages])
    assert report.stop is not None and report.stop.seat == arena.seat(1), report.problem
    assert f"seat {arena.seat(1)} withheld {msg_type.label}" in report.stop.summary


def test_a_salt_withheld_in_a_later_round_is_named_by_the_audit(tmp_path: Path) -> None:
    arena = clocked_arena(tmp_path, seed=55, rounds=3)
    arena.tamper = withholding(arena, 1, MsgType.DECK_SALT, round_no=1)
    arena.run()
    assert all(len(arena.machines[k].game.round_scores) == 1 for k in arena.honest)
    pass_time(arena, STEP_S + 5, keepalive=say_hello(arena, 1))
    blamed_everywhere(arena, 1, "withheld deck_salt past the deadline")
    for k in arena.honest:
        report = audit_messages([m.raw for m in arena.machines[k].transcript.messages])
        assert report.stop is not None and report.stop.seat == arena.seat(1), report.problem
        assert "owing deck_salt" in report.stop.summary and report.verdict == "stopped"
        assert len(report.round_scores) == 1  # the first round checks out


def test_a_silent_seat_is_unreachable_not_a_cheat(tmp_path: Path) -> None:
    """An honest crash (nothing at all heard) is told apart from withholding in the record."""
    arena = clocked_arena(tmp_path, seed=51)
    arena.tamper = withholding(arena, 1, MsgType.DECK_SALT)
    arena.run()
    pass_time(arena, STEP_S + 5)
    blamed_everywhere(arena, 1, "unreachable: gone for")
    assert "no message" in arena.machines[0].aborted.reason  # type: ignore[union-attr]


def relayed(arena: Arena, k: int, via: int, hellos: list[bytes]) -> Callable[[], None]:
    """Each second, one of k's own signed hellos (in turn) to every other honest seat, over
    seat ``via``'s link: what a seat that kept k's hellos relays once k has crashed."""
    turn = [0]

    def send() -> None:
        raw = hellos[turn[0] % len(hellos)]
        turn[0] += 1
        for j in arena.honest:
            if j != via:
                arena.queue.append((via, j, raw))

    return send


def test_relayed_hellos_are_not_hearing_from_their_signer(tmp_path: Path) -> None:
    """Issue 27 item 2: seat 1 has crashed owing its salt; its old signed hellos keep coming,
    relayed over seat 0's link. Seat 2 records seat 1 unreachable, as seat 0 does: only a frame
    on its own link is hearing from a seat (before, seat 2 recorded it as withholding)."""
    arena = clocked_arena(tmp_path, seed=51)
    arena.tamper = withholding(arena, 1, MsgType.DECK_SALT)
    arena.run()
    hellos = [hello_from(arena, 1)]
    pass_time(arena, 1)
    hellos.append(hello_from(arena, 1))
    pass_time(arena, STEP_S + 5, keepalive=relayed(arena, 1, 0, hellos))
    blamed_everywhere(arena, 1, "unreachable: gone for")
    assert arena.runners[2].bad_messages >= STEP_S  # each relayed hello dropped and counted


def test_a_hello_replayed_on_its_own_link_counts_once(tmp_path: Path) -> None:
    """The same signed hello again and again, even over its signer's own link, is no news of
    it: only a hello fresher than the last one heard (its ``n`` higher) counts."""
    arena = clocked_arena(tmp_path, seed=51)
    arena.tamper = withholding(arena, 1, MsgType.DECK_SALT)
    arena.run()
    hello = hello_from(arena, 1)
    pass_time(arena, STEP_S + 5, keepalive=relayed(arena, 1, 1, [hello]))
    blamed_everywhere(arena, 1, "unreachable: gone for")


def test_a_withheld_receipt_is_blamed_by_the_next_mover(tmp_path: Path) -> None:
    """A seat that acknowledges no move stalls the next mover: blamed after the step deadline."""
    arena = clocked_arena(tmp_path, seed=52)

    def tamper(frm: int, to: int, raw: bytes) -> bytes | None:
        return None if frm == 1 and is_receipt(raw) else raw

    arena.tamper = tamper
    arena.run()  # stops at the first move that needs the cheater's receipt to count
    assert not any(arena.stopped(k) for k in arena.honest)
    pass_time(arena, STEP_S + 5, keepalive=say_hello(arena, 1))
    assert all(arena.stopped(k) for k in arena.honest)
    found = [arena.faults[k] for k in arena.honest if k in arena.faults]
    blamers = [f for f in found if f.seat == arena.seat(1)]
    assert blamers, [f.reason for f in found]
    assert all("withheld its receipt of the last move" in f.reason for f in blamers)
    # Only the mover and the next mover collect receipts: anyone else cannot see the debt and
    # stops on the claim, blaming nobody (a claim is never adopted).
    assert all(
        f.seat is None and "withheld its receipt" in f.reason for f in found if f.seat is None
    )


def test_a_slow_human_keeps_the_long_move_limit(tmp_path: Path) -> None:
    """A move is a person's choice: the step deadline does not apply, the move limit does."""
    arena = clocked_arena(tmp_path, seed=53)
    mover: list[int] = []

    def stop() -> bool:
        rnd = game_of(arena.machines[1]).round
        if arena.machines[1].my_turn and rnd is not None and rnd.plays:  # not the lead
            mover.append(1)
            return True
        return False

    arena.run(stop=stop)
    assert mover, "the cheater never had a move"
    pass_time(arena, STEP_S * 3, step=5.0, keepalive=say_hello(arena, 1))
    assert not any(arena.stopped(k) for k in arena.honest)
    pass_time(arena, MOVE_S, step=5.0, keepalive=say_hello(arena, 1))
    blamed_everywhere(arena, 1, "did not make its move within the move limit")


# ==================================================================== (b) an abort pays no debt
def test_an_abort_instead_of_the_reveal_is_blamed_as_withholding(tmp_path: Path) -> None:
    arena = clocked_arena(tmp_path, seed=54)
    arena.tamper = withholding(arena, 1, MsgType.DECK_REVEAL)
    arena.run()
    m = arena.machines[0]
    assert m.phase == "reveal" and arena.machines[2].phase == "reveal"
    key, seen = arena.ids[1].public_key, m.transcript
    # It signs the abort in the slot of the reveal it never sends, and blames someone else.
    abort = encode(
        arena.ids[1],
        MsgType.ABORT,
        table_id=m.table_id,
        seq=seen.next_seq(key),
        prev=seen.last_hash(key),
        head=m.step_head,
        body={"reason": "an honest seat cheated", "seat": arena.seat(0)},
    )
    for j in arena.honest:
        arena.queue.append((1, j, abort))
    pass_time(arena, 5, step=0.5)
    blamed_everywhere(arena, 1, "withheld deck_reveal after its abort")
    for k in arena.honest:
        kinds = [(x.sender, x.type) for x in arena.machines[k].transcript.messages[-3:]]
        assert (arena.ids[1].public_key, MsgType.ABORT) in kinds  # its abort is on record
        report = audit_messages([x.raw for x in arena.machines[k].transcript.messages])
        assert report.stop is not None and report.stop.seat == arena.seat(1), report.problem
        assert "withheld deck_reveal" in report.stop.summary and report.stop.checked


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf"])
def test_a_bad_step_deadline_is_one_clear_line(tmp_path: Path, value: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "peer", "--host", "--step-deadline", value],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DRUIDS_HOME": str(tmp_path)},
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().count("\n") == 0 and "--step-deadline" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_debt_clock_restarts_only_with_a_new_step() -> None:
    """The tracker itself: the same debt keeps its start however often it is seen; a paid one
    is forgotten; the same seat owing the same type in a new step starts afresh."""
    tracker = Deadlines(step_s=10.0, move_s=100.0, away_s=3.0)
    salt = Debt(b"k" * 32, "deck_salt", False, b"step-1")
    move = Debt(b"m" * 32, "move", True, b"step-1")
    for now in (0.0, 5.0, 9.0):
        tracker.update([salt, move], now)
        assert tracker.check(now, {salt.key: now, move.key: now}) is None
    tracker.update([salt, move], 10.5)
    late = tracker.check(10.5, {salt.key: 10.0, move.key: 10.0})
    assert late is not None and late.debt == salt and not late.unreachable
    assert "withheld deck_salt past the deadline (10 s)" in late.reason("p1 (seat 2)")
    tracker.update([move], 11.0)  # the salt arrived: paid
    assert tracker.check(11.0, {move.key: 11.0}) is None
    again = Debt(salt.key, "deck_salt", False, b"step-2")
    tracker.update([move, again], 12.0)
    assert tracker.check(21.0, {salt.key: 21.0, move.key: 21.0}) is None
    late = tracker.check(22.5, {salt.key: 12.0, move.key: 22.0})
    assert late is not None and late.debt == again and late.unreachable
    assert "unreachable: gone for 10 s with no message" in late.reason("p1 (seat 2)")
    assert Deadlines(step_s=30.0, move_s=3.0, away_s=3.0).step_s == 1.5  # half the move limit


def test_a_seat_back_from_a_crash_keeps_the_deadline_counted_from_its_last_word() -> None:
    """A seat that fell silent owing a message is given the deadline again from its last word
    (time to restart and rejoin); back and saying hello, it keeps that time to pay instead of
    being blamed at once for a debt past the deadline counted from its start. Once per debt."""
    tracker = Deadlines(step_s=10.0, move_s=100.0, away_s=3.0)
    salt = Debt(b"k" * 32, "deck_salt", False, b"step-1")
    tracker.update([salt], 0.0)
    gone = {salt.key: 4.0}  # its last word before it crashed
    for now in (5.0, 8.0, 10.5, 13.5):
        assert tracker.check(now, gone) is None, now
    back = {salt.key: 13.8}  # restarted: its hellos again, its salt not yet sent
    assert tracker.check(13.9, back) is None  # before: "withheld" at once (owed 13.9 > 10)
    assert [due for _, due in tracker.owed(salt.key)] == [14.0]
    late = tracker.check(14.1, back)
    assert late is not None and late.debt == salt and not late.unreachable
    assert "withheld deck_salt past the deadline" in late.reason("p1 (seat 2)")
