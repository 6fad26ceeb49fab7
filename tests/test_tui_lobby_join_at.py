"""The LAN lobby (Textual Pilot) shows the address to join a table by: the host's lobby socket
(``druids join HOST:PORT``), not its mesh endpoint, which only CURVE peers of the table reach."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
from pathlib import Path

from lobby_pilot import shown_lobby
from textual.widgets import DataTable

from druids_p2p.lan.discovery import TableInfo, encode_beacon
from druids_p2p.lan.listener import BeaconListener
from druids_p2p.lan.network import resolve
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.druids2017.table import TABLE_UI
from druids_p2p.tui.lobby import LanSetup
from druids_p2p.tui.player import TableSpec
from druids_p2p.wire.identity import Identity

HOST = Identity.from_seed(bytes([1]) * 32, "alice")
INFO = TableInfo("Friday night", "tcp://127.0.0.1:45123", bytes(range(32)), players=4)


class RecordingApp(DruidsApp):
    def __init__(self, setup: LanSetup) -> None:
        super().__init__(table_ui=TABLE_UI, lan=setup, identity=HOST, folder=Path("."))
        self.opened: list[TableSpec] = []

    def open_table(
        self, spec: TableSpec, expected: tuple[str, ...], title: str | None = None
    ) -> None:
        self.opened.append(spec)


def test_the_lobby_lists_the_address_to_join_by() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # a free port, nothing sent
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    listener = BeaconListener(resolve(), port)
    app = RecordingApp(LanSetup(net=resolve(), beacon_port=port, listener=listener))
    with_lobby = dataclasses.replace(INFO, lobby_port=40123)
    rows: list[list[str]] = []
    header: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(150, 40)) as pilot:
            lobby = await shown_lobby(app, pilot)
            listener.handle(encode_beacon(HOST, with_lobby, bytes([1]) * 16, 1), ("127.0.0.1", 1))
            lobby.poll()
            await pilot.pause()
            table = lobby.query_one("#tables", DataTable)
            header.extend(str(c.label) for c in table.columns.values())
            rows.extend([str(c) for c in table.get_row_at(i)] for i in range(table.row_count))

    asyncio.run(main())
    assert "join at" in header and "endpoint" not in header
    (row,) = rows
    assert row[header.index("join at")] == "127.0.0.1:40123"
    assert "45123" not in " ".join(row)


def test_the_lobby_says_which_tables_have_the_coach_on() -> None:
    """A table whose beacon says the coach is on (one person, the rest bots) is listed with
    "coach on" beside its game, so a person looking for people to play knows before joining."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # a free port, nothing sent
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    listener = BeaconListener(resolve(), port)
    app = RecordingApp(LanSetup(net=resolve(), beacon_port=port, listener=listener))
    games: dict[str, str] = {}

    async def main() -> None:
        async with app.run_test(size=(150, 40)) as pilot:
            lobby = await shown_lobby(app, pilot)
            coached = dataclasses.replace(INFO, name="learning", players=3, coach=True)
            listener.handle(encode_beacon(HOST, coached, bytes([2]) * 16, 1), ("127.0.0.1", 1))
            listener.handle(encode_beacon(HOST, INFO, bytes([1]) * 16, 1), ("127.0.0.1", 1))
            lobby.poll()
            await pilot.pause()
            table = lobby.query_one("#tables", DataTable)
            header = [str(c.label) for c in table.columns.values()]
            for i in range(table.row_count):
                row = [str(c) for c in table.get_row_at(i)]
                games[row[header.index("table")]] = row[header.index("game")]

    asyncio.run(main())
    assert games == {"learning": "druids2017, coach on", "Friday night": "druids2017"}
