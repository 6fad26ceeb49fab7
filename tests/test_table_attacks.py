"""A malicious peer against honest ones, in one process: garbage, forgeries, replays, equivocation
and cheats at the card table. Every bad message is dropped (and counted) or ends the table with the
right seat blamed, and nothing but a TableFault ever leaves ``TableRunner._on_message``.

The honest peers are real :class:`TableRunner` objects around the table machines (their mesh is a
fake that posts into the harness queue), so what is tested is the process's own message handling:
decoding, the table and seat checks, ABORT and EQUIVOCATION handling, the machine, and the abort
broadcast that tells the other peers. The cheater is a bare machine that never aborts on its own
account (a cheater would not help the others), driven by a tamper hook or a cheating ``play``.
"""

from __future__ import annotations

import contextlib
import copy
import os
import random
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, cast

import pytest
from message_surgery import reproved_opening, resign, thaw
from table_harness import LocalTable

from druids_p2p.deck import group
from druids_p2p.deck.cards import card_points
from druids_p2p.deck.elgamal import decrypt_with
from druids_p2p.deck.messages import OpenMsg
from druids_p2p.deck.peer import DeckPeer, random_scalar
from druids_p2p.engine import GAIA, format_move
from druids_p2p.engine.rules import Round
from druids_p2p.net import peer as peer_module
from druids_p2p.net.peer import PeerConfig, Player, TableRunner, TableState
from druids_p2p.net.table import MAX_BUFFERED, TableFault, TableMachine
from druids_p2p.wire import (
    MAX_MESSAGE_SIZE,
    ZERO_HASH,
    Identity,
    Message,
    MsgType,
    WireError,
    decode,
    decode_receipt,
    encode,
    encode_receipt,
    equivocation_body,
    is_receipt,
    verify_equivocation,
)
from druids_p2p.wire.envelope import canonical
from druids_p2p.wire.msgtypes import MSG_DOMAIN, PROTOCOL_VERSION
from druids_p2p.wire.safe_msgpack import pack

CheatPlay = Callable[[TableMachine, int], list[bytes]]


@pytest.fixture(autouse=True)
def _no_linger(monkeypatch: pytest.MonkeyPatch) -> None:
    """An aborting runner lingers to answer resend requests; nobody asks here."""
    monkeypatch.setattr(peer_module, "LINGER_AFTER_GAME_S", 0.0)


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


def twin_of(identity: Identity, raw: bytes, deck: DeckPeer | None = None) -> bytes:
    """A second, different message for the same slot: exactly what an equivocating sender signs.
    A move that opens a card gets a fresh proof of the same opening (``deck`` is the sender's), so
    the twin is as valid as the original; anything else gets another head."""
    msg = decode(raw)
    if msg.type is MsgType.MOVE and "open" in msg.body and deck is not None:
        body = thaw(msg.body)
        body["open"] = reproved_opening(deck, body["open"])
        return resign(identity, raw, body=body)
    return resign(identity, raw, head=bytes(31) + b"\x01")


def random_point() -> bytes:
    return group.base_mul(random_scalar(os.urandom))


# ==================================================================== the arena
class FakeMesh:
    """What a TableRunner uses of its Mesh, posting into the arena's delivery queue."""

    def __init__(self, arena: Arena, index: int) -> None:
        self.arena = arena
        self.index = index

    def broadcast(self, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
        self.arena.broadcast(self.index, [payload])

    def send(self, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
        """One delivery even over "both links": the arena's one queue never stalls."""
        self.arena.queue.append((self.index, self.arena.index_of(peer_id), payload))
        return True

    def poll(self, timeout_ms: int, limit: int = 256) -> list[Any]:
        return []

    def connect(self, peer_id: bytes, endpoint: str, server_key: bytes) -> None:
        """The arena delivers by seat-list index: links need no sockets."""

    def close_gate(self, curves: Iterable[bytes]) -> None:
        """No inbox to shut: the arena's deliveries name their link themselves."""


class Arena(LocalTable):
    """A LocalTable whose honest peers are TableRunners and whose cheater is a bare machine.
    Messages are delivered in random order, except that each link keeps its own order.

    A TableFault stops only the peer that raised it; an honest peer then aborts as the process
    does (ABORT to all, with an EQUIVOCATION proof when it has one), so the others hear of it.
    """

    def __init__(
        self, tmp_path: Path, players: int = 3, rounds: int = 1, seed: int = 0, cheater: int = 1
    ) -> None:
        super().__init__(players=players, rounds=rounds, seed=seed)
        self.cheater: int | None = cheater
        self.faults: dict[int, TableFault] = {}
        """What each peer found itself (not what it was told by an ABORT)."""
        self.events: dict[int, list[dict[str, Any]]] = {k: [] for k in range(players)}
        self.sent: list[tuple[int, bytes]] = []
        self.cheat_play: CheatPlay | None = None
        self.before_move: Callable[[int], None] | None = None
        self.started = False
        self.runners: dict[int, TableRunner] = {}
        for k in range(players):
            config = PeerConfig(
                home=tmp_path / f"p{k}", identity=self.ids[k], emit=self.events[k].append
            )
            self.runners[k] = TableRunner(
                config,
                cast(Any, FakeMesh(self, k)),
                self.machines[k],
                TableState(tmp_path / f"p{k}"),
                Player(),
            )

    # ---------------------------------------------------------------- who is who
    def index_of(self, key: bytes) -> int:
        return [i.public_key for i in self.ids].index(key)

    def seat(self, k: int) -> int:
        """Play seat of the peer at seat-list index ``k`` (once the coin flip is done)."""
        order = next(m.order for m in self.machines if m.order)
        return order.index(self.ids[k].public_key)

    @property
    def honest(self) -> list[int]:
        return [k for k in range(len(self.machines)) if k != self.cheater]

    def stopped(self, k: int) -> bool:
        m = self.machines[k]
        return m.aborted is not None or m.finished

    # ---------------------------------------------------------------- driving
    def broadcast(self, k: int, raws: list[bytes]) -> None:
        for raw in raws:
            self.sent.append((k, raw))
        super().broadcast(k, raws)

    def deliver(self, j: int, raw: bytes, frm: int | None = None) -> None:
        """Hand ``raw`` to peer j as if it came over ``frm``'s authenticated link."""
        if self.stopped(j):
            return
        link = None if frm is None else self.ids[frm].public_key
        try:
            if j == self.cheater:
                with contextlib.suppress(ValueError, WireError):  # control messages, junk
                    if is_receipt(raw):
                        if link is not None:
                            self.machines[j].receive_receipt(link, decode_receipt(raw))
                    else:
                        self.broadcast(j, self.machines[j].receive(decode(raw)))
            else:
                self.runners[j]._on_message(raw, link)
        except TableFault as fault:
            self._fault(j, fault)

    def _fault(self, k: int, fault: TableFault) -> None:
        self.faults[k] = fault
        if k == self.cheater:
            self.machines[k].aborted = fault
        else:
            self.runners[k]._abort(fault)

    def move(self, k: int) -> None:
        m = self.machines[k]
        view = m.view()
        assert view is not None
        choice = self.rng.choice(view.legal)
        if self.before_move is not None:
            self.before_move(k)
            if self.stopped(k) or not m.my_turn:
                return
        try:
            if k == self.cheater and self.cheat_play is not None:
                self.broadcast(k, self.cheat_play(m, choice))
            else:
                self.broadcast(k, m.play(choice))
        except TableFault as fault:
            self._fault(k, fault)

    def run(self, max_steps: int = 500_000, stop: Callable[[], bool] | None = None) -> None:
        if not self.started:
            self.started = True
            for k, m in enumerate(self.machines):
                self.broadcast(k, m.start())
        for _ in range(max_steps):
            if stop is not None and stop():
                return
            if self.queue:
                k, j, raw = self.queue.pop(self._pick())
                if self.tamper is not None:
                    changed = self.tamper(k, j, raw)
                    if changed is None:
                        continue
                    raw = changed
                self.deliver(j, raw, k)
                continue
            movers = [k for k, m in enumerate(self.machines) if not self.stopped(k) and m.my_turn]
            if not movers:
                self.expire_abort_claims()
                return
            self.move(movers[0])
        raise AssertionError("the table did not settle")

    def expire_abort_claims(self) -> None:
        """Let the grace period for unverified abort claims run out (the runners' clock)."""
        for runner in self.runners.values():
            if runner.machine.aborted is None and (runner.abort_claim or runner.divergence):
                runner.abort_claim_deadline = runner.divergence_deadline = 0.0
                try:
                    runner._in_grace()
                except TableFault as fault:
                    runner._abort(fault)  # stops on the claim: not a detection of its own

    def _pick(self) -> int:
        """A random link, and the oldest message on it: links are FIFO, as a ZeroMQ connection
        is (so a peer's EQUIVOCATION proof arrives before its ABORT), but links interleave."""
        frm, to, _ = self.queue[self.rng.randrange(len(self.queue))]
        return next(i for i, (a, b, _) in enumerate(self.queue) if a == frm and b == to)

    def run_to_play(self) -> None:
        self.run(stop=lambda: all(m.phase == "play" for m in self.machines))
        assert all(m.phase == "play" for m in self.machines)

    # ---------------------------------------------------------------- verdicts
    def assert_blamed(self, culprit: int, reason: str, seat: int | None = None) -> None:
        """Every honest peer stopped blaming ``culprit`` and at least one found it itself."""
        expected = self.seat(culprit) if seat is None else seat
        for k in self.honest:
            aborted = self.machines[k].aborted
            assert aborted is not None, f"peer {k} did not stop the table"
            assert aborted.seat == expected, (k, aborted.reason)
            assert not self.machines[k].finished
        found = [self.faults[k] for k in self.honest if k in self.faults]
        assert found, "no honest peer detected the cheat itself"
        for fault in found:
            assert fault.seat == expected
            assert fault.evidence, "a blame must come with signed evidence"
        assert any(reason in f.reason for f in found), [f.reason for f in found]
        for k in self.honest:
            kinds = [e["event"] for e in self.events[k]]
            assert "aborted" in kinds or k not in self.faults


def first_of(arena: Arena, k: int, msg_type: MsgType) -> Callable[[bytes], bool]:
    """A predicate for the first message of ``msg_type`` that seat-list index ``k`` sends (for
    a move: the first that opens a card; the Gaia lead carries none, Gaia is shown at ready)."""
    chosen: list[bytes] = []

    def pred(raw: bytes) -> bool:
        if chosen:
            return raw == chosen[0]
        if is_receipt(raw):
            return False
        msg = decode(raw)
        if msg.type is msg_type and (msg_type is not MsgType.MOVE or "open" in msg.body):
            chosen.append(raw)
            return True
        return False

    return pred


def rewrite(
    arena: Arena, k: int, msg_type: MsgType, mutate: Callable[[dict[str, Any]], None]
) -> Callable[[int, int, bytes], bytes]:
    """A tamper hook replacing k's first ``msg_type`` message by a re-signed, mutated one, the
    same for every recipient (so it is a forgery by k, not an equivocation)."""
    forged: dict[bytes, bytes] = {}
    is_target = first_of(arena, k, msg_type)

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm != k or not is_target(raw):
            return raw
        if raw not in forged:
            body = thaw(decode(raw).body)
            mutate(body)
            forged[raw] = resign(arena.ids[k], raw, body=body)
        return forged[raw]

    return tamper


# ==================================================================== wire-level junk and replays
def junk_for(arena: Arena, raw: bytes, rng: random.Random) -> list[bytes]:
    """Bytes that must be dropped and counted, derived from a genuine message ``raw``."""
    if is_receipt(raw):  # over no authenticated link, truncated, too long
        return [raw, raw[: rng.randrange(2, len(raw))], raw + b"\x00"]
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
    arena.run(stop=lambda: arena.machines[0].phase == "deal")
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
    # The cheater's real messages now collide with its flood: equivocation, with the pair.
    arena.run()
    fault = arena.faults[0]
    assert fault.seat == arena.seat(1) and len(fault.evidence) == 2
    assert verify_equivocation(*sorted(fault.evidence)).sender == key


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
    """Peer 0 gets both versions of the cheater's move; peer 2 only the first, and learns of the
    cheat from peer 0's EQUIVOCATION proof, which it checks itself."""
    arena = Arena(tmp_path, players=3, seed=16, cheater=1)
    is_move = first_of(arena, 1, MsgType.MOVE)

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm == 1 and to == 0 and is_move(raw):
            arena.queue.append((1, 0, twin_of(arena.ids[1], raw, arena.machines[1].deck)))
        return raw

    arena.tamper = tamper
    arena.run()
    arena.assert_blamed(1, "signed two different messages")
    _equivocation_pair_ok(arena.faults[0], arena.ids[1].public_key)
    assert "equivocated (proof from" in arena.faults[2].reason
    assert arena.faults[2].seat == arena.seat(1)


def test_a_lying_receipt_is_checked_and_stops_the_table_unblamed(tmp_path: Path) -> None:
    """A seated peer receipts a message nobody signed after a real head: the honest peer asks it
    for its copy (to convict a double signer), gets none, and stops after the grace period
    blaming nobody: an unsigned receipt can never frame the seat whose message it contradicts."""
    arena = Arena(tmp_path, players=3, seed=21, cheater=1)
    arena.run_to_play()
    honest = arena.runners[0]
    machine = honest.machine
    prev = machine.heads[-2]
    asked: list[tuple[int, bytes]] = []

    def watch(frm: int, to: int, raw: bytes) -> bytes:
        asked.append((to, raw))
        return raw

    arena.tamper = watch
    honest._on_message(encode_receipt(prev, os.urandom(32)), arena.ids[1].public_key)
    assert honest.divergence is not None and machine.aborted is None
    arena.run(max_steps=50)
    assert any(to == 1 and decode(raw).type is MsgType.RESEND for to, raw in asked)
    arena.expire_abort_claims()
    assert machine.aborted is not None and machine.aborted.seat is None


def test_a_receipt_over_no_seated_link_is_dropped(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=22, cheater=1)
    arena.run_to_play()
    runner = arena.runners[0]
    receipt = encode_receipt(runner.machine.heads[-2], os.urandom(32))
    for link in (None, Identity.generate("stranger").public_key, arena.ids[0].public_key):
        runner._on_message(receipt, link)
    assert runner.bad_messages == 3 and runner.divergence is None


def test_split_equivocation_is_proven_and_blamed(tmp_path: Path) -> None:
    """Peer 0 gets one version of the cheater's move, peer 2 the other. The acks disagree; each
    asks the other's acker for its copy, and with both signed versions the mover is convicted."""
    arena = Arena(tmp_path, players=3, seed=17, cheater=1)
    is_move = first_of(arena, 1, MsgType.MOVE)
    twins: dict[bytes, bytes] = {}

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm == 1 and to == 0 and is_move(raw):
            return twins.setdefault(raw, twin_of(arena.ids[1], raw, arena.machines[1].deck))
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


def test_split_shuffle_is_proven_by_the_next_step_and_blamed(tmp_path: Path) -> None:
    """The cheater shows peer 0 a shuffle with two ciphertexts swapped and peer 2 the real one:
    peer 0 refuses the swapped one (its proof no longer holds) and blames the shuffler, and the
    others stop on that proven blame. (Two versions that are both genuine proven shuffles are
    tested in test_table_shuffle_attacks.py: there the diverging heads convict the shuffler.)"""
    arena = Arena(tmp_path, players=3, seed=19, cheater=1)
    is_shuffle = first_of(arena, 1, MsgType.DECK_SHUFFLE)
    twins: dict[bytes, bytes] = {}

    def twin(raw: bytes) -> bytes:
        body = thaw(decode(raw).body)
        body["a"][0], body["a"][1] = body["a"][1], body["a"][0]
        body["c"][0], body["c"][1] = body["c"][1], body["c"][0]
        return resign(arena.ids[1], raw, body=body)

    def tamper(frm: int, to: int, raw: bytes) -> bytes:
        if frm == 1 and to == 0 and is_shuffle(raw):
            return twins.setdefault(raw, twin(raw))
        return raw

    arena.tamper = tamper
    arena.run()
    assert twins
    for k in arena.honest:
        aborted = arena.machines[k].aborted
        assert aborted is not None and aborted.seat == arena.seat(1), aborted


def test_wrong_head_is_a_divergence_nobody_can_be_blamed_for(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=18, cheater=1)
    key_msg = first_of(arena, 1, MsgType.DECK_KEY)
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


# ==================================================================== cheats at the table
def test_seat_nonce_not_matching_its_commitment(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=22, cheater=2)

    def mutate(body: dict[str, Any]) -> None:
        body["nonce"] = os.urandom(32)

    arena.tamper = rewrite(arena, 2, MsgType.SEAT_NONCE, mutate)
    arena.run()
    arena.assert_blamed(2, "seat nonce does not match its commitment", seat=2)


def test_tampered_decryption_share_is_blamed_on_its_sender(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=23, cheater=1)
    victim: list[int] = []

    def mutate(body: dict[str, Any]) -> None:
        batch = body["batches"][0]
        victim.append(batch["to"])
        batch["d"][2] = random_point()

    arena.tamper = rewrite(arena, 1, MsgType.DECK_SHARES, mutate)
    arena.run()
    (recipient,) = victim
    arena.assert_blamed(1, f"invalid decryption shares for seat {recipient}'s cards")


def test_tampered_share_in_a_card_opening_is_blamed(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=24, cheater=1)

    def mutate(body: dict[str, Any]) -> None:
        body["open"]["d"] = random_point()

    arena.tamper = rewrite(arena, 1, MsgType.MOVE, mutate)
    arena.run()
    arena.assert_blamed(1, "invalid decryption share proof")


def test_reveal_not_matching_the_commitment(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=25, cheater=1)

    def mutate(body: dict[str, Any]) -> None:
        body["seed"] = os.urandom(32)

    arena.tamper = rewrite(arena, 1, MsgType.DECK_REVEAL, mutate)
    arena.run()
    arena.assert_blamed(1, "revealed shuffle seed does not match its commitment")


def test_revealed_secret_not_matching_the_key(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=26, cheater=2)

    def mutate(body: dict[str, Any]) -> None:
        body["x"] = random_scalar(os.urandom)

    arena.tamper = rewrite(arena, 2, MsgType.DECK_REVEAL, mutate)
    arena.run()
    arena.assert_blamed(2, "revealed secret does not match its published key share")


def _not_leading(m: TableMachine) -> bool:
    rnd = m.game.round
    return rnd is not None and bool(rnd.plays) and not rnd.pending_sickles


def _send_move(m: TableMachine, token: str) -> list[bytes]:
    """Queue a MOVE without any check and without pumping (the cheater's own machine would
    refuse it): what a modified client sends."""
    m._send_own(MsgType.MOVE, _move_body(m, token))
    return m._drain()


def _move_body(m: TableMachine, token: str) -> dict[str, object]:
    return {"round": m.game.round_index, "move": token}


def _open_into_move(m: TableMachine, token: str, card: int) -> list[bytes]:
    """Open ``card`` (honestly) inside a move whose token says ``token``, unchecked."""
    assert m.codec is not None and m.deck is not None
    m.codec.carry(_move_body(m, token))
    m.deck.open_card(card)
    return m._drain()


class Cheat:
    """A cheating ``play``: behaves until ``attempt`` returns messages, then plays no more."""

    def __init__(self, attempt: Callable[[TableMachine, int], list[bytes] | None]) -> None:
        self.attempt = attempt
        self.done = False

    def __call__(self, m: TableMachine, move: int) -> list[bytes]:
        if not self.done:
            out = self.attempt(m, move)
            if out is not None:
                self.done = True
                return out
        return m.play(move)


def _domain_cards(m: TableMachine) -> list[int]:
    assert m.deck is not None
    opened = {o.card for o in m.deck.opened}
    return [c for c in m.deck.hand() if c < 60 and c not in opened]


def test_move_of_a_card_never_opened(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=27, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not _not_leading(m) or move >= 60:
            return None
        return _send_move(m, format_move(move))

    cheat = Cheat(attempt)
    arena.cheat_play = cheat
    arena.run()
    assert cheat.done
    arena.assert_blamed(1, "without opening that card")


def test_move_claiming_another_card_than_the_one_opened(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=28, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        cards = _domain_cards(m)
        if not _not_leading(m) or move >= 60 or len(cards) < 2:
            return None
        assert m.deck is not None
        other = next(c for c in cards if c != move)
        return _open_into_move(m, format_move(move), other)  # plays one card, shows another

    cheat = Cheat(attempt)
    arena.cheat_play = cheat
    arena.run()
    assert cheat.done
    arena.assert_blamed(1, "without opening that card")


def _forged_open(m: TableMachine, position: int, card: int) -> list[bytes]:
    """A move playing ``card`` that opens any position, with a valid share and proof from this
    seat's secret, unchecked."""
    deck = m.deck
    assert deck is not None
    d, e, s = deck._prepare_opening(position)  # a real share and proof, of any position
    return _sealed_opening(m, OpenMsg(deck.params.round_no, position, card, d, e, s))


def _sealed_opening(m: TableMachine, opening: OpenMsg) -> list[bytes]:
    """A move playing ``opening.card`` that carries ``opening`` as it is, unchecked."""
    assert m.deck is not None and m.codec is not None
    m.codec.carry(_move_body(m, format_move(opening.card)))
    m.deck._codec.seal(OpenMsg.KIND, opening.to_body())
    return m._drain()


def test_opening_a_position_dealt_to_another_seat(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=29, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not _not_leading(m) or move >= 60:
            return None
        assert m.deck is not None and m.my_seat is not None
        owner = (m.my_seat + 1) % 3
        return _forged_open(m, m.deck.positions(owner)[0], move)

    cheat = Cheat(attempt)
    arena.cheat_play = cheat
    arena.run()
    assert cheat.done
    arena.assert_blamed(1, "which was dealt to seat")


def test_opening_own_position_as_a_card_dealt_to_someone_else(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=30, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        rnd = m.game.round
        if not _not_leading(m) or rnd is None or rnd.lead_domain < 0:
            return None
        assert m.deck is not None and m.deck._hand is not None and m.my_seat is not None
        hand = set(m.deck.hand())
        seen = {o.card for o in m.deck.opened}
        wanted = [c for c in range(60) if c not in hand and c not in seen]
        card = max(wanted, key=lambda c: (c // 12 == rnd.lead_domain, c % 12))
        opened_positions = {o.position for o in m.deck.opened}
        mine = [p for p in m.deck.positions(m.my_seat) if p not in opened_positions]
        return _forged_open(m, mine[0], card)  # a real share of my position, claiming its card

    cheat = Cheat(attempt)
    arena.cheat_play = cheat
    arena.run()
    assert cheat.done
    arena.assert_blamed(1, "claimed card")


def test_a_made_up_share_is_acknowledged_then_convicted_by_its_proof(tmp_path: Path) -> None:
    """The cheater opens one of its positions with a share made up so that it decrypts to another
    card it wants to play. Everything but the Chaum-Pedersen proof agrees, so peers acknowledge
    the move first (the proof is the one check a receipt does not wait for) and then, before they
    look at anything else, the proof fails and convicts the cheater."""
    arena = Arena(tmp_path, players=3, seed=34, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not _not_leading(m) or move >= 60:
            return None
        deck = m.deck
        assert deck is not None and deck.final_deck is not None and deck._hand is not None
        opened = {o.position for o in deck.opened}
        j = next(p for p, c in deck._hand.items() if c != move and p not in opened)
        partial = decrypt_with(deck.final_deck.c[j], deck._others_shares(j, deck.seat))
        share = group.sub(partial, card_points(deck.params.num_cards)[move])
        one = (1).to_bytes(32, "little")
        out = _sealed_opening(m, OpenMsg(deck.params.round_no, j, move, share, one, one))
        forged.extend(decode(raw).hash for raw in out)
        return out

    forged: list[bytes] = []
    acknowledged: set[int] = set()

    def watch(frm: int, to: int, raw: bytes) -> bytes:
        if is_receipt(raw) and decode_receipt(raw).msg in forged:
            acknowledged.add(frm)
        return raw

    cheat = Cheat(attempt)
    arena.cheat_play = cheat
    arena.tamper = watch
    arena.run()
    assert cheat.done
    arena.assert_blamed(1, "invalid decryption share proof")
    assert acknowledged and acknowledged <= set(arena.honest)


def test_move_out_of_turn_during_play(tmp_path: Path) -> None:
    """While another seat is to move, the cheater moves too: its move is built on the head of a
    step that is not its own, which is signed proof of a move out of turn."""
    arena = Arena(tmp_path, players=3, seed=31, cheater=1)
    done: list[bytes] = []

    def before_move(k: int) -> None:
        c = arena.machines[1]
        if done or k == 1 or not _not_leading(c) or c.own_pending_in_step():
            return
        card = _domain_cards(c)[0]
        raw = c.chain.seal(
            MsgType.MOVE, {"round": c.game.round_index, "move": format_move(card)}, c.step_head
        )
        done.append(raw)
        arena.broadcast(1, [raw])

    arena.before_move = before_move
    arena.run()
    assert done
    arena.assert_blamed(1, "sent move out of turn")


def test_lead_by_a_seat_without_gaia(tmp_path: Path) -> None:
    """The Gaia holder shows Gaia at ready, so the lead step names it: a first card opened by
    any other seat is a move out of turn, blamed by everyone with the signed move."""
    arena = Arena(tmp_path, players=3, seed=32, cheater=1)
    arena.run(
        stop=lambda: all(m.step is not None and m.step.name == "lead" for m in arena.machines)
    )
    holder = next(k for k, m in enumerate(arena.machines) if GAIA in m.deck.hand())  # type: ignore[union-attr]
    assert all(m.gaia_holder == arena.ids[holder].public_key for m in arena.machines)
    cheater = next(k for k in range(3) if k != holder)
    arena.cheater = cheater
    c = arena.machines[cheater]
    assert c.deck is not None
    card = _domain_cards(c)[0]
    (move_raw,) = _open_into_move(c, format_move(card), card)
    bystander = next(k for k in range(3) if k not in (holder, cheater))
    arena.deliver(bystander, move_raw)  # the bystander hears it before the Gaia holder's lead
    arena.broadcast(cheater, [move_raw])
    arena.run()
    assert "out of turn" in arena.faults[bystander].reason
    arena.assert_blamed(cheater, "out of turn")


def test_a_seat_signing_another_result_than_the_game_gives_is_blamed(tmp_path: Path) -> None:
    """The result step (protocol.md §7): a seat whose signed totals differ from what the record
    gives is blamed by every peer, with its signed result as evidence."""

    def mutate(body: dict[str, Any]) -> None:
        body["totals"][0] += 1

    arena = Arena(tmp_path, players=3, seed=33, cheater=2)
    arena.tamper = rewrite(arena, 2, MsgType.RESULT, mutate)
    arena.run()
    arena.assert_blamed(2, "signed the result totals")


def test_a_move_spelled_other_than_its_canonical_token_is_blamed(tmp_path: Path) -> None:
    """`Gaia:R:dark` names the same lead as `Gaia:R` in the JSON notation, but a signed move has
    one spelling (protocol.md appendix A): a second spelling is refused and blamed on its signer."""
    arena = Arena(tmp_path, players=3, seed=32, cheater=1)
    arena.run(
        stop=lambda: all(m.step is not None and m.step.name == "lead" for m in arena.machines)
    )
    holder = next(k for k, m in enumerate(arena.machines) if GAIA in m.deck.hand())  # type: ignore[union-attr]
    arena.cheater = holder
    arena.broadcast(holder, _send_move(arena.machines[holder], "Gaia:R:dark"))
    arena.run()
    arena.assert_blamed(holder, "'Gaia:R:dark' is not a canonical move token")


class LaxRound(Round):
    """The cheater's own rules check, which lets it renege (not follow while it could)."""

    __slots__ = ()

    def check(self, move: int) -> str | None:
        reason = super().check(move)
        return None if reason is not None and "does not follow" in reason else reason


def test_renege_is_caught_at_the_end_of_round_audit(tmp_path: Path) -> None:
    """Nobody can see a renege live (hands are hidden); the audit replays the round with every
    hand known and blames the seat that did not follow."""
    arena = Arena(tmp_path, players=3, seed=33, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        rnd = m.game.round
        if not _not_leading(m) or rnd is None or rnd.lead_domain < 0:
            return None
        cards = _domain_cards(m)
        led = [c for c in cards if c // 12 == rnd.lead_domain]
        off = [c for c in cards if c // 12 != rnd.lead_domain]
        if not led or not off:
            return None
        rnd.__class__ = LaxRound
        return m.play(off[0])

    cheat = Cheat(attempt)
    arena.cheat_play = cheat
    arena.run()
    assert cheat.done
    for k in arena.honest:  # the round was played out: the cheat went unnoticed until the end
        assert arena.machines[k].game.round.over  # type: ignore[union-attr]
    arena.assert_blamed(1, "does not follow")
    assert any("audit" in arena.faults[k].reason for k in arena.honest if k in arena.faults)


# ==================================================================== fuzzing the runner
TABLE_TYPES = [
    MsgType.SEAT_CONFIRM,
    MsgType.SEAT_NONCE,
    MsgType.DECK_COMMIT,
    MsgType.DECK_KEY,
    MsgType.DECK_SHUFFLE,
    MsgType.DECK_SHARES,
    MsgType.DECK_OPEN,
    MsgType.DECK_REVEAL,
    MsgType.MOVE,
    MsgType.RESEND,
    MsgType.EQUIVOCATION,
    MsgType.ABORT,
    MsgType.HELLO,
    MsgType.JOIN,
    MsgType.ROUND_REVEAL,
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
        body[key] = rng.choice(("G1", "Gaia:R", "Pile:B", "Mistletoe", "Sickle", "V12", "zz"))
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
            if not is_receipt(raw):
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
            MsgType.HELLO: [{"name": "fuzz", "client": "fuzz/1"}],
            MsgType.JOIN: [{"name": "fuzz"}],
            MsgType.ROUND_REVEAL: [{"round": 0, "hand": ["G1", "Gaia"]}],
        }
        return found + extra.get(msg_type, [])

    def message(self, m: TableMachine, k: int) -> bytes:
        """A fuzzed message signed by seat-list index k (b"" if none could be made)."""
        rng, ident = self.rng, self.arena.ids[k]
        if rng.random() < 0.1:  # a receipt: of a real or made-up message, after a real head
            msg_hash = rng.choice([rng.choice(self.seen)[1].hash, os.urandom(32)])
            return encode_receipt(rng.choice(m.heads), msg_hash)
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
        for msg in original.transcript.messages:
            memo[id(msg)] = msg  # immutable: share, do not copy
        machine = copy.deepcopy(original, memo)
        runner = TableRunner(
            PeerConfig(home=arena.runners[j].config.home, identity=arena.ids[j]),
            cast(Any, _NullMesh()),
            machine,
            arena.runners[j].state,
            Player(),
        )
        allowed: set[int | None] = {None}
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
    """Whatever a runner sends must itself be a valid message or receipt."""
    if is_receipt(payload):
        decode_receipt(payload)
    else:
        decode(payload)


class _NullMesh:
    def broadcast(self, payload: bytes, exclude: Iterable[bytes] = ()) -> None:
        _valid(payload)

    def send(self, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
        _valid(payload)
        return True

    def poll(self, timeout_ms: int, limit: int = 256) -> list[Any]:
        return []


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
            for _ in range(4):
                fuzzer.hit(fuzzer.rng.randrange(3))
        return False

    arena.run(stop=stop)
    assert all(m.finished for m in arena.machines)  # the copies never touched the real game
    assert fuzzer.cases > 200, fuzzer.cases
    assert set(fuzzer.outcomes) >= {"fault", "bad", "accepted"}, fuzzer.outcomes
    print(fuzzer.cases, fuzzer.outcomes)


def test_a_player_who_leaves_stops_the_table_with_the_reason_recorded(tmp_path: Path) -> None:
    """Leaving is not cheating: the table stops, blaming nobody, and every record says why."""
    arena = Arena(tmp_path, players=3, seed=40, cheater=None)  # type: ignore[arg-type]
    arena.run_to_play()

    class Leaving(Player):
        def wants_to_leave(self) -> bool:
            return True

    leaver = arena.runners[2]
    leaver.player = Leaving()
    with pytest.raises(TableFault) as stop:
        leaver._tick()
    leaver._abort(stop.value)
    assert stop.value.seat is None and "left the table" in stop.value.reason
    arena.run()
    for k in (0, 1):
        aborted = arena.machines[k].aborted
        assert aborted is not None and aborted.seat is None and "left the table" in aborted.reason
    last = arena.machines[2].transcript.messages[-1]
    assert last.type is MsgType.ABORT and "left the table" in last.body["reason"]
