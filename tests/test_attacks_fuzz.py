"""Fuzzed table messages: mutated, re-signed bodies of every table type never crash a peer nor
let the fuzzing seat frame another.

The arena (honest :class:`TableRunner` peers around real table machines, a bare cheating
machine) is ``attack_arena``; see its docstring for what is and is not real.
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from attack_arena import Arena, no_linger, twin_of
from message_surgery import thaw

from druids_p2p.lan.mesh import Inbound
from druids_p2p.lan.peer_config import PeerConfig, Player
from druids_p2p.peer.runner import TableRunner
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import (
    ZERO_HASH,
    Identity,
    Message,
    MsgType,
    WireError,
    decode,
    encode,
    equivocation_body,
    verify_equivocation,
)

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


# ==================================================================== fuzzing the runner
TABLE_TYPES = [
    MsgType.SEAT_CONFIRM,
    MsgType.SEAT_NONCE,
    MsgType.TABLE_KEY,
    MsgType.TABLE_SHUFFLE,
    MsgType.TABLE_SHARE,
    MsgType.TABLE_SHOW,
    MsgType.TABLE_OPEN,
    MsgType.TABLE_PLAY,
    MsgType.TABLE_REVEAL,
    MsgType.MOVE,
    MsgType.RESEND,
    MsgType.EQUIVOCATION,
    MsgType.ABORT,
    MsgType.HELLO,
    MsgType.JOIN,
]


def _mutate_body(body: dict[str, Any], rng: random.Random) -> None:
    key = rng.choice(sorted(body))
    value = body[key]
    if isinstance(value, bool):
        body[key] = not value
    elif isinstance(value, int):
        body[key] = max(0, value + rng.choice((-1, 1, 7, 60)))
    elif isinstance(value, bytes):
        body[key] = os.urandom(len(value))
    elif isinstance(value, str):
        body[key] = rng.choice(
            ("trick", "gaia:R", "gaia:B:light", "Pile:B", "Word:yes", "Words:unfit", "G1", "zz")
        )
    elif isinstance(value, list) and value:
        i = rng.randrange(len(value))
        if isinstance(value[i], bytes):
            value[i] = os.urandom(len(value[i]))
        elif isinstance(value[i], dict):
            _mutate_body(value[i], rng)
        else:
            value.reverse()
    elif isinstance(value, dict) and value:
        _mutate_body(value, rng)


class Fuzzer:
    """Hostile messages signed by a seated key, tried on copies of an honest peer's state."""

    def __init__(self, arena: Arena, rng: random.Random) -> None:
        self.arena = arena
        self.rng = rng
        self.cases = 0
        self.outcomes: dict[str, int] = {}
        self.seen: list[tuple[int, Message]] = []

    def _refresh(self) -> None:
        for k, raw in self.arena.sent[len(self.seen) :]:
            self.seen.append((k, decode(raw)))

    def bodies(self, msg_type: MsgType) -> list[dict[str, Any]]:
        found = [thaw(msg.body) for _, msg in self.seen[-400:] if msg.type is msg_type]
        ids = self.arena.ids
        extra: dict[MsgType, list[dict[str, Any]]] = {
            MsgType.RESEND: [
                {"head": os.urandom(32)},
                {"sender": self.rng.choice(ids).public_key, "seq": self.rng.randrange(0, 99)},
            ],
            MsgType.ABORT: [{"reason": "fuzz", "seat": self.rng.randrange(8)}],
            MsgType.HELLO: [{"name": "fuzz", "client": "fuzz/1", "n": 1}],
            MsgType.JOIN: [{"name": "fuzz"}],
            MsgType.TABLE_OPEN: [
                {
                    "op": self.rng.randrange(80),
                    "opens": [
                        {"card": 7, "d": b"d" * 32, "e": b"e" * 32, "pos": 3, "s": b"s" * 32}
                    ],
                    "round": 0,
                }
            ],
            MsgType.TABLE_PLAY: [{"op": 60, "pos": 4, "round": 0, "zone": "trick"}],
        }
        return found + extra.get(msg_type, [])

    def message(self, m: TableMachine, k: int) -> bytes:
        """A fuzzed message signed by seat-list index k (b"" if none could be made)."""
        rng, ident = self.rng, self.arena.ids[k]
        if rng.random() < 0.15:  # raw corruption of a genuine message
            data = bytearray(rng.choice(self.seen)[1].raw)
            for _ in range(rng.randrange(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            return bytes(data)
        if rng.random() < 0.1:  # a genuine proof that k equivocated, sent by k itself
            mine = [msg.raw for j, msg in self.seen if j == k and msg.seq > 0]
            if mine:
                raw = rng.choice(mine)
                body = equivocation_body(raw, twin_of(ident, raw))
                return self._encode(ident, MsgType.EQUIVOCATION, m, 0, body)
        msg_type = rng.choice(TABLE_TYPES)
        choices = self.bodies(msg_type)
        if not choices:
            return b""
        body = copy.deepcopy(rng.choice(choices))
        if rng.random() < 0.5:
            _mutate_body(body, rng)
        nxt = m.transcript.next_seq(ident.public_key)
        seq = max(0, rng.choice((nxt, nxt, nxt + 1, nxt - 1, nxt - 2, nxt + 40, 0)))
        return self._encode(ident, msg_type, m, seq, body)

    def _encode(
        self, ident: Identity, msg_type: MsgType, m: TableMachine, seq: int, body: Any
    ) -> bytes:
        rng, key = self.rng, ident.public_key
        chain = m.transcript.since(key, 0)
        if seq == 0:
            prev = ZERO_HASH
        elif seq <= len(chain) and rng.random() < 0.8:
            prev = chain[seq - 1].hash
        else:
            prev = os.urandom(32)
        head = rng.choice((m.step_head, m.step_head, m.transcript.head, os.urandom(32)))
        try:
            return encode(
                ident, msg_type, table_id=m.table_id, seq=seq, prev=prev, head=head, body=body
            )
        except WireError:
            return b""

    def hit(self, j: int) -> None:
        """Fuzz a copy of honest peer j, in its current state, with one hostile message."""
        arena = self.arena
        original = arena.machines[j]
        if original.aborted is not None or original.finished:
            return
        self._refresh()
        attacker = self.rng.choice([k for k in range(len(arena.ids)) if k != j])
        raw = self.message(original, attacker)
        if not raw:
            return
        memo: dict[int, Any] = {id(i): i for i in arena.ids}
        memo[id(original.on_event)] = None
        for kept in original.transcript.messages:
            memo[id(kept)] = kept  # immutable: share, do not copy
        machine = copy.deepcopy(original, memo)
        runner = TableRunner(
            PeerConfig(home=arena.runners[j].config.home, identity=arena.ids[j]),
            _NullMesh(),
            machine,
            arena.runners[j].state,
            Player(),
        )
        allowed: set[int | None] = {None}
        msg: Message | None
        try:
            msg = decode(raw)
        except WireError:
            msg = None
        if msg is not None and msg.type is MsgType.EQUIVOCATION:
            convicted = verify_equivocation(msg.body["a"], msg.body["b"]).sender
            allowed = {machine.seat_of(convicted)}
        elif msg is not None:
            allowed.add(machine.seat_of(msg.sender))
        self.cases += 1
        try:
            runner._on_message(raw, arena.ids[attacker].public_key)  # over the attacker's link
        except TableFault as fault:  # anything else fails the test: it would crash the peer
            if msg is not None and msg.type is not MsgType.EQUIVOCATION:
                allowed.add(machine.seat_of(msg.sender))  # the play order may be new
            assert msg is not None, "junk must be dropped, not fault the table"
            assert fault.seat in allowed, (msg, fault.reason, fault.seat, allowed)
            outcome = "fault"
        else:
            outcome = "bad" if runner.bad_messages else "accepted"
            if machine.aborted is not None:
                outcome = "abort"
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1


def _valid(payload: bytes) -> None:
    """Whatever a runner sends must itself be a valid message."""
    decode(payload)


class _NullMesh:
    """A mesh (``MeshPort``) that checks what the runner sends and delivers nothing."""

    def broadcast(self, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
        _valid(payload)

    def send(self, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
        _valid(payload)
        return True

    def poll(self, timeout_ms: int, limit: int = 256) -> list[Inbound]:
        return []

    def connect(self, peer_id: bytes, endpoint: str, curve_public_raw: bytes) -> None:
        """Nothing to link: the test hands the runner each message itself."""

    def close_gate(self, raw_keys: Iterable[bytes]) -> None:
        """No inbox to shut."""


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzzed_messages_never_crash_a_peer_nor_frame_another_seat(
    tmp_path: Path, seed: int
) -> None:
    """Hostile messages, signed by a seated key, at random moments of a real game: the runner
    drops them or raises TableFault blaming nobody or the signer, never anything else."""
    arena = Arena(tmp_path, players=3, rounds=1, seed=40 + seed, cheater=1)
    arena.cheater = None
    fuzzer = Fuzzer(arena, random.Random(seed))

    def stop() -> bool:
        if arena.sent and fuzzer.rng.random() < 0.5:
            for _ in range(6):  # (a version-2 round has fewer messages to hit between)
                fuzzer.hit(fuzzer.rng.randrange(3))
        return False

    arena.run(stop=stop)
    assert all(m.finished for m in arena.machines)  # the copies never touched the real game
    assert fuzzer.cases > 200, fuzzer.cases
    assert set(fuzzer.outcomes) >= {"fault", "bad", "accepted"}, fuzzer.outcomes
    print(fuzzer.cases, fuzzer.outcomes)
