"""Equivocation and splits: two signed messages for one slot, a table split by a sender who tells
different peers different things, and divergences nobody can be blamed for.

The arena (honest :class:`TableRunner` peers around real table machines, a bare cheating
machine) is ``attack_arena``; see its docstring for what is and is not real.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from attack_arena import Arena, first_of, no_linger, peer_of, split_first_shuffle, twin_of
from message_surgery import resign, thaw

from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import MsgType, decode, verify_equivocation

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


# ==================================================================== equivocation and divergence
def _equivocation_pair_ok(fault: TableFault, key: bytes) -> None:
    assert len(fault.evidence) == 2
    first = verify_equivocation(*sorted(fault.evidence))
    assert first.sender == key


def test_equivocation_in_the_transcript_is_blamed_with_a_verifiable_pair(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=14, cheater=1)
    arena.run_to_play()
    key = arena.ids[1].public_key
    old = next(m for m in arena.machines[0].transcript.messages if m.sender == key)
    twin = twin_of(arena.ids[1], old.raw)
    with pytest.raises(TableFault) as exc:
        arena.runners[0]._on_message(twin)
    assert exc.value.seat == arena.seat(1)
    assert set(exc.value.evidence) == {old.raw, twin}
    _equivocation_pair_ok(exc.value, key)


def test_equivocation_while_held_is_blamed_with_a_verifiable_pair(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=15, cheater=1)
    m0, m1 = arena.machines[0], arena.machines[1]
    confirm = m1.start()[0]  # held by peer 0 until every confirmation is in
    arena.runners[0]._on_message(confirm)
    assert m0.pending[arena.ids[1].public_key]
    twin = resign(
        arena.ids[1], confirm, body={**thaw(decode(confirm).body), "endpoint": "tcp://x:1"}
    )
    with pytest.raises(TableFault) as exc:
        arena.runners[0]._on_message(twin)
    assert exc.value.seat == 1  # seat-list index: no play order yet
    _equivocation_pair_ok(exc.value, arena.ids[1].public_key)


def test_equivocating_mover_is_blamed_by_every_peer_through_the_proof(tmp_path: Path) -> None:
    """Peer 0 gets both versions of the cheater's card shown (the same card, each with a valid
    proof); peer 2 only the first, and learns of the cheat from peer 0's EQUIVOCATION proof,
    which it checks itself."""
    arena = Arena(tmp_path, players=3, seed=16, cheater=1)
    is_move = first_of(arena, 1, MsgType.TABLE_SHOW)

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm == 1 and to == 0 and is_move(raw):
            twin = twin_of(arena.ids[1], raw, peer_of(arena.machines[1]))
            arena.queue.append((1, 0, twin))
        return raw

    arena.tamper = tamper
    arena.run()
    arena.assert_blamed(1, "signed two different messages")
    _equivocation_pair_ok(arena.faults[0], arena.ids[1].public_key)
    assert "equivocated (proof from" in arena.faults[2].reason
    assert arena.faults[2].seat == arena.seat(1)


def test_split_equivocation_is_proven_and_blamed(tmp_path: Path) -> None:
    """Peer 0 gets one version of the cheater's card shown, peer 2 the other (both valid). The
    next step's messages build on different heads; each asks the sender of the one it cannot
    place for its copy, and with both signed versions the mover is convicted."""
    arena = Arena(tmp_path, players=3, seed=17, cheater=1)
    is_move = first_of(arena, 1, MsgType.TABLE_SHOW)
    twins: dict[bytes, bytes] = {}

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm == 1 and to == 0 and is_move(raw):
            return twins.setdefault(raw, twin_of(arena.ids[1], raw, peer_of(arena.machines[1])))
        return raw

    arena.tamper = tamper
    arena.run()
    assert twins
    cheater_seat = arena.seat(1)
    for k in arena.honest:
        aborted = arena.machines[k].aborted
        assert aborted is not None and aborted.seat == cheater_seat, aborted
        assert not arena.machines[k].finished
    found = [arena.faults[k] for k in arena.honest if k in arena.faults]
    assert found and all(len(f.evidence) == 2 for f in found)
    assert verify_equivocation(*sorted(found[0].evidence)).sender == arena.ids[1].public_key


def _split_show(arena: Arena) -> set[int]:
    """Run ``arena`` with the cheater (index 1) showing peer 0 a second valid version of its
    first card shown and the others the real one; the seat-list indices peer 0 asked to
    resend."""
    is_move = first_of(arena, 1, MsgType.TABLE_SHOW)
    twins: dict[bytes, bytes] = {}
    asked: set[int] = set()

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm == 0 and decode(raw).type is MsgType.RESEND:
            asked.add(to)
        if frm == 1 and to == 0 and is_move(raw):
            return twins.setdefault(raw, twin_of(arena.ids[1], raw, peer_of(arena.machines[1])))
        return raw

    arena.tamper = tamper
    arena.run()
    assert twins
    return asked


def test_a_split_seen_first_in_the_equivocators_own_next_message_is_proven(
    tmp_path: Path,
) -> None:
    """Peer 0 gets one version of the cheater's card shown, peer 2 the other, and the next
    message built on either is the cheater's own (it moves next): peer 0 finds the transcripts
    diverge on the cheater's message, whose signer will not send the other version. It asks
    the other seats too, and peer 2's copy convicts the cheater (before, peer 0 asked the
    cheater alone and stopped after 2 s blaming nobody)."""
    for keys in range(60):
        arena = Arena(tmp_path / f"k{keys}", players=3, seed=17, cheater=1, keys_seed=keys)
        asked = _split_show(arena)
        for k in arena.honest:
            aborted = arena.machines[k].aborted
            assert aborted is not None and aborted.seat == arena.seat(1), (keys, aborted)
        if asked == {1, 2}:  # the divergence was the cheater's own message: it asked everyone
            proof = sorted(arena.faults[0].evidence)
            assert verify_equivocation(*proof).sender == arena.ids[1].public_key
            return
    raise AssertionError("in no game of 60 did the cheater send the next message itself")


def test_split_shuffle_is_proven_by_the_next_step_and_blamed(tmp_path: Path) -> None:
    """The cheater shows peer 0 a shuffle pass with two ciphertexts swapped and peer 2 the real one:
    peer 0 refuses the swapped one (its proof no longer holds) and blames the shuffler, and the
    others stop on that proven blame. (Two versions that are both genuine proven shuffles are
    tested in test_table_shuffle_attacks.py: there the diverging heads convict the shuffler.)"""
    arena = Arena(tmp_path, players=3, seed=19, cheater=1)

    def twin(raw: bytes) -> bytes:
        body = thaw(decode(raw).body)
        body["a"][0], body["a"][1] = body["a"][1], body["a"][0]
        body["c"][0], body["c"][1] = body["c"][1], body["c"][0]
        return resign(arena.ids[1], raw, body=body)

    split_first_shuffle(arena, twin)


def test_wrong_head_is_a_divergence_nobody_can_be_blamed_for(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=18, cheater=1)
    key_msg = first_of(arena, 1, MsgType.TABLE_KEY)
    forged: dict[bytes, bytes] = {}

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm == 1 and key_msg(raw):
            return forged.setdefault(raw, resign(arena.ids[1], raw, head=os.urandom(32)))
        return raw

    arena.tamper = tamper
    arena.run()
    for k in arena.honest:
        aborted = arena.machines[k].aborted
        assert aborted is not None and aborted.seat is None
        # It first asked the sender for what it holds after the step's head (a second signed
        # version there would have convicted someone); none came, so it stopped unblamed.
        assert "diverge" in aborted.reason
        assert set(aborted.evidence) <= set(forged.values())
