"""Druids (2004) can be learned from the screen (issue 28 item 9): a legend of every sign of the
board (on ``?`` and by itself the first time), "you" marked with the seat's servant series, the
reason for every +0 and every tie-break, places numbered 1-6 on the board as in the plain
terminal's lines, and a log that keeps each player's turn together.

Driven by keys (Textual's Pilot) at a real offline table (the engine, rule bots) or, for the
table of peers, with the snapshots a peer posts, taken from a real engine game.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from board_keys import synced
from test_druids2004_rulebook import cards, column_game, play, ties_game
from test_tui_2004 import (
    _others_servant_and_mine,
    _session,
    plain,
    read_rituals,
    settle,
    table_at,
)
from textual.app import App
from textual.message import Message
from textual.widgets import Static

from druids_p2p.bots import BuiltinBots
from druids_p2p.bots.local_game import make_bot
from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import format_card
from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.setup import Options, RitualDone, arranged_setup, random_setup
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import seat_lines
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.dialogs import HelpScreen
from druids_p2p.tui.druids2004.dialogs import GameOver2004, RitualSteps
from druids_p2p.tui.druids2004.lan_table import TABLE_UI, LanTable2004Screen, Snapshot2004
from druids_p2p.tui.druids2004.places import GEM_BACK, RITUAL_MARK, SERVANT_BACK, TURN_MARK
from druids_p2p.tui.druids2004.session import Offline2004
from druids_p2p.tui.druids2004.table import Druids2004App, Table2004Screen
from druids_p2p.tui.game_ui import NO_PACING, PeerEvent, Session, TablePrefs, first_time
from druids_p2p.tui.widgets import TableLog

SIZE = (112, 42)
NAMES = ("alice", "rule-1", "rule-2", "rule-3")


def _legend(screen: HelpScreen) -> dict[str, str]:
    """The legend's rows: sign -> meaning, as rendered."""
    text = plain(screen.query_one("#help-signs", Static), width=200)
    rows = [re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in text.splitlines()]
    return {row[0]: row[1] for row in rows if len(row) == 2}


@synced
async def test_question_mark_shows_a_legend_of_every_sign_on_the_board() -> None:
    async with table_at(_others_servant_and_mine, seed=11, policy_seed=2) as (pilot, app, view):
        board = "\n".join(
            plain(app.table.query_one(q, Static)) for q in ("#places", "#hand", "#scores")
        )
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        legend = _legend(help_screen)
        # Every symbol drawn on the board (not a letter, digit or plain punctuation) is a sign.
        symbols = {ch for ch in board if not ch.isascii() and ch not in "–—·…"}
        assert {GEM_BACK, SERVANT_BACK, RITUAL_MARK, TURN_MARK} <= symbols | {RITUAL_MARK}
        for symbol in symbols:
            assert symbol in legend, f"{symbol!r} is drawn but not explained"
        # Every kind of token: a place, a gem, a servant (with the seat it belongs to).
        assert re.search(r"@[KWRBGY]\d", board) and "@K2" in legend
        assert re.search(r"(?<![@\w])[KWRBGY]\d", board) and "K7" in legend
        assert re.search(r"S\d:\d", board) and "S3:6" in legend
        assert f"S{view.seat}:1" in legend["S3:6"] and "you" in legend["S3:6"]
        # Every column of the score column, and what its caption counts.
        header = plain(app.table.query_one("#scores", Static)).splitlines()[0].split()
        assert {"seat", "player", "score", "hand", "reserve", "out"} <= set(header)
        for word in ("score", "reserve", "out", "gem pile", "supply"):
            assert any(sign.startswith(word) for sign in legend), word
        assert any(sign.startswith("hand") for sign in legend)
        assert any(sign.startswith("column") for sign in legend)
        assert "discarded" in legend["out"]
        assert "S0 … S3" in legend  # the seats: S0 in the score column is a seat
        await pilot.press("escape")
        assert isinstance(app.screen, Table2004Screen)


@synced
async def test_the_legend_opens_by_itself_the_first_time_only(tmp_path: Path) -> None:
    assert first_time(tmp_path, "legend-druids2004")
    assert not first_time(tmp_path, "legend-druids2004")  # remembered in the data folder
    app = Druids2004App(_session(), prefs=TablePrefs(legend=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        shown = app.screen
        assert isinstance(shown, HelpScreen) and shown.first_time
        assert "shown once, the first time" in plain(shown.query(Static).first(), width=200)
        assert _legend(shown)["S3:6"].count("S0:1") == 1  # the person's series: seat 0
        await pilot.press("escape")
        assert isinstance(app.screen, Table2004Screen)
    app = Druids2004App(_session())  # not the first time: straight to the table
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, Table2004Screen)


@synced
async def test_your_seat_is_marked_you_with_its_servant_series() -> None:
    session = Offline2004(
        NAMES[:3],
        {s: make_bot("rule", BuiltinBots(), "druids2004")[1] for s in (0, 2)},
        seat=1,
        seed=4,
    )
    app = Druids2004App(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        scores = plain(app.table.query_one("#scores", Static)).splitlines()
        rows = {line.split()[0] if line.split()[0].startswith("S") else line.split()[1]: line
                for line in scores[1:4]}  # fmt: skip
        assert re.search(r"S1\s+you\b", rows["S1"])
        assert re.search(r"S0\s+alice\b", rows["S0"]) and re.search(r"S2\s+rule-2", rows["S2"])
        hand = app.table.query_one("#hand", Static)
        assert "you are S1" in str(hand.border_title) and "S1:1" in str(hand.border_title)


def _names(seat: int) -> str:
    return ("you", "rule-1", "rule-2")[seat]


class Steps(App[None]):
    def __init__(self, ritual: RitualDone) -> None:
        super().__init__()
        self.ritual = ritual

    def on_mount(self) -> None:
        self.push_screen(RitualSteps(self.ritual, _names))


async def _steps_text(ritual: RitualDone) -> str:
    app = Steps(ritual)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, RitualSteps)
        await pilot.press("escape")  # every step
        return plain(dialog.query_one("#ritual-steps", Static), width=1000)


def _ritual(game: Game2004) -> RitualDone:
    return [r for r in game.log if isinstance(r, RitualDone)][-1]


@synced
async def test_every_plus_zero_and_every_tie_in_a_ritual_says_why() -> None:
    # Equal servants: S1:2, S2:2 and S0:2 take in turn order from rule-1, who announced.
    text = await _steps_text(_ritual(ties_game()))
    assert re.search(
        r"2\. S1:2 \(rule-1, value 2\) — tied with S2:2 S0:2: equal servants take in turn "
        r"order, starting with rule-1 \(who announced the ritual\)",
        text,
    ), text
    assert "3. S2:2 (rule-2, value 2) — tied with S1:2 S0:2: it takes after them" in text
    assert "the last servant takes all that remain: you +3" in text
    text = await _steps_text(_ritual(ties_game("starting_player")))
    assert "starting with you (the player who started the game)" in text

    # +0: no amulet left, and no amulet at all.
    setup = arranged_setup(
        3, 0, row=cards("@K1 @W1"),
        gems={0: cards("K1 W1 W2 W3"), 1: cards("W4 W5 W6 W7"), 2: cards("K2 K3 K4 K5")},
        servants={0: cards("S0:1 S0:2 S0:3"), 1: cards("S1:4 S1:5 S1:6"),
                  2: cards("S2:4 S2:5 S2:6")},
    )  # fmt: skip
    game = play(Game2004(setup, Options(players=3)), "K1>0 S0:1>0 Stop W4>1 S1:4>0 Stop "
                "K2>1 S2:6>0 Stop Ritual:0")  # fmt: skip
    text = await _steps_text(_ritual(game))
    assert "S1:4 (rule-1, value 4) finds no amulet left: takes none, rule-1 +0" in text
    assert "S2:6 (rule-2, value 6) finds no amulet left: takes none, rule-2 +0" in text
    assert "as many as its value: you +1" in text
    game = play(Game2004(setup, Options(players=3)), "K1>1 S0:1>1 Stop W4>0 W5>0 Stop "
                "K2>1 K3>0 Stop Ritual:1")  # fmt: skip
    text = await _steps_text(_ritual(game))
    assert "takes none: you +0 — no gem here was white, so there is no amulet" in text

    # +4 of 5 amulets, and the end: the column could not move on.
    game = play(column_game(), "Ritual:0")
    text = await _steps_text(_ritual(game))
    assert (
        "takes 5 amulet(s) K2 K5 K6 K3 K4 — the last servant takes all that remain: you +4 only"
        " — the score column could not move on (rule-1 and rule-2 both stood on its bottom card"
    ) in text, text
    assert "your pawn stops at its top and the game ends: you win alone" in text


COLUMN_TIE = (
    "K1>0 K2>0 Stop  K5>0 K6>0 Stop  W1>1 W2>1 Draw:gem Draw:gem"
    "  K3>0 S0:1>0 Stop  R1>2 R2>2 Stop  W3>1 W4>1 Stop"
    "  K4>0 S0:5>0 Stop  S1:1>2 Stop  W5>1 S2:6>1 Stop"
    "  S0:6>2 Stop  S1:2>2 Stop  Ritual:1 W6>2 S2:1>2 Stop"
)
"""rule-2 reaches 5, the top of a 1-space column; then alice's ritual on place 1 must take her
past it while rule-1 stands on 0 (tests/test_druids2004_rulebook.py's column example)."""


@synced
async def test_the_column_end_says_why_one_player_wins_alone_on_a_tie() -> None:
    setup = arranged_setup(
        3, 0, row=cards("@K1 @W1 @R1"),
        gems={0: cards("K1 K2 K3 K4"), 1: cards("K5 K6 R1 R2"), 2: cards("W1 W2 W3 W4")},
        servants={0: cards("S0:1 S0:5 S0:6"), 2: cards("S2:6 S2:1 S2:2")},
        pile=cards("W5 W6"),
    )  # fmt: skip
    bots = {s: make_bot("rule", BuiltinBots(), "druids2004")[1] for s in (1, 2)}
    session = Offline2004(
        NAMES[:3], bots, setup=setup, options=Options(players=3, spaces_per_card=1)
    )
    play(session.game, COLUMN_TIE)
    assert session.game.to_move == 0 and session.game.scores == [0, 0, 5]
    app = Druids2004App(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("r", "1")
        await pilot.pause()
        assert await read_rituals(pilot, app) == 2  # rule-2's (played before), then yours
        over = app.screen
        assert isinstance(over, GameOver2004)
        text = " ".join(over.lines)
        assert "you:   5 points  ← won" in text and "rule-2:   5 points" in text
        assert "rule-2:   5 points  ← won" not in text
        assert (
            "The score column could not move on: your pawn had to pass its top while rule-1 "
            "stood on its bottom card" in text
        ), text
        assert "The game ends at once and you win alone." in text
        assert "rule-2 also scored 5 but does not share the win" in text


@synced
async def test_places_are_numbered_1_to_6_on_the_board_and_in_the_plain_lines() -> None:
    async with table_at() as (_, app, view):
        head = plain(app.table.query_one("#places", Static)).splitlines()[0]
        assert [int(n) for n in re.findall(r"(?:^|\s)(\d) @", head)] == [1, 2, 3, 4, 5, 6]
        lines = seat_lines(view)
        numbered = [int(m[1]) for line in lines if (m := re.match(r"  place (\d):", line))]
        assert numbered == [1, 2, 3, 4, 5, 6]
        assert not any("slot" in line for line in lines)


class ScriptedSession(Session):
    """A table of peers whose messages the test posts (what a peer's session posts)."""

    title = "scripted table"

    def start(self) -> None:
        pass

    def submit(self, move: int, turn: int) -> None:
        raise AssertionError("nothing is played here")


def _my_draw_then_the_next_turn() -> tuple[Game2004, Any, Any, str]:
    """A real game at seat 0's draws: the view before its last draw, and the view after it and
    the next seat's first two plays; the next seat's first token."""
    rng = random.Random(3)
    game = Game2004(random_setup(random.Random(8), 3, start=0), Options(players=3))
    while not (game.to_move == 0 and game.plays_left == 0 and mv.DRAW_GEM in game.legal_moves()):
        game.play(rule_move(game.view(game.seat), game.options, rng))
    before = game.view(0)
    game.play(mv.DRAW_GEM)
    game.play(mv.STOP) if game.to_move == 0 else None
    assert game.to_move == 1 and game.plays_left == 2
    first = next(m for m in game.legal_moves() if mv.decode(m).kind == mv.KIND_PLAY)
    game.play(first)
    return game, before, game.view(0), f"play slot:{mv.decode(first).slot}"


@synced
async def test_a_draw_told_late_is_logged_before_the_next_players_turn() -> None:
    """This seat's drawn card is known once every share of it is in: the next player's move
    can reach the screen first (its snapshot not settled yet). Its line waits: "you draw" is
    not split from this seat's turn by the next player's."""
    game, before, after, token = _my_draw_then_the_next_turn()
    names = NAMES[:3]

    def snap(view: Any) -> Snapshot2004:
        return Snapshot2004(names, 0, "play", view)

    def make(post: Callable[[Message], object]) -> Session:
        return ScriptedSession()

    app = DruidsApp(table_ui=TABLE_UI, make_session=make, pacing=NO_PACING)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.table
        assert isinstance(table, LanTable2004Screen)
        script = [
            PeerEvent({"event": "move", "seat": 0, "move": "Stop"}, snap(before)),  # settled
            PeerEvent({"event": "move", "seat": 0, "move": "Draw:gem"}, snap(None)),
            PeerEvent({"event": "move", "seat": 1, "move": token}, snap(None)),
            PeerEvent({"event": "move", "seat": 1, "move": "Stop"}, snap(after)),  # settled
        ]
        for message in script:
            app.post_message(message)
            await pilot.pause()
        lines = [str(line.text) for line in table.query_one(TableLog).lines]
        (drawn,) = set(after.hand) - set(before.hand)
        mine = next(i for i, x in enumerate(lines) if f"you draw {format_card(drawn)}" in x)
        theirs = next(i for i, x in enumerate(lines) if "rule-1 plays" in x)
        assert mine < theirs, lines
        assert game.to_move == 1
