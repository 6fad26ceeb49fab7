"""The host's door: it approves or refuses each joiner, and names at one table are unique.

Real lobbies over loopback: the host's ``Lobby`` and each joiner's ``join_table`` run in threads,
each with its own ZeroMQ mesh, exactly as ``run_peer`` uses them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.lan.discovery import decode_beacon
from druids_p2p.lan.listener import parse_pin
from druids_p2p.lan.lobby import Lobby, join_table, seat_entries
from druids_p2p.lan.mesh import Inbound, Mesh
from druids_p2p.lan.peer_config import HostSpec, PeerConfig, PeerError
from druids_p2p.lan.seating import (
    CLOSED_NOTE,
    MAX_REFUSED,
    REFUSED_REASON,
    Admission,
    Door,
    JoinRequest,
    closed_reason,
    terminal_approver,
    unique_name,
)
from druids_p2p.wire import PROTOCOL_VERSION, decode
from druids_p2p.wire.identity import Identity

BOUND_S = 30.0
"""Upper bound of every wait (a hung lobby fails the test instead of hanging it)."""


def _identity(seed: int, name: str) -> Identity:
    return Identity.from_seed(bytes([seed]) * 32, name)


@dataclass
class Host:
    """A host's lobby in a thread; ``events`` are what it emitted."""

    tmp: Path
    identity: Identity
    players: int
    approve: Callable[[JoinRequest], bool] | None = None
    allow: tuple[str, ...] = ()
    open: bool = True
    """Most tests here are about names and approval, not the door: their table is open."""
    lobby_timeout_s: float = BOUND_S
    events: list[dict[str, Any]] = field(default_factory=list)
    seat_raw: bytes | None = None
    error: BaseException | None = None
    changed: threading.Condition = field(default_factory=threading.Condition)

    def emit(self, event: dict[str, Any]) -> None:
        with self.changed:
            self.events.append(event)
            self.changed.notify_all()

    def wait_for(self, count: int, kinds: tuple[str, ...] = ("joined", "refused")) -> None:
        with self.changed:
            ok = self.changed.wait_for(
                lambda: sum(e["event"] in kinds for e in self.events) >= count, BOUND_S
            )
        assert ok, self.events

    def start(self) -> bytes:
        self.mesh = Mesh("127.0.0.1")
        config = PeerConfig(
            home=self.tmp / "host",
            identity=self.identity,
            announce=False,
            lobby_timeout_s=self.lobby_timeout_s,
            emit=self.emit,
            approve_join=self.approve,
            allow_joins=self.allow,
            open_table=self.open and self.approve is None and not self.allow,
        )
        spec = HostSpec("t", GameOptions(players=self.players, rounds=1))
        self.lobby = Lobby(config, self.mesh, spec)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        return self.lobby.announcement()

    def _run(self) -> None:
        try:
            seat_raw = self.lobby.run()
            for key, _, endpoint, curve in seat_entries(decode(seat_raw)):
                if key != self.identity.public_key:
                    self.mesh.connect(key, endpoint, curve)
                    self.mesh.send(key, seat_raw)
            self.seat_raw = seat_raw
        except BaseException as exc:  # reported by the test
            self.error = exc

    def finish(self) -> None:
        self.thread.join(BOUND_S)
        self.mesh.close()


class DroppingMesh(Mesh):
    """A joiner's mesh whose link drops with the first message it queues (its join): the DEALER
    is renewed as after any dropped connection (``Mesh._renew``), and what it held is lost."""

    dropping: bytes | None = None
    dropped = 0

    def send(self, peer_id: bytes, payload: bytes, both_links: bool = False) -> bool:
        if self.dropped:
            return super().send(peer_id, payload, both_links)
        self.dropped, self.dropping = 1, peer_id
        return True  # queued, as far as the sender knows

    def poll(self, timeout_ms: int, limit: int = 256) -> list[Inbound]:
        if self.dropping is not None:  # the drop is noticed where the monitor is read
            self._renew(self.dropping)
            self.dropping = None
        return super().poll(timeout_ms, limit)


@dataclass
class Joiner:
    identity: Identity
    tmp: Path
    seat_raw: bytes | None = None
    error: str | None = None
    mesh_kind: type[Mesh] = Mesh
    lobby_timeout_s: float = BOUND_S

    def start(self, announcement: bytes) -> None:
        self.thread = threading.Thread(target=self._run, args=(announcement,), daemon=True)
        self.thread.start()

    def _run(self, announcement: bytes) -> None:
        mesh = self.mesh_kind("127.0.0.1")
        config = PeerConfig(
            home=self.tmp / self.identity.name,
            identity=self.identity,
            lobby_timeout_s=self.lobby_timeout_s,
        )
        try:
            self.seat_raw, _ = join_table(config, mesh, announcement)
        except PeerError as exc:
            self.error = str(exc)
        finally:
            mesh.close()

    def finish(self) -> None:
        self.thread.join(BOUND_S)
        assert not self.thread.is_alive()


def seat_all(host: Host, announcement: bytes, joiners: list[Joiner]) -> None:
    """Let the joiners ask one by one (each answered before the next asks), then end the lobby."""
    try:
        for i, joiner in enumerate(joiners):
            joiner.start(announcement)
            host.wait_for(i + 1)
        for joiner in joiners:
            joiner.finish()
    finally:
        host.finish()


def test_the_host_approves_or_refuses_each_joiner(tmp_path: Path) -> None:
    asked: list[JoinRequest] = []
    mallory = _identity(9, "bob")  # takes a friend's name; only the fingerprint tells them apart
    bob, carol = _identity(2, "bob"), _identity(3, "carol")

    def approve(request: JoinRequest) -> bool:
        asked.append(request)
        return request.key != mallory.public_key

    host = Host(tmp_path, _identity(1, "alice"), players=3, approve=approve, open=False)
    announcement = host.start()
    joiners = [Joiner(who, tmp_path) for who in (mallory, bob, carol)]
    seat_all(host, announcement, joiners)
    assert host.error is None
    assert joiners[0].seat_raw is None
    assert joiners[0].error == f"the host refused: {REFUSED_REASON}"
    assert [(r.key, r.name, r.fingerprint) for r in asked] == [
        (w.public_key, w.name, w.fingerprint) for w in (mallory, bob, carol)
    ]
    assert mallory.fingerprint in asked[0].describe()
    seat = decode(host.seat_raw or b"")
    assert list(seat.body["seats"]) == [w.public_key for w in (host.identity, bob, carol)]
    assert list(seat.body["names"]) == ["alice", "bob", "carol"]
    assert [j.seat_raw for j in joiners[1:]] == [host.seat_raw] * 2
    refused = [e for e in host.events if e["event"] == "refused"]
    assert refused == [
        {
            "event": "refused",
            "name": "bob",
            "fingerprint": mallory.fingerprint,
            "reason": "not approved",
        }
    ]


def test_without_open_allow_or_an_approver_the_door_is_closed(tmp_path: Path) -> None:
    """Each joiner is refused, told why and which fingerprint to ask the host to allow; the
    host sees who it refused. (Before, the door was open: every joiner was seated.)"""
    host = Host(tmp_path, _identity(1, "alice"), players=3, open=False, lobby_timeout_s=5.0)
    announcement = host.start()
    who = [_identity(i, name) for i, name in ((2, "bob"), (3, "carol"))]
    joiners = [Joiner(w, tmp_path) for w in who]
    seat_all(host, announcement, joiners)  # the table never fills: its lobby times out
    assert str(host.error) == "nobody filled the table in time"
    assert [j.seat_raw for j in joiners] == [None, None]
    for joiner, w in zip(joiners, who, strict=True):
        assert joiner.error == f"the host refused: {closed_reason(w.fingerprint)}"
        assert f"ask the host to --allow {w.fingerprint}" in (joiner.error or "")
    refused = [
        (e["name"], e["fingerprint"], e["reason"]) for e in host.events if e["event"] == "refused"
    ]
    assert refused == [(w.name, w.fingerprint, CLOSED_NOTE) for w in who]


def test_a_join_lost_with_its_dropped_link_is_sent_again(tmp_path: Path) -> None:
    """Under loss a link's connection drops and is renewed, losing what it held: a joiner whose
    join went that way sends it again, and is seated (before, the host waited for it until its
    lobby timed out: a table that never seated under 30% loss)."""
    host = Host(tmp_path, _identity(1, "alice"), players=3, lobby_timeout_s=10.0)
    joiners = [
        Joiner(_identity(2, "bob"), tmp_path, lobby_timeout_s=10.0),
        Joiner(_identity(3, "carol"), tmp_path, mesh_kind=DroppingMesh, lobby_timeout_s=10.0),
    ]
    announcement = host.start()
    try:
        for joiner in joiners:
            joiner.start(announcement)
        for joiner in joiners:
            joiner.finish()
    finally:
        host.finish()
    assert host.error is None, host.error
    assert [(j.error, j.seat_raw) for j in joiners] == [(None, host.seat_raw)] * 2


def test_open_seats_anyone(tmp_path: Path) -> None:
    host = Host(tmp_path, _identity(1, "alice"), players=3, open=True)
    announcement = host.start()
    joiners = [Joiner(_identity(i, f"bot-{i}"), tmp_path) for i in (2, 3)]
    seat_all(host, announcement, joiners)
    assert host.error is None and all(j.seat_raw == host.seat_raw for j in joiners)


def test_allow_seats_only_the_pinned_keys_without_asking(tmp_path: Path) -> None:
    """Pinned keys (full fingerprints or 8+ digit prefixes) are seated; an approver is asked
    only about the others, here refusing them."""
    bob, carol, mallory = _identity(2, "bob"), _identity(3, "carol"), _identity(9, "bob")
    asked: list[bytes] = []

    def approve(request: JoinRequest) -> bool:
        asked.append(request.key)
        return False

    pins = (parse_pin(bob.fingerprint), parse_pin(carol.fingerprint[:9]))
    host = Host(tmp_path, _identity(1, "alice"), players=3, approve=approve, allow=pins)
    announcement = host.start()
    joiners = [Joiner(w, tmp_path / w.fingerprint) for w in (mallory, bob, carol)]
    seat_all(host, announcement, joiners)
    assert host.error is None
    assert joiners[0].error == f"the host refused: {REFUSED_REASON}"
    assert [j.seat_raw for j in joiners[1:]] == [host.seat_raw] * 2
    assert asked == [mallory.public_key]
    assert list(decode(host.seat_raw or b"").body["seats"])[1:] == [
        bob.public_key,
        carol.public_key,
    ]


def test_colliding_names_are_suffixed_in_the_seat_message_and_the_beacon(tmp_path: Path) -> None:
    host = Host(tmp_path, _identity(1, "root"), players=4)
    announcement = host.start()
    joiners = [
        Joiner(_identity(i, name), tmp_path / str(i))
        for i, name in enumerate(("root", "ROOT", "root-2"), start=2)
    ]
    seat_all(host, announcement, joiners)
    assert host.error is None
    names = list(decode(host.seat_raw or b"").body["names"])
    assert names == ["root", "root-2", "ROOT-3", "root-2-2"]
    assert len({n.casefold() for n in names}) == 4
    beacon = decode_beacon(host.lobby.announcement())  # what the beacons announced as seated
    assert [s.name for s in beacon.info.seats] == names
    joined = [e["name"] for e in host.events if e["event"] == "joined"]
    assert joined == names[1:]


def test_unique_name_stays_within_the_wire_bound() -> None:
    assert unique_name("bob", ["alice"]) == "bob"
    assert unique_name("bob", ["alice", "Bob"]) == "bob-2"
    assert unique_name("bob", ["bob", "bob-2", "bob-3"]) == "bob-4"
    long = "x" * 32
    assert unique_name(long, [long]) == "x" * 30 + "-2"
    wide = "é" * 16  # 32 bytes of UTF-8
    out = unique_name(wide, [wide])
    assert out == "é" * 15 + "-2" and len(out.encode()) <= 32


def _request(key: bytes, name: str = "eve") -> JoinRequest:
    return JoinRequest(key, name, name, "tcp://127.0.0.1:5000", 1, 4)


def test_admission_asks_once_per_key_and_a_failing_prompt_refuses() -> None:
    asked: list[bytes] = []

    def approve(request: JoinRequest) -> bool:
        asked.append(request.key)
        if request.name == "boom":
            raise OSError("terminal gone")
        return False

    door = Admission(Door(approve=approve))
    no = (REFUSED_REASON, "not approved")
    assert door.refusal(_request(b"a" * 32)) == no
    assert door.refusal(_request(b"a" * 32)) == no  # asked again: refused without asking
    assert door.refusal(_request(b"b" * 32, "boom")) == no
    assert asked == [b"a" * 32, b"b" * 32]
    for i in range(MAX_REFUSED + 5):
        door.refusal(_request(i.to_bytes(32, "big")))
    assert len(door.refused) == MAX_REFUSED
    assert Admission(Door(open=True)).refusal(_request(b"c" * 32)) is None
    closed = Admission().refusal(_request(b"c" * 32))
    assert closed is not None and closed[1] == CLOSED_NOTE


@pytest.mark.parametrize(
    ("answers", "seated"),
    [(["y\n"], True), (["YES\n"], True), (["n\n"], False), (["?\n", "", "maybe\n"], False)],
)
def test_terminal_approver(answers: list[str], seated: bool) -> None:
    prompts: list[str] = []
    replies = iter(answers)

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(replies)

    key = bytes(range(32))
    request = JoinRequest(key, "root", "root-2", "tcp://127.0.0.1:5000", 1, 4)
    assert terminal_approver(ask)(request) is seated
    assert prompts[0] == (
        f"join request: 'root' (seated as 'root-2') fingerprint {request.fingerprint} at "
        "tcp://127.0.0.1:5000 wants seat 2 of 4. Seat them? [y/n] "
    )


def test_a_seat_message_with_colliding_names_is_refused_by_every_peer() -> None:
    """A host that ignores the rule (two seats called "bob" and "Bob") cannot found a table: the
    seat message fails the wire checks on encode, and a signed one forged past them on decode."""
    from sample_table import sign_fields

    from druids_p2p.lan.seating import make_seat_message
    from druids_p2p.wire.msgtypes import BadShape

    host, a, b = _identity(1, "alice"), _identity(2, "bob"), _identity(3, "Bob")
    seats = [(w.public_key, w.name, "tcp://127.0.0.1:5000", bytes(range(32))) for w in (host, a, b)]
    options = GameOptions(players=3, rounds=1)
    refused = r"seat body: names\[2\] 'Bob' is already a seat's name"
    with pytest.raises(BadShape, match=refused):
        make_seat_message(host, seats, options)
    good = decode(
        make_seat_message(host, [*seats[:2], (b.public_key, "carol", *seats[2][2:])], options)
    )
    body = {k: list(v) if isinstance(v, tuple) else v for k, v in good.body.items()}
    body["options"] = dict(good.body["options"])
    fields = [PROTOCOL_VERSION, int(good.type), good.table_id, host.public_key, 0]
    fields += [good.prev, good.head]
    assert decode(sign_fields(host, [*fields, body])).body["names"][2] == "carol"
    body["names"][2] = "Bob"
    with pytest.raises(BadShape, match=refused):
        decode(sign_fields(host, [*fields, body]))


def test_join_host_port_with_a_fingerprint_checks_the_lobby_socket_host(tmp_path: Path) -> None:
    """``druids join HOST:PORT --fingerprint FP``: the beacon the lobby socket answers with must
    be signed by the pinned host, else nothing is joined (exit 2)."""
    from druids_p2p.cli.app import CliError
    from druids_p2p.cli.tables import lobby_announcement

    alice, mallory = _identity(1, "alice"), _identity(9, "alice")
    host = Host(tmp_path, alice, players=3)
    announcement = host.start()
    target = f"127.0.0.1:{host.lobby.lobby_port}"
    joiners = [Joiner(_identity(i, f"p{i}"), tmp_path) for i in (2, 3)]
    try:
        with pytest.raises(CliError) as refused:
            lobby_announcement(target, parse_pin(mallory.fingerprint))
        assert refused.value.code == 2
        assert str(refused.value) == (
            f"{target}: the host there is alice with fingerprint {alice.fingerprint}, "
            f"not --fingerprint {parse_pin(mallory.fingerprint)}: not joined"
        )
        raw = lobby_announcement(target, parse_pin(alice.fingerprint[:9]))
        assert decode_beacon(raw).host_key == alice.public_key
    finally:
        seat_all(host, announcement, joiners)  # fill the table, so that the lobby ends
    assert host.error is None
