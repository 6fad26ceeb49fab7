"""Links come from each peer's own word: attacks on the seat list, the endpoints, the inbox gate and
``resend``, against real table machines, a real TableRunner and real ZeroMQ sockets (loopback).

* A host that lists, for a joiner, a CURVE key or endpoint of its own is blamed from its seat
  message alone (the joiner's own signed join, which the seat message must quote, says otherwise),
  before anything is sent over the false link; a joiner whose confirmation contradicts its own join
  is blamed itself (it cannot frame the host).
* Endpoints are ``tcp://`` on the table's network only, in a join, a seat message and a
  confirmation.
* A connection made while the inbox gate was open delivers nothing once it has closed, and is
  not kept.
* ``resend`` answers are bounded and rate-limited per requesting seat (a fake clock drives it).
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any

import pytest
import zmq
from table_harness import LocalTable

from druids_p2p.audit.audit import audit_messages
from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.lan.discovery import LOBBY_ID_SIZE, TableInfo, encode_beacon
from druids_p2p.lan.lobby import Lobby, join_table
from druids_p2p.lan.mesh import Inbound, Mesh
from druids_p2p.lan.network import EndpointError, TableNetwork, parse_endpoint
from druids_p2p.lan.peer_config import HostSpec, PeerConfig, PeerError, Player, TableView
from druids_p2p.lan.seating import make_join, make_seat_message
from druids_p2p.peer import liveness
from druids_p2p.peer.homes import HomeTable
from druids_p2p.peer.links import (
    RESEND_BURST,
    RESEND_MAX_MESSAGES,
    RESEND_PER_S,
    Links,
    ResendLimiter,
)
from druids_p2p.peer.runner import TableRunner
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault, TableSecret
from druids_p2p.wire import ZERO_HASH, Identity, MsgType, Transcript, decode, encode

LOOPBACK = TableNetwork.of_address("127.0.0.1")


# ==================================================================== the seat list
def _reseat(table: LocalTable, seats: list[Any], joins: list[bytes] | None) -> None:
    """Found ``table`` again on another seat message from its host (same seats and keys)."""
    options = table.machines[0].options
    table.seat_raw = make_seat_message(table.ids[0], seats, options, joins=joins)
    table.seat_msg = decode(table.seat_raw)
    table.machines = [table._machine(k) for k in range(len(table.ids))]


def _start_all(table: LocalTable) -> dict[int, TableFault]:
    """Every machine starts and hears every other's confirmation; what each one stops on. A
    machine that stops on its own confirmation still sends it (as ``TableRunner._abort`` does:
    its own messages go out before its abort)."""
    faults: dict[int, TableFault] = {}
    sent: dict[int, list[bytes]] = {}
    for k, machine in enumerate(table.machines):
        try:
            sent[k] = machine.start()
        except TableFault as fault:
            faults[k] = fault
            sent[k] = [msg.raw for _, msg in sorted(machine.pending[machine.me].items())]
    for k, machine in enumerate(table.machines):
        for j, raws in sent.items():
            for raw in raws if j != k and k not in faults else []:
                try:
                    machine.receive(decode(raw))
                except TableFault as fault:
                    faults[k] = fault
                    break
    return faults


@pytest.mark.parametrize("quote_joins", [True, False])
def test_a_host_listing_its_own_key_for_a_joiner_is_blamed_by_every_peer(
    quote_joins: bool,
) -> None:
    """The host lists a CURVE key and inbox of its own for joiner 1 (with joiner 1's real join
    quoted, or no joins at all): every peer, the joiner too, blames the host (list index 0) from
    the signed seat message alone, before a single message goes over the false link."""
    table = LocalTable(players=3)
    decoy = Mesh("127.0.0.1")  # the host's own second inbox, listed as joiner 1's
    try:
        seats = list(table.seats)
        key, name, _, _ = seats[1]
        seats[1] = (key, name, decoy.endpoint, decoy.curve_public_raw)
        _reseat(table, seats, table.joins[1:] if quote_joins else None)
        faults = _start_all(table)
    finally:
        decoy.close()
    assert sorted(faults) == [0, 1, 2]
    for fault in faults.values():
        assert fault.seat == 0, fault.reason
        assert fault.evidence == (table.seat_raw,)
        assert "seat message is refused" in fault.reason


def test_a_seat_list_naming_one_curve_key_for_two_seats_is_blamed_on_the_host() -> None:
    """Joiner 2 joins claiming joiner 1's CURVE key (its own signed word, quoted). A link is
    known by its CURVE key alone, so one key for two seats would book joiner 1's frames, and
    its liveness, to joiner 2: the host must refuse such a join, and every peer blames a host
    that seats it, from the seat message alone."""
    table = LocalTable(players=3)
    seats = list(table.seats)
    key, name, endpoint, _ = seats[2]
    seats[2] = (key, name, endpoint, seats[1][3])
    joins = list(table.joins[1:])
    joins[1] = make_join(table.ids[2], decode(joins[1]).table_id, endpoint, seats[1][3])
    _reseat(table, seats, joins)
    faults = _start_all(table)
    assert sorted(faults) == [0, 1, 2]
    for fault in faults.values():
        assert fault.seat == 0, fault.reason
        assert "one CURVE key for two seats" in fault.reason
    report = audit_messages([table.seat_raw])
    assert report.problem is not None and report.problem.seat == 0, report.problem
    assert "one CURVE key for two seats" in report.problem.error


def test_a_joiner_contradicting_its_own_join_is_blamed_not_the_host() -> None:
    """Joiner 2 joins with one inbox and confirms another: the seat message quotes its join, so
    its confirmation convicts it (it cannot get the host blamed by changing its word)."""
    table = LocalTable(players=3)
    key, _, _, curve = table.seats[2]
    table.machines[2] = TableMachine(
        table.ids[2], table.seat_msg, table.secrets[2], "tcp://127.0.0.1:7999", curve
    )
    faults = _start_all(table)
    assert faults[0].seat == faults[1].seat == 2
    assert faults[0].evidence[0] == table.seat_raw
    assert decode(faults[0].evidence[1]).sender == key
    assert "its own signed join does not" in faults[0].reason


@pytest.mark.parametrize(
    "endpoint",
    [
        "ipc:///tmp/druids-evil",
        "inproc://druids",
        "tcp://10.1.2.3:5000",  # another network than the table's (loopback); never connected to
        "tcp://localhost:5000",  # a name, which DNS would decide
        "tcp://127.255.255.255:5000",
    ],
)
def test_a_confirmation_naming_an_endpoint_off_the_table_network_is_blamed(endpoint: str) -> None:
    """Joiner 1 joined and confirms with that endpoint (so the seat message lists it): the
    others refuse its confirmation, blaming it, with the reason."""
    table = LocalTable(players=3)
    seats = list(table.seats)
    key, name, _, curve = seats[1]
    seats[1] = (key, name, endpoint, curve)
    offer = decode(table.joins[1]).table_id
    joins = [make_join(table.ids[1], offer, endpoint, curve), table.joins[2]]
    _reseat(table, seats, joins)
    table.machines[1] = TableMachine(
        table.ids[1], table.seat_msg, table.secrets[1], endpoint, curve, None, LOOPBACK
    )
    faults = _start_all(table)
    for k in (0, 2):
        assert faults[k].seat == 1
        assert "seat confirmation is refused" in faults[k].reason
        assert repr(endpoint) in faults[k].reason


def test_endpoint_rules() -> None:
    assert parse_endpoint("tcp://127.0.0.1:4000") == (ipaddress.IPv4Address("127.0.0.1"), 4000)
    for bad in ("tcp://127.0.0.1", "tcp://127.0.0.1:0", "tcp://127.0.0.1:070", "udp://1.2.3.4:5"):
        with pytest.raises(EndpointError):
            parse_endpoint(bad)
    assert LOOPBACK.refusal("tcp://127.3.4.5:4000") is None
    lan = TableNetwork(ipaddress.IPv4Network("10.77.0.0/24"))
    assert lan.refusal("tcp://10.77.0.9:4000") is None
    assert "not on this table's network" in str(lan.refusal("tcp://10.77.1.9:4000"))
    assert "not on this table's network" in str(lan.refusal("tcp://127.0.0.1:4000"))
    assert "broadcast" in str(lan.refusal("tcp://10.77.0.255:4000"))
    with pytest.raises(EndpointError):
        TableNetwork.of_address("0.0.0.0")


# ==================================================================== a join to a real lobby
def _lobby(tmp_path: Path) -> tuple[Lobby, Mesh]:
    host = Identity.generate("host")
    mesh = Mesh("127.0.0.1")
    config = PeerConfig(home=tmp_path, identity=host, announce=False)
    return Lobby(config, mesh, HostSpec("t", GameOptions(players=3))), mesh


@pytest.mark.parametrize("endpoint", ["ipc:///tmp/druids-evil", "tcp://10.1.2.3:5000"])
def test_a_join_naming_an_endpoint_off_the_table_network_is_refused(
    tmp_path: Path, endpoint: str
) -> None:
    """Over real sockets: the host answers the join with an abort naming the reason and does
    not seat it (nothing ever connects to the endpoint: the host connects only once seated)."""
    lobby, host_mesh = _lobby(tmp_path)
    joiner = Identity.generate("joiner")
    mesh = Mesh("127.0.0.1")
    try:
        mesh.connect(b"host", host_mesh.endpoint, host_mesh.curve_public_raw)
        mesh.watch_dealer(b"host")
        mesh.send(b"host", make_join(joiner, lobby.table_id, endpoint, mesh.curve_public_raw))
        answer: Inbound | None = None
        for _ in range(200):  # bounded: the host answers within a few polls
            for inbound in host_mesh.poll(20):
                lobby._on_join(inbound.routing_id, inbound.payload)
            replies = mesh.poll(20)
            if replies:
                answer = replies[0]
                break
        assert answer is not None, "the host never answered"
        reply = decode(answer.payload)
        assert reply.type is MsgType.ABORT and reply.table_id == lobby.table_id
        assert "join refused" in reply.body["reason"] and repr(endpoint) in reply.body["reason"]
        assert [s[0] for s in lobby.seats] == [lobby.identity.public_key]
    finally:
        lobby.close()
        mesh.close()
        host_mesh.close()


def test_a_join_claiming_a_seated_curve_key_is_refused(tmp_path: Path) -> None:
    """Over real sockets: a join naming the CURVE key of a seat already taken (here the host's)
    is answered with an abort and not seated."""
    lobby, host_mesh = _lobby(tmp_path)
    joiner = Identity.generate("joiner")
    mesh = Mesh("127.0.0.1")
    try:
        mesh.connect(b"host", host_mesh.endpoint, host_mesh.curve_public_raw)
        mesh.watch_dealer(b"host")
        join = make_join(joiner, lobby.table_id, mesh.endpoint, host_mesh.curve_public_raw)
        mesh.send(b"host", join)
        answer: Inbound | None = None
        for _ in range(200):  # bounded: the host answers within a few polls
            for inbound in host_mesh.poll(20):
                lobby._on_join(inbound.routing_id, inbound.payload)
            replies = mesh.poll(20)
            if replies:
                answer = replies[0]
                break
        assert answer is not None, "the host never answered"
        reason = decode(answer.payload).body["reason"]
        assert reason == "join refused: another seat has that CURVE key", reason
        assert [s[0] for s in lobby.seats] == [lobby.identity.public_key]
    finally:
        lobby.close()
        mesh.close()
        host_mesh.close()


# ==================================================================== the inbox gate
def _frames_until(inbox: Mesh, marker: bytes, also: Any = None) -> list[bytes]:
    """Everything the inbox delivers until ``marker`` arrives and ``also()`` holds (bounded)."""
    seen: list[bytes] = []
    for _ in range(300):
        seen += [i.payload for i in inbox.poll(20)]
        if marker in seen and (also is None or also()):
            return seen
    raise AssertionError(f"{marker!r} never arrived (saw {seen!r})")


def test_a_connection_made_before_the_gate_closed_delivers_nothing_after() -> None:
    """A stranger connects while the gate is open (before seating) and sends; the gate closes to
    the seated key: nothing the stranger sends from then on is delivered, its connection is
    dropped and its reconnection refused, while the seated peer's link comes back."""
    inbox = Mesh("127.0.0.1")
    seated = Mesh("127.0.0.1")
    stranger = Mesh("127.0.0.1")
    try:
        for peer in (seated, stranger):
            peer.connect(b"inbox", inbox.endpoint, inbox.curve_public_raw)
        events = stranger.link_events.setdefault(b"inbox", [])

        def refused() -> bool:
            stranger.poll(0)  # reads its DEALER's monitor (and replaces a dropped DEALER)
            return zmq.EVENT_HANDSHAKE_FAILED_AUTH in events

        stranger.send(b"inbox", b"before")
        assert b"before" in _frames_until(inbox, b"before")  # the gate was open
        inbox.close_gate([seated.curve_public_raw])
        assert inbox.rebinds == 1
        for n in range(3):
            stranger.send(b"inbox", b"after %d" % n)
        seen: list[bytes] = []
        for n in range(50):  # the seated peer reconnects; a message sent meanwhile may be lost
            seated.send(b"inbox", b"seated %d" % n)
            try:
                seen += _frames_until(inbox, b"seated %d" % n, refused)
                break
            except AssertionError:
                continue
        assert refused(), events
        assert zmq.EVENT_DISCONNECTED in events
        assert not [f for f in seen if f.startswith(b"after")], seen
        stranger.send(b"inbox", b"late")
        seated.send(b"inbox", b"marker")
        assert b"late" not in _frames_until(inbox, b"marker")
    finally:
        for mesh in (inbox, seated, stranger):
            mesh.close()


# ==================================================================== resend
class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_resend_flood_is_answered_bounded_and_rate_limited(tmp_path: Path) -> None:
    """A seated peer asks for the whole transcript 50 times at once: a real TableRunner answers
    the first RESEND_BURST requests with RESEND_MAX_MESSAGES frames each and drops the rest; a
    second later it answers RESEND_PER_S more."""
    table = LocalTable(players=3, rounds=3, seed=1)
    table.run()
    machine = table.machines[0]
    assert len(machine.transcript.messages) > RESEND_MAX_MESSAGES + 1
    asker = table.ids[1]
    runner_mesh = Mesh("127.0.0.1")
    receiver = Mesh("127.0.0.1")
    clock = FakeClock()
    try:
        runner_mesh.connect(asker.public_key, receiver.endpoint, receiver.curve_public_raw)
        config = PeerConfig(home=tmp_path, identity=table.ids[0])
        runner = TableRunner(config, runner_mesh, machine, HomeTable(tmp_path / "t"), Player())
        runner.resends.limiter = ResendLimiter(clock=clock)
        request = encode(
            asker,
            MsgType.RESEND,
            table_id=machine.table_id,
            seq=0,
            prev=ZERO_HASH,
            head=ZERO_HASH,
            body={"head": machine.heads[1]},
        )

        def flood(times: int, marker: bytes) -> int:
            for _ in range(times):
                runner._on_message(request, asker.public_key)
            runner_mesh.send(asker.public_key, marker)  # one link keeps its order
            frames = _frames_until(receiver, marker)
            return len(frames) - 1

        assert flood(50, b"end 1") == RESEND_BURST * RESEND_MAX_MESSAGES
        clock.now += 1.0
        assert flood(50, b"end 2") == int(RESEND_PER_S) * RESEND_MAX_MESSAGES
        assert runner.resends.limiter.refused == 100 - RESEND_BURST - int(RESEND_PER_S)
        assert runner.bad_messages == 0  # asking too often is no fault, only unanswered
    finally:
        runner_mesh.close()
        receiver.close()


def test_the_rate_limit_refills_and_is_per_peer() -> None:
    clock = FakeClock()
    limiter = ResendLimiter(burst=2, per_s=1.0, clock=clock)
    assert [limiter.allow(b"a") for _ in range(3)] == [True, True, False]
    assert limiter.allow(b"b")  # another peer has its own bucket
    clock.now += 0.5
    assert not limiter.allow(b"a")
    clock.now += 0.5
    assert limiter.allow(b"a") and not limiter.allow(b"a")
    clock.now += 100.0
    assert [limiter.allow(b"a") for _ in range(3)] == [True, True, False]  # capped at the burst


# ==================================================================== druids audit
def test_audit_blames_the_host_for_a_seat_list_that_is_not_the_seats_word() -> None:
    """What an honest peer records when it stops on a substituted seat list (the seat message,
    its own confirmation, its abort): the audit names the host, at the seat message."""
    table = LocalTable(players=3)
    seats = list(table.seats)
    key, name, _, _ = seats[2]
    seats[2] = (key, name, "tcp://127.0.0.1:7999", bytes(32))
    _reseat(table, seats, table.joins[1:])
    machine = table.machines[1]
    with pytest.raises(TableFault):
        machine.start()
    own = [msg.raw for _, msg in sorted(machine.pending[machine.me].items())]
    record = Transcript.start(table.seat_raw)
    for raw in own:
        record.append(raw)
    abort = machine.chain.seal(MsgType.ABORT, {"reason": "seat list", "seat": 0}, record.head)
    report = audit_messages([table.seat_raw, *own, abort])
    assert report.stop is not None and report.stop.checked, report.problem
    assert report.stop.message_index == 0 and report.stop.seat == 0, report.stop
    assert "own signed join does not say" in report.stop.summary
    without_its_stop = audit_messages([table.seat_raw, *own])  # it stops at its own confirm
    assert without_its_stop.verdict == "invalid"


def test_audit_blames_a_confirmation_that_contradicts_its_signers_join() -> None:
    table = LocalTable(players=3)
    _, _, _, curve = table.seats[2]
    liar = TableMachine(
        table.ids[2], table.seat_msg, table.secrets[2], "tcp://127.0.0.1:7999", curve
    )
    with pytest.raises(TableFault):
        liar.start()  # it checks its own confirmation too
    (confirm,) = liar.pending[liar.me].values()
    report = audit_messages([table.seat_raw, confirm.raw])
    assert report.problem is not None
    assert report.problem.message_index == 1 and report.problem.seat == 2, report.problem


# ==================================================================== links from confirmations
def test_links_come_from_the_confirmations_and_then_shut_strangers_out() -> None:
    """Three real machines and meshes: at the start the gate closes to the listed keys (the
    seats' own joins) but nothing is booked to anybody; once every confirmation is in, each
    peer's link map is exactly the confirmed CURVE keys and the gate refuses a stranger."""
    ids = [Identity.generate(f"p{k}") for k in range(3)]
    meshes = [Mesh("127.0.0.1") for _ in ids]
    stranger = Mesh("127.0.0.1")
    try:
        offer = os.urandom(32)
        seats = [
            (i.public_key, i.name, m.endpoint, m.curve_public_raw)
            for i, m in zip(ids, meshes, strict=True)
        ]
        joins = [make_join(i, offer, s[2], s[3]) for i, s in zip(ids, seats, strict=True)]
        seat = decode(make_seat_message(ids[0], seats, GameOptions(players=3), joins=joins[1:]))
        machines = [
            TableMachine(i, seat, TableSecret(os.urandom(32)), m.endpoint, m.curve_public_raw)
            for i, m in zip(ids, meshes, strict=True)
        ]
        links = [Links(m, machine) for m, machine in zip(meshes, machines, strict=True)]
        for link in links:
            link.start()
        listed = {m.curve_public_raw for m in meshes}
        for link, mesh in zip(links, meshes, strict=True):  # the list is every seat's own word:
            assert not link.settled and not link.key_of_link  # the gate closes to it at once,
            assert not mesh.gate.open and mesh.gate.allowed_raw == listed  # nothing is booked
        for mesh, machine in zip(meshes, machines, strict=True):
            for raw in machine.start():
                mesh.broadcast(raw)
        for _ in range(500):  # bounded: the seating takes a few round trips on loopback
            if all(link.settled for link in links):
                break
            for mesh, machine, link in zip(meshes, machines, links, strict=True):
                for inbound in mesh.poll(10):
                    for raw in machine.receive(decode(inbound.payload)):
                        mesh.broadcast(raw)
                link.update()
        confirmed = {m.curve_public_raw: i.public_key for i, m in zip(ids, meshes, strict=True)}
        for link, mesh in zip(links, meshes, strict=True):
            assert link.settled and link.key_of_link == confirmed
            assert not mesh.gate.open
            assert mesh.rebinds == 0  # nobody else had connected: no link was dropped
        stranger.connect(b"p0", meshes[0].endpoint, meshes[0].curve_public_raw)
        events = stranger.link_events.setdefault(b"p0", [])
        for _ in range(200):
            stranger.poll(50)  # reads its DEALER's monitor
            if zmq.EVENT_HANDSHAKE_FAILED_AUTH in events:
                break
        assert zmq.EVENT_HANDSHAKE_FAILED_AUTH in events, events
        assert zmq.EVENT_HANDSHAKE_SUCCEEDED not in events
    finally:
        for mesh in (*meshes, stranger):
            mesh.close()


# ==================================================================== catching up in batches
class _Waiting(Player):
    """A seat that never moves (the peer under test only catches up)."""

    def poll(self, table: TableView) -> int | None:
        return None


def test_a_peer_far_behind_catches_up_in_full_answers_without_waiting_for_a_nudge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Peer 1, from a snapshot early in a long game, asks peer 0 (finished) once: it receives
    128 frames, asks again from its new head at once, and so on until it holds the whole game.
    Nudges are switched off, so only the catch-up can have asked again."""
    monkeypatch.setattr(liveness, "NUDGE_AFTER_S", 1e9)
    table = LocalTable(players=3, rounds=3, seed=1)  # 184 messages: two answers of 128 at most
    table.run(stop=lambda: len(table.machines[1].transcript.messages) >= 20)
    early = list(table.machines[1].transcript.messages)
    table.run()
    # Peer 1 as it was then: a machine rebuilt from that early record, as a restart rebuilds it
    # (its card table's keys, shuffles and shares are made again from its table secret).
    behind = table._machine(1, Transcript(table.seat_msg))
    behind.load_record(early)
    behind.start()
    replayed = [m.raw for m in behind.transcript.messages]
    assert replayed[: len(early)] == [m.raw for m in early]
    ahead = table.machines[0]
    assert ahead.finished and len(ahead.transcript.messages) > 20 + RESEND_MAX_MESSAGES
    mesh_a = Mesh("127.0.0.1")
    mesh_b = Mesh("127.0.0.1")
    try:
        mesh_a.connect(table.ids[1].public_key, mesh_b.endpoint, mesh_b.curve_public_raw)
        mesh_b.connect(table.ids[0].public_key, mesh_a.endpoint, mesh_a.curve_public_raw)
        runner_a = TableRunner(
            PeerConfig(home=tmp_path / "a", identity=table.ids[0]),
            mesh_a,
            ahead,
            HomeTable(tmp_path / "a"),
            _Waiting(),
        )
        runner_b = TableRunner(
            PeerConfig(home=tmp_path / "b", identity=table.ids[1]),
            mesh_b,
            behind,
            HomeTable(tmp_path / "b"),
            _Waiting(),
        )
        # The harness's seat list names no real sockets: this link is set by hand, as settled.
        runner_b.key_of_link[mesh_a.curve_public_raw] = table.ids[0].public_key
        runner_b.links.settled = True
        runner_b._ask_resend(table.ids[0].public_key)
        answered = 0
        for _ in range(20_000):  # bounded; each pass moves at most a few frames, or none yet
            if behind.finished:
                break
            for inbound in mesh_a.poll(5):
                raw = inbound.payload
                if decode(raw).type is MsgType.RESEND:
                    answered += 1
                runner_a._on_message(raw, table.ids[1].public_key)
            runner_b._tick()
        assert behind.finished and behind.transcript.head == ahead.transcript.head
        needed = len(ahead.transcript.messages) - 20
        assert answered >= -(-needed // RESEND_MAX_MESSAGES), answered
    finally:
        mesh_a.close()
        mesh_b.close()


def test_a_beacon_naming_an_endpoint_off_the_table_network_is_refused(tmp_path: Path) -> None:
    """``druids join NAME`` joins with a heard beacon directly: one naming an inbox off the
    table's network is refused before anything connects to it. (Beacons already carry only
    ``tcp://IPv4:port``. The table's network is narrowed to 127.0.0.0/24 here so that the
    foreign address, 127.1.2.3, is still on loopback should the check ever be lost.)"""
    endpoint = "tcp://127.1.2.3:5000"
    host = Identity.generate("host")
    info = TableInfo(
        name="t", endpoint=endpoint, curve_key=bytes(32), players=3, variant=False, rounds=1
    )
    beacon = encode_beacon(host, info, bytes(LOBBY_ID_SIZE), 1)
    joiner = Identity.generate("joiner")
    mesh = Mesh("127.0.0.1")
    mesh.network = TableNetwork(ipaddress.IPv4Network("127.0.0.0/24"))
    try:
        config = PeerConfig(home=tmp_path, identity=joiner)
        with pytest.raises(PeerError, match="announcement is refused") as refused:
            join_table(config, mesh, beacon)
        assert repr(endpoint) in str(refused.value) and "127.0.0.0/24" in str(refused.value)
        assert not mesh.peers  # no DEALER was opened
    finally:
        mesh.close()
