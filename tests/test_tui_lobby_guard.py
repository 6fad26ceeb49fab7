"""The terminal UI's lobby against a LAN attacker (Textual Pilot): fingerprints shown, namesakes
marked, confirmation before joining an unpinned host; and the host's prompt for each joiner.

No table is really joined: the app's ``open_table`` only records what it was asked to open.
Beacons are handed straight to the lobby's listener (bound on loopback, nothing sent).
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from druids_p2p.lan.discovery import TableInfo, encode_beacon
from druids_p2p.lan.listener import BeaconListener, parse_pin
from druids_p2p.lan.network import resolve
from druids_p2p.lan.seating import JoinRequest
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.dialogs import ApprovalBridge, ApproveJoin, ConfirmJoin
from druids_p2p.tui.druids2017.snapshot import snapshot_from_table
from druids_p2p.tui.druids2017.table import TABLE_UI
from druids_p2p.tui.lobby import LanSetup, LobbyScreen
from druids_p2p.tui.player import TableSpec
from druids_p2p.wire.identity import Identity

SIZE = (150, 40)
BOUND_S = 20.0
HOST = Identity.from_seed(bytes([1]) * 32, "alice")
MALLORY = Identity.from_seed(bytes([9]) * 32, "alice")  # the same display name, another key
INFO = TableInfo("Friday night", "tcp://127.0.0.1:45123", bytes(range(32)), players=4)


class RecordingApp(DruidsApp):
    def __init__(self, setup: LanSetup) -> None:
        super().__init__(table_ui=TABLE_UI, lan=setup, identity=HOST, folder=Path("."))
        self.opened: list[TableSpec] = []

    def open_table(
        self, spec: TableSpec, expected: tuple[str, ...], title: str | None = None
    ) -> None:
        self.opened.append(spec)


FINGERPRINT = 3
"""The lobby's fingerprint column (after the table's name, its game and its host)."""


def _listener() -> BeaconListener:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # a free port
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return BeaconListener(resolve(), port)


def _run(app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await body(pilot)

    asyncio.run(main())


async def _until(pilot: Pilot[Any], check: Callable[[], bool]) -> None:
    for _ in range(int(BOUND_S / 0.05)):
        if check():
            return
        await pilot.pause(0.05)
    raise AssertionError("the screen did not get there")


def _rows(lobby: LobbyScreen) -> list[list[str]]:
    table = lobby.query_one("#tables", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def _text(screen: Any) -> str:
    return "\n".join(str(w.render()) for w in screen.query(Static))


def test_lobby_shows_fingerprints_marks_namesakes_and_asks_before_joining() -> None:
    listener = _listener()
    setup = LanSetup(net=resolve(), beacon_port=listener.port, listener=listener)
    app = RecordingApp(setup)
    real = encode_beacon(HOST, INFO, bytes([1]) * 16, 1)
    fake = encode_beacon(MALLORY, INFO, bytes([2]) * 16, 1)

    async def body(pilot: Pilot[Any]) -> None:
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        listener.handle(real, ("127.0.0.1", 40000))
        listener.handle(fake, ("127.0.0.9", 40000))
        lobby.poll()
        await pilot.pause()
        rows = _rows(lobby)
        assert len(rows) == 2
        assert {r[FINGERPRINT] for r in rows} == {HOST.fingerprint, MALLORY.fingerprint}
        assert all(r[0] == "Friday night (!2 hosts)" for r in rows)
        # join the row of the real host: a prompt shows its fingerprint and warns of the namesake
        table = lobby.query_one("#tables", DataTable)
        row = next(i for i, r in enumerate(rows) if r[FINGERPRINT] == HOST.fingerprint)
        table.move_cursor(row=row)
        await pilot.press("j")
        await _until(pilot, lambda: isinstance(app.screen, ConfirmJoin))
        text = _text(app.screen)
        assert f"fingerprint {HOST.fingerprint}" in text
        assert "1 other host(s) announce a table named 'Friday night'" in text
        await pilot.press("n")  # not the host I mean: nothing joined
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.opened == []
        await pilot.press("j")
        await _until(pilot, lambda: isinstance(app.screen, ConfirmJoin))
        await pilot.press("y")
        await _until(pilot, lambda: len(app.opened) == 1)
        spec = app.opened[0]
        assert spec.announcement == real and spec.host_fingerprint == HOST.fingerprint
        # the host is now confirmed for this session: joining it again does not ask
        app.opened.clear()
        lobby.listener = listener  # _open closed it; the lobby is still on screen in this test
        await pilot.press("j")
        await _until(pilot, lambda: len(app.opened) == 1)
        assert not isinstance(app.screen, ConfirmJoin)
        # and the other host's row still asks
        table.move_cursor(row=1 - row)
        await pilot.press("j")
        await _until(pilot, lambda: isinstance(app.screen, ConfirmJoin))
        assert f"fingerprint {MALLORY.fingerprint}" in _text(app.screen)
        await pilot.press("escape")
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert len(app.opened) == 1

    try:
        _run(app, body)
    finally:
        listener.close()


def test_a_pinned_host_is_joined_without_asking() -> None:
    listener = _listener()
    pins = (parse_pin(HOST.fingerprint[:9]),)
    setup = LanSetup(net=resolve(), beacon_port=listener.port, listener=listener, pins=pins)
    app = RecordingApp(setup)
    real = encode_beacon(HOST, INFO, bytes([1]) * 16, 1)

    async def body(pilot: Pilot[Any]) -> None:
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        listener.handle(real, ("127.0.0.1", 40000))
        lobby.poll()
        await pilot.pause()
        assert _rows(lobby)[0][FINGERPRINT] == f"✓ {HOST.fingerprint}"
        await pilot.press("j")
        await _until(pilot, lambda: len(app.opened) == 1)
        assert app.opened[0].announcement == real

    try:
        _run(app, body)
    finally:
        listener.close()


def test_the_ui_host_is_asked_about_each_joiner_but_not_its_own_bots() -> None:
    listener = _listener()
    app = RecordingApp(LanSetup(net=resolve(), beacon_port=listener.port, listener=listener))
    bot = Identity.from_seed(bytes([5]) * 32, "rule-1")
    bridge = ApprovalBridge(app.post_message, [bot.public_key], timeout_s=BOUND_S)
    answers: list[bool] = []

    def request(who: Identity) -> JoinRequest:
        return JoinRequest(who.public_key, who.name, who.name, "tcp://127.0.0.1:5000", 1, 4)

    def ask(who: Identity) -> threading.Thread:
        thread = threading.Thread(target=lambda: answers.append(bridge(request(who))))
        thread.start()
        return thread

    async def body(pilot: Pilot[Any]) -> None:
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert bridge(request(bot)) is True  # our own bot: no prompt
        for who, key, seated in ((MALLORY, "n", False), (HOST, "y", True)):
            thread = ask(who)
            await _until(pilot, lambda: isinstance(app.screen, ApproveJoin))
            text = _text(app.screen)
            assert f"fingerprint {who.fingerprint}" in text and "'alice'" in text
            await pilot.press(key)

            def answered(t: threading.Thread = thread) -> bool:
                return not t.is_alive()

            await _until(pilot, answered)
            assert answers[-1] is seated
        # the person left: whoever asks now is refused at once
        bridge.close()
        assert bridge(request(HOST)) is False

    try:
        _run(app, body)
    finally:
        bridge.close()
        listener.close()
    assert answers == [False, True]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--lan", "--fingerprint", "xyz"], "--fingerprint 'xyz'"),
        (["play", "--lan", "--fingerprint", "5282"], "at least 8 hex digits"),
        (["play", "--fingerprint", "5282-e6a3"], "it goes with --lan"),
    ],
)
def test_play_lan_bad_fingerprint_is_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from druids_p2p.cli.main import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_ui_host_session_asks_through_the_bridge_and_knows_its_bots(tmp_path: Path) -> None:
    from druids_p2p.tui.bots import bot_seats
    from druids_p2p.tui.player import NetSession, local_table
    from druids_p2p.wire import load_or_create

    bots = bot_seats(["rule", "random"])
    session = NetSession(lambda m: None, HOST, tmp_path, local_table(bots), snapshot_from_table)
    config = session.config()
    assert isinstance(config.approve_join, ApprovalBridge)
    homes = [tmp_path / "bots" / b.name for b in bots]
    keys = {load_or_create(home).public_key for home in homes}  # what each bot process loads
    assert config.approve_join.own_keys == keys and len(keys) == 2
    joiner = NetSession(
        lambda m: None, HOST, tmp_path / "j", TableSpec(announcement=b"x"), snapshot_from_table
    )
    assert joiner.config().approve_join is None  # a joiner seats nobody
