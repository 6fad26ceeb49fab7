"""The lobby against a LAN attacker: beacon floods, namesake tables, pinned hosts.

Safety: every datagram goes to 127.255.255.255 (lo) on a random high port, as in
tests/test_discovery.py; most tests hand datagrams straight to ``BeaconListener.handle``.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from cli_harness import run_cli
from test_discovery import FAST, HOST, INFO, LOBBY, FakeClock, free_port

from druids_p2p.lan.discovery import BeaconSender, TableInfo, decode_beacon, encode_beacon
from druids_p2p.lan.listener import (
    MAX_TABLES,
    MAX_TABLES_PER_KEY,
    MAX_TABLES_PER_SOURCE,
    BadPin,
    BeaconListener,
    choose,
    parse_pin,
    pin_matches,
)
from druids_p2p.lan.network import guarded_sendto
from druids_p2p.wire.identity import Identity

MALLORY = Identity.from_seed(bytes([7]) * 32, "mallory")
FLOOD = 300
"""More beacons than the whole table list holds (MAX_TABLES = 256)."""
REAL_SOURCE = ("127.0.0.1", 40001)
FLOOD_SOURCE = ("127.0.0.9", 40002)


def _lobby(i: int) -> bytes:
    return i.to_bytes(4, "big") * 4


def _pin(identity: Identity, digits: int = 8) -> str:
    return identity.fingerprint.replace("-", "")[:digits]


def test_module_bounds() -> None:
    assert MAX_TABLES_PER_KEY * 8 <= MAX_TABLES_PER_SOURCE < MAX_TABLES == 256


def test_one_key_flooding_lobby_ids_cannot_hide_another_table() -> None:
    """300 beacons of one key (fresh lobby ids, the victim's table name) from one source: the
    real table, heard after the flood, is still listed; the flooder keeps only its own few."""
    clock = FakeClock()
    with BeaconListener(None, free_port(), clock=clock) as listener:
        for i in range(FLOOD):
            listener.handle(encode_beacon(MALLORY, INFO, _lobby(i), 1), FLOOD_SOURCE)
        real = listener.handle(encode_beacon(HOST, INFO, LOBBY, 1), REAL_SOURCE)
        assert real is not None, listener.stats
        tables = listener.tables()
        assert [t.lobby_id for t in tables if t.beacon.host_key == HOST.public_key] == [LOBBY]
        mine = [t for t in tables if t.beacon.host_key == MALLORY.public_key]
        assert len(mine) == MAX_TABLES_PER_KEY
        # a key's newest tables stay (a restarted host shows its new lobby, not a stale one)
        assert {t.lobby_id for t in mine} == {_lobby(i) for i in range(FLOOD - 4, FLOOD)}
        assert listener.stats["evicted"] == FLOOD - MAX_TABLES_PER_KEY
        # and the name is now ambiguous: two host keys announce "Friday night"
        choice = choose(tables, INFO.name, None)
        assert choice.ambiguous and choice.hosts == 2
        pinned = choose(tables, INFO.name, _pin(HOST)).pinned
        assert [t.beacon.host_key for t in pinned] == [HOST.public_key]


def test_many_keys_from_one_source_cannot_hide_another_table() -> None:
    """300 fresh keys, all from one source address: only that source's slots fill."""
    clock = FakeClock()
    keys = [Identity.from_seed(i.to_bytes(2, "big") * 16, f"k{i}") for i in range(FLOOD)]
    with BeaconListener(None, free_port(), clock=clock) as listener:
        for i, key in enumerate(keys):
            listener.handle(encode_beacon(key, INFO, _lobby(i), 1), (FLOOD_SOURCE[0], 1000 + i))
        assert listener.stats["source_full"] == FLOOD - MAX_TABLES_PER_SOURCE
        real = listener.handle(encode_beacon(HOST, INFO, LOBBY, 1), REAL_SOURCE)
        assert real is not None, listener.stats
        tables = listener.tables()
        assert len(tables) == MAX_TABLES_PER_SOURCE + 1
        assert any(t.beacon.host_key == HOST.public_key for t in tables)
        # the first-come flood tables keep their slots; a refresh of one is still taken
        again = listener.handle(encode_beacon(keys[0], INFO, _lobby(0), 2), FLOOD_SOURCE)
        assert again is not None and again.beacon.counter == 2
        # once they expire the source has room again
        clock.now += 10.0
        assert listener.tables() == []
        late = listener.handle(encode_beacon(keys[-1], INFO, _lobby(FLOOD - 1), 3), FLOOD_SOURCE)
        assert late is not None


def test_per_source_bound_counts_addresses_not_ports_and_follows_refreshes() -> None:
    clock = FakeClock()
    keys = [Identity.from_seed(i.to_bytes(2, "big") * 16, f"k{i}") for i in range(40)]
    with BeaconListener(None, free_port(), clock=clock) as listener:
        for i in range(MAX_TABLES_PER_SOURCE):
            assert listener.handle(encode_beacon(keys[i], INFO, LOBBY, 1), ("127.0.0.9", i + 1))
        assert listener.handle(encode_beacon(keys[35], INFO, LOBBY, 1), ("127.0.0.9", 999)) is None
        # a table that closes frees its slot
        closing = encode_beacon(keys[0], INFO, LOBBY, 2, closing=True)
        assert listener.handle(closing, ("127.0.0.9", 1)) is None
        assert listener.handle(encode_beacon(keys[35], INFO, LOBBY, 1), ("127.0.0.9", 999))
        # a table heard again from another address moves its slot there
        assert listener.handle(encode_beacon(keys[1], INFO, LOBBY, 2), ("127.0.0.10", 1))
        assert listener.handle(encode_beacon(keys[36], INFO, LOBBY, 1), ("127.0.0.9", 998))
        assert listener.handle(encode_beacon(keys[37], INFO, LOBBY, 1), ("127.0.0.9", 997)) is None


# --- druids join NAME ----------------------------------------------------------------------------


@contextmanager
def flooding(port: int, rounds: int = 400) -> Iterator[None]:
    """Mallory floods the loopback beacon port with FLOOD beacons of the victim's table name,
    fresh counters every round, until the block ends (bounded to ``rounds`` rounds)."""
    beacons_info = TableInfo(INFO.name, "tcp://127.0.0.9:45000", INFO.curve_key, players=4)
    stop = threading.Event()

    def run() -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            sock.bind(("127.0.0.1", 0))
            for counter in range(1, rounds + 1):
                for i in range(FLOOD):
                    data = encode_beacon(MALLORY, beacons_info, _lobby(i), counter)
                    guarded_sendto(sock, data, "127.255.255.255", port)
                if stop.wait(0.02):
                    return

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=30)


def test_join_by_name_refuses_a_name_heard_from_two_keys_and_lists_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = free_port()
    with flooding(port), BeaconSender(HOST, INFO, None, port, lobby_id=LOBBY, **FAST):
        args = ["join", INFO.name, "--beacon-port", str(port), "--seconds", "3"]
        code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert lines[-1] == (
        f"druids: error: 2 hosts announce a table named {INFO.name!r}: choose one with "
        "--fingerprint FP; a name alone is not an identity"
    )
    candidates = lines[:-1]
    assert 2 <= len(candidates) <= MAX_TABLES_PER_KEY + 1
    assert sum(HOST.fingerprint in line for line in candidates) == 1
    assert all(MALLORY.fingerprint in line for line in candidates if HOST.fingerprint not in line)


def test_join_by_name_with_a_fingerprint_reaches_the_pinned_host_through_a_flood() -> None:
    from druids_p2p.cli.tables import find_table

    port = free_port()
    events: list[dict[str, Any]] = []
    with flooding(port), BeaconSender(HOST, INFO, None, port, lobby_id=LOBBY, **FAST):
        raw = find_table(INFO.name, "127.0.0.1", port, 10.0, events.append, _pin(HOST, 12))
    beacon = decode_beacon(raw)
    assert (beacon.host_key, beacon.lobby_id) == (HOST.public_key, LOBBY)
    assert [e["fingerprint"] for e in events] == [HOST.fingerprint]


def test_join_by_name_refuses_an_only_table_whose_host_is_not_the_pinned_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = free_port()
    with BeaconSender(HOST, INFO, None, port, lobby_id=LOBBY, **FAST):
        argv = ["join", INFO.name, "--beacon-port", str(port), "--seconds", "1"]
        code, out, err = run_cli([*argv, "--fingerprint", MALLORY.fingerprint], capsys)
    assert code == 2 and out == ""
    *listed, last = err.strip().splitlines()
    assert len(listed) == 1 and HOST.fingerprint in listed[0]
    assert last.startswith(f"druids: error: no table named {INFO.name!r} is hosted by")


@pytest.mark.parametrize("text", ["", "xyz", "5282", "5282-e6a3-d155-8f01-6430-00", "52 82e6a3"])
def test_bad_fingerprint_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], text: str
) -> None:
    with pytest.raises(BadPin):
        parse_pin(text)
    code, out, err = run_cli(["join", "Friday night", "--fingerprint", text], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--fingerprint" in err


def test_pins_are_fingerprint_prefixes_with_or_without_dashes() -> None:
    fp = HOST.fingerprint
    for text in (fp, fp.upper(), fp[:9], fp.replace("-", "")[:10]):
        assert pin_matches(parse_pin(text), HOST.public_key)
        assert not pin_matches(parse_pin(text), MALLORY.public_key)


def test_tables_shows_fingerprints_and_notes_a_name_announced_by_two_hosts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = free_port()
    theirs = TableInfo(INFO.name, "tcp://127.0.0.9:45000", INFO.curve_key, players=4)
    with (
        BeaconSender(HOST, INFO, None, port, lobby_id=LOBBY, **FAST),
        BeaconSender(MALLORY, theirs, None, port, **FAST),
    ):
        code, out, _ = run_cli(["tables", "--seconds", "1", "--beacon-port", str(port)], capsys)
    assert code == 0
    listing, joins = out.strip().split("\n\n")
    _, *rows = listing.splitlines()
    *join_lines, note = joins.splitlines()
    assert len(rows) == 2
    assert sum(line.startswith("  druids join ") for line in join_lines) == 2  # one per table
    assert f"alice [{HOST.fingerprint}]" in out and f"mallory [{MALLORY.fingerprint}]" in out
    assert note == f"note: 2 hosts announce {INFO.name!r}: join it with --fingerprint FP"
