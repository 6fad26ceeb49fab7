"""The coach's key at the offline tables (``druids play --offline``: you against in-process bots,
no other person, so the coach is always on): ``a`` on your move says what the strongest bot would
play and why, naming one of your legal moves as you type them (issue 32)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from board_keys import synced
from test_tui_2004 import _session, settle
from test_tui_2016 import SIZE as SIZE_2016
from test_tui_2016 import _key_to, _settle

from druids_p2p.games.druids2004.view import typed_move
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.tui.druids2004.table import Druids2004App
from druids_p2p.tui.druids2016.session import Offline2016, rule_chooser
from druids_p2p.tui.druids2016.table import Druids2016App
from druids_p2p.tui.widgets import TableLog

SIZE_2004 = (112, 42)


@synced
async def test_the_coach_at_an_offline_2004_table() -> None:
    app = Druids2004App(_session(3, seed=7))
    async with app.run_test(size=SIZE_2004) as pilot:
        await settle(pilot, app)
        view = app.table.view
        assert view.to_move == app.session.seat and view.legal
        legal = {typed_move(m) for m in view.legal}
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        log = [str(line.text) for line in app.table.query_one(TableLog).lines]
        said = [x.partition("coach: ")[2] for x in log if "coach: " in x]
        assert len(said) == 1, log
        assert said[0].split(": ")[0] in legal, (said, legal)


@synced
async def test_the_coach_at_an_offline_2016_table(tmp_path: Path) -> None:
    session = Offline2016(("alice", "rule"), {1: rule_chooser(2)}, seed=4)
    app = Druids2016App(session, tmp_path)
    async with app.run_test(size=SIZE_2016) as pilot:
        await pilot.pause()
        await pilot.press("a")  # placing: the other's placement is hidden, nothing to say yet
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.table.message == "coach: ask me when it is your move"
        for square in session.place_choices()[:2]:
            await _key_to(pilot, app, square)
        await _settle(pilot, app)
        game: Any = session.position()
        assert game.to_move == 0
        legal = {Move.of(code).token() for code in game.legal_codes()}
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        message = app.table.message
        assert message.startswith("coach: "), message
        assert message.removeprefix("coach: ").split(": ")[0] in legal, (message, legal)
