"""Chat in the terminal UI (Textual Pilot): ``c`` opens the chat box, Enter sends, Escape
closes; lines read ``NAME: TEXT`` in the table log. First at an offline table (the input itself),
then at a real table of bot peer processes, where the line must reach every peer's event log."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from offline2017 import OfflineSession
from textual.pilot import Pilot
from textual.widgets import RichLog

from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.bots import bot_seats
from druids_p2p.tui.druids2017.dialogs import GaiaPrompt, GameOver, PilePrompt, RoundSummary
from druids_p2p.tui.druids2017.snapshot import snapshot_from_table
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, PeerEvent
from druids_p2p.tui.player import NetSession, local_table
from druids_p2p.tui.widgets import ChatBox
from druids_p2p.wire import load_or_create

SIZE = (120, 44)
NAMES = ("you-name", "rule-1", "rule-2", "rule-3")


def _run(app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await body(pilot)

    asyncio.run(main())


def _log(table: TableScreen) -> list[str]:
    """The log's lines without their time of day (``13:54:16 ``)."""
    lines = [line.text for line in table.query_one("#log", RichLog).lines]
    return [re.sub(r"^\d\d:\d\d:\d\d ", "", line) for line in lines]


async def _until(pilot: Pilot[Any], check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await pilot.pause(0.05)


def test_the_chat_input_sends_a_line_and_the_log_shows_every_line() -> None:
    def make(post: Callable[[Any], object]) -> OfflineSession:
        return OfflineSession(post, NAMES, options=GameOptions(players=4, rounds=1), seed=3)

    app = DruidsApp(table_ui=TABLE_UI, make_session=make)

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, TableScreen)
        assert isinstance(app.screen, TableScreen)
        # Letters that are keys elsewhere (q quits, p prompts, g y r b v s jump in the hand):
        # inside the box they are text.
        await pilot.press("c", *"good game q", "enter")
        await pilot.pause()
        assert "you: good game q" in _log(table)
        assert isinstance(app.screen, TableScreen)  # closed, not quit
        snap = table.snapshot  # talking in one's turn takes nothing away from it
        assert snap is not None and snap.my_turn and snap.turn == 1
        await pilot.press("c", *"never mind", "escape")
        await pilot.pause()
        assert not any("never mind" in line for line in _log(table))
        # A line from another seat, as the peer reports it.
        snap = table.snapshot
        app.post_message(
            PeerEvent({"event": "chat", "seat": 2, "name": "rule-2", "text": "hi all"}, snap)
        )
        await pilot.pause()
        assert "rule-2: hi all" in _log(table)
        await pilot.press("c", "enter")  # an empty line is not sent
        await pilot.pause()
        assert sum(line.startswith("you:") for line in _log(table)) == 1

    _run(app, body)


@pytest.mark.slow
@pytest.mark.e2e
def test_a_line_typed_at_a_real_table_reaches_every_peer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """You and two rule bots (peer processes on loopback): a line typed in the UI is signed and
    sent, shown in your log, and lands in each bot peer's event log; the game goes on to its
    end (the bots ignore the chat)."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    identity = load_or_create().with_name("tester")
    bots = bot_seats(["rule", "rule"])
    sessions: list[NetSession] = []

    def make(post: Callable[[Any], object]) -> NetSession:
        spec = local_table(bots, rounds=1)
        session = NetSession(post, identity, tmp_path / "game", spec, snapshot_from_table)
        sessions.append(session)
        return session

    # Unpaced: the pacing's holds (a second or more per move and per trick) are not what this
    # test checks (test_tui_net.py does), and would be most of its time.
    app = DruidsApp(
        table_ui=TABLE_UI,
        make_session=make,
        expected=tuple(b.name for b in bots),
        pacing=NO_PACING,
    )

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, TableScreen)
        said = False
        deadline = time.monotonic() + 240  # a bound on the wait, not a speed check
        while not isinstance(app.screen, GameOver):
            assert time.monotonic() < deadline, "\n".join(["no game over", *_log(table)[-9:]])
            await pilot.pause(0.05)
            screen = app.screen
            if isinstance(screen, GaiaPrompt | PilePrompt):
                await pilot.press("1")
            elif isinstance(screen, RoundSummary):
                await pilot.press("enter")
            elif isinstance(screen, TableScreen):
                snap = screen.snapshot
                if not said and snap is not None and snap.view is not None:
                    await pilot.press("c")  # once the cards are dealt
                    await pilot.pause()
                    if isinstance(app.screen, ChatBox):
                        await pilot.press(*"hello bots", "enter")
                        said = True
                elif snap is not None and snap.my_turn and not screen.awaiting:
                    await pilot.press("enter")
        assert "you: hello bots" in _log(table), "\n".join(_log(table))
        assert table.result is not None and table.result["finished"]
        # At the end screen the person is still at the table: "gg" is signed and sent (before,
        # the peer stopped hearing and sending chat with the last move: the line waited unsent).
        await pilot.press("c", *"gg", "enter")
        await _until(pilot, lambda: "you: gg" in _log(table))
        assert isinstance(app.screen, GameOver)

    try:
        _run(app, body)
    finally:
        for session in sessions:
            session.close()
            session.wait(5)
    logs = sorted((tmp_path / "game" / "bots").glob("*/tables/*/events.jsonl"))
    assert len(logs) == len(bots)
    for path in logs:
        events = [json.loads(line) for line in path.read_text().splitlines()]
        said = [(e["name"], e["text"]) for e in events if e.get("event") == "chat"]
        # (the "gg" too if the bot's peer was still lingering at the end when it came)
        assert said in ([("tester", "hello bots")], [("tester", "hello bots"), ("tester", "gg")])


def test_a_line_typed_once_the_peer_has_stopped_is_refused_not_queued(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the table's peer has stopped nobody can hear a line: the person is told so (before,
    it was queued for a peer that would never send it, and nothing was said)."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    identity = load_or_create().with_name("tester")
    spec = local_table(bot_seats(["rule", "rule"]), rounds=1)
    session = NetSession(lambda _: None, identity, tmp_path / "game", spec, snapshot_from_table)
    assert session.send_chat("hello") is None  # not seated yet: sent once it is
    session.close()
    assert session.send_chat("gg") == "the table is closed: nobody hears chat any more"
