"""The terminal UI rejoins a Druids (2004) table its seat left unfinished, with real peers.

The 2004 analogue of test_tui_resume_e2e.py: the power goes off a few moves into a 2-seat game,
this seat's peer and the bot of its game folder killed -9. ``druids play --game druids2004``
then finds the game folder's playing 2004 table (``--game druids2017`` does not), asks (its app
driven by Textual Pilot, with the game's table screen from the registry as ``tui/launch.py``
takes it), and on "rejoin" this process's peer rejoins from its record at the 2004 table screen,
the bot is restarted from its own, and the game is played to the end by key presses; both
records are one and audit complete.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from cli_harness import audit_record
from peer_table2004_keys import play_by_keys, run_app, table_screen, until
from test_tui_resume_e2e import rejoining_app
from textual.pilot import Pilot

from druids_p2p.peer.local_table import PeerProcess, peer_argv
from druids_p2p.tui.bots import saved_game
from druids_p2p.tui.dialogs import ResumeTable
from druids_p2p.tui.druids2004.dialogs import GameOver2004, RitualSteps
from druids_p2p.tui.druids2004.lan_table import LanTable2004Screen
from druids_p2p.tui.player import NetSession
from druids_p2p.wire import rename_identity

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(420)]

BOUND_S = 180.0  # a bound on each wait, not a speed check
SIZE = (112, 40)
MOVES_BEFORE_THE_CRASH = 50
"""Moves the host's peer reports before the kill: mid-game, and most of the game played by the
fast headless peers rather than by keys (a rule bot's 2-seat game against random moves takes 75
to 180 moves, 200 engine games show)."""


def _crashed_game(game: Path) -> None:
    """A 2-seat Druids (2004) table of this game folder's seats (me, bots/rule-1) as peer
    processes, killed -9 together a few moves into the game."""
    me = ["--host", "--game", "druids2004", "--players", "2", "--no-announce"]
    me += ["--allow", rename_identity("rule-1", game / "bots" / "rule-1").fingerprint]
    host = PeerProcess(0, game / "me", peer_argv("bot:random", "tester", 20.0, me), False)
    host.start()
    peers = [host]
    try:
        lobby = str(host.wait_for("lobby", BOUND_S)["lobby"])
        argv = peer_argv("bot:rule", "rule-1", 20.0, ["--no-announce", "--join", lobby])
        peers.append(PeerProcess(1, game / "bots" / "rule-1", argv, False))
        peers[-1].start()
        deadline = time.monotonic() + BOUND_S
        while sum(e.get("event") == "move" for e in host.events) < MOVES_BEFORE_THE_CRASH:
            assert time.monotonic() < deadline and host.result() is None, host.tail_log()
            time.sleep(0.02)
    finally:
        for peer in peers:
            peer.kill()


def test_the_ui_rejoins_a_2004_table_left_unfinished_and_plays_it_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    game = tmp_path / "games" / "crashed"
    _crashed_game(game)
    assert saved_game(None, tmp_path, game="druids2017") is None  # not the 2017 UI's to offer
    saved = saved_game(None, tmp_path, game="druids2004")
    assert saved is not None and saved.folder == game and saved.state.game == "druids2004"
    app = rejoining_app(saved, "druids2004", tmp_path / "new")

    async def body(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, ResumeTable), "the question")
        await pilot.press("r")

        # The rejoined table shows the rituals done before the crash first, over the table:
        # waiting for the bare table alone hung on them (a ritual in the first 50 moves).
        def at_table() -> bool:
            screen = app.screen
            ritual = isinstance(screen, RitualSteps) and app.table in app.screen_stack
            return ritual or isinstance(screen, LanTable2004Screen)

        await until(pilot, at_table, "the table")
        table = table_screen(app)
        await play_by_keys(pilot, app, 2, random.Random(7))
        assert table.result is not None and table.result["finished"]
        assert isinstance(app.screen, GameOver2004)
        await pilot.press("enter")  # leaves the table
        await pilot.pause()

    run_app(app, SIZE, body)
    assert isinstance(app.session, NetSession)  # the rejoined table is a network one
    (restarted,) = app.session.bots.peers  # the bot's process was gone: it rejoined too
    assert restarted.home == game / "bots" / "rule-1"
    outcome = app.return_value
    assert outcome is not None and outcome["result"]["finished"]
    assert outcome["folder"] == str(game) and outcome["record"] == str(saved.state.record)
    bot_result = restarted.result()
    assert bot_result is not None and bot_result["finished"]
    assert bot_result["totals"] == outcome["result"]["totals"]
    records = [Path(outcome["record"]), *game.glob("bots/*/tables/*/record.druids")]
    assert len(records) == 2 and records[0].read_bytes() == records[1].read_bytes()
    code, report = audit_record(str(records[0]))
    assert code == 0 and report["verdict"] == "complete", report
    assert report["totals"] == outcome["result"]["totals"]
