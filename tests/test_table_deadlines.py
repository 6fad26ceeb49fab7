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
from attack_arena import Arena, first_of, no_linger
from message_surgery import resign, thaw
from table_harness import game_of

from druids_p2p.audit.audit import audit_messages
from druids_p2p.lan.peer_config import Player, TableView
from druids_p2p.peer.deadlines import Deadlines, Debt, Overdue
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import ZERO_HASH, Message, MsgType, decode, encode

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too

STEP_S = 30.0
MOVE_S = 300.0
REJOIN_S = 30.0


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def clocked_arena(
    tmp_path: Path,
    seed: int,
    cheater: int = 1,
    players: int = 3,
    rounds: int = 1,
    ruleset: str | None = None,
) -> Arena:
    """An arena whose runners read ``arena.clock`` and use the default deadlines."""
    arena = Arena(
        tmp_path, players=players, rounds=rounds, seed=seed, cheater=cheater, ruleset=ruleset
    )
    clock = FakeClock()
    arena.clock = clock  # type: ignore[attr-defined]
    for runner in arena.runners.values():
        runner.clock = clock
        runner.liveness.last_progress = clock.now
        runner.deadlines.step_s, runner.deadlines.move_s = STEP_S, MOVE_S
        runner.deadlines.rejoin_s = REJOIN_S
        for key in runner.machine.list_keys:
            runner.liveness.last_heard[key] = clock.now
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
        if frm != k:
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
        MsgType.TABLE_KEY,
        MsgType.TABLE_SHUFFLE,
        MsgType.TABLE_SHARES,
        MsgType.MOVE,  # its owners' word on its lead card: automatic, not a person's move
        MsgType.TABLE_REVEAL,
    ],
)
def test_hellos_do_not_pay_an_owed_deck_message(tmp_path: Path, msg_type: MsgType) -> None:
    arena = clocked_arena(tmp_path, seed=50)
    arena.tamper = withholding(arena, 1, msg_type)
    arena.run()  # everything flows but the withheld message (and the game, for the reveal)
    assert not any(arena.stopped(k) for k in arena.honest)
    pass_time(arena, STEP_S - 2, keepalive=say_hello(arena, 1))
    assert not any(arena.stopped(k) for k in arena.honest), "blamed before the deadline"
    assert not arena.runners[0].liveness.away, "a peer sending keepalives is not away"
    pass_time(arena, 10, keepalive=say_hello(arena, 1))
    blamed_everywhere(arena, 1, f"withheld {msg_type.label} past the deadline")
    for k in arena.honest:  # each honest peer found it on its own clock
        assert k in arena.faults and arena.faults[k].seat == arena.seat(1)
    report = audit_messages([m.raw for m in arena.machines[0].transcript.messages])
    assert report.stop is not None and report.stop.seat == arena.seat(1), report.problem
    assert f"seat {arena.seat(1)} withheld {msg_type.label}" in report.stop.summary


def test_a_share_withheld_in_a_later_round_is_named_by_the_audit(tmp_path: Path) -> None:
    arena = clocked_arena(tmp_path, seed=55, rounds=3)
    arena.tamper = withholding(arena, 1, MsgType.TABLE_SHARES, round_no=1)
    arena.run()
    assert all(len(game_of(arena.machines[k]).round_scores) == 1 for k in arena.honest)
    pass_time(arena, STEP_S + 5, keepalive=say_hello(arena, 1))
    blamed_everywhere(arena, 1, "withheld table_shares past the deadline")
    for k in arena.honest:
        report = audit_messages([m.raw for m in arena.machines[k].transcript.messages])
        assert report.stop is not None and report.stop.seat == arena.seat(1), report.problem
        assert "owing table_shares" in report.stop.summary and report.verdict == "stopped"
        assert len(report.round_scores) == 1  # the first round checks out


def test_a_silent_seat_is_unreachable_not_a_cheat(tmp_path: Path) -> None:
    """An honest crash (nothing at all heard) is told apart from withholding in the record,
    once its rejoin time (time to restart) is spent on top of the step deadline."""
    arena = clocked_arena(tmp_path, seed=51)
    arena.tamper = withholding(arena, 1, MsgType.TABLE_SHARES)
    arena.run()
    pass_time(arena, STEP_S + REJOIN_S - 2)
    assert not any(arena.stopped(k) for k in arena.honest), "blamed within its rejoin time"
    pass_time(arena, 5)
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
    """Issue 27 item 2: seat 1 has crashed owing its share; its old signed hellos keep coming,
    relayed over seat 0's link. Seat 2 records seat 1 unreachable, as seat 0 does: only a frame
    on its own link is hearing from a seat (before, seat 2 recorded it as withholding)."""
    arena = clocked_arena(tmp_path, seed=51)
    arena.tamper = withholding(arena, 1, MsgType.TABLE_SHARES)
    arena.run()
    hellos = [hello_from(arena, 1)]
    pass_time(arena, 1)
    hellos.append(hello_from(arena, 1))
    pass_time(arena, STEP_S + REJOIN_S + 5, keepalive=relayed(arena, 1, 0, hellos))
    blamed_everywhere(arena, 1, "unreachable: gone for")
    assert arena.runners[2].bad_messages >= STEP_S  # each relayed hello dropped and counted


def test_a_hello_replayed_on_its_own_link_counts_once(tmp_path: Path) -> None:
    """The same signed hello again and again, even over its signer's own link, is no news of
    it: only a hello fresher than the last one heard (its ``n`` higher) counts."""
    arena = clocked_arena(tmp_path, seed=51)
    arena.tamper = withholding(arena, 1, MsgType.TABLE_SHARES)
    arena.run()
    hello = hello_from(arena, 1)
    pass_time(arena, STEP_S + REJOIN_S + 5, keepalive=relayed(arena, 1, 1, [hello]))
    blamed_everywhere(arena, 1, "unreachable: gone for")


def test_a_slow_human_keeps_the_long_move_limit(tmp_path: Path) -> None:
    """A move is a person's choice: the step deadline does not apply, the move limit does."""
    arena = clocked_arena(tmp_path, seed=53)
    mover: list[int] = []

    def stop() -> bool:
        if arena.machines[1].card_play is None:
            return False
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
@pytest.mark.parametrize("msg_type", [MsgType.TABLE_SHARES, MsgType.TABLE_REVEAL])
def test_an_abort_instead_of_an_owed_message_is_blamed_as_withholding(
    tmp_path: Path, msg_type: MsgType
) -> None:
    """A share of the deal, or the round's final reveal: the cheater signs an abort in the slot
    of the message it owes and blames someone else; it is blamed for withholding it, and the
    record says so, and ``druids audit`` checks that from the record: a 2017 round is followed
    past its owners' words without the round's secrets (by a copy that holds no hand), so a
    record stopped at that final reveal is replayed to the very step the cheater withheld."""
    arena = clocked_arena(tmp_path, seed=54)
    arena.tamper = withholding(arena, 1, msg_type)
    arena.run()
    m = arena.machines[0]
    for k in arena.honest:  # the step of the message the cheater owes
        step = arena.machines[k].step
        assert step is not None and step.types == {msg_type}
    key, seen = arena.ids[1].public_key, m.transcript
    # It signs the abort in the slot of the message it never sends, and blames someone else.
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
    blamed_everywhere(arena, 1, f"withheld {msg_type.label} after its abort")
    for k in arena.honest:
        kinds = [(x.sender, x.type) for x in arena.machines[k].transcript.messages[-3:]]
        assert (arena.ids[1].public_key, MsgType.ABORT) in kinds  # its abort is on record
        report = audit_messages([x.raw for x in arena.machines[k].transcript.messages])
        assert report.stop is not None and report.stop.seat == arena.seat(1), report.problem
        assert f"withheld {msg_type.label}" in report.stop.summary
        assert report.stop.checked


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


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_a_bad_rejoin_time_is_one_clear_line(tmp_path: Path, value: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "peer", "--host", "--rejoin-time", value],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DRUIDS_HOME": str(tmp_path)},
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().count("\n") == 0 and "--rejoin-time" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_debt_clock_restarts_only_with_a_new_step() -> None:
    """The tracker itself: the same debt keeps its start however often it is seen; a paid one
    is forgotten; the same seat owing the same type in a new step starts afresh."""
    tracker = Deadlines(step_s=10.0, move_s=100.0, away_s=3.0, rejoin_s=0.0)
    salt = Debt(b"k" * 32, "table_share", False, b"step-1")
    move = Debt(b"m" * 32, "card_move", True, b"step-1")
    for now in (0.0, 5.0, 9.0):
        tracker.update([salt, move], now)
        assert tracker.check(now, {salt.key: now, move.key: now}) is None
    tracker.update([salt, move], 10.5)
    late = tracker.check(10.5, {salt.key: 10.0, move.key: 10.0})
    assert late is not None and late.debt == salt and not late.unreachable
    assert "withheld table_share past the deadline (10 s)" in late.reason("p1 (seat 2)")
    tracker.update([move], 11.0)  # the salt arrived: paid
    assert tracker.check(11.0, {move.key: 11.0}) is None
    again = Debt(salt.key, "table_share", False, b"step-2")
    tracker.update([move, again], 12.0)
    assert tracker.check(21.0, {salt.key: 21.0, move.key: 21.0}) is None
    late = tracker.check(22.5, {salt.key: 12.0, move.key: 22.0})
    assert late is not None and late.debt == again and late.unreachable
    assert "unreachable: gone for 10 s with no message" in late.reason("p1 (seat 2)")
    assert Deadlines(step_s=30.0, move_s=3.0, away_s=3.0).step_s == 1.5  # half the move limit


def test_a_seat_back_from_a_crash_keeps_what_is_left_of_its_rejoin_time() -> None:
    """A seat that fell silent owing an automatic message is given its rejoin time (once a
    game) to restart and rejoin; back and saying hello, it keeps what is left of it to pay
    instead of being blamed at once for a debt past its step deadline (issue 27 item 2)."""
    tracker = Deadlines(step_s=10.0, move_s=100.0, away_s=3.0, rejoin_s=30.0)
    salt = Debt(b"k" * 32, "table_share", False, b"step-1")

    def check(now: float, heard: float) -> Overdue | None:
        tracker.update([salt], now)
        return tracker.check(now, {salt.key: heard})

    assert check(0.0, 0.0) is None
    for now in (5.0, 8.0, 10.5, 13.5):
        assert check(now, 4.0) is None, now  # its last word before it crashed: 4.0
    assert check(13.9, 13.8) is None  # back: before, "withheld" at once (owed 13.9 > 10)
    assert [due for _, due in tracker.owed(salt.key)] == [10.0]
    assert check(39.9, 39.8) is None  # 29.9 s of its 30 s rejoin time spent
    late = check(40.1, 40.0)
    assert late is not None and late.debt == salt and not late.unreachable
    assert "withheld table_share" in late.reason("p1 (seat 2)")


# ==================================================================== (c) stalling within deadlines
class Idle(Player):
    """An honest runner's player in these tests: the arena makes its moves, never its ticks."""

    def poll(self, table: TableView) -> int | None:
        return None


def is_automatic(raw: bytes) -> bool:
    """Every message but a move (a person's choice: a card shown, a pile chosen) and the
    keepalives: what a stalling seat sends as late as it dares. The owners' words and their
    check are ``move`` messages, but automatic (each seat's copy says them)."""
    msg = decode(raw)
    if msg.type is MsgType.MOVE:
        return str(msg.body.get("move")).startswith("Word")
    return msg.type not in (MsgType.TABLE_SHOW, MsgType.TABLE_PLAY, MsgType.HELLO)


class Delay:
    """A tamper hook: seat-list index ``k``'s frames that ``which`` picks are held ``delay_s``
    of fake time before they go out; or, given ``silences`` (windows of fake time), every frame
    it sends within a window is held to the window's end (it is silent meanwhile)."""

    def __init__(
        self,
        arena: Arena,
        k: int,
        delay_s: float = 0.0,
        which: Callable[[bytes], bool] = is_automatic,
        silences: tuple[tuple[float, float], ...] = (),
    ) -> None:
        self.arena, self.k, self.delay_s, self.which = arena, k, delay_s, which
        self.silences = silences
        self.held: list[tuple[float, int, int, bytes]] = []
        self.passing: list[tuple[int, int, bytes]] = []

    def _until(self, now: float) -> float | None:
        if self.silences:
            return next((end for start, end in self.silences if start <= now < end), None)
        return now + self.delay_s

    def __call__(self, frm: int, to: int, raw: bytes) -> bytes | None:
        if to == self.k and decode(raw).type is MsgType.HELLO:
            return None  # the cheater is a bare machine: keepalives are its runner's business
        if frm != self.k:
            return raw
        if (frm, to, raw) in self.passing:
            self.passing.remove((frm, to, raw))
            return raw
        clock: FakeClock = self.arena.clock  # type: ignore[attr-defined]
        until = self._until(clock.now)
        if until is None or not self.which(raw):
            return raw
        self.held.append((until, frm, to, raw))
        return None

    def release(self) -> None:
        clock: FakeClock = self.arena.clock  # type: ignore[attr-defined]
        due = [h for h in self.held if h[0] <= clock.now]
        self.held = [h for h in self.held if h[0] > clock.now]
        for _, frm, to, raw in due:
            self.passing.append((frm, to, raw))
            self.arena.queue.append((frm, to, raw))


def default_arena(tmp_path: Path, seed: int) -> Arena:
    """A clocked arena whose runners keep the deadlines a peer gets by default."""
    arena = Arena(tmp_path, players=3, rounds=1, seed=seed, cheater=1)
    clock = FakeClock()
    arena.clock = clock  # type: ignore[attr-defined]
    for runner in arena.runners.values():
        runner.clock = clock
        runner.liveness.last_progress = clock.now
        runner.player = Idle()
        for key in runner.machine.list_keys:
            runner.liveness.last_heard[key] = clock.now
    return arena


def play_on(
    arena: Arena, delay: Delay, seconds: float, step: float = 0.5, hellos: bool = True
) -> float:
    """The game goes on for ``seconds`` of fake time: moves at once, held frames let out when
    due, the cheater's keepalive every ``step`` (unless ``hellos`` is off, or it is holding
    everything). Returns the fake seconds that passed before every honest peer stopped."""
    clock: FakeClock = arena.clock  # type: ignore[attr-defined]
    arena.tamper = delay
    arena.start_all()
    began, end = clock.now, clock.now + seconds
    for _ in range(100_000):
        drain(arena)
        if all(arena.stopped(k) for k in arena.honest):
            break
        movers = [k for k, m in enumerate(arena.machines) if not arena.stopped(k) and m.my_turn]
        if movers:
            arena.move(movers[0])
            continue
        if clock.now >= end:
            break
        clock.now += step
        delay.release()
        if hellos:
            say_hello(arena, delay.k)()
        for k in arena.honest:
            tick(arena, k)
    return clock.now - began


def test_a_seat_answering_just_before_the_old_deadline_is_blamed_after_the_short_one(
    tmp_path: Path,
) -> None:
    """The stall of issue 27 item 5: every automatic message (seating, the card table's, words,
    result) sent 28 s late, 2 s before the old 30 s deadline, keepalives running. It used to
    stretch the game by minutes unblamed; the step deadline (10 s by default) now blames the
    first one."""
    arena = default_arena(tmp_path, seed=56)
    took = play_on(arena, Delay(arena, 1, delay_s=28.0), seconds=600.0)
    assert all(arena.stopped(k) for k in arena.honest), "stalled 600 s unblamed"
    assert not any(arena.machines[k].finished for k in arena.honest), "the stall went unblamed"
    assert took < 28.0, f"blamed only after {took} s"
    for k in arena.honest:  # its first automatic message: before the seat order is fixed
        fault = arena.faults[k]
        assert fault.seat == 1 and "withheld seat_confirm past the deadline (10 s)" in fault.reason


def test_a_seat_that_stays_slow_is_shown_slow(tmp_path: Path) -> None:
    """Every automatic message 7 s late, within the 10 s deadline: the game completes, nobody
    is blamed, and the others show that seat as slow."""
    arena = default_arena(tmp_path, seed=57)
    play_on(arena, Delay(arena, 1, delay_s=7.0), seconds=3600.0)
    assert all(arena.machines[k].finished for k in arena.honest), [
        arena.machines[k].aborted for k in arena.honest
    ]
    name = arena.ids[1].name
    for k in arena.honest:
        slow = [e for e in arena.events[k] if e["event"] == "slow"]
        assert slow and all(e["name"] == name for e in slow), arena.events[k][-5:]
        assert name in slow[0]["text"] and "slow" in slow[0]["text"]


def test_a_silent_seat_spends_its_rejoin_time_once(tmp_path: Path) -> None:
    """A seat that falls silent whenever it owes an automatic message is given its rejoin time
    once (a crash: time to restart), not again for every message. Silent for the first 30 s
    (owing its seating messages), it is waited for: 10 s deadline and 30 s rejoin time, 20 s
    of which it spends. Silent again at once for 25 s (owing its table key), it is blamed
    as unreachable once the 10 s left are spent, after the deadline."""
    arena = default_arena(tmp_path, seed=58)
    t0 = arena.clock.now  # type: ignore[attr-defined]
    silences = ((t0, t0 + 30.0), (t0 + 30.0, t0 + 55.0))
    silent = Delay(arena, 1, which=lambda raw: True, silences=silences)
    took = play_on(arena, silent, seconds=120.0)
    assert all(arena.stopped(k) for k in arena.honest), "silent again, never blamed"
    assert 30.0 < took < 55.0, f"blamed after {took} s"
    for k in arena.honest:
        fault = arena.faults[k]
        assert fault.seat == arena.seat(1), fault.reason
        assert "unreachable: gone for" in fault.reason and "table_key" in fault.reason


def test_the_rejoin_time_is_one_allowance_per_seat() -> None:
    """The tracker itself: a silent seat's automatic debt is waited for the step deadline and
    then its rejoin time, which is used up (once however many debts overlap) and not given
    again; an alive seat's is not. The two together stay within half the move limit."""
    tracker = Deadlines(step_s=5.0, move_s=300.0, away_s=3.0, rejoin_s=30.0)
    key = b"k" * 32
    share, word = Debt(key, "table_share", False, b"s1"), Debt(key, "move", False, b"w1")
    heard = {key: 0.0}  # silent from the start, owing two automatic messages at once
    for now in (0.0, 10.0, 20.0, 34.0):
        tracker.update([share, word], now)
        assert tracker.check(now, heard) is None, now
    tracker.update([share, word], 35.5)
    late = tracker.check(35.5, heard)
    assert late is not None and late.unreachable and tracker.spent[key] == 30.5
    assert "rejoin time 30 s spent" in late.reason("p1 (seat 2)")
    again = Debt(key, "table_shuffle", False, b"s2")  # back, then silent again at once
    tracker.update([again], 40.0)
    tracker.update([again], 45.5)
    late = tracker.check(45.5, {key: 40.0})
    assert late is not None and late.debt == again and late.unreachable
    assert Deadlines(step_s=5.0, move_s=20.0, away_s=3.0, rejoin_s=30.0).rejoin_s == 5.0


def owed_by(messages: list[Message], key: bytes) -> int:
    """What seat ``key`` makes the table wait for in a record, besides its moves: its signed
    automatic messages (seating, the card table's, the owners' words and their check, the
    result). There are no receipts (protocol version 2): a move is owed by its mover alone."""
    return sum(
        1
        for m in messages
        if m.sender == key and m.type not in (MsgType.SEAT, MsgType.ABORT) and is_automatic(m.raw)
    )


class Stall(Delay):
    """The longest stall: seat-list index ``k`` holds each automatic frame for peer ``j`` until
    ``j`` has waited ``delay_s`` for that very message (its debt there: the step head the
    message is built on)."""

    def release(self) -> None:
        clock: FakeClock = self.arena.clock  # type: ignore[attr-defined]
        key = self.arena.ids[self.k].public_key
        due = []
        for held in self.held:
            _, frm, to, raw = held
            token = decode(raw).head
            waited = [
                since
                for (owner, debt_token), (_, since) in self.arena.runners[
                    to
                ].deadlines._since.items()
                if owner == key and debt_token[: len(token)] == token
            ]
            if any(clock.now - since >= self.delay_s for since in waited):
                due.append(held)
        self.held = [h for h in self.held if h not in due]
        for _, frm, to, raw in due:
            self.passing.append((frm, to, raw))
            self.arena.queue.append((frm, to, raw))


@pytest.mark.parametrize("seed", [59, 60, 61])
def test_the_longest_stretch_is_what_a_seat_owes_times_the_deadline(
    tmp_path: Path, seed: int
) -> None:
    """The README's figure, checked: a seat that sends every automatic message just before
    the step deadline (1 s before: the fake clock steps by 0.5 s) stretches a one-round 3-seat
    game by what it owes (from the record: ``owed_by``) times that, unblamed; it is shown slow."""
    arena = default_arena(tmp_path, seed=seed)
    just_before = arena.runners[0].deadlines.step_s - 1.0
    took = play_on(arena, Stall(arena, 1, delay_s=just_before), seconds=3600.0, step=0.5)
    assert all(arena.machines[k].finished for k in arena.honest)
    count = owed_by(list(arena.machines[0].transcript.messages), arena.ids[1].public_key)
    assert count * just_before <= took <= count * (just_before + 0.5), (took, count)
    assert any(e["event"] == "slow" for e in arena.events[0])


# ==================================================== (h) a bad pass before a silence is the blame
def test_a_bad_pass_before_a_dropped_one_is_blamed_at_the_deadline_not_the_silence(
    tmp_path: Path,
) -> None:
    """The cheater signs its pass of the round's ``deck`` with a false proof, and the pass of
    the seat after it is lost (dropped to everyone): nobody has checked the cheater's proof yet
    (a shuffle's proofs are checked together once its last pass is in, deck.md §10.2), but at
    the deadline every honest peer proves the passes it holds before it blames the silence, so
    the cheater is blamed for its pass, not the honest seat whose pass was lost."""
    players = 4
    for seed in range(60, 90):  # the lost pass is not the last: the shuffle stays incomplete
        arena = clocked_arena(tmp_path / f"s{seed}", seed=seed, players=players)

        def seated(a: Arena = arena) -> bool:
            return any(m.order for m in a.machines)

        arena.run(stop=seated)
        if arena.seat(1) < players - 2:
            break
    else:  # pragma: no cover - 30 coin flips
        raise AssertionError("the cheater never drew one of the first two seats")
    after = next(k for k in arena.honest if arena.seat(k) == arena.seat(1) + 1)
    is_bad, is_lost = (
        first_of(arena, 1, MsgType.TABLE_SHUFFLE),
        first_of(arena, after, MsgType.TABLE_SHUFFLE),
    )
    forged: dict[bytes, bytes] = {}

    def tamper(frm: int, to: int, raw: bytes) -> bytes | None:
        if frm == after and is_lost(raw):
            return None
        if frm == 1 and is_bad(raw):
            if raw not in forged:
                body = thaw(decode(raw).body)
                body["proof"]["s1"] = body["proof"]["s2"]
                forged[raw] = resign(arena.ids[1], raw, body=body)
            return forged[raw]
        return raw

    arena.tamper = tamper
    arena.run()
    assert not any(arena.stopped(k) for k in arena.honest), "no proof is checked before the end"
    pass_time(arena, STEP_S + REJOIN_S + 10)
    arena.assert_blamed(1, "invalid proof of a shuffle")


@pytest.mark.parametrize("msg_type", [MsgType.TABLE_SHUFFLE, MsgType.TABLE_REVEAL])
def test_druids2016_a_withheld_setup_message_is_blamed_at_the_deadline(
    tmp_path: Path, msg_type: MsgType
) -> None:
    """Druids (2016) at the table has the same deadlines and blame as the other games: a seat
    that withholds its shuffle pass of the setup, or the reveal of the placements, while saying
    hello is blamed once the step deadline passes, not before."""
    from druids2016_registered import register

    meta = tmp_path / "meta"
    meta.mkdir()
    for _ in register(meta):
        arena = clocked_arena(tmp_path, seed=3, players=2, ruleset="druids2016")
        arena.tamper = withholding(arena, 1, msg_type)
        arena.run()
        assert not any(arena.stopped(k) for k in arena.honest)
        pass_time(arena, STEP_S - 2, keepalive=say_hello(arena, 1))
        assert not any(arena.stopped(k) for k in arena.honest), "blamed before the deadline"
        pass_time(arena, 10, keepalive=say_hello(arena, 1))
        blamed_everywhere(arena, 1, f"withheld {msg_type.label} past the deadline")
