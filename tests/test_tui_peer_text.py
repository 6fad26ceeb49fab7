"""No text from another peer is ever read as markup (issue 27, item 8), in every widget that shows
it (Textual Pilot): the lobby's table list, the joining prompt, the host's approval prompt, the
table's title, players, warnings, log and end screen, at a Druids (2017) and a Druids (2004) table.

Names, table names, chat lines and reasons here hold Textual/Rich markup: ``[/x]`` (which stopped
the app with a ``MarkupError``), ``[@click=screen.answer(True)]B`` (which made a name a link that
answers "yes" when clicked) and ``[b]x[/b]``. Each must be shown literally, and a click on it must
do nothing. Control and bidi characters that reach a screen by any path are shown as U+FFFD.
Beacons are handed straight to the lobby's listener (bound on loopback, nothing sent).
"""

from __future__ import annotations

import asyncio
import io
import re
import socket
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from offline2017 import OfflineSession, find_position, random_policy
from rich.console import Console
from rich.text import Text
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import DataTable, RichLog, Static

from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.lan.discovery import SeatedPlayer, TableInfo, encode_beacon
from druids_p2p.lan.listener import BeaconListener
from druids_p2p.lan.network import resolve
from druids_p2p.lan.seating import JoinRequest
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.dialogs import ApprovalBridge, ApproveJoin, ConfirmJoin
from druids_p2p.tui.druids2004.lan_table import TABLE_UI as TABLE_UI_2004
from druids_p2p.tui.druids2004.lan_table import LanTable2004Screen
from druids_p2p.tui.druids2017.cards import missing_domain
from druids_p2p.tui.druids2017.dialogs import GameOver
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, PeerEvent, Session, SessionEnded
from druids_p2p.tui.lobby import LanSetup, LobbyScreen
from druids_p2p.tui.player import TableSpec
from druids_p2p.wire.identity import Identity

SIZE = (160, 44)
BOUND_S = 20.0
CLOSE = "[/x]"
LINK = "[@click=screen.answer(True)]B"
BOLD = "[b]x[/b]"
QUIT_LINK = "[@click=app.quit]Q"
ME = Identity.from_seed(bytes([1]) * 32, "alice")


def _run(app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await body(pilot)

    asyncio.run(main())


async def _until(pilot: Pilot[Any], check: Callable[[], bool]) -> None:
    for _ in range(int(BOUND_S / 0.05)):
        if check():
            return
        await pilot.pause(0.05)
    raise AssertionError("the screen did not get there")


def drawn(widget: Static) -> str:
    """What ``widget`` draws, as plain text: its markup read (if it reads markup) and rendered."""
    visual = widget.visual
    if isinstance(visual, Content):
        return visual.plain
    console = Console(width=SIZE[0], record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def cell_drawn(cell: object) -> str:
    """A DataTable cell as DataTable draws it: a ``str`` is read as markup, a ``Text`` is not."""
    return cell.plain if isinstance(cell, Text) else Text.from_markup(str(cell)).plain


def _log(screen: Any) -> list[str]:
    lines = [line.text for line in screen.query_one("#log", RichLog).lines]
    return [re.sub(r"^\d\d:\d\d:\d\d ", "", line) for line in lines]


# ---------------------------------------------------------------------- the lobby
class RecordingApp(DruidsApp):
    def __init__(self, setup: LanSetup) -> None:
        super().__init__(table_ui=TABLE_UI, lan=setup, identity=ME, folder=Path("."))
        self.opened: list[TableSpec] = []

    def open_table(
        self, spec: TableSpec, expected: tuple[str, ...], title: str | None = None
    ) -> None:
        self.opened.append(spec)


def _listener() -> BeaconListener:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return BeaconListener(resolve(), port)


def _beacon(host_name: str, table_name: str, seated: str, n: int) -> bytes:
    host = Identity.from_seed(bytes([10 + n]) * 32, host_name)
    info = TableInfo(
        table_name, "tcp://127.0.0.1:45123", bytes(range(32)), players=4,
        seats=(
            SeatedPlayer(host_name, host.public_key),
            SeatedPlayer(seated, bytes([30 + n]) * 32),
        ),
    )  # fmt: skip
    return encode_beacon(host, info, bytes([n]) * 16, 1)


def test_the_lobby_lists_markup_names_as_they_are() -> None:
    listener = _listener()
    app = RecordingApp(LanSetup(net=resolve(), beacon_port=listener.port, listener=listener))
    announced = [(CLOSE, LINK, BOLD), (BOLD, CLOSE, QUIT_LINK), (QUIT_LINK, BOLD, CLOSE)]

    async def body(pilot: Pilot[Any]) -> None:
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        for n, (host, table, seated) in enumerate(announced, start=1):
            listener.handle(_beacon(host, table, seated, n), ("127.0.0.1", 40000 + n))
        lobby.poll()
        await pilot.pause()
        grid = lobby.query_one("#tables", DataTable)
        rows = [[cell_drawn(c) for c in grid.get_row_at(i)] for i in range(grid.row_count)]
        got = {(r[2], r[0], r[8]) for r in rows}  # host, table, seated
        assert got == {(h, t, f"{h}, {s}") for h, t, s in announced}
        assert app.is_running and isinstance(app.screen, LobbyScreen)

    try:
        _run(app, body)
    finally:
        listener.close()


def test_a_link_in_a_table_name_joins_nothing_when_clicked() -> None:
    listener = _listener()
    app = RecordingApp(LanSetup(net=resolve(), beacon_port=listener.port, listener=listener))

    async def body(pilot: Pilot[Any]) -> None:
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        listener.handle(_beacon(BOLD, LINK, "bob", 1), ("127.0.0.1", 40000))
        lobby.poll()
        await pilot.pause()
        await pilot.press("j")
        await _until(pilot, lambda: isinstance(app.screen, ConfirmJoin))
        line = app.screen.query(Static)[1]
        assert drawn(line).startswith(f"table {LINK!r} hosted by {BOLD} at ")
        for x in range(12):  # read as markup, "table 'B'…": the B at x=7 was a "yes" link
            await pilot.click(line, offset=(x, 0))
            await pilot.pause()
        assert app.opened == [] and isinstance(app.screen, ConfirmJoin)
        await pilot.press("n")
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.opened == []

    try:
        _run(app, body)
    finally:
        listener.close()


def test_the_hosts_prompt_shows_a_joiners_markup_name_and_its_link_seats_nobody() -> None:
    listener = _listener()
    app = RecordingApp(LanSetup(net=resolve(), beacon_port=listener.port, listener=listener))
    bridge = ApprovalBridge(app.post_message, timeout_s=BOUND_S)
    answers: list[bool] = []

    def ask(name: str, n: int) -> threading.Thread:
        key = Identity.from_seed(bytes([40 + n]) * 32, "x").public_key
        request = JoinRequest(key, name, f"{name}-2", "tcp://127.0.0.1:5000", 1, 4)
        thread = threading.Thread(target=lambda: answers.append(bridge(request)))
        thread.start()
        return thread

    async def body(pilot: Pilot[Any]) -> None:
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        for n, name in enumerate((LINK, CLOSE, BOLD)):
            thread = ask(name, n)
            await _until(pilot, lambda: isinstance(app.screen, ApproveJoin))
            line = app.screen.query(Static)[1]
            assert drawn(line).startswith(f"{name!r} (seated as {name + '-2'!r}) fingerprint ")
            for x in range(6):  # read as markup, "'B' (seated…": the B at x=1 was a "yes" link
                await pilot.click(line, offset=(x, 0))
                await pilot.pause()
            assert thread.is_alive() and isinstance(app.screen, ApproveJoin)
            await pilot.press("n")
            await _until(pilot, lambda t=thread: not t.is_alive())  # type: ignore[misc]
        assert answers == [False, False, False]

    try:
        _run(app, body)
    finally:
        bridge.close()
        listener.close()


# ---------------------------------------------------------------------- a Druids (2017) table
NAMES = ("you", CLOSE, QUIT_LINK, BOLD)


def test_the_table_shows_names_chat_warnings_and_reasons_as_they_are() -> None:
    # A position where seat 1 ("[/x]") holds four domains: the warnings line names it.
    seed, prefix = find_position(
        lambda g: (
            g.round is not None
            and g.round.to_move == 0
            and not g.round.pending_sickles
            and missing_domain(g.view(0), 1) is not None
        ),
        policy=random_policy,
    )
    title = f"LAN table {LINK!r} hosted by {CLOSE}"

    def make(post: Callable[[Any], object]) -> OfflineSession:
        options = GameOptions(players=4, rounds=1)
        return OfflineSession(post, NAMES, options=options, seed=seed, prefix=prefix, title=title)

    app = DruidsApp(table_ui=TABLE_UI, make_session=make, pacing=NO_PACING)
    chat = f"{BOLD} hi \u202eevil\x1b[2J"
    reason = f"{CLOSE} withheld {QUIT_LINK} \u2066x"

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, TableScreen)
        assert drawn(table.query_one("#title", Static)) == f"Druids — {title}"
        players = drawn(table.query_one("#players", Static))
        assert all(name in players for name in NAMES[1:])
        warnings = drawn(table.query_one("#warnings", Static))
        assert f"{CLOSE} holds four domains" in warnings
        snap = table.snapshot
        for event in (
            {"event": "chat", "seat": 1, "name": CLOSE, "text": chat},
            {"event": "warning", "text": f"{BOLD} \x07rang"},
            {"event": "joined", "name": LINK, "seats": 2},
            {"event": "aborted", "reason": reason, "blame": 2},
            {"event": "result", "finished": False},  # the end screen: why the table stopped
        ):
            app.post_message(PeerEvent(event, snap))
        await _until(pilot, lambda: isinstance(app.screen, GameOver))
        log = "".join(_log(table))  # long lines wrap: read as one
        assert f"{CLOSE}: {BOLD} hi \ufffdevil\ufffd[2J" in log
        assert f"{BOLD} \ufffdrang" in log
        assert f"{LINK} joined (2/" in log
        stopped = f"{CLOSE} withheld {QUIT_LINK} \ufffdx — blamed: seat 2 ({QUIT_LINK})"
        assert f"TABLE STOPPED: {stopped}" in log
        assert not any(c in log for c in "\u202e\u2066\x1b\x07")
        assert drawn(table.query_one("#status", Static)) == f"■ Table stopped: {stopped}"
        over = app.screen
        assert drawn(over.query_one(".stopped", Static)) == stopped
        assert all(name in drawn(over.query(Static)[2]) for name in NAMES[1:])  # the scores
        await pilot.click(over.query_one(".stopped", Static), offset=(len(CLOSE) + 10, 0))
        assert app.is_running

    _run(app, body)


# ---------------------------------------------------------------------- a Druids (2004) table
class StoppedSession(Session):
    """A table of peers that stops at once, blaming the seat whose name is markup."""

    title = f"LAN table {LINK!r} hosted by {CLOSE}"

    def __init__(self, post: Callable[[Any], object]) -> None:
        self.post = post

    def start(self) -> None:
        reason = f"{CLOSE} withheld its deck_shuffle {QUIT_LINK}"
        self.post(PeerEvent({"event": "chat", "seat": 1, "name": BOLD, "text": LINK}, None))
        self.post(PeerEvent({"event": "aborted", "reason": reason, "blame": 0}, None))
        self.post(SessionEnded(None, reason))

    def submit(self, move: int, turn: int) -> None:
        raise AssertionError("nothing is played here")

    def close(self) -> None:
        pass


def test_the_2004_table_shows_a_stop_reason_and_names_as_they_are() -> None:
    app = DruidsApp(
        table_ui=TABLE_UI_2004, make_session=StoppedSession, expected=(CLOSE, BOLD),
        pacing=NO_PACING,
    )  # fmt: skip
    stopped = f"{CLOSE} withheld its deck_shuffle {QUIT_LINK} — blamed: {CLOSE}"

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, LanTable2004Screen)
        await _until(pilot, lambda: table.stopped is not None)
        await pilot.pause()
        assert drawn(table.query_one("#status", Static)) == f"The table stopped: {stopped}"
        log = "".join(_log(table))  # the log is narrow here: its lines wrap
        assert f"Druids (2004) — {StoppedSession.title}: waiting for {CLOSE}, {BOLD}" in log
        assert f"{BOLD}: {LINK}" in log and f"the table stopped: {stopped}" in log
        assert app.is_running

    _run(app, body)
