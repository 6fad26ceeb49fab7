"""Table discovery on loopback: the beacon format, what listeners drop, and the CLI.

Safety: every datagram here goes to 127.255.255.255 (lo) on a random high port, or nowhere at all
(the 255.255.255.255 guard is tested with a stub socket that records instead of sending).
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

import pytest
from cli_harness import run_cli

from druids_p2p.lan import discovery
from druids_p2p.lan import network as interfaces
from druids_p2p.lan.discovery import (
    BEACON_DOMAIN,
    MAX_BEACON_SIZE,
    BeaconSender,
    SeatedPlayer,
    TableAnnouncement,
    TableInfo,
    decode_beacon,
    encode_beacon,
)
from druids_p2p.lan.listener import BeaconListener, discover
from druids_p2p.lan.network import (
    LOOPBACK,
    InterfaceError,
    NetChoice,
    UnsafeDestination,
    check_destination,
    guarded_sendto,
    resolve,
)
from druids_p2p.wire.identity import Identity
from druids_p2p.wire.msgtypes import (
    BadShape,
    BadSignature,
    Malformed,
    TooLarge,
    WireError,
    pack,
    unpack,
)

ROOT = Path(__file__).resolve().parent.parent
HOST = Identity.from_seed(bytes(range(32)), "alice")
BOB = Identity.from_seed(bytes(range(1, 33)), "bob")
CURVE = bytes(range(100, 132))
LOBBY = bytes(range(200, 216))
INFO = TableInfo(
    name="Friday night",
    endpoint="tcp://127.0.0.1:45123",
    curve_key=CURVE,
    players=4,
    variant=True,
    seats=(SeatedPlayer("alice", HOST.public_key), SeatedPlayer("bob", BOB.public_key)),
)


class Pace(TypedDict):
    """A beacon sender's pace, passed by keyword."""

    interval: float
    jitter: float


FAST = Pace(interval=0.1, jitter=0.02)
DEADLINE = 5.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def poll_until(
    listener: BeaconListener,
    cond: Callable[[list[TableAnnouncement]], bool],
    seconds: float = DEADLINE,
) -> list[TableAnnouncement]:
    """Poll until ``cond(tables)`` holds or the deadline passes; bounded in time."""
    end = time.monotonic() + seconds
    tables = listener.tables()
    while not cond(tables) and time.monotonic() < end:
        tables = listener.poll(min(0.2, max(0.0, end - time.monotonic())))
    return tables


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# --- format -------------------------------------------------------------------------------------


def test_round_trip() -> None:
    data = encode_beacon(HOST, INFO, LOBBY, 7)
    b = decode_beacon(data)
    assert b.info == INFO
    assert (b.host_key, b.host_name, b.lobby_id, b.counter, b.closing) == (
        HOST.public_key,
        "alice",
        LOBBY,
        7,
        False,
    )
    assert b.host_fingerprint == HOST.fingerprint
    assert b.raw == data  # kept, so a joiner can hand the verified beacon on unchanged
    assert dataclasses.replace(b, raw=b"") == b and "raw" not in repr(b)
    assert b.info.seats_taken == 2 and b.info.seats_free == 2 and not b.info.full
    assert decode_beacon(encode_beacon(HOST, INFO, LOBBY, 8, closing=True)).closing
    assert data == encode_beacon(HOST, INFO, LOBBY, 7)  # deterministic: one spelling


def test_largest_beacon_fits() -> None:
    seats = tuple(
        SeatedPlayer("W" * 32, Identity.from_seed(bytes([i]) * 32, "x").public_key)
        for i in range(5)
    )
    info = TableInfo(
        name="N" * 48,
        endpoint="tcp://255.255.255.254:65535",
        curve_key=CURVE,
        players=5,
        seats=seats,
        lobby_port=65535,
    )
    host = Identity.from_seed(bytes(32), "H" * 32)
    data = encode_beacon(host, info, LOBBY, 2**32 - 1, closing=True)
    assert len(data) <= MAX_BEACON_SIZE
    assert decode_beacon(data).info == info


def test_documented_example_matches_encoder() -> None:
    """The hex dump in docs/protocol/discovery.md is exactly what the encoder produces."""
    doc = (ROOT / "docs" / "protocol" / "discovery.md").read_text()
    block = re.search(r"<!-- example-beacon -->\s*```\n(.*?)```", doc, re.S)
    assert block is not None
    hexdump = "".join(line.split("|")[0][8:] for line in block.group(1).splitlines())
    documented = bytes.fromhex(hexdump.replace(" ", ""))
    expected = encode_beacon(
        HOST,
        TableInfo("Friday night", "tcp://10.0.0.2:45123", CURVE, seats=INFO.seats[:1]),
        LOBBY,
        7,
    )
    assert documented == expected
    assert decode_beacon(documented).info.name == "Friday night"


@pytest.mark.parametrize(
    "change",
    [
        {"name": ""},
        {"name": "x" * 49},
        {"name": "bell\x07"},
        {"endpoint": "tcp://example.org:1"},
        {"endpoint": "tcp://10.0.0.1:0"},
        {"endpoint": "tcp://10.0.0.1:070"},
        {"endpoint": "tcp://0.0.0.0:5"},
        {"endpoint": "udp://10.0.0.1:5"},
        {"curve_key": b"short"},
        {"players": 6},
        {"players": 2},
        {"rounds": 6},
        {"ruleset": "no spaces"},
        {
            "players": 3,
            "seats": tuple(SeatedPlayer(f"p{i}", bytes([i + 1]) * 32) for i in range(4)),
        },
        {"seats": (SeatedPlayer("a", HOST.public_key), SeatedPlayer("b", HOST.public_key))},
        {"seats": (SeatedPlayer("weak", bytes(32)),)},
    ],
)
def test_encoder_refuses_what_listeners_would_drop(change: dict[str, Any]) -> None:
    with pytest.raises(BadShape):
        encode_beacon(HOST, dataclasses.replace(INFO, **change), LOBBY, 0)


def _sign_fields(
    fields: dict[str, Any], identity: Identity = HOST, domain: bytes = BEACON_DOMAIN
) -> bytes:
    signed = pack(fields)
    return pack([signed, identity.sign(domain + signed)])


def _fields() -> dict[str, Any]:
    frame = unpack(encode_beacon(HOST, INFO, LOBBY, 3), 1)
    return {k: v for k, v in unpack(frame[0], 3).items()}


def _bad_datagrams() -> list[tuple[str, bytes, type[WireError]]]:
    good = encode_beacon(HOST, INFO, LOBBY, 3)
    out: list[tuple[str, bytes, type[WireError]]] = [
        ("empty", b"", Malformed),
        ("oversize", good + b"\x00" * (MAX_BEACON_SIZE + 1 - len(good)), TooLarge),
        ("trailing byte", good + b"\x00", Malformed),
        ("truncated", good[:-1], Malformed),
        ("not an array", pack({"a": 1}), BadShape),
        ("signature flipped", good[:-1] + bytes([good[-1] ^ 1]), BadSignature),
        ("ext type", b"\xd4\x01\x00", Malformed),
        ("huge declared array", b"\xdd\xff\xff\xff\xff", Malformed),
    ]
    # Every single-byte change inside the signed part must be refused somehow.
    for pos in range(5, len(good) - 66, 7):
        flipped = good[:pos] + bytes([good[pos] ^ 0x20]) + good[pos + 1 :]
        out.append((f"flip {pos}", flipped, WireError))
    f = _fields()
    out.append(("wrong domain", _sign_fields(f, domain=b"druids-p2p/v1 msg\x00"), BadSignature))
    out.append(("other signer", _sign_fields(f, identity=BOB), BadSignature))
    out.append(("version 2", _sign_fields({**f, "v": 2}), BadShape))
    out.append(("unknown key", _sign_fields({**f, "zz": 1}), BadShape))
    out.append(("unsorted", _sign_fields(dict(reversed(list(f.items())))), BadShape))
    weak = {**f, "host": bytes(32)}
    out.append(("weak host key", _sign_fields(weak), BadShape))
    signed = pack(f)
    # bin 32 header for a short bin: valid msgpack, but not the one canonical spelling
    noncanon = b"\x92\xc6" + len(signed).to_bytes(4, "big") + signed
    noncanon += pack(HOST.sign(BEACON_DOMAIN + signed))
    out.append(("non-canonical frame", noncanon, Malformed))
    rng = random.Random(5)
    for i in range(40):
        out.append((f"random {i}", rng.randbytes(rng.randrange(1, 300)), WireError))
    return out


@pytest.mark.parametrize(("what", "data", "error"), _bad_datagrams(), ids=lambda x: None)
def test_bad_datagrams_are_refused(what: str, data: bytes, error: type[WireError]) -> None:
    with pytest.raises(error):
        decode_beacon(data)


def test_listener_drops_bad_datagrams_without_raising() -> None:
    clock = FakeClock()
    with BeaconListener(None, free_port(), clock=clock) as listener:
        bad = _bad_datagrams()
        for _, data, _ in bad:
            assert listener.handle(data, ("127.0.0.1", 1)) is None
        assert listener.handle(object(), ("127.0.0.1", 1)) is None  # type: ignore[arg-type]
        assert listener.tables() == []
        assert listener.stats["dropped"] == len(bad) + 1
        assert listener.stats["accepted"] == 0
        assert listener.stats["too_large"] == 1 and listener.stats["bad_signature"] >= 3
        assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 3), ("127.0.0.1", 1)) is not None
        assert len(listener.tables()) == 1


# --- the 255.255.255.255 guard and network choice -----------------------------------------------


class RecordingSocket:
    """Stands in for a socket so that a failing guard could never put a packet on the wire."""

    def __init__(self) -> None:
        self.sent: list[tuple[bytes, tuple[str, int]]] = []

    def sendto(self, data: bytes, dest: tuple[str, int]) -> int:
        self.sent.append((data, dest))
        return len(data)


@pytest.mark.parametrize(
    "dest", ["255.255.255.255", "<broadcast>", "", "0xffffffff", "4294967295", "224.0.0.1", "x"]
)
def test_guard_refuses_limited_broadcast_and_non_literals(dest: str) -> None:
    sock = RecordingSocket()
    with pytest.raises(UnsafeDestination):
        guarded_sendto(sock, b"x", dest, 9)  # type: ignore[arg-type]
    with pytest.raises(UnsafeDestination):
        check_destination(dest)
    assert sock.sent == []


def test_guard_lets_subnet_broadcast_through() -> None:
    sock = RecordingSocket()
    guarded_sendto(sock, b"x", "127.255.255.255", 9)  # type: ignore[arg-type]
    assert sock.sent == [(b"x", ("127.255.255.255", 9))]


def test_netchoice_and_sender_refuse_limited_broadcast() -> None:
    with pytest.raises(UnsafeDestination):
        NetChoice("127.0.0.1", "255.255.255.255", "lo")
    net = NetChoice("127.0.0.1", "127.255.255.255", "lo")
    object.__setattr__(net, "broadcast", "255.255.255.255")  # even if someone forces it
    sender = BeaconSender(HOST, INFO, net, free_port())
    sender._sock.close()
    sender._sock = RecordingSocket()  # type: ignore[assignment]
    with pytest.raises(UnsafeDestination):
        sender.send_now()
    assert sender._sock.sent == []  # type: ignore[attr-defined]


def fake_table(
    monkeypatch: pytest.MonkeyPatch, table: dict[str, list[tuple[str, str | None, str | None]]]
) -> None:
    monkeypatch.setattr(interfaces, "_ipv4_addrs", lambda: table)


def test_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve() == LOOPBACK == NetChoice("127.0.0.1", "127.255.255.255", "lo")
    assert resolve(address="127.0.0.7") == NetChoice("127.0.0.7", "127.255.255.255", "lo")
    fake_table(
        monkeypatch,
        {
            "lo": [("127.0.0.1", "255.0.0.0", None)],
            "eth0": [("192.168.1.20", "255.255.255.0", "192.168.1.255")],
            "wlan0": [("10.1.2.3", "255.255.0.0", None)],
            "tun0": [("10.9.9.9", "255.255.255.255", None)],
            "evil": [("10.3.3.3", "255.255.255.0", "255.255.255.255")],
        },
    )
    assert resolve(interface="eth0") == NetChoice("192.168.1.20", "192.168.1.255", "eth0")
    assert resolve(address="192.168.1.20").name == "eth0"
    assert resolve(interface="wlan0").broadcast == "10.1.255.255"
    assert resolve(interface="lo") == LOOPBACK
    assert resolve(interface="lo", address="127.0.0.3").address == "127.0.0.3"
    assert resolve(interface="eth0", address="192.168.1.20").name == "eth0"
    for kwargs in [
        {"interface": "nope"},
        {"address": "192.168.1.21"},
        {"interface": "eth0", "address": "10.1.2.3"},
        {"interface": "tun0"},
        {"interface": "evil"},
        {"address": "banana"},
        {"address": "::1"},
    ]:
        with pytest.raises(InterfaceError):
            resolve(**kwargs)


# --- listeners on lo ----------------------------------------------------------------------------


def test_several_listeners_on_one_host_all_hear_the_beacons() -> None:
    port = free_port()
    listeners = [BeaconListener(None, port) for _ in range(3)]
    try:
        with BeaconSender(HOST, INFO, None, port, lobby_id=LOBBY, **FAST) as sender:
            for listener in listeners:
                tables = poll_until(listener, lambda t: len(t) == 1 and t[0].beacon.counter >= 2)
                assert len(tables) == 1, listener.stats
                t = tables[0]
                assert t.lobby_id == LOBBY and t.info == INFO and t.beacon.host_name == "alice"
                assert t.source[0] == "127.0.0.1"
                assert decode_beacon(t.beacon.raw) == t.beacon  # the datagram as heard
                assert listener.stats["dropped"] == 0
            # Beacon 2 was heard, but the sender counts a beacon once its sendto returns: under
            # load the listeners can be faster than that count (bounded wait, then the check).
            end = time.monotonic() + DEADLINE
            while sender.sent < 3 and time.monotonic() < end:
                time.sleep(0.01)
            assert sender.sent >= 3 and sender.send_errors == 0
    finally:
        for listener in listeners:
            listener.close()


def test_stop_announces_closing_and_listener_forgets_the_table() -> None:
    port = free_port()
    with BeaconListener(None, port) as listener:
        sender = BeaconSender(HOST, INFO, "127.0.0.1", port, **FAST).start()
        try:
            assert len(poll_until(listener, lambda t: len(t) == 1)) == 1
        finally:
            sender.stop()
        assert poll_until(listener, lambda t: t == []) == []
        assert listener.stats["closed"] >= 1


def test_full_table_closes_and_reopens() -> None:
    port = free_port()
    with (
        BeaconListener(None, port) as listener,
        BeaconSender(HOST, INFO, None, port, **FAST) as sender,
    ):
        assert len(poll_until(listener, lambda t: len(t) == 1)) == 1
        seats = (
            *INFO.seats,
            SeatedPlayer("carol", bytes([9]) * 32),
            SeatedPlayer("dave", bytes([10]) * 32),
        )
        sender.update(dataclasses.replace(INFO, seats=seats))
        assert poll_until(listener, lambda t: t == []) == []
        sender.update(INFO)
        tables = poll_until(listener, lambda t: len(t) == 1)
        assert len(tables) == 1 and tables[0].info.seats_free == 2


def test_expiry_closing_and_stale_counters() -> None:
    clock = FakeClock()
    src = ("127.0.0.1", 40000)
    with BeaconListener(None, free_port(), clock=clock, expiry=5.0) as listener:
        assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 5), src) is not None
        clock.now += 4.9
        assert len(listener.tables()) == 1
        assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 5), src) is None  # replayed
        assert listener.stats["stale"] == 1
        clock.now += 0.2
        assert listener.tables() == []  # 5.1 s of silence
        assert listener.stats["expired"] == 1
        assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 6), src) is not None
        # another host cannot close (or overwrite) alice's table with the same lobby id
        listener.handle(encode_beacon(BOB, INFO, LOBBY, 99, closing=True), src)
        assert [t.beacon.host_name for t in listener.tables()] == ["alice"]
        listener.handle(encode_beacon(HOST, INFO, LOBBY, 7, closing=True), src)
        assert listener.tables() == []
        # a late, older beacon does not reopen the table; a newer one does
        assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 6), src) is None
        assert listener.tables() == []
        assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 8), src) is not None
        assert len(listener.tables()) == 1


def test_garbage_over_the_socket_does_not_stop_the_listener() -> None:
    port = free_port()
    with (
        BeaconListener(None, port) as listener,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw,
    ):
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        raw.bind(("127.0.0.1", 0))
        for _, data, _ in _bad_datagrams()[:10]:
            guarded_sendto(raw, data, "127.255.255.255", port)
        guarded_sendto(raw, b"\x00" * 5000, "127.255.255.255", port)
        guarded_sendto(raw, encode_beacon(HOST, INFO, LOBBY, 1), "127.255.255.255", port)
        tables = poll_until(listener, lambda t: len(t) == 1)
        assert len(tables) == 1
        assert listener.stats["dropped"] == 11
        assert listener.stats["too_large"] >= 2


def test_discover_helper() -> None:
    port = free_port()
    with BeaconSender(HOST, INFO, None, port, **FAST):
        tables = discover(None, port, 0.5)
    assert [t.name for t in tables] == ["Friday night"]
    assert discover(None, free_port(), 0.2) == []


# --- the command line ---------------------------------------------------------------------------


def test_cli_json_in_a_subprocess() -> None:
    port = free_port()
    with BeaconSender(HOST, INFO, None, port, lobby_id=LOBBY, **FAST):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "druids_p2p",
                "tables",
                "--json",
                "--seconds",
                "1.5",
                "--port",
                str(port),
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr
    (table,) = json.loads(proc.stdout)
    assert table["name"] == "Friday night"
    assert table["lobby_id"] == LOBBY.hex()
    assert (table["players"], table["variant"], table["ruleset"]) == (4, True, "druids2017")
    assert (table["seats_taken"], table["seats_free"]) == (2, 2)
    assert [s["name"] for s in table["seats"]] == ["alice", "bob"]
    assert table["host"] == {
        "name": "alice",
        "fingerprint": HOST.fingerprint,
        "public_key": HOST.public_key.hex(),
    }
    assert table["endpoint"] == "tcp://127.0.0.1:45123"
    assert table["curve_key"] == CURVE.hex()
    assert table["source"].startswith("127.0.0.1:")


def test_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    with BeaconSender(HOST, INFO, None, port, **FAST):
        code, out, _ = run_cli(["tables", "--seconds", "0.5", "--beacon-port", str(port)], capsys)
    assert code == 0
    header, row, blank, to_join, line = out.splitlines()
    assert header.split()[:3] == ["TABLE", "PLAYERS", "SEATS"] and "JOIN AT" in header
    assert "Friday night" in row and "4 +variant" in row and "2/4 (2 free)" in row
    assert f"alice [{HOST.fingerprint}]" in row
    assert row.endswith("alice, bob")
    # No lobby port announced (INFO has none): the line to copy joins by lobby id instead.
    assert (blank, to_join) == ("", "to join 'Friday night':")
    assert line.strip().startswith("druids join ") and len(line.split()) == 3
    code, out, _ = run_cli(
        ["tables", "--seconds", "0.2", "--beacon-port", str(free_port())], capsys
    )
    assert code == 0 and out.startswith("no open tables heard on lo (127.255.255.255:")


def test_the_lobby_port_is_announced_and_printed_to_join_by(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``druids join HOST:PORT`` asks the host's lobby socket, not the mesh endpoint: the beacon
    carries the lobby port and ``druids tables`` prints the address and a line to copy."""
    info = dataclasses.replace(INFO, lobby_port=40123)
    beacon = decode_beacon(encode_beacon(HOST, info, LOBBY, 1))
    assert beacon.info.lobby_port == 40123
    assert beacon.info.lobby_address == "127.0.0.1:40123"
    assert decode_beacon(encode_beacon(HOST, INFO, LOBBY, 1)).info.lobby_address is None
    port = free_port()
    with BeaconSender(HOST, info, None, port, lobby_id=LOBBY, **FAST):
        code, out, _ = run_cli(["tables", "--seconds", "0.5", "--beacon-port", str(port)], capsys)
    assert code == 0
    _, row, _, _, line = out.splitlines()
    assert "127.0.0.1:40123" in row
    assert line.strip() == "druids join 127.0.0.1:40123"


@pytest.mark.parametrize(
    "argv",
    [
        ["--seconds", "0"],
        ["--seconds", "-1"],
        ["--seconds", "nan"],
        ["--seconds", "1e9"],
        ["--seconds", "soon"],
        ["--beacon-port", "0"],
        ["--beacon-port", "70000"],
        ["--port", "0"],  # the old name, still checked alike
        ["--address", "banana"],
        ["--address", "203.0.113.77"],
        ["--interface", "no-such-if0"],
        ["--frobnicate"],
    ],
)
def test_cli_bad_flags(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run_cli(["tables", *argv], capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("druids: error:")


def test_module_constants() -> None:
    assert discovery.DEFAULT_PORT == 47650
    assert BEACON_DOMAIN == b"druids-p2p/v1 beacon\x00"


# --- druids join NAME: finding a table by its beacon --------------------------------------------


def test_find_table_returns_the_heard_beacon_by_name_or_lobby_id_prefix() -> None:
    from druids_p2p.cli.tables import find_table

    port = free_port()
    events: list[dict[str, Any]] = []
    with BeaconSender(HOST, INFO, None, port, lobby_id=LOBBY, **FAST):
        for target in ("Friday night", LOBBY.hex()[:6], LOBBY.hex()[:6].upper()):
            started = time.monotonic()
            raw = find_table(target, "127.0.0.1", port, 10.0, events.append)
            # returns soon after the first beacon (plus a beacon interval, to spot namesakes)
            assert time.monotonic() - started < 3.0
            beacon = decode_beacon(raw)
            assert (beacon.info, beacon.lobby_id, beacon.host_key) == (INFO, LOBBY, HOST.public_key)
    assert len(events) == 3
    assert events[0] == {
        "event": "found",
        "table": "Friday night",
        "host": "alice",
        "fingerprint": HOST.fingerprint,
        "endpoint": "tcp://127.0.0.1:45123",
        "source": events[0]["source"],
    }
    assert events[0]["source"].startswith("127.0.0.1:")


def test_join_by_name_fails_in_one_line_when_no_table_or_several_match(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = free_port()
    args = ("--beacon-port", str(port), "--seconds", "0.5")
    started = time.monotonic()
    code, out, err = run_cli(["join", "Friday night", *args], capsys)
    assert time.monotonic() - started < DEADLINE
    assert code == 1 and out == ""
    assert err.strip() == (
        "druids: error: no open table named 'Friday night' heard in 0.5 s (try 'druids tables')"
    )
    other = bytes(range(16))
    with (
        BeaconSender(HOST, INFO, None, port, lobby_id=LOBBY, **FAST),
        BeaconSender(HOST, INFO, None, port, lobby_id=other, **FAST),
    ):
        code, out, err = run_cli(["join", "Friday night", "--beacon-port", str(port)], capsys)
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and "2 tables match 'Friday night'" in err
    assert LOBBY.hex()[:8] in err and other.hex()[:8] in err


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "1e9"])
def test_join_by_name_refuses_bad_search_seconds(
    capsys: pytest.CaptureFixture[str], seconds: str
) -> None:
    code, out, err = run_cli(["join", "Friday night", "--seconds", seconds], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--seconds" in err


def test_cli_text_names_each_tables_game(capsys: pytest.CaptureFixture[str]) -> None:
    """``druids tables`` shows the game a beacon names (the rule set bound into the table)."""
    info = dataclasses.replace(
        INFO, name="gems", players=2, variant=False, ruleset="druids2004", seats=INFO.seats[:1]
    )
    port = free_port()
    with BeaconSender(HOST, info, None, port, **FAST):
        code, out, _ = run_cli(["tables", "--seconds", "0.5", "--beacon-port", str(port)], capsys)
    assert code == 0
    header, row = out.splitlines()[:2]
    assert "GAME" in header.split()
    assert row.split()[:2] == ["gems", "2"] and "druids2004" in row.split()


def test_a_table_with_the_coach_on_says_so_in_its_beacon_and_in_druids_tables(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The coach is a table option (protocol.md §3, "The coach"): a host announces it in the
    beacon's options (``coach: true``, only when on, so a table without it sends the bytes it
    always did), a listener reads it, ``coach: false`` is refused as a second spelling of off, and
    ``druids tables`` shows "coach on" (``--json``: ``coach``)."""
    coached = dataclasses.replace(INFO, coach=True)
    data = encode_beacon(HOST, coached, LOBBY, 1)
    assert decode_beacon(data).info.coach is True
    assert unpack(unpack(data, 1)[0], 3)["options"]["coach"] is True
    assert (
        "coach" not in _fields()["options"]
        and decode_beacon(encode_beacon(HOST, INFO, LOBBY, 1)).info.coach is False
    )
    f = _fields()
    off = {**f, "options": {"coach": False, **f["options"]}}
    with pytest.raises(BadShape, match="coach"):
        decode_beacon(_sign_fields(off))
    port = free_port()
    with BeaconSender(HOST, coached, None, port, lobby_id=LOBBY, **FAST):
        code, out, _ = run_cli(["tables", "--seconds", "0.5", "--beacon-port", str(port)], capsys)
        assert code == 0
        assert "coach on" in out.splitlines()[1], out
        code, out, _ = run_cli(
            ["tables", "--json", "--seconds", "0.5", "--beacon-port", str(port)], capsys
        )
    assert code == 0 and json.loads(out)[0]["coach"] is True
    port = free_port()
    with BeaconSender(HOST, INFO, None, port, lobby_id=LOBBY, **FAST):
        code, out, _ = run_cli(["tables", "--seconds", "0.5", "--beacon-port", str(port)], capsys)
    assert code == 0 and "coach" not in out


def test_the_documented_coach_beacon_matches_the_encoder() -> None:
    """discovery.md's second example, a table with the coach on, is the encoder's bytes."""
    doc = (ROOT / "docs" / "protocol" / "discovery.md").read_text()
    block = re.search(r"<!-- example-beacon-coach -->\s*```\n(.*?)```", doc, re.S)
    assert block is not None
    hexdump = "".join(line.split("|")[0][8:] for line in block.group(1).splitlines())
    documented = bytes.fromhex(hexdump.replace(" ", ""))
    info = TableInfo(
        "Friday night", "tcp://10.0.0.2:45123", CURVE, players=3, coach=True, seats=INFO.seats[:1]
    )
    assert documented == encode_beacon(HOST, info, LOBBY, 7)
    assert decode_beacon(documented).info.coach is True
