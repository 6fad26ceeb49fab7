"""The terminal UI and a table its seat left unfinished (Textual Pilot): asked first, it rejoins
that table (in its own game folder), or starts a new one beside it, or quits. Stopped and finished
tables are never offered, nor a table of another game than the one asked for."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli
from table_harness import seat_message
from textual.pilot import Pilot
from textual.widgets import Static

from druids_p2p.lan.listener import BeaconListener
from druids_p2p.lan.network import resolve
from druids_p2p.peer.homes import SET_ASIDE, HomeTable
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.bots import SavedGame, saved_game
from druids_p2p.tui.dialogs import ResumeTable
from druids_p2p.tui.druids2017.table import TABLE_UI
from druids_p2p.tui.game_ui import Session
from druids_p2p.tui.lobby import LanSetup, LobbyScreen
from druids_p2p.wire.identity import Identity

SIZE = (150, 40)
BOUND_S = 20.0
ME = Identity.from_seed(bytes([3]) * 32, "me")


def _table(
    game: Path, table_id: str, status: str | None = None, ruleset: str = "druids2017"
) -> HomeTable:
    """A table saved in game folder ``game`` as a peer saves it (its seat message names its
    game, ``ruleset``)."""
    state = HomeTable(game / "me" / "tables" / table_id)
    seat = seat_message(ruleset)
    state.save(seat, b"pub", b"sec", 4000, {"role": "join", "name": "lan-lab"})
    if status == "stopped":
        state.mark_stopped("seat 2 was gone")
    elif status == "finished":
        state.mark_finished({"totals": [1, 2, 3]})
    return state


def test_saved_game_offers_only_a_table_still_playing(tmp_path: Path) -> None:
    games = tmp_path / "games"
    _table(games / "20260101-1", "aaaa", "stopped")
    _table(games / "20260101-2", "bbbb", "finished")
    assert saved_game(None, tmp_path, game="druids2017") is None
    playing = _table(games / "20260101-3", "cccc")
    found = saved_game(None, tmp_path, game="druids2017")
    assert found == SavedGame(games / "20260101-3", playing)
    assert saved_game(games / "20260101-1", game="druids2017") is None  # --workdir: that folder
    assert saved_game(games / "20260101-3", game="druids2017") == found


def test_saved_game_offers_only_a_table_of_the_game_asked_for(tmp_path: Path) -> None:
    """``druids play --game druids2004`` is offered its 2004 table, never the 2017 one (whose
    table screen it would not be), and the other way round; a table saved before the game was
    kept is told by its seat message."""
    games = tmp_path / "games"
    t2004 = _table(games / "20260101-1", "aaaa", ruleset="druids2004")
    t2017 = _table(games / "20260101-2", "bbbb")
    assert saved_game(None, tmp_path, game="druids2004") == SavedGame(
        t2004.folder.parents[2], t2004
    )
    assert saved_game(None, tmp_path, game="druids2017") == SavedGame(
        t2017.folder.parents[2], t2017
    )
    assert saved_game(games / "20260101-1", game="druids2017") is None  # --workdir: that folder
    assert saved_game(games / "20260101-2", game="druids2004") is None
    old = json.loads((t2004.folder / "state.json").read_text())
    del old["game"]  # as written before it was kept
    (t2004.folder / "state.json").write_text(json.dumps(old))
    assert saved_game(None, tmp_path, game="druids2004") == SavedGame(games / "20260101-1", t2004)
    assert saved_game(None, tmp_path, game="druids2017") == SavedGame(games / "20260101-2", t2017)
    t2004.mark_finished({"totals": [1, 2, 3]})
    assert saved_game(None, tmp_path, game="druids2004") is None


@pytest.mark.parametrize(
    ("args", "runner"),
    [
        (["play", "--bots", "rule,rule"], "run_local"),
        (["play", "--game", "druids2004", "--bots", "rule"], "run_local"),
        (["play", "--game", "druids2004", "--lan"], "run_lan"),
        (["play", "--lan"], "run_lan"),
    ],
)
@pytest.mark.parametrize("saved_ruleset", ["druids2017", "druids2004"])
def test_druids_play_offers_only_a_saved_table_of_its_game(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    runner: str,
    saved_ruleset: str,
) -> None:
    """What ``druids play`` hands the UI to ask about, local or ``--lan``: the table of its
    ``--game`` left unfinished in ``--workdir``, never another game's. The UI itself, which needs
    a real terminal, is replaced by a recorder of what it was given (the Pilot tests here and
    the e2e tests drive the real one)."""
    import sys

    import druids_p2p.tui.launch as launch

    given: list[SavedGame | None] = []

    def record(*positional: Any, **kw: Any) -> dict[str, Any]:
        given.append(kw["saved"] if "saved" in kw else positional[3])
        return {"result": {"finished": False}, "stopped": "you left the table"}

    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(launch, runner, record)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    workdir = tmp_path / "game"
    state = _table(workdir, "aaaa", ruleset=saved_ruleset)
    code, out, err = run_cli([*args, "--workdir", str(workdir)], capsys)
    assert code == 0, out + err
    game = args[args.index("--game") + 1] if "--game" in args else "druids2017"
    assert given == [SavedGame(workdir, state) if saved_ruleset == game else None]


class RecordingApp(DruidsApp):
    """Opens no real session: records the one it was asked to open."""

    def __init__(self, saved: SavedGame, setup: LanSetup, folder: Path) -> None:
        super().__init__(table_ui=TABLE_UI, lan=setup, identity=ME, folder=folder, saved=saved)
        self.opened: list[Session] = []
        self.shown = ""

    def open_session(self, session: Session, expected: tuple[str, ...] = ()) -> None:
        self.opened.append(session)


def _listener() -> BeaconListener:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # a free port, nothing sent
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return BeaconListener(resolve(), port)


def _run(app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await body(pilot)

    asyncio.run(main())


async def _until(pilot: Pilot[Any], check: Callable[[], bool]) -> None:
    for _ in range(int(BOUND_S / 0.05)):
        if check():
            return
        await pilot.pause(0.05)
    raise AssertionError("the screen did not get there")


def _text(screen: Any) -> str:
    return "\n".join(str(w.render()) for w in screen.query(Static))


def _answer(tmp_path: Path, key: str) -> tuple[RecordingApp, SavedGame]:
    old = tmp_path / "games" / "old"
    saved = SavedGame(old, _table(old, "cccc"))
    listener = _listener()
    setup = LanSetup(net=resolve(), beacon_port=listener.port, listener=listener)
    app = RecordingApp(saved, setup, tmp_path / "games" / "new")

    async def body(pilot: Pilot[Any]) -> None:
        await _until(pilot, lambda: isinstance(app.screen, ResumeTable))
        text = _text(app.screen)
        assert "Table 'lan-lab' (you joined) was left unfinished" in text
        assert str(old) in text and "kept" in text
        await pilot.press(key)
        if key == "q":
            await _until(pilot, lambda: app.return_code is not None)
        else:
            await _until(pilot, lambda: not isinstance(app.screen, ResumeTable))
            app.shown = type(app.screen).__name__

    try:
        _run(app, body)
    finally:
        listener.close()
    return app, saved


def test_rejoin_opens_the_saved_table_in_its_own_game_folder(tmp_path: Path) -> None:
    app, saved = _answer(tmp_path, "r")
    (session,) = app.opened
    assert app.folder == saved.folder  # printed as the game folder afterwards
    config = session.config()  # type: ignore[attr-defined]
    assert config.resume_folder == saved.state.folder and config.home == saved.folder / "me"
    assert config.host is None and config.announcement is None


def test_new_table_goes_to_the_lobby_and_sets_the_old_one_aside(tmp_path: Path) -> None:
    app, saved = _answer(tmp_path, "n")
    assert app.opened == []
    assert app.shown == LobbyScreen.__name__
    assert app.folder == tmp_path / "games" / "new"
    # set aside: not offered again, still on disk
    assert saved.state.status == "stopped" and saved.state.info()["stopped"] == SET_ASIDE
    assert saved.state.folder.is_dir() and saved_game(None, tmp_path, game="druids2017") is None


def test_quit_opens_nothing(tmp_path: Path) -> None:
    app, _ = _answer(tmp_path, "q")
    assert app.opened == [] and app.return_value is None
