"""``druids play --confirm-plays`` (issue 28 item 10): a guard against misplays for those who
want one. The first key that plays a card marks it; the same key (or enter) again plays it; any
other key cancels and does nothing else. Both games, driven by keys (Textual's Pilot) at real
offline tables; without the flag a key plays at once, as before."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from board_keys import synced
from cli_harness import run_cli
from offline2017 import OfflineSession, find_position, must_follow
from test_tui_2004 import _session, message, settle

from druids_p2p.cli.play_ui import UiOptions, table_prefs
from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import format_card, is_gem
from druids_p2p.games.druids2004.setup import Discarded, Played
from druids_p2p.games.druids2017 import Game, GameOptions
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.druids2004.table import Druids2004App
from druids_p2p.tui.druids2017.cards import CardChip, Hand
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, TablePrefs

NAMES = ("alice", "rule-1", "rule-2", "rule-3")
CONFIRM = TablePrefs(confirm_plays=True)


def _mine(game: Game) -> int:
    rnd = game.round
    assert rnd is not None
    return sum(1 for seat, _ in rnd.plays if seat == 0)


def _2017(prefs: TablePrefs) -> DruidsApp:
    seed, prefix = find_position(must_follow(0))
    options = GameOptions(players=4, rounds=1)

    def make(post: Callable[[Any], object]) -> OfflineSession:
        return OfflineSession(post, NAMES, options=options, seed=seed, prefix=prefix)

    return DruidsApp(table_ui=TABLE_UI, make_session=make, pacing=NO_PACING, prefs=prefs)


def _hint(app: DruidsApp) -> str:
    table = app.table
    assert isinstance(table, TableScreen)
    return str(table.query_one(Hand).query_one("#hint").render())


def test_2017_enter_marks_a_card_a_second_enter_plays_it_any_other_key_cancels() -> None:
    app = _2017(CONFIRM)

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            session = app.session
            assert isinstance(session, OfflineSession)
            game = session.game
            played = _mine(game)
            chip = app.focused
            assert isinstance(chip, CardChip) and chip.playable
            await pilot.press("enter")
            await pilot.pause()
            assert _mine(game) == played  # marked, not played
            assert "enter again to play" in _hint(app) and app.focused is chip
            await pilot.press("right")  # another key: cancels, and does nothing else
            await pilot.pause()
            assert _mine(game) == played and app.focused is chip
            assert "cancelled" in _hint(app)
            await pilot.press("enter")
            await pilot.pause()
            assert _mine(game) == played
            await pilot.press("enter")
            await pilot.pause()
            assert _mine(game) == played + 1
            rnd = game.round
            assert rnd is not None
            assert [m for s, m in rnd.plays if s == 0][-1] == chip.card

    asyncio.run(main())


def test_2017_without_the_flag_enter_plays_at_once() -> None:
    app = _2017(TablePrefs())

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            session = app.session
            assert isinstance(session, OfflineSession)
            played = _mine(session.game)
            await pilot.press("enter")
            await pilot.pause()
            assert _mine(session.game) == played + 1

    asyncio.run(main())


def _mine_2004(app: Druids2004App) -> list[object]:
    return [r for r in app.session.game.log if isinstance(r, Played | Discarded) and r.seat == 0]


@synced
async def test_2004_a_place_key_marks_the_card_the_same_key_or_enter_plays_it() -> None:
    app = Druids2004App(_session(), prefs=CONFIRM)
    async with app.run_test(size=(112, 42)) as pilot:
        await settle(pilot, app)
        view = app.table.view
        assert view.to_move == 0 and view.plays_left == 2
        card = view.hand[app.table.cursor]
        await pilot.press("1")
        assert _mine_2004(app) == [] and app.table.marked == mv.play_move(card, 0)
        assert f"{format_card(card)} onto place 1: press 1 again" in message(app)
        await pilot.press("2")  # another key cancels, and does not play onto place 2
        assert _mine_2004(app) == [] and app.table.marked is None
        assert "cancelled" in message(app)
        await pilot.press("3")
        await pilot.press("3")
        await settle(pilot, app)
        assert _mine_2004(app) == [Played(0, card, 2)]
        card = app.table.view.hand[app.table.cursor]
        await pilot.press("4")
        await pilot.press("enter")  # enter confirms too (it does not end the turn)
        await settle(pilot, app)
        assert _mine_2004(app)[-1] == Played(0, card, 3)


@synced
async def test_2004_a_discard_is_marked_then_confirmed() -> None:
    app = Druids2004App(_session(), prefs=CONFIRM)
    async with app.run_test(size=(112, 42)) as pilot:
        await settle(pilot, app)
        for slot in ("1", "2"):
            await pilot.press(slot, slot)
            await settle(pilot, app)
        view = app.table.view
        assert view.plays_left == 0 and view.to_move == 0
        gem = next(i for i, c in enumerate(view.hand) if is_gem(c))
        while app.table.cursor != gem:
            await pilot.press("right")
        await pilot.press("x")
        assert not any(isinstance(r, Discarded) for r in _mine_2004(app))
        assert "press x again" in message(app)
        await pilot.press("x")
        await settle(pilot, app)
        assert isinstance(_mine_2004(app)[-1], Discarded)


@synced
async def test_2004_without_the_flag_a_place_key_plays_at_once() -> None:
    app = Druids2004App(_session())
    async with app.run_test(size=(112, 42)) as pilot:
        await settle(pilot, app)
        await pilot.press("1")
        await settle(pilot, app)
        assert len(_mine_2004(app)) == 1


def _opts(**kw: Any) -> UiOptions:
    fields: dict[str, Any] = dict(
        game="druids2004", lan=False, seats=None, bots=None, players=None, rounds=5,
        variant=False, budget_ms=100.0, workdir=None, name=None, interface=None, address=None,
        beacon_port=45000,
    )  # fmt: skip
    return UiOptions(**(fields | kw))


def test_the_flag_reaches_the_tables_prefs_and_the_2004_legend_is_shown_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path))
    assert table_prefs(_opts(confirm_plays=True)) == TablePrefs(confirm_plays=True, legend=True)
    assert table_prefs(_opts()) == TablePrefs(confirm_plays=False, legend=False)  # seen
    assert table_prefs(_opts(game="druids2017", confirm_plays=True)) == CONFIRM


def test_headless_play_refuses_confirm_plays(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["play", "--headless", "--confirm-plays"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--confirm-plays" in err and "--headless" in err
