"""Druids (2016) reachable in the terminal UI as the other games are (issue 31), driven by the
keys a person presses (Textual's Pilot):

* ``druids play --game druids2016 --offline`` through the CLI's own entry (``main``), against
  the registry's ``rule`` bot handed in as a :class:`Bot` and asked on its seat's view — its
  placement too; the game file written replays to the result the CLI printed;
* ``druids play --game druids2016``'s table of peers: this process the person's peer, the bot a
  ``druids peer`` process on loopback, every move (placements and steps) chosen by keys going to
  the table's one accept path; the record audits complete.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_harness import audit_record, run_cli
from peer_table2004_keys import run_app, until
from textual.pilot import Pilot

from druids_p2p.games.druids2016.board import COLS, NEIGHBOURS
from druids_p2p.games.druids2016.game import Game
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.policy import Budget, rule_move
from druids_p2p.games.druids2016.replay import replay
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.bots import bot_seats
from druids_p2p.tui.druids2016.lan_table import TABLE_UI, LanTable2016Screen
from druids_p2p.tui.druids2016.table import Druids2016App, GameOver2016, Table2016Screen
from druids_p2p.tui.game_ui import NO_PACING
from druids_p2p.tui.player import NetSession, local_table
from druids_p2p.wire import load_or_create

SIZE = (104, 32)
WAIT_S = 240.0
"""A bound on a whole game's wait, not a speed check: loaded cores are slow."""


def _arrows(start: int, target: int) -> list[str]:
    (r0, c0), (r1, c1) = divmod(start, COLS), divmod(target, COLS)
    vertical = ["up"] * (r1 - r0) if r1 > r0 else ["down"] * (r0 - r1)
    horizontal = ["right"] * (c1 - c0) if c1 > c0 else ["left"] * (c0 - c1)
    return vertical + horizontal


async def _key_to(pilot: Pilot[Any], table: Table2016Screen, square: int) -> None:
    """The arrow keys onto ``square``, then enter: what a person presses."""
    await pilot.press(*_arrows(table.cursor, square), "enter")
    await pilot.pause()


async def _step_by_keys(pilot: Pilot[Any], table: Table2016Screen, move: Move) -> None:
    """A step as keys: its Druid, the square it goes to, then the forced tile's squares."""
    await _key_to(pilot, table, move.square)
    await _key_to(pilot, table, NEIGHBOURS[move.square][move.direction])
    picker = table.picker
    if picker is not None and picker.tile_sources() and move.source is not None:
        await _key_to(pilot, table, move.source)
    if picker is not None and picker.tile_targets() and move.target is not None:
        await _key_to(pilot, table, move.target)


async def _play_to_the_end(
    pilot: Pilot[Any], table: Table2016Screen, ready: Callable[[], bool]
) -> int:
    """The person's placements and every step by keys (the rule policy chooses), until the end
    screen; the number of steps pressed."""
    rng, budget, steps = random.Random(5), Budget(nodes=1), 0
    deadline = time.monotonic() + WAIT_S
    while not isinstance(table.app.screen, GameOver2016):
        assert time.monotonic() < deadline, f"no end: {table.board_seat.log[-5:]}"
        if ready() and table.board_seat.placing and table.board_seat.place_choices():
            await _key_to(pilot, table, table.board_seat.place_choices()[0])
        elif ready() and table.picker is not None:
            game: Game = table.board_seat.position()
            await _step_by_keys(pilot, table, rule_move(game, rng, budget))
            steps += 1
        await pilot.pause(0.05)
    return steps


def test_play_offline_druids2016_from_the_cli_against_the_registered_rule_bot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    played: list[Druids2016App] = []

    def run(app: Druids2016App) -> dict[str, Any] | None:
        async def person() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                steps = await _play_to_the_end(pilot, app.table, lambda: not app.table.busy)
                assert steps >= 1
                await pilot.press("enter")  # the end read: leave the table
                await pilot.pause()

        played.append(app)
        asyncio.run(person())
        return app.return_value

    monkeypatch.setattr(Druids2016App, "run", run)
    folder = tmp_path / "game"
    code, out, err = run_cli(
        ["play", "--game", "druids2016", "--offline", "--bots", "rule", "--workdir", str(folder)],
        capsys,
    )
    assert code == 0, out + err
    session = played[0].session
    assert session.faults == []  # the Bot answered every placement and step legally
    assert session.game is not None and session.game.result is not None
    assert out.startswith("game over: ") and "totals" in out, out
    record = next(line[8:] for line in out.splitlines() if line.startswith("record: "))
    replayed_code, replayed = replay(Path(record).read_text(encoding="utf-8"))
    assert replayed_code == 0 and replayed["result"] == session.game.result.json()
    assert json.loads(Path(record).read_text(encoding="utf-8"))["moves"]


@pytest.mark.e2e
@pytest.mark.slow
def test_a_person_plays_druids2016_at_a_table_of_two_peers_by_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    identity = load_or_create().with_name("tester")
    seats = bot_seats(["rule"])
    sessions: list[NetSession] = []

    def make(post: Callable[[Any], object]) -> NetSession:
        spec = local_table(seats, budget_ms=20.0, game="druids2016")
        session = NetSession(post, identity, tmp_path / "game", spec, TABLE_UI.snapshots)
        sessions.append(session)
        return session

    app = DruidsApp(table_ui=TABLE_UI, make_session=make, expected=("rule-1",), pacing=NO_PACING)

    async def body(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.table, LanTable2016Screen), "the table")
        table = app.table
        assert isinstance(table, LanTable2016Screen)
        await until(pilot, lambda: table.peer_seat.my_move, "the person's first turn")
        steps = await _play_to_the_end(pilot, table, lambda: table.peer_seat.my_move)
        assert steps >= 1 and table.finished and table.stopped is None
        view = table.peer_seat.view
        assert view is not None and view.game_over and table.result is not None
        assert list(table.result["totals"]) == list(view.totals)
        mine = [line for line in table.peer_seat.log if " you " in f" {line}"]
        assert len(mine) >= steps  # each move the keys chose, as the table took it
        record = table.record
        assert record is not None
        code, report = audit_record(record)
        assert code == 0 and report["verdict"] == "complete", report
        await pilot.press("enter")  # the end read: leave

    run_app(app, SIZE, body, sessions)


@pytest.mark.e2e
@pytest.mark.slow
def test_the_record_of_a_table_of_peers_is_stepped_through_in_the_viewer(tmp_path: Path) -> None:
    """``druids replay RECORD`` of a 2016 table (two real peer processes, headless): the viewer
    opens at the end (the last move named, how the game ended), Home goes to the start, → to
    the first move, each drawn from the owner's view after that many moves."""
    import os
    import subprocess

    from druids_p2p.audit.replay import read_game
    from druids_p2p.tui.druids2016.board import BoardView
    from druids_p2p.tui.druids2016.lan_table import UI
    from druids_p2p.tui.druids2016.replay import Replay2016App, Replay2016Screen

    proc = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "play", "--headless", "--game", "druids2016",
         "--seats", "bot:rule,bot:random", "--time-per-move", "20", "--json"],
        capture_output=True, text=True, timeout=WAIT_S, stdin=subprocess.DEVNULL,
        env=dict(os.environ, DRUIDS_HOME=str(tmp_path)),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    game = read_game(Path(json.loads(proc.stdout)["records"][0]))
    played = game.card_table
    assert UI.replay is Replay2016App and played is not None
    views, plays, ended = played.views, played.plays, played.ended_by
    assert len(views) == len(plays) + 1 and ended

    def caption(app: Replay2016App) -> str:
        return str(app.screen.query_one("#caption").render())

    async def viewer() -> None:
        app = Replay2016App(game)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, Replay2016Screen)
            shown = app.screen.query_one(BoardView).game
            assert f"move {len(plays)} of {len(plays)}" in caption(app)
            assert f"the game ended: {ended}" in caption(app)
            assert shown.ply == views[-1][app.screen.seat].ply
            await pilot.press("home")
            assert caption(app).startswith("the start")
            await pilot.press("right")
            first = plays[0]
            assert f"move 1 of {len(plays)}: " in caption(app) and first.token in caption(app)

    asyncio.run(viewer())


@pytest.mark.e2e
@pytest.mark.slow
def test_the_lan_lobby_hosts_a_druids2016_table_with_a_bot_seat_and_it_is_played_by_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``druids play --lan --game druids2016``: the lobby hosts (h) a 2-seat table whose other
    seat is a bot; the bot's peer process finds the table by its beacon on loopback and the
    person plays the whole game at the 2016 table screen, whose record audits complete."""
    from textual.widgets import Select

    from druids_p2p.lan.network import resolve
    from druids_p2p.tui.game_ui import table_ui
    from druids_p2p.tui.lobby import LanSetup, LobbyScreen

    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    port = random.randint(42000, 58000)
    setup = LanSetup(
        net=resolve(), beacon_port=port, bots=("rule",), game="druids2016", budget_ms=20.0
    )
    app = DruidsApp(
        table_ui=table_ui("druids2016"),
        lan=setup,
        identity=load_or_create().with_name("tester"),
        folder=tmp_path / "game",
        pacing=NO_PACING,
    )

    async def body(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        lobby.query_one("#players", Select).value = 2
        lobby.query_one("#seat-2", Select).value = "rule"
        await pilot.pause()
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.table, LanTable2016Screen), "the 2016 table")
        table = app.table
        assert isinstance(table, LanTable2016Screen)
        await until(pilot, lambda: table.peer_seat.my_move, "the person's first turn")
        steps = await _play_to_the_end(pilot, table, lambda: table.peer_seat.my_move)
        assert steps >= 1 and table.finished and table.stopped is None
        record = table.record
        assert record is not None
        code, report = audit_record(record)
        assert code == 0 and report["verdict"] == "complete", report
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("q")

    run_app(app, SIZE, body)
