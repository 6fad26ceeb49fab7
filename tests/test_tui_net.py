"""The terminal UI at real tables: this process is a peer (``run_peer`` on a thread) and the bots
are ``druids`` peer processes on loopback. One-round games, played by key presses."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Select

from druids_p2p.lan.network import resolve
from druids_p2p.peer.local_table import PeerProcess
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.bots import BotSeat, bot_seats
from druids_p2p.tui.dialogs import ConfirmJoin
from druids_p2p.tui.druids2017.cards import Hand
from druids_p2p.tui.druids2017.dialogs import GaiaPrompt, GameOver, PilePrompt, RoundSummary
from druids_p2p.tui.druids2017.panels import players_table
from druids_p2p.tui.druids2017.snapshot import snapshot_from_table
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, Pacing
from druids_p2p.tui.lobby import LanSetup, LobbyScreen
from druids_p2p.tui.player import NetSession, local_table
from druids_p2p.wire import load_or_create

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SIZE = (110, 40)
GAME_TIMEOUT_S = 180.0  # a bound on a wait, not a speed check: loaded CI cores are slow


def _run(app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await body(pilot)

    asyncio.run(main())


async def _until(check: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.05)


async def _play_by_keys(
    pilot: Pilot[Any], app: DruidsApp, on_turn: Callable[[int], Awaitable[None]] | None = None
) -> bool:
    """Play the table by key presses until the GameOver screen; True if a round summary showed."""
    deadline = time.monotonic() + GAME_TIMEOUT_S
    summary = False
    turns = 0
    while time.monotonic() < deadline:
        await pilot.pause(0.05)
        screen = app.screen
        if isinstance(screen, GameOver):
            return summary
        if isinstance(screen, GaiaPrompt | PilePrompt):
            await pilot.press("1")
        elif isinstance(screen, RoundSummary):
            summary = True
            await pilot.press("enter")
        elif isinstance(screen, TableScreen):
            snap = screen.snapshot
            if snap is not None and snap.my_turn and not screen.awaiting:
                if on_turn is not None:
                    await on_turn(turns)
                turns += 1
                await pilot.press("enter")
    raise AssertionError(f"no game over in {GAME_TIMEOUT_S} s: {app.table and app.table.stopped}")


def _audit(record: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "audit", record, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert json.loads(out.stdout)


def test_local_table_a_round_by_keys_with_a_bot_killed_and_rejoining(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    identity = load_or_create().with_name("tester")
    bots = bot_seats(["rule", "rule", "rule"])
    sessions: list[NetSession] = []

    def make(post: Callable[[Any], object]) -> NetSession:
        spec = local_table(bots, rounds=1)
        session = NetSession(post, identity, tmp_path / "game", spec, snapshot_from_table)
        sessions.append(session)
        return session

    app = DruidsApp(
        table_ui=TABLE_UI, make_session=make, expected=tuple(b.name for b in bots), pacing=NO_PACING
    )

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, TableScreen)
        hand = table.query_one(Hand)

        def my_turn_shown() -> bool:
            snap = table.snapshot
            shown = snap is not None and snap.my_turn and snap.view is not None
            # the first request of a round: some card is playable once the chips are redrawn
            return shown and any(c.playable for c in hand.chips())

        await _until(my_turn_shown, 30)
        snap = table.snapshot
        assert snap is not None and snap.view is not None
        chips = hand.chips()
        assert sorted(c.card for c in chips) == sorted(snap.view.hand)
        assert {c.card for c in chips if c.playable} == {
            c for c in snap.view.hand if snap.playable(c)
        }
        assert set(snap.names) == {"tester", *(b.name for b in bots)}
        victim = sessions[0].bots.peers[0]

        async def on_turn(turn: int) -> None:
            if turn == 1:  # kill -9 a bot now; it is silent while the table waits for its ack
                victim.kill()

        async def restart_when_away() -> None:
            await _until(lambda: bool(table.away), 20)
            name = next(iter(table.away))
            assert name == victim.argv[victim.argv.index("--name") + 1]
            states = {snap.name(s): str(t) for s, t in table.states().items()}
            assert states[name].startswith("away ")
            victim.restart()
            await _until(lambda: name in table.rejoined, 30)

        watcher = asyncio.create_task(restart_when_away())
        summary = await _play_by_keys(pilot, app, on_turn)
        await watcher
        assert summary
        assert table.result is not None and table.result["finished"]
        record = table.record
        assert record is not None and Path(record).is_file()
        _audit(record)
        await pilot.press("q")
        await pilot.pause()

    try:
        _run(app, body)
    finally:
        for session in sessions:
            session.close()
            session.wait(5)
    outcome = app.return_value
    assert outcome is not None and outcome["result"]["finished"]
    for peer in sessions[0].bots.peers:
        assert peer.proc is not None and peer.proc.poll() is not None


def test_a_paced_local_table_plays_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The UI's pacing on a real table: every move and trick held a moment, the person's turn
    waiting at the back of the queue, the next round behind its summary; the game ends."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    identity = load_or_create().with_name("tester")
    bots = bot_seats(["rule", "rule"])
    sessions: list[NetSession] = []

    def make(post: Callable[[Any], object]) -> NetSession:
        spec = local_table(bots, rounds=1)
        session = NetSession(post, identity, tmp_path / "game", spec, snapshot_from_table)
        sessions.append(session)
        return session

    pacing = Pacing(move_s=0.02, trick_s=0.1)
    app = DruidsApp(
        table_ui=TABLE_UI, make_session=make, expected=tuple(b.name for b in bots), pacing=pacing
    )
    held: list[bool] = []

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, TableScreen)

        async def on_turn(turn: int) -> None:
            held.append(table.trick_held)

        assert await _play_by_keys(pilot, app, on_turn)
        assert table.result is not None and table.result["finished"]
        assert held and not any(held)  # never asked to move while a trick is on show
        await pilot.press("q")
        await pilot.pause()

    try:
        _run(app, body)
    finally:
        for session in sessions:
            session.close()
            session.wait(5)


def test_local_table_names_are_unique_when_the_bots_take_your_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14: 'root' listed twice. Bots named as the person (a bot joining under the system
    user's name) are seated under suffixed names, and the UI shows them so, "(you)" once."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    identity = load_or_create().with_name("root")
    bots = [BotSeat("rule", "root"), BotSeat("rule", "Root")]
    sessions: list[NetSession] = []

    def make(post: Callable[[Any], object]) -> NetSession:
        spec = local_table(bots, rounds=1)
        session = NetSession(post, identity, tmp_path / "game", spec, snapshot_from_table)
        sessions.append(session)
        return session

    app = DruidsApp(
        table_ui=TABLE_UI, make_session=make, expected=("root", "Root"), pacing=NO_PACING
    )

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, TableScreen)

        def seated() -> bool:
            snap = table.snapshot
            return snap is not None and snap.view is not None

        await _until(seated, 30)
        snap = table.snapshot
        assert snap is not None and snap.my_seat is not None
        assert len({n.lower() for n in snap.names}) == 3, snap.names
        assert snap.names[snap.my_seat] == "root"
        shown = " ".join(str(c) for c in players_table(snap, {}).columns[1].cells)
        assert shown.count("(you)") == 1
        await pilot.press("q", "y")
        await pilot.pause()

    try:
        _run(app, body)
    finally:
        for session in sessions:
            session.close()
            session.wait(5)


def test_lan_lobby_lists_a_table_and_joins_it_with_a_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    port = random.randint(42000, 58000)
    host = PeerProcess(
        0,
        tmp_path / "host",
        [
            sys.executable,
            "-m",
            "druids_p2p",
            "peer",
            "--player",
            "bot:rule",
            "--name",
            "hostbot",
            "--host",
            "--open",
            "--players",
            "3",
            "--rounds",
            "1",
            "--table-name",
            "tuitest",
            "--beacon-port",
            str(port),
        ],
        human=False,
    )
    host.start()
    setup = LanSetup(net=resolve(), beacon_port=port, rounds=1)
    app = DruidsApp(
        table_ui=TABLE_UI,
        lan=setup,
        identity=load_or_create(),
        folder=tmp_path / "game",
        pacing=NO_PACING,
    )

    async def body(pilot: Pilot[Any]) -> None:
        def listed() -> bool:
            screen = app.screen
            return isinstance(screen, LobbyScreen) and any(
                t.name == "tuitest" for t in screen.tables
            )

        await _until(listed, 15)
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        lobby.query_one("#join-bots", Select).value = 1
        await pilot.press("j")
        # the host is not pinned: the lobby asks first, showing its fingerprint
        await _until(lambda: isinstance(app.screen, ConfirmJoin), 10)
        await pilot.press("y")
        await _until(lambda: isinstance(app.screen, TableScreen | GaiaPrompt), 10)
        assert await _play_by_keys(pilot, app)
        table = app.table
        assert table is not None and table.result is not None and table.result["finished"]
        assert table.snapshot is not None and "hostbot" in table.snapshot.names
        await pilot.press("q")

    try:
        _run(app, body)
    finally:
        host.kill()
        if app.session is not None:
            app.session.close()
            wait = getattr(app.session, "wait", None)
            if callable(wait):
                wait(5)
    assert host.result() is not None
