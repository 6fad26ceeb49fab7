"""The last seat to reveal its seat nonce knows the play order first (issue 27 item 10); it must
gain nothing by withholding its nonce when it dislikes that order: it is blamed by its deadline
and the others go on without it, at a new table whose order it cannot know (protocol.md §4).

The attacker keeps its nonce back until every other seat's is in (its own machine then fixes
the order: its prediction) and reveals only an order it wants. First the honest runners on a
fake clock (``attack_arena``), eight tables as in the issue; then real processes on loopback.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from attack_arena import no_linger
from cli_harness import audit_record
from test_peer_attacks_e2e import EvilTable
from test_table_deadlines import STEP_S, clocked_arena, drain, pass_time, say_hello

from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.peer.go_on import reseat_after
from druids_p2p.wire import MsgType, decode, encode
from druids_p2p.wire.identity import identity_path, load_identity

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too

CHEATER = 1
"""The attacker's index in the seat list (its seat in the blame until the order is fixed)."""


def test_withholding_the_nonce_after_predicting_the_order_gains_nothing(tmp_path: Path) -> None:
    """Eight 4-seat tables: the attacker predicts the order every time; where it is not the one it
    wants (to move first), it withholds its nonce, and every honest peer blames it by its own
    deadline and goes on to the same new table of the others without it. It moves first only
    where the coin flip gave it that anyway, and no honest seat is ever blamed."""
    vetoed = 0
    for table in range(8):
        arena = clocked_arena(tmp_path / str(table), seed=60 + table, cheater=CHEATER, players=4)
        cheater = arena.machines[CHEATER]
        held: list[tuple[int, int, bytes]] = []

        def tamper(frm: int, to: int, raw: bytes, held: list[Any] = held) -> bytes | None:
            if frm == CHEATER and decode(raw).type is MsgType.SEAT_NONCE:
                held.append((frm, to, raw))  # revealed last: once the order is known
                return None
            return raw

        arena.tamper = tamper
        arena.start_all()
        drain(arena)
        predicted = cheater.order
        assert predicted, "every other nonce is in: the last revealer knows the order"
        assert not any(arena.machines[k].order for k in arena.honest)
        if predicted[0] == cheater.me:  # the order it wants: it reveals, and it is that order
            arena.tamper = None
            arena.queue.extend(held)
            drain(arena)
            assert all(arena.machines[k].order == predicted for k in arena.honest)
            assert not any(arena.stopped(k) for k in arena.honest)
            continue
        vetoed += 1
        pass_time(arena, STEP_S + 5, keepalive=say_hello(arena, CHEATER))
        plans = []
        for k in arena.honest:
            machine = arena.machines[k]
            fault = machine.aborted
            assert fault is not None and k in arena.faults, f"peer {k} did not blame it itself"
            assert fault.seat == CHEATER, fault.reason
            assert "withheld seat_nonce past the deadline" in fault.reason
            plan = reseat_after(machine)
            assert plan is not None, f"peer {k} does not go on"
            plans.append(plan)
        assert len(set(plans)) == 1, "the honest peers go on to different tables"
        (plan,) = set(plans)
        assert plan.dropped == cheater.me and cheater.me not in plan.keys
        assert plan.keys == tuple(arena.ids[k].public_key for k in arena.honest)
        assert plan.options.players == len(plan.keys) == 3
    assert vetoed, "the attacker never disliked an order in eight tables"


def test_a_nonce_shown_to_some_seats_only_reaches_the_others_and_nobody_is_blamed(
    tmp_path: Path,
) -> None:
    """The attacker reveals its nonce to all seats but one (to get that one blamed for the
    next step by those that went on): the one left out asks every seat for what it lacks once
    the nonce has been owed half the deadline, gets it from them, and the table goes on with
    the order the attacker saw; no seat is blamed."""
    arena = clocked_arena(tmp_path, seed=70, cheater=CHEATER, players=4)

    def tamper(frm: int, to: int, raw: bytes) -> bytes | None:
        kind = decode(raw).type
        if frm == CHEATER and to == 0 and kind is MsgType.SEAT_NONCE:
            return None  # peers 2 and 3 get it, peer 0 never from the attacker
        if to == CHEATER and kind in (MsgType.HELLO, MsgType.RESEND):
            return None  # (the attacker's bare machine takes no control messages)
        return raw

    arena.tamper = tamper
    arena.start_all()
    drain(arena)
    assert not arena.machines[0].order and arena.machines[2].order
    for _ in range(int(STEP_S)):  # (a tick past the deal would ask the arena's players)
        pass_time(arena, 1, keepalive=say_hello(arena, CHEATER))
        if arena.machines[0].order:
            break
    assert arena.machines[0].order == arena.machines[2].order == arena.machines[CHEATER].order
    arena.run_to_play()  # the deal goes on, the attacker's shuffle and shares included
    assert not any(arena.stopped(k) for k in range(4)), [m.aborted for m in arena.machines]


def test_a_peer_that_stops_on_another_peers_word_does_not_go_on(tmp_path: Path) -> None:
    """Only a peer's own verdict drops a seat. The attacker, its nonce revealed, claims that an
    honest seat whose nonce is late withheld it: the others stop on its word, blaming nobody,
    and none of them goes on without that seat (a claim cannot drop an honest seat for another
    flip)."""
    arena = clocked_arena(tmp_path, seed=71, cheater=CHEATER, players=4)
    late = 3

    def tamper(frm: int, to: int, raw: bytes) -> bytes | None:
        nonce = decode(raw).type is MsgType.SEAT_NONCE
        if frm == late and to != CHEATER and nonce:
            held.append((frm, to, raw))  # delayed on the way to the other honest seats
            return None
        return raw

    held: list[tuple[int, int, bytes]] = []
    arena.tamper = tamper
    arena.start_all()
    drain(arena)
    seen = arena.machines[0].transcript
    key = arena.ids[CHEATER].public_key
    nonce = arena.machines[0].pending[key][seen.next_seq(key)]
    abort = encode(
        arena.ids[CHEATER],
        MsgType.ABORT,
        table_id=seen.table_id,
        seq=nonce.seq + 1,
        prev=nonce.hash,
        head=arena.machines[0].step_head,
        body={"reason": "it withheld its seat nonce", "seat": late},
    )
    arena.queue.extend((CHEATER, j, abort) for j in arena.honest)
    pass_time(arena, 1, keepalive=say_hello(arena, CHEATER))
    arena.tamper = None
    arena.queue.extend(held)  # the late nonce arrives within the grace period
    pass_time(arena, 5, step=0.5)
    arena.expire_abort_claims()
    for k in arena.honest:
        fault = arena.machines[k].aborted
        assert fault is not None and fault.seat is None, (k, fault)
        assert reseat_after(arena.machines[k]) is None


# ==================================================================== real processes
def _events(peer: Any, kind: str) -> list[dict[str, Any]]:
    return [e for e in peer.events if e.get("event") == kind]


@pytest.mark.e2e
@pytest.mark.timeout(240)
@pytest.mark.parametrize("attacker", [0, 2])
def test_real_peers_go_on_without_a_seat_that_withholds_its_nonce(
    tmp_path: Path, attacker: int
) -> None:
    """Four ``druids peer`` processes, one of them (the host, or a joiner) withholding its
    seat nonce after predicting the order (it wants none): the three others blame it by their
    deadline, go on at a new table of their own (opened by the first of them in the seat list)
    and play it to the end; the attacker never plays. No honest seat is blamed, and each
    honest record of the first table audits as stopped by the attacker's withholding."""
    table = EvilTable(
        ["bot:random"] * 4, tmp_path, GameOptions(players=4, rounds=1), attacker, "nonce-veto"
    )
    table.extra_args = ("--step-deadline", "4")
    honest = [p for p in range(4) if p != attacker]
    try:
        table.start()
        deadline = time.monotonic() + 200
        for k in honest:
            proc = table.peers[k].proc
            assert proc is not None
            proc.wait(max(1.0, deadline - time.monotonic()))
    finally:
        table.close()
    evil_log = (tmp_path / f"seat{attacker}" / "peer.log").read_text(errors="replace")
    assert "predicted order" in evil_log and "withholding my nonce" in evil_log, evil_log[-2000:]
    evil_key = load_identity(identity_path(tmp_path / f"seat{attacker}")).public_key
    keys = []
    for k in honest:
        peer = table.peers[k]
        results = _events(peer, "result")
        assert len(results) == 2, (k, [e.get("event") for e in peer.events][-20:])
        first, last = results
        assert first["aborted"] and "withheld seat_nonce" in first["aborted"], first
        listed = decode((Path(first["record"]).parent / "seat.msg").read_bytes()).body["seats"]
        attacker_at = list(listed).index(evil_key)  # its place in the seat list: no order yet
        assert first["blame"] == attacker_at, first
        assert _events(peer, "reseating"), f"peer {k} did not go on"
        assert last["finished"] and last["aborted"] is None, last
        code, report = audit_record(first["record"])
        assert report["verdict"] == "stopped", report
        assert report["seat"] == attacker_at and "withheld seat_nonce" in report["reason"], report
        code, report = audit_record(last["record"])
        assert code == 0 and report["verdict"] == "complete", report
        keys.append(last["head"])
        seated = decode((Path(last["record"]).parent / "seat.msg").read_bytes()).body["seats"]
        assert len(seated) == 3 and evil_key not in seated
    assert len(set(keys)) == 1, "the three went on to one table"
    evil = table.peers[attacker]
    assert not any(r.get("finished") for r in _events(evil, "result")), "the attacker played"
    assert not _events(evil, "reseating")
