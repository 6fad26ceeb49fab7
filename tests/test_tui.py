"""The terminal UI driven headless (Textual's ``run_test`` / Pilot) on exact positions.

The table here is :class:`~offline2017.OfflineSession` (the engine and rule
bots in process, a fixed deal), so positions a mental-card deal cannot be made to produce are
reachable: holding Gaia, a dimmed card that must follow, a Sickle choice on tied piles. The same
screens over a real table of peer processes are in ``test_tui_net.py``.
"""

from __future__ import annotations

import asyncio
import io
import random
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from offline2017 import OfflineSession
from rich.console import Console
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Static

from druids_p2p.games.druids2017 import GAIA, Game, GameOptions, deal_from_seed, format_card
from druids_p2p.games.druids2017.cards import COLOUR_NAMES, PILE, card_domain, is_gaia_move
from druids_p2p.games.druids2017.notation import format_move, parse_move
from druids_p2p.games.druids2017.rule_bot import rule_move
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.dialogs import ConfirmQuit, HelpScreen
from druids_p2p.tui.druids2017.cards import CardChip, Hand
from druids_p2p.tui.druids2017.dialogs import GaiaPrompt, GameOver, PilePrompt, RoundSummary
from druids_p2p.tui.druids2017.snapshot import card_reason, snapshot_from_game
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, PeerEvent
from druids_p2p.tui.widgets import TableLog

NAMES = ("alice", "rule-1", "rule-2", "rule-3")
SIZE = (110, 40)


# ---------------------------------------------------------------------- positions
def _gaia_seed() -> int:
    return next(s for s in range(200) if GAIA in deal_from_seed(s, 4)[0])


def _must_follow_position() -> tuple[int, list[int]]:
    """(seed, moves) after which seat 0 must follow a led domain and holds other domains too."""
    for seed in range(200):
        game = Game(GameOptions(players=4, rounds=1))
        game.start_round(deal_from_seed(seed, 4))
        moves: list[int] = []
        rnd = game.round
        assert rnd is not None
        while not rnd.over:
            view = game.view(rnd.to_move) if rnd.to_move is not None else None
            assert view is not None
            if view.seat == 0 and view.lead_domain >= 0 and not view.pending_pile_choice:
                led = [c for c in view.hand if card_domain(c) == view.lead_domain]
                other = [c for c in view.hand if card_domain(c) not in (-1, view.lead_domain)]
                if led and other:
                    return seed, moves
            move = rule_move(view)
            moves.append(move)
            game.play(move)
    raise AssertionError("no must-follow position in 200 deals")


def _pile_choice_position() -> tuple[int, list[int]]:
    """(seed, moves) after which seat 0 must choose which tied pile its Sickle removes."""
    for seed in range(2000):
        rng = random.Random(seed)
        game = Game(GameOptions(players=4, rounds=1))
        game.start_round(deal_from_seed(seed, 4))
        rnd = game.round
        assert rnd is not None
        moves: list[int] = []
        while not rnd.over:
            legal = game.legal_moves()
            if rnd.to_move == 0 and rnd.pending_sickles:
                return seed, moves
            move = rng.choice(legal)
            moves.append(move)
            game.play(move)
    raise AssertionError("no Sickle pile choice for seat 0 in 2000 random games")


# ---------------------------------------------------------------------- driving the app
def _app(
    seed: int = 0,
    prefix: Sequence[int] = (),
    variant: bool = False,
    rounds: int = 1,
) -> DruidsApp:
    options = GameOptions(players=4, variant=variant, rounds=rounds)

    def make(post: Callable[[Any], object]) -> OfflineSession:
        return OfflineSession(
            post, NAMES, options=options, seed=seed, prefix=prefix, record="/tmp/x.druids"
        )

    return DruidsApp(table_ui=TABLE_UI, make_session=make, pacing=NO_PACING)


def _run(app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await body(pilot)

    asyncio.run(main())


def _table(app: DruidsApp) -> TableScreen:
    assert isinstance(app.table, TableScreen)
    return app.table


def _game(app: DruidsApp) -> Game:
    session = app.session
    assert isinstance(session, OfflineSession)
    return session.game


def plain(widget: Static) -> str:
    """The text a Static shows (plain strings, Rich Text or any Rich renderable)."""
    content = widget.content
    if isinstance(content, str):
        return content
    if isinstance(content, Text):
        return content.plain
    console = Console(width=160, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


def _hint(app: DruidsApp) -> str:
    return plain(_table(app).query_one("#hint", Static))


async def _play_out(pilot: Pilot[Any], app: DruidsApp, limit: int = 400) -> None:
    """Answer every prompt with its first choice and play the focused card until the game
    is over (the GameOver screen)."""
    for _ in range(limit):
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, GameOver):
            return
        if isinstance(screen, GaiaPrompt | PilePrompt):
            await pilot.press("1")
        elif isinstance(screen, RoundSummary):
            await pilot.press("enter")
        elif isinstance(screen, TableScreen):
            snap = screen.snapshot
            if snap is not None and snap.my_turn and not screen.awaiting:
                await pilot.press("enter")
    raise AssertionError("the game did not end")


# ---------------------------------------------------------------------- tests
def test_hand_grouped_by_domain_and_gaia_prompt() -> None:
    seed = _gaia_seed()
    app = _app(seed)

    async def body(pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, GaiaPrompt)  # opened by itself: Gaia must be led
        hand = _table(app).query_one(Hand)
        chips = hand.chips()
        assert sorted(c.card for c in chips) == sorted(deal_from_seed(seed, 4)[0])
        for chip in chips:  # each card in its domain's row
            group = card_domain(chip.card)
            row = chip.parent
            assert row is not None and row.id == f"row-{group if group >= 0 else 5}"
        gaia = next(c for c in chips if c.card == GAIA)
        assert gaia.playable and all(not c.playable for c in chips if c.card != GAIA)
        await pilot.press("3")  # red
        await pilot.pause()
        rnd = _game(app).round
        assert rnd is not None and rnd.plays[0] == (0, parse_move("Gaia:R"))
        assert isinstance(app.screen, TableScreen)

    _run(app, body)


def test_gaia_prompt_escape_and_reopen_with_p_and_light_side() -> None:
    app = _app(_gaia_seed(), variant=True)

    async def body(pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, GaiaPrompt)
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)
        assert "lead Gaia" in str(_table(app).status_text())
        await pilot.press("p")
        assert isinstance(app.screen, GaiaPrompt)
        await pilot.press("l", "2")  # light side, yellow
        await pilot.pause()
        rnd = _game(app).round
        assert rnd is not None and format_move(rnd.plays[0][1]) == "Gaia:Y:light"

    _run(app, body)


def test_dimmed_card_shows_the_reason_and_cannot_be_played() -> None:
    seed, prefix = _must_follow_position()
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        snap = table.snapshot
        assert snap is not None and snap.my_turn and snap.view is not None
        led = snap.view.lead_domain
        held = " ".join(format_card(c) for c in snap.view.hand if card_domain(c) == led)
        other = next(c for c in snap.view.hand if card_domain(c) not in (-1, led))
        await pilot.press("gyrbv"[card_domain(other)])  # jump to that domain's row
        focused = app.focused
        assert isinstance(focused, CardChip) and not focused.playable
        assert focused.has_class("dimmed")
        expected = f"must follow {COLOUR_NAMES[led]}: you hold {held}"
        assert expected in _hint(app)
        plays = len(_game(app).round.plays)  # type: ignore[union-attr]
        await pilot.press("enter")
        await pilot.pause()
        assert len(_game(app).round.plays) == plays  # type: ignore[union-attr]
        assert "Cannot play that" in _hint(app)
        await pilot.press("gyrbv"[led])
        focused = app.focused
        assert isinstance(focused, CardChip) and focused.playable
        assert "playable" in _hint(app)
        await pilot.press("enter")
        await pilot.pause()
        rnd = _game(app).round
        assert rnd is not None and (0, focused.card) in rnd.plays

    _run(app, body)


def test_sickle_choice_on_tied_piles() -> None:
    seed, prefix = _pile_choice_position()
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, PilePrompt)
        choices = app.screen.choices
        assert len(choices) >= 2
        await pilot.press("2")
        await pilot.pause()
        rnd = _game(app).round
        assert rnd is not None
        seat, move = next(p for p in reversed(rnd.plays) if p[1] >= PILE)
        assert (seat, move) == (0, PILE + choices[1])

    _run(app, body)


@pytest.mark.slow
def test_whole_round_by_keys_round_summary_and_game_over() -> None:
    app = _app(3)

    async def body(pilot: Pilot[Any]) -> None:
        seen_summary = False
        for _ in range(400):
            await pilot.pause()
            screen = app.screen
            if isinstance(screen, RoundSummary):
                seen_summary = True
                text = plain(screen.query_one("#round-summary").query(Static).first())
                assert "Round 1 of 1 is over" in text
                await pilot.press("enter")
            elif isinstance(screen, GameOver):
                break
            elif isinstance(screen, GaiaPrompt | PilePrompt):
                await pilot.press("1")
            elif isinstance(screen, TableScreen) and screen.snapshot and screen.snapshot.my_turn:
                await pilot.press("space")
        assert seen_summary
        screen = app.screen
        assert isinstance(screen, GameOver)
        game = _game(app)
        assert game.game_over and game.winners
        title = plain(screen.query(Static).first())
        winner = NAMES[game.winners[0]]
        assert "Game over" in title and (winner in title or "You" in title)
        record = plain(screen.query_one("#record-path", Static))
        assert "/tmp/x.druids" in record
        await pilot.press("q")  # quit from the final table: no confirmation
        await pilot.pause()
        assert app.return_value is not None and app.return_value["result"]["finished"]

    _run(app, body)


def test_help_and_quit_with_confirmation() -> None:
    app = _app(_gaia_seed())

    async def body(pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, GaiaPrompt)  # help and quit work over a prompt too
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        keys = plain(app.screen.query_one("#help-keys", Static))
        for key in ("enter / space", "← →", "1-5", "q / ctrl+q", "tab"):
            assert key in keys
        await pilot.press("escape")
        assert isinstance(app.screen, GaiaPrompt)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuit)
        await pilot.press("escape")
        assert isinstance(app.screen, GaiaPrompt)
        await pilot.press("escape")  # back to the table
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuit)
        await pilot.press("n")
        assert isinstance(app.screen, TableScreen)
        await pilot.press("q", "y")
        await pilot.pause()
        assert app.return_value is not None and app.return_value["record"] == "/tmp/x.druids"

    _run(app, body)


def test_ctrl_c_asks_the_same_question_as_q() -> None:
    """Ctrl-C in the terminal UI is quitting, asked first while a game is on (as ``q``)."""
    app = _app(_gaia_seed())

    async def body(pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, GaiaPrompt)
        await pilot.press("ctrl+c")
        assert isinstance(app.screen, ConfirmQuit)
        await pilot.press("n")
        assert isinstance(app.screen, GaiaPrompt)
        await pilot.press("ctrl+c", "y")
        await pilot.pause()
        assert app.return_value is not None and app.return_value["record"] == "/tmp/x.druids"

    _run(app, body)


def test_mouse_click_plays_a_card() -> None:
    seed, prefix = _must_follow_position()
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        chip = next(c for c in _table(app).query_one(Hand).chips() if c.playable)
        await pilot.click(f"#card-{chip.card}")
        await pilot.pause()
        rnd = _game(app).round
        assert rnd is not None and (0, chip.card) in rnd.plays

    _run(app, body)


def test_peer_states_away_rejoined_and_a_blamed_cheater() -> None:
    app = _app(_gaia_seed())

    async def body(pilot: Pilot[Any]) -> None:
        await pilot.press("escape")
        table = _table(app)

        app.post_message(PeerEvent({"event": "away", "name": "rule-2", "seconds": 12.0}, None))
        await pilot.pause()
        states = {table.snapshot.name(s): str(t) for s, t in table.states().items()}  # type: ignore[union-attr]
        assert states["rule-2"].startswith("away 0:1")
        app.post_message(PeerEvent({"event": "rejoined", "name": "rule-2"}, None))
        await pilot.pause()
        states = {table.snapshot.name(s): str(t) for s, t in table.states().items()}  # type: ignore[union-attr]
        assert states["rule-2"] == "rejoined"
        reason = "rule-1 (seat 1) played an illegal move R3: R3 is not in seat 1's hand"
        app.post_message(PeerEvent({"event": "aborted", "reason": reason, "blame": 1}, None))
        await pilot.pause()
        status = str(table.status_text())
        assert "Table stopped" in status and "blamed: seat 1 (rule-1)" in status
        states = {table.snapshot.name(s): str(t) for s, t in table.states().items()}  # type: ignore[union-attr]
        assert states["rule-1"] == "blamed"
        result = {"event": "result", "finished": False, "aborted": reason, "record": "/r"}
        app.post_message(PeerEvent(result, None))
        await pilot.pause()
        assert isinstance(app.screen, GameOver)
        assert "blamed: seat 1" in plain(app.screen.query_one(".stopped", Static))

    _run(app, body)


def test_a_slow_peer_is_shown_slow_until_it_answers_promptly() -> None:
    """The peer's ``slow`` event (a seat that keeps sending its automatic messages late, within
    the step deadline): the players panel shows it, and the log says why."""
    app = _app(_gaia_seed())

    async def body(pilot: Pilot[Any]) -> None:
        await pilot.press("escape")
        table = _table(app)
        text = "rule-2 is slow: 3 of its last 6 automatic messages came after more than 2.5 s"
        app.post_message(PeerEvent({"event": "slow", "name": "rule-2", "text": text}, None))
        await pilot.pause()
        states = {table.snapshot.name(s): str(t) for s, t in table.states().items()}  # type: ignore[union-attr]
        assert states["rule-2"] == "slow"
        logged = " ".join(str(line.text) for line in table.query_one(TableLog).lines)
        assert "rule-2 is slow: 3 of its last 6" in logged  # (wrapped)
        back = {"event": "not_slow", "name": "rule-2", "text": "rule-2 answers promptly again"}
        app.post_message(PeerEvent(back, None))
        await pilot.pause()
        states = {table.snapshot.name(s): str(t) for s, t in table.states().items()}  # type: ignore[union-attr]
        assert states["rule-2"] != "slow"

    _run(app, body)


def test_card_reason_words() -> None:
    seed, prefix = _must_follow_position()
    game = Game(GameOptions(players=4, rounds=1))
    game.start_round(deal_from_seed(seed, 4))
    for move in prefix:
        game.play(move)
    view = game.view(0)
    rnd = game.round
    assert rnd is not None
    snap = snapshot_from_game(game, 0, NAMES)
    for card in view.hand:
        reason = card_reason(view, rnd, card)
        assert (reason is None) == snap.playable(card)
        if reason is not None:
            assert "seat 0" not in reason and reason.startswith("must follow")
    # Not our turn: every card says whose turn it is.
    other = snapshot_from_game(game, 1, NAMES)
    card = other.view.hand[0]  # type: ignore[union-attr]
    assert other.reason(card) == "not your turn: waiting for alice"


def test_gaia_holder_reason() -> None:
    seed = _gaia_seed()
    game = Game(GameOptions(players=4, rounds=1))
    game.start_round(deal_from_seed(seed, 4))
    snap = snapshot_from_game(game, 0, NAMES)
    assert snap.playable(GAIA)
    assert any(is_gaia_move(m) for m in snap.view.legal)  # type: ignore[union-attr]
    other = next(c for c in snap.view.hand if c != GAIA)  # type: ignore[union-attr]
    assert snap.reason(other) == "you hold Gaia: lead it first, naming a domain"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--bots", "nosuchbot,rule"], "no bot named 'nosuchbot'"),
        (["play", "--players", "7"], "--players must be 3, 4 or 5"),
        (["play", "--bots", "rule"], "you and 2 to 4 bots"),
        (["play", "--rounds", "9"], "--rounds must be 1 to 5"),
        (["play", "--seats", "bot:rule,bot:rule,bot:rule"], "exactly one 'human'"),
        (["play", "--address", "127.0.0.1"], "--interface/--address choose the LAN"),
        (["play", "--lan", "--interface", "nosuchif0"], "nosuchif0"),
        (["play", "--trick-pause", "-1"], "--trick-pause must be 0 to 60 seconds, not -1"),
        (["play", "--move-pause", "99"], "--move-pause must be 0 to 60 seconds, not 99"),
        (["play"], "needs a terminal"),
    ],
)
def test_play_bad_input_is_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from druids_p2p.cli.main import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
def test_screenshots_are_made(tmp_path: Path) -> None:
    tools = str(Path(__file__).resolve().parent.parent / "tools")
    if tools not in sys.path:
        sys.path.append(tools)
    from screenshots import make_screenshots  # tools/screenshots.py: a developer's tool

    made = {p.name: p.read_text() for p in make_screenshots(tmp_path)}
    assert set(made) == {
        "table.svg",
        "trick.svg",
        "lobby.svg",
        "lobby-2004.svg",
        "gaia.svg",
        "round-summary.svg",
        "table-2004.svg",
        "ritual-2004.svg",
        "table2004-lan.svg",
        "legend-2004.svg",
        "board-2016.svg",
        "tile-2016.svg",
        "end-2016.svg",
    }
    words = {
        "table.svg": ["Your&#160;hand", "must&#160;follow", "four&#160;domains"],
        "trick.svg": ["taken&#160;by", "takes&#160;it"],
        "lobby.svg": ["friday&#160;night", "Host&#160;a&#160;new&#160;table"],
        "lobby-2004.svg": [
            "gems&#160;at&#160;noon",
            "lobby&#160;for&#160;druids2004",
            "druids2017",
        ],
        "gaia.svg": ["name&#160;a&#160;domain"],
        "round-summary.svg": ["is&#160;over"],
        "table-2004.svg": ["Mystic&#160;places", "Score&#160;column", "♟"],
        "ritual-2004.svg": ["Ritual&#160;on&#160;place", "amulets"],
        "table2004-lan.svg": ["local&#160;table", "your&#160;hand:", "draws&#160;from", "♟"],
        "legend-2004.svg": ["♟"],
    }
    for name, expected in words.items():
        for word in expected:
            assert word in made[name], (name, word)
