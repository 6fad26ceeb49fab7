"""Forgeries and replays at the card table: garbage, strangers' and other tables' messages, replays,
flooding ahead, resend requests, proofs and aborts that blame nobody they can't prove.

The arena (honest :class:`TableRunner` peers around real table machines, a bare cheating
machine) is ``attack_arena``; see its docstring for what is and is not real.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from attack_arena import Arena, no_linger
from message_surgery import resign

from druids_p2p.table.ledger import MAX_BUFFERED
from druids_p2p.wire import (
    MAX_MESSAGE_SIZE,
    ZERO_HASH,
    Identity,
    MsgType,
    WireError,
    decode,
    encode,
    equivocation_body,
    verify_equivocation,
)
from druids_p2p.wire.envelope import canonical
from druids_p2p.wire.msgtypes import MSG_DOMAIN, PROTOCOL_VERSION, pack

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


# ==================================================================== message surgery
def sign_unchecked(
    identity: Identity,
    msg_type: MsgType,
    *,
    table_id: bytes,
    seq: int,
    prev: bytes,
    head: bytes,
    body: Mapping[str, Any],
) -> bytes:
    """Like ``wire.encode`` but without its checks: what a hostile peer can put on the wire."""
    fields = [PROTOCOL_VERSION, int(msg_type), table_id, identity.public_key, seq, prev, head]
    signed = pack([*fields, canonical(body)])
    return pack([signed, identity.sign(MSG_DOMAIN + signed)])


# ==================================================================== wire-level junk and replays
def junk_for(arena: Arena, raw: bytes, rng: random.Random) -> list[bytes]:
    """Bytes that must be dropped and counted, derived from a genuine message ``raw``."""
    msg = decode(raw)
    stranger = Identity.generate("stranger")
    sender = arena.ids[arena.index_of(msg.sender)]
    flipped = bytearray(raw)
    flipped[-1 - rng.randrange(64)] ^= 1 << rng.randrange(8)  # inside the signature
    other_table = bytes(b ^ 0xFF for b in msg.table_id)
    return [
        b"",
        b"\x00garbage, not msgpack",
        os.urandom(rng.randrange(1, 300)),
        raw[: rng.randrange(1, len(raw))],  # truncated
        raw + b"\x00",  # trailing byte
        bytes(flipped),  # bad signature
        bytes(MAX_MESSAGE_SIZE + 1),  # too large
        pack([1, 2, 3]),  # msgpack of the wrong shape
        resign(stranger, raw),  # a valid message from a key with no seat
        resign(sender, raw, table_id=other_table),  # a seated key, another table
    ]


def test_garbage_forgeries_and_strangers_are_dropped_and_counted(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=11, cheater=1)
    arena.cheater = None  # nobody cheats at the table; junk arrives besides the real traffic
    rng = random.Random(5)
    injected = {k: 0 for k in range(3)}

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if rng.random() < 0.2:
            for junk in junk_for(arena, raw, rng):
                arena.runners[to]._on_message(junk)  # must not raise
                injected[to] += 1
        return raw

    arena.tamper = tamper
    arena.run()
    assert all(m.finished and m.aborted is None for m in arena.machines)
    assert len({m.transcript.head for m in arena.machines}) == 1
    for k, runner in arena.runners.items():
        assert injected[k] > 0
        assert runner.bad_messages == injected[k]


def test_replays_are_ignored_as_duplicates(tmp_path: Path) -> None:
    """Old messages again (any sender, any time, also from the previous round) change nothing."""
    arena = Arena(tmp_path, players=3, rounds=2, seed=12, cheater=1)
    arena.cheater = None
    rng = random.Random(6)
    replayed = 0

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        nonlocal replayed
        if arena.sent and rng.random() < 0.5:
            old_frm, old = arena.sent[rng.randrange(len(arena.sent))]
            if old_frm != to:
                arena.queue.append((old_frm, to, old))
                replayed += 1
        return raw

    arena.tamper = tamper
    arena.run()
    assert replayed > 100
    assert all(m.finished and m.aborted is None for m in arena.machines)
    assert len({m.transcript.head for m in arena.machines}) == 1
    assert all(r.bad_messages == 0 for r in arena.runners.values())


def test_flooding_ahead_is_bounded_and_a_conflicting_slot_convicts(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=13, cheater=1)
    arena.run(stop=lambda: arena.machines[0].phase == "play")
    evil = arena.machines[1]
    key = arena.ids[1].public_key
    base = evil.transcript.next_seq(key)
    flood = [
        encode(
            arena.ids[1],
            MsgType.SEAT_NONCE,
            table_id=evil.table_id,
            seq=base + 1 + i,
            prev=os.urandom(32),
            head=os.urandom(32),
            body={"nonce": os.urandom(32)},
        )
        for i in range(3 * MAX_BUFFERED)
    ]
    for raw in flood:
        arena.deliver(0, raw)
    assert len(arena.machines[0].pending[key]) <= MAX_BUFFERED
    assert arena.machines[0].aborted is None
    # Its next real message is still taken (a flood cannot crowd it out); then its flood meets
    # the table: a slot signed twice (equivocation, with the pair) or a flooded message where
    # its real one was due, whichever comes first. Either way it convicts its signer alone.
    arena.run()
    fault = arena.faults[0]
    assert fault.seat == arena.seat(1)
    assert all(decode(raw).sender == key for raw in fault.evidence)
    if len(fault.evidence) == 2:
        assert verify_equivocation(*sorted(fault.evidence)).sender == key
    else:
        assert "seat_nonce when" in fault.reason


# ==================================================================== forged proofs and aborts
def _resend(arena: Arena, k: int, head: bytes) -> bytes:
    return arena.runners[k]._control(MsgType.RESEND, {"head": head}, chain=False)


def test_honest_resend_requests_cannot_frame_their_sender(tmp_path: Path) -> None:
    """Resend requests are out-of-chain and always carry seq 0, like equivocation proofs: two of
    them, or one and the sender's first table message (seq 0 too), prove nothing."""
    arena = Arena(tmp_path, players=3, seed=19, cheater=1)
    arena.run_to_play()
    for victim, receiver in ((0, 2), (2, 0)):  # 0 is the host (its seq 0 is the seat message)
        m = arena.machines[receiver]
        key = arena.ids[victim].public_key
        first = next(x for x in m.transcript.messages if x.sender == key and x.seq == 0)
        pairs = [
            (_resend(arena, victim, bytes(32)), _resend(arena, victim, b"\x01" * 32)),
            (first.raw, _resend(arena, victim, m.transcript.head)),
        ]
        for a, b in pairs:
            with pytest.raises(WireError):
                verify_equivocation(*sorted((a, b)))
            proof = sign_unchecked(
                arena.ids[1],
                MsgType.EQUIVOCATION,
                table_id=m.table_id,
                seq=0,
                prev=ZERO_HASH,
                head=m.transcript.head,
                body=equivocation_body(a, b),
            )
            before = arena.runners[receiver].bad_messages
            arena.runners[receiver]._on_message(proof)
            assert m.aborted is None, m.aborted.reason
            assert arena.runners[receiver].bad_messages == before + 1
    arena.run()
    assert all(x.finished and x.aborted is None for x in arena.machines)


def test_a_proof_against_a_key_with_no_seat_is_dropped(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=20, cheater=0)
    arena.run_to_play()
    m = arena.machines[1]
    stranger = Identity.generate("stranger")

    def signed(head: bytes) -> bytes:
        return encode(
            stranger,
            MsgType.SEAT_NONCE,
            table_id=m.table_id,
            seq=3,
            prev=b"\x07" * 32,
            head=head,
            body={"nonce": head},
        )

    proof = encode(
        arena.ids[0],
        MsgType.EQUIVOCATION,
        table_id=m.table_id,
        seq=0,
        prev=ZERO_HASH,
        head=m.transcript.head,
        body=equivocation_body(signed(b"\x01" * 32), signed(b"\x02" * 32)),
    )
    arena.runners[1]._on_message(proof)
    assert m.aborted is None
    assert arena.runners[1].bad_messages == 1
    arena.run()
    assert all(x.finished for x in arena.machines)


def test_an_unproven_abort_cannot_blame_an_innocent_seat(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=21, cheater=0)
    arena.run_to_play()
    m = arena.machines[0]
    innocent = arena.seat(2)
    raw = m.chain.seal(MsgType.ABORT, {"reason": "seat 2 cheated", "seat": innocent}, m.step_head)
    arena.runners[1]._on_message(raw)
    arena.expire_abort_claims()
    aborted = arena.machines[1].aborted
    assert aborted is not None
    assert aborted.seat != innocent


def test_a_seated_joiners_join_sent_again_is_not_a_bad_message(tmp_path: Path) -> None:
    """A joiner sends its join again after its link to the host was renewed (lan/lobby.py), and
    under loss that can be after the host seated the table: the late copy is no fault of anyone's
    and is not counted as a bad message; a join from a key with no seat here still is."""
    from druids_p2p.lan.seating import make_join
    from druids_p2p.wire import Identity

    arena = Arena(tmp_path, players=3, seed=23, cheater=0)
    arena.run_to_play()
    host = arena.runners[0]
    seated = make_join(arena.ids[1], b"\x05" * 32, "tcp://127.0.0.1:1", b"\x00" * 32)
    host._on_message(seated, arena.ids[1].public_key)
    assert host.bad_messages == 0
    stranger = make_join(
        Identity.generate("stranger"), b"\x05" * 32, "tcp://127.0.0.1:1", bytes(32)
    )
    host._on_message(stranger)
    assert host.bad_messages == 1
    arena.run()
    assert all(x.finished for x in arena.machines)
