"""The evening in the terminal UI (issue 28 items 6 and 12): a rematch from the end screen with
one key — the same people, the same options, a new table — and the running scores that add up,
per name, over the session's games; and a table that goes on, when a bot is killed, after the
person says yes. Druids 2017 over real tables of bot peer processes on loopback; Druids 2004
over the in-process table of peers (``tests/table2004_session.py``)."""

from __future__ import annotations

import dataclasses
import functools
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from board_keys import press_keys, synced
from cli_harness import audit_record
from table2004_session import Table2004Session
from test_tui import plain
from test_tui_2004 import _session as offline_session
from test_tui_2004 import press_move, read_rituals, settle
from test_tui_net import _audit, _play_by_keys, _run, _until
from textual.pilot import Pilot
from textual.widgets import Select, Static

from druids_p2p.games.druids2004.notation import replay
from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.lan.network import resolve
from druids_p2p.peer.local_table import PeerProcess
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.bots import bot_seats
from druids_p2p.tui.dialogs import ConfirmJoin, GoOnPrompt
from druids_p2p.tui.druids2004.dialogs import GameOver2004, RitualSteps
from druids_p2p.tui.druids2004.lan_table import TABLE_UI as TABLE_UI_2004
from druids_p2p.tui.druids2004.lan_table import LanTable2004Screen
from druids_p2p.tui.druids2004.table import RECORD_NAME, Druids2004App
from druids_p2p.tui.druids2017.dialogs import GaiaPrompt, GameOver, PilePrompt, RoundSummary
from druids_p2p.tui.druids2017.snapshot import snapshot_from_table
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, Evening, PlayedGame
from druids_p2p.tui.lobby import LanSetup, LobbyScreen
from druids_p2p.tui.player import NetSession, local_table
from druids_p2p.wire import load_or_create


def _by_name(table: Any) -> dict[str, tuple[int, bool]]:
    """The table's result per name: (total, won)."""
    snap, result = table.snapshot, table.result
    winners = set(result["winners"])
    return {
        name: (int(total), seat in winners)
        for seat, (name, total) in enumerate(zip(snap.names, result["totals"], strict=True))
    }


def _replaced(app: DruidsApp, table: object) -> bool:
    return app.table is not table


def _running(games: list[dict[str, tuple[int, bool]]]) -> dict[str, tuple[int, int]]:
    """Per name: (wins, points) over ``games``."""
    out: dict[str, tuple[int, int]] = {}
    for game in games:
        for name, (total, won) in game.items():
            wins, points = out.get(name, (0, 0))
            out[name] = (wins + won, points + total)
    return out


@pytest.mark.e2e
@pytest.mark.slow
def test_a_rematch_seats_the_same_players_again_and_keeps_running_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    identity = load_or_create().with_name("tester")
    bots = bot_seats(["rule", "random"])
    sessions: list[NetSession] = []

    def make(post: Callable[[Any], object]) -> NetSession:
        spec = local_table(bots, rounds=1)
        session = NetSession(post, identity, tmp_path / "game", spec, snapshot_from_table)
        sessions.append(session)
        return session

    app = DruidsApp(
        table_ui=TABLE_UI, make_session=make, expected=tuple(b.name for b in bots), pacing=NO_PACING
    )
    results: list[dict[str, tuple[int, bool]]] = []
    records: list[str] = []

    async def body(pilot: Pilot[Any]) -> None:
        for game in range(2):
            table = app.table
            assert isinstance(table, TableScreen)
            await _play_by_keys(pilot, app)
            over = app.screen
            assert isinstance(over, GameOver) and over.rematch
            assert over.query_one("#rematch")  # the button, beside quit
            assert table.result is not None and table.result["finished"]
            assert table.snapshot is not None and table.snapshot.rounds == 1  # same options
            assert sorted(table.snapshot.names) == sorted(["tester", *(b.name for b in bots)])
            results.append(_by_name(table))
            assert table.record is not None
            records.append(table.record)
            standings = {s.name: (s.wins, s.points) for s in app.evening.standings()}
            assert standings == _running(results)
            if game == 1:
                shown = plain(over.query_one("#evening", Static))
                assert "This evening: 2 games" in shown
                for name, (wins, points) in _running(results).items():
                    line = next(x for x in shown.splitlines() if x.strip().startswith(name))
                    assert f"{points} points over 2 games" in line.replace("−", "-"), line
                    assert f"{wins} win" in line
                break
            await pilot.press("r")
            await _until(functools.partial(_replaced, app, table), 10)
            assert not isinstance(app.screen, GameOver)
        await pilot.press("q")
        await pilot.pause()

    try:
        _run(app, body)
    finally:
        for session in sessions:
            session.close()
            session.wait(5)
    assert len(sessions) == 2 and len(set(records)) == 2
    for record in records:
        _audit(record)
    outcome = app.return_value
    assert outcome is not None and len(outcome["evening"]) == 3


@synced
async def test_a_2004_rematch_with_one_key_and_the_running_scores() -> None:
    sessions: list[Table2004Session] = []

    def make(post: Callable[[Any], object]) -> Table2004Session:
        sessions.append(Table2004Session(post, 2, seed=len(sessions) + 11))
        return sessions[-1]

    app = DruidsApp(table_ui=TABLE_UI_2004, make_session=make, pacing=NO_PACING)
    rng = random.Random(4)
    results: list[dict[str, tuple[int, bool]]] = []
    async with app.run_test(size=(112, 40)) as pilot:
        for game in range(2):
            table = app.table
            assert isinstance(table, LanTable2004Screen)
            for _ in range(3000):
                screen = app.screen
                if isinstance(screen, GameOver2004):
                    break
                if isinstance(screen, RitualSteps):
                    await pilot.press("escape", "enter")
                elif table.my_turn and table.shown is not None:
                    await press_keys(pilot, table, rule_move(table.shown, Options(2), rng))
                await pilot.pause()
            over = app.screen
            assert isinstance(over, GameOver2004) and over.rematch
            assert table.finished and table.result is not None
            results.append(_by_name(table))
            standings = {s.name: (s.wins, s.points) for s in app.evening.standings()}
            assert standings == _running(results)
            if game == 0:
                await pilot.press("r")
                await pilot.pause()
                assert app.table is not table and len(sessions) == 2
        shown = plain(over.query_one("#evening", Static))
        assert "This evening: 2 games" in shown
        await pilot.press("enter")


def test_a_stopped_game_counts_as_played_without_points() -> None:
    evening = Evening()
    evening.note("a", PlayedGame(("ann", "bob"), (10, 4), (0,), me="ann"))
    evening.note("b", PlayedGame(("bob", "ann"), None, me="ann", stopped="bob left"))
    evening.note("c", PlayedGame(("bob", "ann"), (7, 7), (0, 1), me="ann"))
    evening.note("c", PlayedGame(("bob", "ann"), (7, 7), (0, 1), me="ann"))  # noted again
    rows = {s.name: s for s in evening.standings()}
    assert (rows["ann"].games, rows["ann"].wins, rows["ann"].points) == (3, 2, 17)
    assert (rows["bob"].games, rows["bob"].wins, rows["bob"].points) == (3, 1, 11)
    assert rows["ann"].me and not rows["bob"].me
    lines = evening.lines()
    assert lines[0] == "This evening: 3 games (1 stopped, counted without points)"
    assert lines[1] == "  ann (you): 2 wins, 17 points over 3 games"


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.timeout(400)
def test_the_ui_asks_and_goes_on_with_a_bot_when_a_bot_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """You and three bot processes, two rounds; one bot is killed (-9) after round 1. Once the
    table has stopped on it, the UI asks whether to go on; ``y`` seats you at the next table
    (the two other bots and a stand-in bot the UI's peer starts, its identity fresh), which
    plays round 2 with round 1's scores carried; the end screen shows both rounds, and the
    evening counts one game. Both tables' records audit (stopped; complete)."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    identity = load_or_create().with_name("tester")
    bots = bot_seats(["rule", "rule", "rule"])
    sessions: list[NetSession] = []

    def make(post: Callable[[Any], object]) -> NetSession:
        # The killed bot is unreachable after 4 + 4 s (the defaults: 10 s, then 30 s).
        spec = dataclasses.replace(
            local_table(bots, rounds=2), step_deadline_s=4.0, rejoin_time_s=4.0
        )
        session = NetSession(post, identity, tmp_path / "game", spec, snapshot_from_table)
        sessions.append(session)
        return session

    app = DruidsApp(
        table_ui=TABLE_UI, make_session=make, expected=tuple(b.name for b in bots), pacing=NO_PACING
    )
    records: list[str] = []

    async def body(pilot: Pilot[Any]) -> None:
        first = app.table
        assert isinstance(first, TableScreen)
        gone = bots[1].name
        killed = summed_up = False
        for _ in range(20_000):  # round 1 by keys; the bot is killed as its round 1 ends
            await pilot.pause(0.05)
            # As soon as the bot itself says round 1 is over (round 2's deal at its own card
            # table follows at once, and needs the bot's key, passes and shares: it is owed).
            peers = sessions[0].bots.peers
            events = peers[1].events if len(peers) > 1 else []  # bots[1]'s process
            if not killed and any(e.get("event") == "round_ended" for e in events):
                peers[1].kill()
                killed = True
            screen = app.screen
            if isinstance(screen, RoundSummary):
                await pilot.press("enter")
                summed_up = True
            if killed and summed_up:
                break
            if isinstance(screen, GaiaPrompt | PilePrompt):
                await pilot.press("1")
            elif isinstance(screen, TableScreen):
                snap = screen.snapshot
                if snap is not None and snap.my_turn and not screen.awaiting:
                    await pilot.press("enter")
        await _until(lambda: isinstance(app.screen, GoOnPrompt), 150)
        prompt = app.screen
        assert isinstance(prompt, GoOnPrompt) and gone in prompt.question
        assert "round 2 of 2" in prompt.question
        assert first.stopped is not None and "unreachable" in first.stopped
        assert first.record is not None
        records.append(first.record)
        await pilot.press("y")
        await _until(functools.partial(_replaced, app, first), 60)
        await _play_by_keys(pilot, app)
        table = app.table
        assert isinstance(table, TableScreen) and table is not first
        snap = table.snapshot
        assert snap is not None and table.result is not None and table.result["finished"]
        assert gone not in snap.names and f"bot for {gone}" in snap.names
        assert snap.rounds == 2 and len(snap.round_scores) == 2
        totals = [sum(r[s] for r in snap.round_scores) for s in range(4)]
        assert list(table.result["totals"]) == totals
        assert [g.totals for g in app.evening.games] == [tuple(totals)]  # one game, carried
        assert table.record is not None and table.record != first.record
        records.append(table.record)
        await pilot.press("q")
        await pilot.pause()

    try:
        _run(app, body)
    finally:
        for session in sessions:
            session.close()
            session.wait(5)
    stopped, complete = (audit_record(r)[1] for r in records)
    assert stopped["verdict"] == "stopped" and "unreachable" in stopped["reason"], stopped
    assert complete["verdict"] == "complete", complete


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.timeout(400)
def test_a_lan_table_rematch_with_one_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The UI joins a LAN table hosted by a bot peer (``--rematch 1``) with a bot of its own;
    after the game ``r`` asks for the rematch, which the host opens over the table's links:
    the same three players, the same options, a new table, played to its end; the evening
    counts both games."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    port = random.randint(42000, 58000)
    host = PeerProcess(
        0,
        tmp_path / "host",
        [sys.executable, "-m", "druids_p2p", "peer", "--player", "bot:rule", "--name",
         "hostbot", "--host", "--open", "--players", "3", "--rounds", "1", "--table-name",
         "rematch", "--beacon-port", str(port), "--rematch", "1"],
        human=False,
    )  # fmt: skip
    host.start()
    setup = LanSetup(net=resolve(), beacon_port=port, rounds=1)
    app = DruidsApp(
        table_ui=TABLE_UI, lan=setup, identity=load_or_create(), folder=tmp_path / "game",
        pacing=NO_PACING,
    )  # fmt: skip
    tables: list[TableScreen] = []

    async def body(pilot: Pilot[Any]) -> None:
        def listed() -> bool:
            screen = app.screen
            return isinstance(screen, LobbyScreen) and any(
                t.name == "rematch" for t in screen.tables
            )

        await _until(listed, 15)
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        lobby.query_one("#join-bots", Select).value = 1
        await pilot.press("j")
        await _until(lambda: isinstance(app.screen, ConfirmJoin), 10)
        await pilot.press("y")
        for game in range(2):
            await _until(lambda: isinstance(app.screen, TableScreen | GaiaPrompt), 120)
            await _play_by_keys(pilot, app)
            table = app.table
            assert isinstance(table, TableScreen) and table.result is not None
            assert table.result["finished"] and table not in tables
            tables.append(table)
            over = app.screen
            assert isinstance(over, GameOver) and over.rematch
            if game == 0:
                await pilot.press("r")
                await _until(functools.partial(_replaced, app, table), 120)
        assert len(app.evening.games) == 2
        names = [sorted(t.snapshot.names) for t in tables if t.snapshot is not None]
        assert names[0] == names[1] and "hostbot" in names[0]
        assert tables[0].record != tables[1].record
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
    results = [e for e in host.events if e.get("event") == "result"]
    assert [r["finished"] for r in results] == [True, True]
    for table in tables:
        assert table.record is not None
        _audit(table.record)


@synced
async def test_an_offline_2004_rematch_keeps_both_records_and_the_running_scores(
    tmp_path: Path,
) -> None:
    """``druids play --game druids2004 --offline``: ``r`` on the end screen plays a new game of
    the same players (a fresh deal), the first game's record kept; the second end screen shows
    the running scores over both, and the outcome has them."""
    app = Druids2004App(
        offline_session(players=2, seed=3), tmp_path,
        rematch=lambda seed: offline_session(players=2, seed=seed),
    )  # fmt: skip
    rng = random.Random(2)
    scores: list[dict[str, tuple[int, bool]]] = []
    async with app.run_test(size=(112, 42)) as pilot:
        await settle(pilot, app)
        for game in range(2):
            for _ in range(3000):
                await read_rituals(pilot, app)
                if isinstance(app.screen, GameOver2004):
                    break
                view = app.table.view
                await press_move(pilot, app, rule_move(view, Options(2), rng))
            over = app.screen
            assert isinstance(over, GameOver2004) and over.rematch
            session = app.session
            scores.append(
                {
                    session.names[s]: (t, s in (session.game.winners or ()))
                    for s, t in enumerate(session.game.scores)
                }
            )
            if game == 0:
                first = app.table
                await pilot.press("r")
                await pilot.pause()
                assert app.table is not first and app.session is not session
                await settle(pilot, app)
        assert "This evening: 2 games" in plain(over.query_one("#evening", Static))
        await pilot.press("enter")
        await pilot.pause()
    outcome = app.return_value
    assert outcome is not None
    running = _running(scores)
    assert {s["name"]: (s["wins"], s["points"]) for s in outcome["evening"]} == running
    for name in (RECORD_NAME, "record-2004-2.json"):
        code, _ = replay((tmp_path / name).read_text())
        assert code == 0
