"""The Druids (2004) table in the terminal UI (issue 18), driven by key presses (Textual's Pilot).

Every test plays at a real :class:`~druids_p2p.tui.druids2004.session.Offline2004` table: the real
engine, real rule bots at the other seats; the person's moves are keys, never calls into the
session. What the person sees is read back from the rendered widgets.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from board_keys import press_keys, read_ritual_steps, synced
from cli_harness import run_cli
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static

from druids_p2p.bots import BuiltinBots
from druids_p2p.bots.host import Bot
from druids_p2p.bots.local_game import make_bot
from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import format_card, is_gem, is_servant, servant_owner
from druids_p2p.games.druids2004.notation import replay
from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.setup import Drew, Played, Stopped, TurnEnded, random_setup
from druids_p2p.games.druids2004.view import HIDDEN, SeatView
from druids_p2p.tui.dialogs import HelpScreen
from druids_p2p.tui.druids2004.dialogs import (
    ConfirmLeave,
    GameOver2004,
    RitualHistory,
    RitualSteps,
)
from druids_p2p.tui.druids2004.places import ritual_ready
from druids_p2p.tui.druids2004.session import Offline2004
from druids_p2p.tui.druids2004.table import RECORD_NAME, Druids2004App, Table2004Screen
from druids_p2p.tui.widgets import TableLog, seat_colour

SIZE = (112, 42)


MAX_KEYS = 3000
"""More key presses than any test game needs (each loop below is bounded by it)."""


def _session(players: int = 3, seed: int = 7) -> Offline2004:
    names = ("alice", "rule-1", "rule-2", "rule-3")[:players]
    bots = {s: make_bot("rule", BuiltinBots(), "druids2004")[1] for s in range(1, players)}
    return Offline2004(names, bots, seed=seed)


def plain(widget: Static, width: int = 110, styles: bool = False) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system="truecolor")
    console.print(widget.content)
    return console.export_text(styles=styles)


def table_text(app: Druids2004App) -> str:
    """The place row, the hand and the score column as rendered (not the log)."""
    screen = app.table
    return "\n".join(plain(screen.query_one(q, Static)) for q in ("#places", "#hand", "#scores"))


def message(app: Druids2004App) -> str:
    return plain(app.table.query_one("#message", Static)).strip()


async def settle(pilot: Pilot[Any], app: Druids2004App) -> None:
    """Wait until the bots' worker has finished and the screen has drawn what it did."""
    await app.workers.wait_for_complete()
    await pilot.pause()
    assert not app.table.busy


async def press_move(pilot: Pilot[Any], app: Druids2004App, move: int) -> None:
    """The keys a person presses for ``move``, then the bots' answer."""
    await press_keys(pilot, app.table, move)
    await settle(pilot, app)


async def read_rituals(pilot: Pilot[Any], app: Druids2004App) -> int:
    """Read every open ritual dialog to its end and close it; how many there were."""
    for read in range(MAX_KEYS):
        screen = app.screen
        if not isinstance(screen, RitualSteps):
            return read
        await read_ritual_steps(pilot, screen)
        await settle(pilot, app)
    raise AssertionError("ritual dialogs did not end")


@pytest.mark.slow
@synced
async def test_a_whole_game_by_keys_to_the_end_screen(tmp_path: Path) -> None:
    session = _session(players=3)
    app = Druids2004App(session, tmp_path)
    rng = random.Random(1)
    rituals = 0
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        for _ in range(MAX_KEYS):
            rituals += await read_rituals(pilot, app)
            if isinstance(app.screen, GameOver2004):
                break
            view = app.table.view
            assert view.to_move == session.seat
            move = rule_move(view, session.game.options, rng)
            before = len(session.game.log)
            await press_move(pilot, app, move)
            assert len(session.game.log) > before, f"{mv.format_move(move)} was not played"
        else:
            raise AssertionError("the game did not end")
        over = app.screen
        assert isinstance(over, GameOver2004)
        scores = session.game.scores
        text = "\n".join(over.lines)
        for seat in range(3):
            assert f"{session.name(seat):>12}: {scores[seat]:3} points" in text
        await pilot.press("enter")
        await pilot.pause()
    assert rituals >= 1
    mine = [r for r in session.game.log if isinstance(r, Played) and r.seat == 0]
    assert mine, "the person played no card"
    outcome = app.return_value
    assert outcome is not None and outcome["result"]["finished"]
    assert outcome["result"]["totals"] == scores
    assert outcome["result"]["winners"] == session.game.winners
    record = tmp_path / RECORD_NAME
    assert outcome["record"] == str(record)
    code, result = replay(record.read_text())
    assert code == 0 and result["scores"] == scores


async def _play_until(
    pilot: Pilot[Any], app: Druids2004App, wanted: Callable[[SeatView], bool], rng: random.Random
) -> SeatView:
    """Play the rule bot's moves for the person, by keys, until ``wanted(view)`` holds."""
    for _ in range(MAX_KEYS):
        await read_rituals(pilot, app)
        view = app.table.view
        if wanted(view):
            return view
        assert not view.game_over, "the game ended first"
        move = rule_move(view, app.session.game.options, rng)
        if mv.RITUAL <= move < mv.DISCARD:
            move = (
                mv.STOP
                if mv.STOP in view.legal
                else next(m for m in view.legal if not mv.RITUAL <= m < mv.DISCARD)
            )
        await press_move(pilot, app, move)
    raise AssertionError("no such position")


@contextlib.asynccontextmanager
async def table_at(
    wanted: Callable[[SeatView], bool] | None = None,
    *,
    players: int = 3,
    seed: int = 7,
    policy_seed: int = 0,
) -> AsyncIterator[tuple[Pilot[Any], Druids2004App, SeatView]]:
    """A running table on ``seed``, played by keys (the rule policy, never a ritual) until
    ``wanted(view)`` holds (at once when None)."""
    app = Druids2004App(_session(players, seed))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        rng = random.Random(policy_seed)
        view = await _play_until(pilot, app, wanted or (lambda _: True), rng)
        yield pilot, app, view


def _others_servant_and_mine(view: SeatView) -> bool:
    cards = [c for p in view.row if p is not None for c in p.servants + p.gems]
    return (
        view.to_move == view.seat
        and any(o != view.seat and c == HIDDEN for o, c in cards)
        and any(o == view.seat for o, _ in cards)
        and any(o != view.seat for p in view.row if p for o, _ in p.servants)
    )


def _shown(token: str, text: str) -> bool:
    return re.search(rf"(?<![@\w]){re.escape(token)}(?![\w])", text) is not None


@synced
async def test_own_cards_are_shown_and_others_hidden_as_backs_in_their_colour() -> None:
    async with table_at(_others_servant_and_mine, seed=11, policy_seed=2) as (_, app, view):
        session = app.session
        text = table_text(app)
        game = session.game
        for card in view.hand:
            assert _shown(format_card(card), text), format_card(card)
        hidden_from_me: list[int] = []
        for slot in game.row:
            if slot is None:
                continue
            for seat, gem in slot.gems:
                if seat == 0:
                    assert _shown(format_card(gem), text)
                else:
                    hidden_from_me.append(gem)
            for servant in slot.servants:
                if servant_owner(servant) == 0:
                    assert _shown(format_card(servant), text)
                else:
                    hidden_from_me.append(servant)
        hidden_from_me += [c for s in (1, 2) for c in game.hands[s]]
        assert hidden_from_me
        for card in hidden_from_me:
            assert not _shown(format_card(card), text), f"{format_card(card)} is shown"
        ready = [s for s, p in enumerate(view.row) if ritual_ready(p)]
        places = plain(app.table.query_one("#places", Static)).splitlines()[0]
        marked = [int(n) - 1 for n in re.findall(r"(\d) @\w+ \w+ ★", places)]
        assert marked == ready and any(p and p.size for p in view.row)
        styled = plain(app.table.query_one("#places", Static), styles=True)
        owners = {o for p in view.row if p for o, c in p.servants if c == HIDDEN}
        for owner in owners:
            r, g, b = (int(seat_colour(owner)[i : i + 2], 16) for i in (1, 3, 5))
            assert f"38;2;{r};{g};{b}m♟" in styled, f"no back in seat {owner}'s colour"
        log = "\n".join(str(line.text) for line in app.table.query_one(TableLog).lines)
        for record in game.log:
            if isinstance(record, Drew) and record.seat != 0:
                assert f"draws a {'gem' if record.source == 'gem' else 'servant'}" in log


def _ritual_ready(view: SeatView) -> bool:
    return view.to_move == view.seat and any(mv.RITUAL <= m < mv.DISCARD for m in view.legal)


@synced
async def test_a_ritual_is_shown_step_by_step_and_stays_until_read() -> None:
    async with table_at(_ritual_ready, seed=5, policy_seed=3) as (pilot, app, view):
        session = app.session
        slot = next(m - mv.RITUAL for m in view.legal if mv.RITUAL <= m < mv.DISCARD)
        await pilot.press("r", str(slot + 1))
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, RitualSteps)
        ritual = dialog.ritual
        assert ritual.seat == 0 and ritual.slot == slot
        body = dialog.query_one("#ritual-steps", Static)
        assert plain(body).count("\n") == 1  # one step shown
        for shown in range(2, len(dialog.steps) + 1):
            await pilot.press("space")
            assert dialog.shown == shown and plain(body).strip().count("\n") == shown - 1
        assert dialog.complete and app.screen is dialog  # kept until read
        text = plain(body)
        for share in ritual.shares:
            took = f"takes {len(share.amulets)} amulet" if share.amulets else "takes none"
            assert re.search(rf"{re.escape(format_card(share.servant))} \([^)]*\) .*{took}", text)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, Table2004Screen)
        await pilot.press("l")
        history = app.screen
        assert isinstance(history, RitualHistory)
        assert all(
            step in history.lines[-len(dialog.steps) + i] for i, step in enumerate(dialog.steps)
        )
        await pilot.press("escape")
        scores = plain(app.table.query_one("#scores", Static))
        assert re.search(rf"you\s+{session.game.scores[0]}\s", scores)


@synced
async def test_illegal_keys_are_refused_with_a_message_and_nothing_is_played() -> None:
    async with table_at() as (pilot, app, _):
        session = app.session
        screen = app.table
        log_size = len(session.game.log)
        await pilot.press("g")
        assert message(app) == "you must first play 2 more card(s)"
        small = next(s for s, p in enumerate(screen.view.row) if p is not None and p.size < 3)
        await pilot.press("r", str(small + 1))
        assert "a ritual needs at least 3" in message(app) and f"place {small + 1}" in message(app)
        servants = [c for c in screen.view.hand if is_servant(c)]
        assert len(servants) == 3
        await press_move(pilot, app, mv.play_move(servants[0], 0))
        assert message(app) == "" and servants[0] not in screen.view.hand
        hand = screen.view.hand
        await press_move(pilot, app, mv.play_move(servants[1], 1))
        assert message(app) == "never two servants in one turn"
        assert screen.view.hand == hand
        await pilot.press("x")
        assert message(app).endswith("only a gem can be discarded")
        assert len(session.game.log) == log_size + 1  # only the one servant
        gem = next(c for c in hand if is_gem(c))
        await press_move(pilot, app, mv.play_move(gem, 2))
        assert message(app) == "" and gem not in screen.view.hand


def _drawing(view: SeatView) -> bool:
    return (
        view.to_move == view.seat
        and mv.DRAW_GEM in view.legal
        and mv.DRAW_SERVANT in view.legal
        and len(view.hand) <= 4
    )


@synced
async def test_draws_are_chosen_one_card_at_a_time() -> None:
    async with table_at(_drawing, players=2, seed=3, policy_seed=4) as (pilot, app, view):
        session = app.session
        size = len(view.hand)
        await pilot.press("g")
        after = app.table.view
        assert len(after.hand) == size + 1 and after.to_move == 0
        drawn = session.game.log[-1]
        assert isinstance(drawn, Drew) and drawn.source == "gem"
        assert _shown(format_card(drawn.card), table_text(app))
        await pilot.press("s")
        second = session.game.log[-1]
        assert isinstance(second, Drew) and second.source == "servant"
        assert len(app.table.view.hand) == size + 2
        at = len(session.game.log)
        await pilot.press("enter")
        await settle(pilot, app)
        assert session.game.log[at] == Stopped(0)
        assert session.game.log[at + 1] == TurnEnded(0, True)


@synced
async def test_help_lists_the_keys() -> None:
    async with table_at() as (pilot, app, _):
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = plain(help_screen.query_one("#help-keys", Static))
        for key in ("← →", "1-6", "r, then 1-6", "x", "g / s", "enter", "l", "?", "q"):
            assert re.search(rf"^\s*{re.escape(key)}\s", text, re.M), key
        await pilot.press("escape")
        assert isinstance(app.screen, Table2004Screen)


class HeldBot(Bot):
    """The rule bot, held at its first decision until the test lets it go (bounded wait)."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = make_bot("rule", BuiltinBots(), "druids2004")[1]
        self.entered = threading.Event()
        self.release = threading.Event()

    def choose(self, view: Any) -> int:
        self.entered.set()
        assert self.release.wait(30), "the test never let the bot go"
        move = self.inner.choose(view)
        assert isinstance(move, int)
        return move


@synced
async def test_the_screen_stays_live_while_a_bot_thinks() -> None:
    held = HeldBot()
    bots = {1: held, 2: make_bot("rule", BuiltinBots(), "druids2004")[1]}
    setup = random_setup(random.Random(7), 3, start=1)
    session = Offline2004(("alice", "rule-1", "rule-2"), bots, setup=setup)
    app = Druids2004App(session, pause_s=0.001)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert held.entered.wait(30)
        screen = app.table
        assert screen.busy
        assert "Waiting: rule-1 is playing" in plain(screen.query_one("#status", Static))
        cursor = screen.cursor
        await pilot.press("right")
        assert screen.cursor == (cursor + 1) % len(screen.view.hand)
        await pilot.press("1")
        assert message(app) == "wait: the other players are still moving"
        assert not [r for r in session.game.log if isinstance(r, Played) and r.seat == 0]
        held.release.set()
        await settle(pilot, app)
        assert session.my_turn and screen.view.to_move == 0
        await pilot.press("1")
        assert message(app) == ""
        assert [r for r in session.game.log if isinstance(r, Played) and r.seat == 0]


@synced
async def test_ctrl_c_mid_game_asks_the_question_q_asks(tmp_path: Path) -> None:
    session = _session()
    app = Druids2004App(session, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+c")
        assert isinstance(app.screen, ConfirmLeave)
        await pilot.press("y")
        await pilot.pause()
    outcome = app.return_value
    assert outcome is not None and outcome["stopped"] == "you left the table"


@synced
async def test_leaving_mid_game_asks_first_and_keeps_the_record(tmp_path: Path) -> None:
    session = _session()
    app = Druids2004App(session, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmLeave)
        await pilot.press("n")
        assert isinstance(app.screen, Table2004Screen)
        await pilot.press("q", "y")
        await pilot.pause()
    outcome = app.return_value
    assert outcome is not None and outcome["stopped"] == "you left the table"
    assert not outcome["result"]["finished"]
    assert (tmp_path / RECORD_NAME).read_text() == session.record_text()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ["play", "--game", "druids2004", "--players", "5"],
            "--players must be 2, 3 or 4 for druids2004",
        ),
        (["play", "--game", "chess"], "--game 'chess': unknown game"),
        (["play", "--game", "druids2004", "--bots", "rule,rule,rule,rule"], "2 to 4 seats"),
    ],
)
def test_play_druids2004_bad_input_is_one_line_exit_2(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(args, capsys)
    assert code == 2
    assert words in err and len(err.strip().splitlines()) == 1
