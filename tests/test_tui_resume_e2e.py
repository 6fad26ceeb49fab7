"""The terminal UI rejoins a table its seat left unfinished, with real peers (Textual Pilot).

The power goes off mid-game: this seat's peer and both bots of its game folder are killed -9.
``druids play`` then finds the game folder's playing table, asks, and on "rejoin" this process's
peer rejoins from its record, the bots are restarted from theirs, and the round is played to the
end by key presses; every record audits."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from test_tui_net import _audit, _play_by_keys, _run, _until
from textual.pilot import Pilot

from druids_p2p.peer.local_table import PeerProcess, peer_argv
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.bots import SavedGame, saved_game
from druids_p2p.tui.dialogs import ResumeTable
from druids_p2p.tui.druids2017.table import TableScreen
from druids_p2p.tui.game_ui import NO_PACING, table_ui
from druids_p2p.tui.player import NetSession
from druids_p2p.wire import load_or_create, rename_identity

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]

BOUND_S = 180.0  # a bound on each wait, not a speed check


def _crashed_game(game: Path) -> list[PeerProcess]:
    """A 3-seat, 1-round table of this game folder's seats (me, bots/rule-1, bots/rule-2) as
    peer processes, killed -9 together a few moves into the round."""
    me = ["--host", "--players", "3", "--rounds", "1", "--no-announce"]
    for i in (1, 2):  # the UI's own bots: pinned, as the UI's host seats them
        me += ["--allow", rename_identity(f"rule-{i}", game / "bots" / f"rule-{i}").fingerprint]
    host = PeerProcess(0, game / "me", peer_argv("bot:random", "tester", 20.0, me), False)
    host.start()
    lobby = str(host.wait_for("lobby", BOUND_S)["lobby"])
    peers = [host]
    for i in (1, 2):
        argv = peer_argv("bot:rule", f"rule-{i}", 20.0, ["--no-announce", "--join", lobby])
        peers.append(PeerProcess(i, game / "bots" / f"rule-{i}", argv, False))
        peers[-1].start()
    deadline = time.monotonic() + BOUND_S
    while sum(e.get("event") == "move" for e in host.events) < 4:
        assert time.monotonic() < deadline and host.result() is None, host.tail_log()
        time.sleep(0.02)
    for peer in peers:
        peer.kill()
    return peers


def rejoining_app(saved: SavedGame, game: str, new: Path) -> DruidsApp:
    """``druids play --game GAME``'s app as it opens with ``saved`` to ask about: its seat's
    identity, rule set ``game``'s table screen from the registry (as ``tui/launch.py`` takes it),
    no pacing; ``new``: the game folder a new table would have used."""
    return DruidsApp(
        table_ui=table_ui(game),
        make_session=None,
        identity=load_or_create(saved.folder / "me"),
        folder=new,
        saved=saved,
        pacing=NO_PACING,
    )


def test_the_ui_rejoins_a_table_left_unfinished_and_plays_it_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    game = tmp_path / "games" / "crashed"
    _crashed_game(game)
    saved = saved_game(None, tmp_path, game="druids2017")
    assert saved is not None and saved.folder == game
    app = rejoining_app(saved, "druids2017", tmp_path / "new")

    async def body(pilot: Pilot[Any]) -> None:
        await _until(lambda: isinstance(app.screen, ResumeTable), 20)
        await pilot.press("r")
        await _until(lambda: isinstance(app.screen, TableScreen), 20)
        await _play_by_keys(pilot, app)
        table = app.table
        assert table is not None and table.result is not None and table.result["finished"]
        await pilot.press("q")
        await pilot.pause()

    try:
        _run(app, body)
    finally:
        if app.session is not None:
            app.session.close()
            assert isinstance(app.session, NetSession)  # the resumed table is a network one
            app.session.wait(5)
    outcome = app.return_value
    assert outcome is not None and outcome["result"]["finished"]
    assert outcome["folder"] == str(game)
    records = [outcome["record"], *map(str, game.glob("bots/*/tables/*/record.druids"))]
    assert len(records) == 3 and str(saved.state.record) == outcome["record"]
    for record in records:
        _audit(record)
