"""The coach's key in the terminal UI (issue 32): at a table of you and your bots on this machine
(``druids play``: the bots are ``druids peer`` processes on loopback) the coach is on, and ``a``
on your turn (on the table or on the prompt over it: Gaia's lead) writes in the log what the
strongest bot would play and why, naming one of your legal moves. At a table whose options
leave it off the key is absent and does nothing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from druids_p2p.games.druids2017.notation import format_move
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.bots import BotSeat
from druids_p2p.tui.druids2017.snapshot import snapshot_from_table
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING
from druids_p2p.tui.player import NetSession, local_table
from druids_p2p.tui.widgets import TableLog
from druids_p2p.wire import load_or_create

pytestmark = [pytest.mark.e2e]

SIZE = (110, 40)
WAIT_S = 90.0
"""A bound on a wait (bots starting, the coach's search), not a speed check."""


async def _until(check: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.05)


def _log(table: TableScreen) -> list[str]:
    return [str(line.text) for line in table.query_one(TableLog).lines]


@pytest.mark.parametrize("coach", [True, False])
def test_the_coach_key_at_a_table_of_you_and_your_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, coach: bool
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    identity = load_or_create().with_name("me")
    bots = [BotSeat("rule", "ann"), BotSeat("rule", "bo")]
    sessions: list[NetSession] = []

    def make(post: Callable[[Any], object]) -> NetSession:
        spec = local_table(bots, rounds=1) if coach else local_table(bots, rounds=1, coach=False)
        session = NetSession(post, identity, tmp_path / "game", spec, snapshot_from_table)
        sessions.append(session)
        return session

    app = DruidsApp(table_ui=TABLE_UI, make_session=make, expected=("ann", "bo"), pacing=NO_PACING)
    legal: list[str] = []

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, TableScreen)

        def my_turn() -> bool:
            snap = table.snapshot
            return snap is not None and snap.my_turn and snap.view is not None

        await _until(my_turn, WAIT_S)
        snap = table.snapshot
        assert snap is not None and snap.view is not None
        legal.extend(format_move(m) for m in snap.view.legal)
        assert app.check_action("coach", ()) is coach
        await pilot.press("a")  # on the table, or on the prompt over it (Gaia's lead)
        if coach:
            await _until(lambda: any(" coach: " in x for x in _log(table)), WAIT_S)
        else:
            await pilot.pause(0.5)
        lines = [x for x in _log(table) if " coach: " in x]
        if coach:
            (line,) = lines
            said = line.partition(" coach: ")[2].removeprefix("lead ")
            assert any(said.startswith(f"{token}: ") for token in legal), (line, legal)
        else:
            assert lines == []
        await pilot.press("q", "y")
        await pilot.pause()

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await body(pilot)

    try:
        asyncio.run(main())
    finally:
        for session in sessions:
            session.close()
            session.wait(5)
