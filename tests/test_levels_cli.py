"""``druids play --level``, ``druids bots``' levels and the LAN lobby's level choice (issue 32).

The flag seats the level's bot (the bot named after the level: ``bots/host.py``) in every
other seat, for the terminal UI and ``--headless``; a bad level or bots also named is one line,
exit 2. The lobby's host form offers the level and, chosen by keys, every bot seat plays it."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli
from lobby_pilot import shown_lobby
from textual.widgets import Select

from druids_p2p.cli import play_cmd, play_ui
from druids_p2p.lan.network import resolve
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.game_ui import table_ui
from druids_p2p.tui.lobby import LanSetup
from druids_p2p.tui.player import TableSpec
from druids_p2p.wire.identity import Identity

ROOT = Path(__file__).resolve().parents[1]
SUPPORT = ROOT / "tests" / "support"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--level", "brutal"], "--level 'brutal': choose one of easy, normal, hard"),
        (["--level", "hard", "--bots", "rule"], "--level hard seats its bot in every bot seat"),
        (["--headless", "--level", "easy", "--seats", "human,bot:rule"], "--seats names them"),
    ],
)
def test_a_bad_level_or_bots_also_named_is_one_line_exit_2(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["play", *args], capsys)
    assert code == 2 and out == ""
    assert said in err and len(err.strip().splitlines()) == 1, err


def test_level_seats_its_bot_at_every_other_seat_headless_and_in_the_ui(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(play_cmd, "play_headless", lambda **kw: seen.append(kw["seats"]))
    monkeypatch.setattr(play_ui, "play_ui", lambda opts: seen.append((opts.bots, opts.level)))
    for args in (
        ["--headless", "--level", "hard"],
        ["--headless", "--level", "normal", "--game", "druids2016"],
        ["--level", "easy", "--players", "3"],
        ["--level", "hard", "--game", "druids2004"],
    ):
        code, _, err = run_cli(["play", *args], capsys)
        assert code == 0, err
    assert seen == [
        "human,bot:hard,bot:hard,bot:hard",
        "human,bot:normal",
        ("easy,easy", "easy"),
        ("hard,hard,hard", "hard"),
    ]


def test_level_is_the_lan_lobbys_first_choice_from_the_command_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str | None] = []
    monkeypatch.setattr(play_ui, "play_lan", lambda opts, trick_s, rounds: seen.append(opts.level))
    code, _, err = run_cli(["play", "--lan", "--level", "normal"], capsys)
    assert code == 0, err
    assert seen == ["normal"]


def test_druids_bots_lists_each_games_levels(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["bots"], capsys)
    assert code == 0
    lines = out[out.index("LEVELS") :].splitlines()
    assert "druids2016  easy: rule, one move in 2 at random; normal: rule; hard: search" in lines
    code, out, _ = run_cli(["bots", "--json"], capsys)
    levels = json.loads(out)["levels"]
    assert levels["druids2017"] == {
        "easy": "rule, one move in 2 at random",
        "normal": "rule",
        "hard": "search",
    }


def _highcard_env() -> dict[str, str]:
    """This checkout, the test game's package and its entry point's metadata on the path."""
    paths = [str(ROOT), str(SUPPORT), str(SUPPORT / "highcard_dist")]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def test_a_game_that_names_no_levels_is_listed_with_the_default_and_plays_them() -> None:
    """The test game ``highcard`` (registered by its entry point only) names no levels: random,
    then its own bot; the level bots play it like any other game's."""
    env = _highcard_env()
    run = [sys.executable, "-m", "druids_p2p"]
    listed = subprocess.run(
        [*run, "bots", "--json"], capture_output=True, text=True, timeout=120, env=env
    )
    doc = json.loads(listed.stdout)
    assert doc["levels"]["highcard"] == {"easy": "random", "normal": "greedy", "hard": "greedy"}
    assert all("highcard" in b["games"] for b in doc["bots"] if b["name"] in ("easy", "hard"))
    bench = [*run, "bench", "bots", "--game", "highcard", "--bots", "hard,easy", "--games", "12"]
    played = subprocess.run(
        [*bench, "--workers", "1", "--json"], capture_output=True, text=True, timeout=120, env=env
    )
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["bots"]["hard"]["games"] == 12


@pytest.mark.e2e
def test_level_bots_play_at_a_table_of_peer_processes(tmp_path: Path) -> None:
    """Each level's bot is found by name in every peer process, as any bot is: a whole table of
    the game that names no levels, one peer a level, finishes with one result."""
    seats = "bot:hard,bot:easy,bot:normal"
    play = ["play", "--headless", "--game", "highcard", "--seats", seats, "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "druids_p2p", *play, "--workdir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=_highcard_env(),
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["finished"] and out["aborted"] is None and sum(out["totals"]) == 3
    assert sorted(p["name"] for p in out["players"]) == ["easy-2", "hard-1", "normal-3"]


class RecordingApp(DruidsApp):
    """The app with the lobby, recording the table it would open instead of opening it."""

    def __init__(self, setup: LanSetup) -> None:
        host = Identity.from_seed(bytes([1]) * 32, "alice")
        super().__init__(table_ui=table_ui(setup.game), lan=setup, identity=host, folder=Path("."))
        self.opened: list[tuple[TableSpec, tuple[str, ...]]] = []

    def open_table(
        self, spec: TableSpec, expected: tuple[str, ...], title: str | None = None
    ) -> None:
        self.opened.append((spec, expected))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # a free port, nothing sent
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_the_lobbys_table_setup_offers_the_level_and_seats_it_by_keys() -> None:
    """The host form's level, chosen by keys (enter, down to 'hard', enter), puts the hard
    level's bot in every bot seat and leaves a seat kept for a LAN player open; hosting (h)
    seats them."""
    setup = LanSetup(net=resolve(), beacon_port=_free_port(), bots=("rule", "random"))
    app = RecordingApp(setup)
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with app.run_test(size=(150, 40)) as pilot:
            lobby = await shown_lobby(app, pilot)
            level = lobby.query_one("#level", Select)
            seen["offered"] = [value for _, value in level._options]
            lobby.query_one("#seat-4", Select).value = "open"
            level.focus()
            await pilot.press("enter", "down", "down", "down", "enter")
            await pilot.pause()
            seen["level"] = level.value
            lobby.query_one("#tables").focus()
            await pilot.press("h")
            await pilot.pause()

    asyncio.run(main())
    assert seen == {"offered": ["each", "easy", "normal", "hard"], "level": "hard"}
    ((spec, expected),) = app.opened
    assert [b.bot for b in spec.bots] == ["hard", "hard"]
    assert expected == ("hard-1", "hard-2", "(LAN player)")


def test_the_level_asked_for_is_the_lobbys_first_choice() -> None:
    """``druids play --lan --level easy``: the form starts with the easy level in every bot seat."""
    setup = LanSetup(net=resolve(), beacon_port=_free_port(), bots=("rule",), level="easy")
    app = RecordingApp(setup)

    async def main() -> None:
        async with app.run_test(size=(150, 40)) as pilot:
            lobby = await shown_lobby(app, pilot)
            assert lobby.query_one("#level", Select).value == "easy"
            lobby.action_host()
            await pilot.pause()

    asyncio.run(main())
    ((spec, _),) = app.opened
    assert [b.bot for b in spec.bots] == ["easy", "easy", "easy"]
