"""A power cut at an in-process table: what each record holds once the OS loses its unsynced
writes, and every secret a set of signed proofs gives away.

:class:`SyncLog` watches ``os.fsync`` and keeps, per file, the size it had when last synced: all a
power cut (or an OS crash) is sure to leave of it. :func:`cut_power` truncates every record of a
:class:`~table_harness.LocalTable` back to that size, drops every frame in flight and rebuilds every
machine from what is left, as each restarted process does (``peer/session.py``). A kill -9 alone
loses nothing the process had written (the page cache survives it): only this loses a record's
tail after its messages left.

:func:`recoverable_secrets` is the attacker's side: two Schnorr-type proofs by one key with the
same commitment ``R = s·B − e·h`` and different challenges give ``x = (s1 − s2)/(e1 − e2)``
(Schnorr, DLEQ and batched DLEQ proofs all commit to ``w·B`` first), which is checked against the
key before it is reported. Two shuffle proofs of one seat with the same first commitment ``t_1``
are reported too: their randomness was reused for two statements.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from table_harness import LocalTable

from druids_p2p.deck import group
from druids_p2p.deck.table_messages import (
    TableKeyMsg,
    TableOpenMsg,
    TableShareMsg,
    TableSharesMsg,
    TableShuffleMsg,
    parse_table_body,
)
from druids_p2p.table.codec import TABLE_KIND_TYPES
from druids_p2p.wire import MsgType, Transcript, decode, read_record
from druids_p2p.wire.record import MAGIC

_KIND_OF = {t: k for k, t in TABLE_KIND_TYPES.items()}
_OUT_OF_CHAIN = frozenset(
    {MsgType.HELLO, MsgType.JOIN, MsgType.RESEND, MsgType.CHAT, MsgType.EQUIVOCATION}
)


@dataclass
class SyncLog:
    """Each path's size at its last fsync (a directory's too, harmlessly)."""

    synced: dict[str, int] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    """How many times each path was synced."""

    def install(self, monkeypatch: pytest.MonkeyPatch) -> SyncLog:
        real = os.fsync

        def fsync(fd: int) -> None:
            real(fd)
            try:
                path = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                return
            self.synced[path] = os.fstat(fd).st_size
            self.calls[path] = self.calls.get(path, 0) + 1

        monkeypatch.setattr(os, "fsync", fsync)
        return self


def record_path(table: LocalTable, k: int) -> Path:
    assert table.records is not None
    return table.records / f"p{k}.druids"


def unsynced(table: LocalTable, log: SyncLog, k: int) -> int:
    """Bytes of peer k's record that a power cut now would lose (written, not synced)."""
    path = record_path(table, k)
    return path.stat().st_size - log.synced.get(str(path.resolve()), 0)


def cut_power(
    table: LocalTable, log: SyncLog, forget: Mapping[int, int] | None = None
) -> dict[int, int]:
    """Every peer loses power at once: each record keeps what was synced, frames in flight are
    lost, every machine is rebuilt from its record and asks the others for what it lacks.
    ``forget``: peer -> at most this many messages kept (a cheater cutting its own record).
    Returns how many messages each record lost."""
    durable = dict(log.synced)  # before closing: a close syncs what the cut must lose
    lost: dict[int, int] = {}
    for k, machine in enumerate(table.machines):
        path = record_path(table, k)
        machine.transcript.close()
        had = len(read_record(path).messages)
        os.truncate(path, durable.get(str(path.resolve()), 0))
        if forget is not None and k in forget:
            kept = read_record(path).messages[: forget[k]]
            path.write_bytes(MAGIC + b"".join(len(r).to_bytes(4, "big") + r for r in kept))
        lost[k] = had - len(read_record(path).messages)
    table.queue.clear()
    for k in range(len(table.machines)):
        transcript, _ = Transcript.resume(record_path(table, k))
        fresh = table._machine(k, Transcript(table.seat_msg))
        fresh.load_record(list(transcript.messages))
        fresh.start()
        fresh.adopt_record(transcript)
        table.machines[k] = fresh
    for k, machine in enumerate(table.machines):  # each asks everyone for what follows its head
        for j, other in enumerate(table.machines):
            if j != k:
                table.queue.extend((j, k, raw) for raw in other.answer_resend(machine.head))
        table.broadcast(k, machine.resend_own())
    return lost


@dataclass(frozen=True)
class Leak:
    """A secret read from two proofs of one key (or a shuffle's reused randomness)."""

    sender: bytes = field(repr=False)
    what: str
    raws: tuple[bytes, bytes] = field(repr=False)


def _proofs(
    raws: Iterable[bytes],
) -> tuple[dict[bytes, bytes], list[tuple[bytes, bytes, bytes, bytes]]]:
    """The card table's key shares by sender, and every (sender, e, s, raw) Schnorr-type proof."""
    keys: dict[bytes, bytes] = {}
    proofs: list[tuple[bytes, bytes, bytes, bytes]] = []
    for raw in set(raws):
        msg = decode(raw)
        kind = _KIND_OF.get(msg.type)
        if kind is None:
            continue
        body = parse_table_body(kind, dict(msg.body))
        if isinstance(body, TableKeyMsg):
            keys[msg.sender] = body.key
            proofs.append((msg.sender, body.e, body.s, raw))
        elif isinstance(body, TableShareMsg):
            proofs.append((msg.sender, body.e, body.s, raw))
        elif isinstance(body, TableSharesMsg):
            proofs += [(msg.sender, pr.e, pr.s, raw) for pr in body.proofs]
        elif isinstance(body, TableOpenMsg):
            proofs += [(msg.sender, o.e, o.s, raw) for o in body.opens]
    return keys, proofs


def recoverable_secrets(raws: Iterable[bytes]) -> list[Leak]:
    """Every pair of proofs in ``raws`` that gives away its prover's secret (see the module)."""
    raws = list(raws)
    keys, proofs = _proofs(raws)
    seen: dict[tuple[bytes, bytes], tuple[bytes, bytes, bytes]] = {}
    leaks: list[Leak] = []
    order = group.ORDER
    for sender, e, s, raw in proofs:
        key = keys.get(sender)
        if key is None:
            continue
        commit = group.sub(group.base_mul(s), group.mul(e, key))
        other = seen.setdefault((sender, commit), (e, s, raw))
        if other[0] == e:
            continue
        e1, s1 = int.from_bytes(e, "little"), int.from_bytes(s, "little")
        e2, s2 = int.from_bytes(other[0], "little"), int.from_bytes(other[1], "little")
        x = (s1 - s2) * pow(e1 - e2, -1, order) % order
        if group.base_mul(x.to_bytes(32, "little")) == key:
            leaks.append(Leak(sender, f"table secret x = {x:064x}", (other[2], raw)))
    shuffles: dict[tuple[bytes, bytes], bytes] = {}
    for raw in set(raws):
        msg = decode(raw)
        if msg.type is not MsgType.TABLE_SHUFFLE:
            continue
        body = parse_table_body(_KIND_OF[msg.type], dict(msg.body))
        assert isinstance(body, TableShuffleMsg)
        first = shuffles.setdefault((msg.sender, body.proof.t1), raw)
        if first != raw:
            leaks.append(Leak(msg.sender, "shuffle randomness reused", (first, raw)))
    return leaks


def equivocations(raws: Iterable[bytes]) -> list[tuple[bytes, bytes]]:
    """Every pair of different chained messages one sender signed for one slot."""
    slots: dict[tuple[bytes, int], bytes] = {}
    pairs: list[tuple[bytes, bytes]] = []
    for raw in dict.fromkeys(raws):
        msg = decode(raw)
        if msg.type in _OUT_OF_CHAIN:
            continue  # seq 0 and no slot (protocol.md §9)
        first = slots.setdefault((msg.sender, msg.seq), raw)
        if first != raw:
            pairs.append((first, raw))
    return pairs
