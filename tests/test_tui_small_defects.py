"""The smaller defects of issue 28 item 10, each shown by the screen where it was seen: the status
that kept saying "sending your move…", the quit dialog's record path cut at 100 and 80 columns,
the tournament bar's "0 games/s" for slow bots, a variant table's Gaia without its side, and the
80×24 lobby that cut its widgets off without a word. (The replay viewer's are in
test_replay_viewer.py, the log's width after a resize in test_tui_log_wrap.py.)"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from lobby_pilot import shown_lobby
from offline2017 import OfflineSession, find_position, must_follow
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static

from druids_p2p.games.druids2017 import Game, GameOptions, deal_from_seed
from druids_p2p.games.druids2017.cards import GAIA_DARK, GAIA_LIGHT
from druids_p2p.games.druids2017.rule_bot import rule_move
from druids_p2p.lan.listener import BeaconListener
from druids_p2p.lan.network import NetChoice
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.dialogs import ConfirmQuit
from druids_p2p.tui.druids2017.panels import TrickPanel
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, Pacing, table_ui
from druids_p2p.tui.lobby import LanSetup
from druids_p2p.tui.widgets import SizeWarning, TableLog
from druids_p2p.wire import Identity

NAMES = ("alice", "rule-1", "rule-2", "rule-3")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _text(content: object, width: int = 200) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


def _run(
    app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]], size: tuple[int, int]
) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await body(pilot)

    asyncio.run(main())


def test_the_status_stops_saying_sending_once_the_move_is_taken() -> None:
    """The status said "sending your move…" until this seat's next turn: through every other
    seat's move and later tricks. It says so only until the table takes the move."""
    seed, prefix = find_position(must_follow(0))
    clock = FakeClock()
    options = GameOptions(players=4, rounds=1)

    def make(post: Callable[[Any], object]) -> OfflineSession:
        return OfflineSession(post, NAMES, options=options, seed=seed, prefix=prefix)

    app = DruidsApp(
        table_ui=TABLE_UI, make_session=make, pacing=Pacing(move_s=1.0, trick_s=0.0), clock=clock
    )

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, TableScreen)
        for _ in range(60):
            if table.snapshot is not None and table.snapshot.my_turn:
                break
            clock.now += 1.0
            await table.drain()
            await pilot.pause()
        assert table.snapshot is not None and table.snapshot.my_turn
        await pilot.press("enter")
        await pilot.pause()
        status = table.query_one("#status", Static)
        seen: list[str] = []
        for _ in range(8):  # our move, then the others' (one a second)
            clock.now += 1.0
            await table.drain()
            await pilot.pause()
            seen.append(_text(status.content))
        assert not any("sending your move" in line for line in seen), seen
        assert any("Waiting for" in line for line in seen), seen

    _run(app, body, (120, 40))


LONG_RECORD = (
    "/home/alice/.local/share/druids-p2p/games/20250101-120000-4242/me/tables/"
    "3f9c0a1b2c3d4e5f60718293/transcript.druids"
)


def test_the_quit_dialog_shows_the_whole_record_path_at_100_and_80_columns() -> None:
    """The path was kept on one line, wider than the terminal: cut at 100 and 80 columns. Where
    it does not fit it folds, every character on screen; where it fits it stays one line."""
    seed, prefix = find_position(must_follow(0))
    for size, rows in (((80, 24), 2), ((100, 30), 2), ((120, 40), 1)):

        def make(post: Callable[[Any], object]) -> OfflineSession:
            options = GameOptions(players=4, rounds=1)
            return OfflineSession(
                post, NAMES, options=options, seed=seed, prefix=prefix, record=LONG_RECORD
            )

        app = DruidsApp(table_ui=TABLE_UI, make_session=make, pacing=NO_PACING)

        async def body(pilot: Pilot[Any], size: tuple[int, int] = size, rows: int = rows) -> None:
            await pilot.press("q")
            await pilot.pause()
            dialog = pilot.app.screen
            assert isinstance(dialog, ConfirmQuit)
            path = dialog.query_one("#quit-record", Static)
            region = path.region
            assert region.x >= 0 and region.right <= size[0], (size, region)
            shown = [path.render_line(y).text.strip() for y in range(path.size.height)]
            assert "".join(shown) == LONG_RECORD, (size, shown)
            assert len([line for line in shown if line]) == rows
            await pilot.press("n")

        _run(app, body, size)


def test_the_tournament_bar_gives_seconds_per_game_for_slow_games() -> None:
    """Under one game a second the bar said "0 games/s": it says seconds a game instead."""
    from rich.progress import Progress

    from druids_p2p.cli.tournament_options import _Rate

    now = [0.0]
    console = Console(file=io.StringIO())
    rate = _Rate.make()
    with Progress(rate, get_time=lambda: now[0], console=console) as bar:
        slow = bar.add_task("slow", total=10)
        fast = bar.add_task("fast", total=1000)
        for _ in range(3):
            now[0] += 5.0
            bar.advance(slow, 1)
            bar.advance(fast, 40)
        texts = [str(rate.render(task)) for task in bar.tasks]
    assert texts == ["5.0 s/game", "8 games/s"], texts


def _dark_gaia_lead_by_a_bot() -> int:
    """A deal (by seed) of a variant table whose Gaia holder, a bot, leads Gaia's dark side."""
    for seed in range(500):
        game = Game(GameOptions(players=4, rounds=1, variant=True))
        game.start_round(deal_from_seed(seed, 4))
        seat = game.to_move
        if seat in (None, 0):
            continue
        move = rule_move(game.view(seat))
        if GAIA_DARK <= move < GAIA_LIGHT:
            return seed
    raise LookupError("no such deal")


def test_a_variant_tables_gaia_lead_names_its_side_the_dark_one_too() -> None:
    """On a ``--variant`` table "Gaia → violet" did not say which side (only the light one was
    named): the log and the trick panel now say "(dark side)" too."""
    seed = _dark_gaia_lead_by_a_bot()
    options = GameOptions(players=4, rounds=1, variant=True)

    def make(post: Callable[[Any], object]) -> OfflineSession:
        return OfflineSession(post, NAMES, options=options, seed=seed)

    app = DruidsApp(table_ui=TABLE_UI, make_session=make, pacing=NO_PACING)

    async def body(pilot: Pilot[Any]) -> None:
        table = app.table
        assert isinstance(table, TableScreen)
        log = " ".join(line.text for line in table.query_one(TableLog).lines)
        assert re.search(r"plays Gaia → \w+ \(dark side\)", log), log
        trick = _text(table.query_one(TrickPanel).content)
        assert re.search(r"Gaia → \w+ \(dark side\)", trick), trick

    _run(app, body, (120, 40))


def _lobby_app(game: str) -> tuple[DruidsApp, BeaconListener]:
    net = NetChoice("192.168.1.10", "192.168.1.255", "eth0")
    listener = BeaconListener(net, 0)  # fed nothing: no table is heard, none is sent
    setup = LanSetup(net=net, table_name="alice's table", listener=listener, game=game)
    identity = Identity.from_seed(bytes(32), "alice")
    app = DruidsApp(table_ui=table_ui(game), lan=setup, identity=identity, folder=Path("."))
    return app, listener


def _cut(screen: Any, size: tuple[int, int]) -> list[str]:
    """The widgets that reach past the terminal's edge (cut off)."""
    return [
        f"{type(w).__name__}#{w.id}"
        for w in screen.query("*")
        if w.display and w.region.area and (w.region.right > size[0] or w.region.bottom > size[1])
    ]


@pytest.mark.parametrize("game", ["druids2017", "druids2004"])
def test_a_lobby_too_small_for_its_widgets_says_so_and_fits_at_the_size_it_asks(
    game: str,
) -> None:
    """At 80×24 the lobby cut its host form off (the seats, rounds, the light side) without a
    word, where the table screens say how large the terminal must be."""
    app, listener = _lobby_app(game)

    async def body(pilot: Pilot[Any]) -> None:
        lobby = await shown_lobby(app, pilot)
        await pilot.pause()
        assert _cut(lobby, (80, 24)), "nothing is cut at 80×24: the test shows nothing"
        banner = lobby.query_one(SizeWarning)
        assert banner.display
        text = _text(banner.content)
        wanted = (banner.min_width, banner.min_height)
        assert "80×24" in text and f"needs at least {wanted[0]}×{wanted[1]}" in text
        await pilot.resize_terminal(*wanted)
        await pilot.pause()
        await pilot.pause()
        assert not banner.display
        assert _cut(lobby, wanted) == []  # the size it asks for shows every widget
        await pilot.resize_terminal(wanted[0] - 1, wanted[1])
        await pilot.pause()
        assert banner.display

    try:
        _run(app, body, (80, 24))
    finally:
        listener.close()
