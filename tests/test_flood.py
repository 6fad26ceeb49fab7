"""Floods at a seated table: a frame seen before costs no signature check, and a link past its
rate limit is cut off, its seat blamed (issue 27 item 5; protocol.md §9, "Floods").

The honest peers are real :class:`TableRunner` objects (``attack_arena.Arena``) on a fake clock;
the flooder is the arena's cheater, whose link delivers what the test makes it send. Signature
checks are counted where ``wire.decode`` makes them (``envelope._verify``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from attack_arena import Arena, no_linger

from druids_p2p.audit.audit import audit_messages
from druids_p2p.peer.links import LINK_BURST
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import ZERO_HASH, MsgType, encode, envelope

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too

FLOODER = 1
VICTIM = 0


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def verifies(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every signature check ``wire.decode`` makes from now on (the signer of each)."""
    seen: list[bytes] = []
    real = envelope._verify

    def counted(sender: bytes, signed: bytes, signature: bytes) -> None:
        seen.append(sender)
        real(sender, signed, signature)

    monkeypatch.setattr(envelope, "_verify", counted)
    return seen


def seated_arena(tmp_path: Path, seed: int) -> Arena:
    """A 3-seat arena played to its first move, every runner on one fake clock."""
    arena = Arena(tmp_path, players=3, rounds=1, seed=seed, cheater=FLOODER)
    clock = FakeClock()
    for runner in arena.runners.values():
        runner.clock = clock
        runner.liveness.last_progress = clock.now
    arena.run_to_play()
    assert not any(arena.stopped(k) for k in arena.honest)
    return arena


def hello(arena: Arena, k: int, client: str = "druids-p2p/0.1.0", n: int = 1) -> bytes:
    m = arena.machines[k]
    body: dict[str, object] = {"name": arena.ids[k].name, "client": client, "n": n}
    return encode(
        arena.ids[k],
        MsgType.HELLO,
        table_id=m.table_id,
        seq=0,
        prev=ZERO_HASH,
        head=m.transcript.head,
        body=body,
    )


def flood(arena: Arena, raws: list[bytes], to: int = VICTIM) -> TableFault | None:
    """Hand ``raws`` to peer ``to`` over the flooder's link; the fault it stops on, if any."""
    runner = arena.runners[to]
    link = arena.ids[FLOODER].public_key
    for raw in raws:
        try:
            runner._on_message(raw, link)
        except TableFault as fault:
            arena._fault(to, fault)
            return fault
    return None


def test_a_replayed_frame_is_not_verified_again(tmp_path: Path, verifies: list[bytes]) -> None:
    """The flooder relays one signed hello of another seat, and one old signed deck message,
    a thousand times each: the victim checks each signature once at most (before: every copy,
    ~0.17 ms each, one core at ~6,000 frames a second)."""
    arena = seated_arena(tmp_path, seed=70)
    other = arena.ids[2].public_key
    old = next(m for m in arena.machines[VICTIM].transcript.messages if m.sender == other)
    replayed = [hello(arena, 2), old.raw]
    verifies.clear()
    assert flood(arena, [raw for raw in replayed for _ in range(1000)]) is None
    assert len(verifies) <= len(replayed), f"{len(verifies)} signature checks for 2 frames"
    assert not arena.stopped(VICTIM)


def test_a_flood_past_the_link_limit_is_cut_off_and_its_seat_blamed(
    tmp_path: Path, verifies: list[bytes]
) -> None:
    """The flooder sends distinct, validly signed frames (its own hellos) faster than any
    honest peer: past the limit the victim stops blaming it, with the count and the window, and
    its later frames cost no signature check."""
    arena = seated_arena(tmp_path, seed=71)
    frames = [hello(arena, FLOODER, "flood", i + 1) for i in range(LINK_BURST + 100)]
    verifies.clear()
    fault = flood(arena, frames)
    assert fault is not None, "never blamed"
    assert fault.seat == arena.seat(FLOODER), fault.reason
    assert f"flooded this peer: {LINK_BURST + 1} frames over its link in 0.0 s" in fault.reason
    checked = len(verifies)
    assert checked <= LINK_BURST  # the frame past the limit is not verified
    assert arena.machines[VICTIM].aborted is not None
    runner = arena.runners[VICTIM]
    link = arena.ids[FLOODER].public_key
    for raw in frames[:100]:  # what comes over a link cut off is dropped unread
        runner._on_message(raw, link)
    assert len(verifies) == checked
    # The record ends with the victim's abort naming the flooder, read as a local verdict.
    messages = arena.machines[VICTIM].transcript.messages
    last = messages[-1]
    assert last.type is MsgType.ABORT and last.body["seat"] == arena.seat(FLOODER)
    report = audit_messages([m.raw for m in messages])
    assert report.stop is not None and report.stop.seat == arena.seat(FLOODER), report.problem
    assert "flooded" in report.stop.summary


def test_the_other_peers_stop_on_the_victims_word(tmp_path: Path) -> None:
    """Only the victim counted the flood: the third seat is told by its abort, does not adopt
    the blame (CURVE authentication is no evidence it can check) and stops on its word."""
    arena = seated_arena(tmp_path, seed=72)
    fault = flood(arena, [hello(arena, FLOODER, "flood", i + 1) for i in range(LINK_BURST + 1)])
    assert fault is not None
    while arena.queue:
        arena.deliver_next()
    arena.expire_abort_claims()
    third = arena.machines[2].aborted
    assert third is not None and third.seat is None, third
    assert "stopped on" in third.reason and "flooded" in third.reason


def honest_peaks(arena: Arena) -> list[dict[str, Any]]:
    return [arena.runners[k].frames.stats() for k in arena.honest]


def test_an_honest_game_stays_far_below_the_limit(tmp_path: Path) -> None:
    """A whole 3-round game delivered as fast as one process can (its clock never moves, so no
    token is refilled): no link comes near the limit."""
    arena = Arena(tmp_path, players=3, rounds=3, seed=73, cheater=None)  # type: ignore[arg-type]
    clock = FakeClock()
    for runner in arena.runners.values():
        runner.clock = clock
    arena.run()
    assert all(m.finished for m in arena.machines)
    limit = arena.runners[0].frames.burst
    for stats in honest_peaks(arena):
        assert 0 < stats["peak_frames"] < limit / 4, stats


def test_a_replayed_abort_does_not_hold_the_others_in_their_grace_period(tmp_path: Path) -> None:
    """Another seat's abort gives this peer 2 s to check the claim itself (§9). A seat that
    relayed that abort again and again restarted those 2 s with every copy, holding the table
    with no blame; now only the first copy counts."""
    arena = seated_arena(tmp_path, seed=74)
    abort = arena.machines[FLOODER].seal_control(MsgType.ABORT, {"reason": "made up"})
    runner = arena.runners[VICTIM]
    clock = runner.clock
    assert isinstance(clock, FakeClock)
    for _ in range(20):  # a copy every half second for 10 s
        assert flood(arena, [abort]) is None
        clock.now += 0.5
        try:
            runner._tick()
        except TableFault as fault:
            arena._fault(VICTIM, fault)
            break
    aborted = arena.machines[VICTIM].aborted
    assert aborted is not None, "held in its grace period by a replayed abort"
    # On its word, or blaming it for what it still owed after its abort (its next step's message).
    assert "made up" in aborted.reason, aborted.reason
    assert "stopped on" in aborted.reason or "after its abort" in aborted.reason, aborted.reason
