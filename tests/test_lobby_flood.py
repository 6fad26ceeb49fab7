"""Join by name against a flood of many keys from many addresses (issue 27, item 4).

64 throwaway keys sent from 8 loopback addresses fill the whole 256-table list within every
per-key and per-source bound; one of them announces the victim's table name under the victim's
host name. The real table, heard after that, is dropped for room. ``druids join NAME`` must then
refuse and list what it heard instead of joining the only namesake left; a pinned host must still
get in; ``druids tables`` and the UI lobby must say that beacons are being dropped.

Safety: every datagram goes to 127.255.255.255 (lo) on a random high port, sent from sockets
bound to 127.0.0.1-127.0.0.9 (all loopback); nothing is sent anywhere else.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cli_harness import run_cli
from test_discovery import FAST, HOST, INFO, LOBBY, FakeClock, free_port

from druids_p2p.cli.app import CliError
from druids_p2p.cli.tables import find_table
from druids_p2p.lan.discovery import BeaconSender, TableInfo, decode_beacon, encode_beacon
from druids_p2p.lan.listener import (
    MAX_TABLES,
    MAX_TABLES_PER_KEY,
    MAX_TABLES_PER_SOURCE,
    BeaconListener,
    parse_pin,
)
from druids_p2p.lan.network import guarded_sendto
from druids_p2p.wire.identity import Identity

KEYS = 64
SOURCES = [f"127.0.0.{i}" for i in range(2, 10)]
"""8 source addresses, 8 keys each: 32 tables per address, the per-source bound."""
FLOODERS = [Identity.from_seed(bytes([0xA0, i]) * 16, "alice") for i in range(KEYS)]
"""Every flooder calls itself "alice", the real host's name; the first also names its table
"Friday night", the real table's name, so that it is the only namesake heard."""
MALLORY = FLOODERS[0]
HOST_SOURCE = ("127.0.0.1", 40001)
ROUND_PAUSE_S = 0.25
MAX_ROUNDS = 200
"""The flood's bound: at most this many rounds (about 50 s), whatever the test does."""


def _lobby(key: int, table: int) -> bytes:
    return bytes([key, table]) * 8


def _info(key: int, table: int) -> TableInfo:
    name = INFO.name if (key, table) == (0, 0) else f"table {key}.{table}"
    return TableInfo(name, f"{_endpoint(key)}", INFO.curve_key, players=4)


def _endpoint(key: int) -> str:
    return f"tcp://{SOURCES[key % len(SOURCES)]}:{45000 + key}"


def flood_round(counter: int) -> list[tuple[bytes, str]]:
    """One beacon per flood table (64 keys x 4 tables = 256): (datagram, source address)."""
    return [
        (encode_beacon(key, _info(k, t), _lobby(k, t), counter), SOURCES[k % len(SOURCES)])
        for k, key in enumerate(FLOODERS)
        for t in range(MAX_TABLES_PER_KEY)
    ]


def test_the_flood_fits_every_bound_and_fills_the_list() -> None:
    assert KEYS * MAX_TABLES_PER_KEY == MAX_TABLES
    assert KEYS // len(SOURCES) * MAX_TABLES_PER_KEY == MAX_TABLES_PER_SOURCE


def _listening(port: int) -> bool:
    """Someone has a UDP socket bound to the beacon port (the join's or the lobby's listener)."""
    for line in Path("/proc/net/udp").read_text().splitlines()[1:]:
        address, _, hexport = line.split()[1].partition(":")
        if int(hexport, 16) == port and address in ("FFFFFF7F", "00000000"):
            return True
    return False


@contextmanager
def flood_then_host(port: int, wait_for_listener: bool = True) -> Iterator[threading.Event]:
    """The flood, then the real host's beacons (a real ``BeaconSender`` from 127.0.0.1).

    With ``wait_for_listener`` the flood first waits (bounded) until a listener is bound to the
    port, sends two full rounds, and only then starts the real host: the list is full before the
    real table is first heard, as on a LAN flooded before the joiner looks. The event is set once
    the real host beacons."""
    if not Path("/proc/net/udp").exists():
        pytest.skip("needs /proc/net/udp to see when the joiner listens")
    stop, hosting = threading.Event(), threading.Event()
    sender = BeaconSender(HOST, INFO, HOST_SOURCE[0], port, lobby_id=LOBBY, **FAST)

    def run() -> None:
        socks = {}
        try:
            for address in SOURCES:
                sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                socks[address] = sock
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
                sock.bind((address, 0))
            for _ in range(2000):  # up to 20 s for the joiner to listen
                if not wait_for_listener or _listening(port) or stop.wait(0.01):
                    break
            for counter in range(1, MAX_ROUNDS + 1):
                for i, (data, source) in enumerate(flood_round(counter)):
                    guarded_sendto(socks[source], data, "127.255.255.255", port)
                    if i % 16 == 15:
                        time.sleep(0.001)  # no more than the listener's socket buffer holds
                if counter == 2:
                    sender.start()
                    hosting.set()
                if stop.wait(ROUND_PAUSE_S):
                    return
        finally:
            for sock in socks.values():
                sock.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield hosting
    finally:
        stop.set()
        thread.join(timeout=30)
        sender.stop()


def test_join_by_name_refuses_and_lists_when_a_many_key_flood_drops_the_real_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Today's code joins Mallory's "Friday night" by "alice": the only namesake listed."""
    port = free_port()
    events: list[dict[str, object]] = []
    with flood_then_host(port) as hosting, pytest.raises(CliError) as refused:
        find_table(INFO.name, "127.0.0.1", port, 8.0, events.append)
    assert hosting.is_set(), "the real host never beaconed: the test proves nothing"
    assert refused.value.code == 2 and events == []
    message = str(refused.value)
    assert "\n" not in message and "dropped" in message and "--fingerprint" in message
    listed = capsys.readouterr().err.strip().splitlines()
    mallory = [line for line in listed if MALLORY.fingerprint in line]
    real = [line for line in listed if HOST.fingerprint in line]
    assert mallory and real, listed
    assert all(f"{INFO.name!r} hosted by alice" in line for line in mallory + real)
    assert any("(from 127.0.0.2)" in line for line in mallory)
    # Listed, dropped or (when a loaded machine let the flood's entries expire first) heard:
    # either way the join refused, which is the point.
    assert any("(from 127.0.0.1)" in line for line in real), real


def test_a_pinned_host_survives_the_many_key_flood() -> None:
    """Today the real table is dropped as ``table_full`` and never heard: the pin finds nothing."""
    port = free_port()
    events: list[dict[str, object]] = []
    pin = parse_pin(HOST.fingerprint[:14])
    with flood_then_host(port) as hosting:
        raw = find_table(INFO.name, "127.0.0.1", port, 8.0, events.append, pin)
    assert hosting.is_set()
    beacon = decode_beacon(raw)
    assert (beacon.host_key, beacon.lobby_id) == (HOST.public_key, LOBBY)
    assert [e["fingerprint"] for e in events] == [HOST.fingerprint]


def test_tables_says_beacons_were_dropped(capsys: pytest.CaptureFixture[str]) -> None:
    """The flood's 256 tables and the real one are 257: at least one beacon is dropped."""
    port = free_port()
    with flood_then_host(port, wait_for_listener=False) as hosting:
        assert hosting.wait(10.0)
        code, out, _ = run_cli(["tables", "--seconds", "1.5", "--beacon-port", str(port)], capsys)
    assert code == 0
    notes = [line for line in out.splitlines() if line.startswith("note:") and "dropped" in line]
    assert len(notes) == 1, out
    assert "--fingerprint" in notes[0]


# --- the listener, beacon by beacon --------------------------------------------------------------


def _fill(listener: BeaconListener) -> None:
    for data, source in flood_round(1):
        assert listener.handle(data, (source, 5000)) is not None, listener.stats
    assert len(listener.tables()) == MAX_TABLES


def test_a_full_list_drops_a_new_table_and_says_so() -> None:
    clock = FakeClock()
    with BeaconListener(None, free_port(), clock=clock) as listener:
        _fill(listener)
        assert listener.dropping() is None
        assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 1), HOST_SOURCE) is None
        assert listener.stats["table_full"] == 1
        note = listener.dropping()
        assert note is not None and "1 beacon" in note
        [hidden] = listener.dropped_tables()
        assert (hidden.beacon.host_key, hidden.source) == (HOST.public_key, HOST_SOURCE)
        clock.now += 2 * listener.expiry  # nothing dropped lately: no more notice
        assert listener.dropping() is None


@pytest.mark.parametrize("source", [HOST_SOURCE, (SOURCES[0], 6000)])
def test_a_kept_host_takes_a_strangers_slot_and_is_never_evicted_by_strangers(
    source: tuple[str, int],
) -> None:
    """Pinned or confirmed (``keep``): its table gets in even when the list and its source
    address (a forged source, here a flooder's) are full; a stranger's least recently heard
    table makes room, and no stranger's beacon can push the kept one out again."""
    clock = FakeClock()
    with BeaconListener(None, free_port(), clock=clock) as listener:
        listener.keep = lambda key: key == HOST.public_key
        _fill(listener)
        clock.now += 1.0
        first = flood_round(2)[1:]  # every flood table refreshed but the first
        for data, src in first:
            listener.handle(data, (src, 5000))
        assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 1), source) is not None
        tables = listener.tables()
        assert len(tables) == MAX_TABLES
        assert (MALLORY.public_key, _lobby(0, 0)) not in {
            (t.beacon.host_key, t.lobby_id) for t in tables
        }
        assert listener.stats["evicted"] == 1
        # strangers keep coming with new tables: dropped, the kept table stays
        stranger = Identity.from_seed(bytes([0xEE]) * 32, "alice")
        for i in range(8):
            data = encode_beacon(stranger, INFO, bytes([i]) * 16, 1)
            assert listener.handle(data, (SOURCES[1], 5000)) is None
        assert any(t.beacon.host_key == HOST.public_key for t in listener.tables())


def test_a_kept_host_still_churns_only_its_own_tables() -> None:
    clock = FakeClock()
    with BeaconListener(None, free_port(), clock=clock) as listener:
        listener.keep = lambda key: key == HOST.public_key
        _fill(listener)
        for i in range(MAX_TABLES_PER_KEY + 3):
            clock.now += 0.01
            assert listener.handle(encode_beacon(HOST, INFO, bytes([i]) * 16, 1), HOST_SOURCE)
        mine = [t for t in listener.tables() if t.beacon.host_key == HOST.public_key]
        assert len(mine) == MAX_TABLES_PER_KEY
        assert len(listener.tables()) == MAX_TABLES


# --- the terminal UI's lobby ---------------------------------------------------------------------


def test_the_ui_lobby_says_beacons_are_dropped_and_keeps_a_confirmed_host() -> None:
    """Beacons handed straight to the lobby's listener (nothing sent): after the flood the real
    table is dropped and the status line says so; once the person has confirmed that host (as
    the join prompt does), its table gets in through the same full list."""
    from test_tui_lobby_guard import SIZE, RecordingApp, _listener, _rows, _until
    from textual.widgets import Static

    from druids_p2p.lan.network import resolve
    from druids_p2p.tui.lobby import LanSetup, LobbyScreen

    listener, clock = _listener(), FakeClock()
    listener.clock = clock
    setup = LanSetup(net=resolve(), beacon_port=listener.port, listener=listener)
    app = RecordingApp(setup)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            lobby = app.screen
            assert isinstance(lobby, LobbyScreen)
            _fill(listener)
            assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 1), HOST_SOURCE) is None
            lobby.poll()
            await pilot.pause()
            status = str(lobby.query_one("#lobby-status", Static).render())
            assert "dropped" in status and "fingerprint" in status, status
            assert HOST.fingerprint not in {row[3] for row in _rows(lobby)}
            setup.trusted.add(HOST.public_key)  # confirmed earlier in this session
            assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 2), HOST_SOURCE) is not None
            lobby.poll()
            await pilot.pause()
            assert any(HOST.fingerprint in row[3] for row in _rows(lobby))
            # the flood stops: once no beacon was dropped for an expiry, the notice goes
            clock.now += listener.expiry + 1.0
            assert listener.handle(encode_beacon(HOST, INFO, LOBBY, 3), HOST_SOURCE) is not None
            lobby.poll()
            await pilot.pause()
            status = str(lobby.query_one("#lobby-status", Static).render())
            assert status == "1 table(s) heard", status

    import asyncio

    try:
        asyncio.run(main())
    finally:
        listener.close()
