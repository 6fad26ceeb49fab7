"""The table screen as a person meets it in a first game (issue 14): leaving mid-game, fast
typing, tricks that stay readable, who is who, warnings, small terminals, the end of a game.

Driven headless (Textual's Pilot) over
:class:`~offline2017.OfflineSession` on exact positions; the pacing of the
table runs on a fake clock moved by hand.
"""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from offline2017 import (
    OfflineSession,
    find_position,
    must_follow,
    random_policy,
)
from rich.console import Console
from rich.text import Text
from textual import events
from textual.pilot import Pilot
from textual.widgets import RichLog, Static
from textual.widgets._footer import FooterKey

from druids_p2p.cli.play_ui import print_outcome
from druids_p2p.games.druids2017 import Game, GameOptions, deal_from_seed
from druids_p2p.games.druids2017.cards import (
    PLAY_SICKLE,
    card_domain,
)
from druids_p2p.games.druids2017.notation import format_move
from druids_p2p.games.druids2017.rules import ENDED_FIVE_DOMAINS
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.dialogs import ConfirmQuit, HelpScreen
from druids_p2p.tui.druids2017.cards import CardChip, Hand, missing_domain
from druids_p2p.tui.druids2017.dialogs import GaiaPrompt, GameOver, PilePrompt, RoundSummary
from druids_p2p.tui.druids2017.panels import TrickHistory, TrickPanel, players_table
from druids_p2p.tui.druids2017.table import TABLE_UI, TableScreen
from druids_p2p.tui.game_ui import NO_PACING, Pacing
from druids_p2p.tui.widgets import seat_colour

NAMES = ("alice", "rule-1", "rule-2", "rule-3")
SIZE = (120, 40)
LONG_RECORD = (
    "/home/alice/.local/share/druids-p2p/games/20250101-120000-4242/me/tables/"
    "3f9c0a1b2c3d4e5f60718293/transcript.druids"
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _app(
    seed: int = 0,
    prefix: Sequence[int] = (),
    rounds: int = 1,
    pacing: Pacing = NO_PACING,
    clock: FakeClock | None = None,
    record: str = "/tmp/x.druids",
) -> DruidsApp:
    options = GameOptions(players=4, rounds=rounds)

    def make(post: Callable[[Any], object]) -> OfflineSession:
        return OfflineSession(post, NAMES, options=options, seed=seed, prefix=prefix, record=record)

    return DruidsApp(
        table_ui=TABLE_UI, make_session=make, pacing=pacing, clock=clock or FakeClock()
    )


def _run(
    app: DruidsApp, body: Callable[[Pilot[Any]], Awaitable[None]], size: tuple[int, int] = SIZE
) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
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


def plain(content: object, width: int = 160) -> str:
    if isinstance(content, Static):
        content = content.content
    if isinstance(content, str):
        return content
    if isinstance(content, Text):
        return content.plain
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


async def _press_batch(app: DruidsApp, *keys: str) -> None:
    """Send the keys as one burst (a fast typist, a laggy SSH link): no pause between them."""
    driver = app._driver
    assert driver is not None
    for key in keys:
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        driver.send_message(event)


def _leading(game: Game) -> bool:
    """Seat 0 leads a trick (not Gaia) holding playable cards of two domains at least."""
    rnd = game.round
    if rnd is None or rnd.to_move != 0 or rnd.trick or rnd.pending_sickles or not rnd.tricks:
        return False
    return len({card_domain(c) for c in rnd.hand(0)} - {-1}) >= 2


def _last_to_play(game: Game) -> bool:
    """Seat 0 plays the last card of a trick."""
    rnd = game.round
    return rnd is not None and rnd.to_move == 0 and len(rnd.trick) == 3 and not rnd.pending_sickles


# ---------------------------------------------------------------------- item 1
def test_leaving_mid_game_ends_cleanly_without_a_traceback() -> None:
    """The peer reports the person's leaving (aborted, result, ended) after the UI was told to
    exit: showing a game-over screen then raised NoMatches('#leave') from GameOver.on_mount."""
    seed, prefix = find_position(must_follow(0))
    app = _app(seed, prefix, record=LONG_RECORD)

    async def body(pilot: Pilot[Any]) -> None:
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuit)
        path = app.screen.query_one("#quit-record", Static)  # whole, on one line
        assert plain(path) == LONG_RECORD and path.size.height == 1
        await pilot.press("y")
        await pilot.pause()

    _run(app, body)  # run_test re-raises an exception from any handler
    assert app.return_value is not None and app.return_value["record"] == LONG_RECORD


# ---------------------------------------------------------------------- item 2
def test_domain_jump_then_enter_in_one_burst_plays_the_jumped_to_card() -> None:
    seed, prefix = find_position(_leading)
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        hand = _table(app).query_one(Hand)
        focused = app.focused
        assert isinstance(focused, CardChip)
        other = next(
            c
            for c in hand.chips()
            if c.playable and card_domain(c.card) not in (-1, card_domain(focused.card))
        )
        row = [c for c in hand.chips() if card_domain(c.card) == card_domain(other.card)]
        wanted = next(c for c in row if c.playable).card
        await _press_batch(app, "gyrbv"[card_domain(wanted)], "enter")
        await pilot.pause()
        await pilot.pause()
        rnd = _game(app).round
        assert rnd is not None
        mine = [m for s, m in rnd.plays if s == 0]
        assert mine[-1] == wanted, (format_move(mine[-1]), format_move(wanted))

    _run(app, body)


def test_the_footer_is_built_again_only_when_its_keys_change() -> None:
    """Moving between the cards of the hand changes no key the footer offers: its keys stay the
    same widgets (Textual's Footer built them all again, restyling each, on every focus move),
    and they are still the keys the screen offers."""
    seed, prefix = find_position(_leading)
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        before = list(app.screen.query(FooterKey))
        assert before
        for key in ("right", "right", "down", "left"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.focused, CardChip)
        after = list(app.screen.query(FooterKey))
        assert [id(k) for k in after] == [id(k) for k in before]
        active = app.screen.active_bindings
        offered = {b.description for _, b, _, _ in active.values() if b.show}
        offered.add(active[app.COMMAND_PALETTE_BINDING][1].description)  # shown at the right
        assert {k.description for k in after} == offered
        assert "play" in offered

    _run(app, body)


def test_the_hands_turn_border_is_what_a_full_restyle_would_give() -> None:
    """The hand restyles itself alone when the turn changes (its ``my-turn`` class): every
    node under it must look as if all were restyled, on the turn and off it — a rule under
    ``Hand.my-turn`` (a chip's look on the turn) would need them all restyled."""
    seed, prefix = find_position(must_follow(0))  # some cards dimmed on the turn
    app = _app(seed, prefix)

    def looks(hand: Hand) -> list[object]:
        nodes = hand.walk_children(with_self=True)
        return [(n, n.styles.border, n.styles.background) for n in nodes]

    async def body(pilot: Pilot[Any]) -> None:
        hand = _table(app).query_one(Hand)
        seen: set[bool] = set()
        for _ in range(12):
            shown = looks(hand)
            app.stylesheet.update_nodes(hand.walk_children(with_self=True))
            assert looks(hand) == shown
            seen.add(hand.has_class("my-turn"))
            if seen == {True, False}:
                break
            await pilot.press("enter")
            await pilot.pause()
        assert seen == {True, False}

    _run(app, body)


# ---------------------------------------------------------------------- item 3, pacing
def test_moves_are_paced_and_a_completed_trick_stays_until_its_time_or_a_key() -> None:
    seed, prefix = find_position(_last_to_play)
    clock = FakeClock()
    app = _app(seed, prefix, pacing=Pacing(move_s=1.0, trick_s=5.0), clock=clock)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        log = table.query_one("#log", RichLog)

        def moves_shown() -> int:
            return sum(" play" in line.text for line in log.lines)

        assert table.pacer.queue  # the opening moves wait their turn to be shown
        steps = 0
        for _ in range(60):  # the moves before ours, one shown per second of the clock
            await pilot.pause()
            if table.snapshot is not None and table.snapshot.my_turn:
                break
            before = moves_shown()
            clock.now += 1.0
            await table.drain()
            assert moves_shown() - before <= 1
            steps += 1
        assert table.snapshot is not None and table.snapshot.my_turn
        assert steps >= len(prefix) - 1
        game = _game(app)
        tricks_before = len(game.round.tricks)  # type: ignore[union-attr]
        await pilot.press("enter")  # our card ends the trick; bots play on at once
        await pilot.pause()
        assert len(game.round.tricks) == tricks_before + 1  # type: ignore[union-attr]
        trick = game.round.tricks[tricks_before]  # type: ignore[union-attr]
        shown = plain(table.query_one(TrickPanel))
        assert table.pacer.holding and "taken by" in shown
        taker = "you" if trick.winner == 0 else NAMES[trick.winner]
        assert f"taken by {taker}" in shown
        for seat, move in trick.plays:
            name = "you" if seat == 0 else NAMES[seat]
            assert name in shown and format_move(move).split(":")[0] in shown
        logged = table.query_one("#log", RichLog).lines[-1].text
        assert "takes the trick" in logged or "take the trick" in logged
        clock.now += 4.0  # not yet: the trick stays
        await table.drain()
        await pilot.pause()
        assert "taken by" in plain(table.query_one(TrickPanel))
        await pilot.press("x")  # a key ends the hold
        await pilot.pause()
        assert not table.pacer.key_ends_hold
        assert "taken by" not in plain(table.query_one(TrickPanel)).split("Last trick")[0]

    _run(app, body)


def test_trick_history_lists_every_trick_of_the_round_with_names() -> None:
    seed, prefix = find_position(must_follow(0, min_tricks=4))
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        await pilot.press("t")
        screen = app.screen
        assert isinstance(screen, TrickHistory)
        text = plain(screen.query_one("#trick-list", Static))
        rnd = _game(app).round
        assert rnd is not None and len(rnd.tricks) >= 4
        lines = [line for line in text.splitlines() if line.strip()[:1].isdigit()]
        assert len(lines) == len(rnd.tricks)
        for line, trick in zip(lines, rnd.tricks, strict=True):
            taker = "you" if trick.winner == 0 else NAMES[trick.winner]
            assert taker in line
            for seat, move in trick.plays:
                assert ("you" if seat == 0 else NAMES[seat]) in line
                assert format_move(move).split(":")[0] in line
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)

    _run(app, body)


# ---------------------------------------------------------------------- item 4
@pytest.mark.slow
def test_the_log_always_shows_its_newest_line() -> None:
    seed, prefix = find_position(must_follow(0, min_tricks=1))
    app = _app(seed, prefix, record=LONG_RECORD)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        log = table.query_one("#log", RichLog)
        checked = 0
        for _ in range(200):
            await pilot.pause()
            screen = app.screen
            if isinstance(screen, RoundSummary | GameOver):
                break
            if isinstance(screen, GaiaPrompt | PilePrompt):
                await pilot.press("1")
                continue
            snap = table.snapshot
            if snap is None or not snap.my_turn or table.awaiting:
                continue
            rnd = _game(app).round
            assert rnd is not None
            _, move = rnd.plays[-1]
            last = log.lines[-1].text
            assert format_move(move).split(":")[0] in last, (last, format_move(move))
            assert log.scroll_y == log.max_scroll_y, (log.scroll_y, log.max_scroll_y)
            checked += 1
            await pilot.press("enter")
        assert checked >= 3

    _run(app, body)


# ---------------------------------------------------------------------- item 5, names
def test_each_seat_has_its_colour_and_you_are_you() -> None:
    seed, prefix = find_position(must_follow(0, min_tricks=1))
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        snap = table.snapshot
        assert snap is not None
        grid = players_table(snap, {})
        cells = list(grid.columns[1].cells)
        assert len(cells) == 4
        for seat, cell in enumerate(cells):
            assert isinstance(cell, Text)
            assert seat_colour(seat) in str(cell.style)
        assert len({seat_colour(s) for s in range(5)}) == 5
        log = [line.text for line in table.query_one("#log", RichLog).lines]
        assert any(line[9:].startswith("you play") for line in log)
        assert not any("alice play" in line for line in log)

    _run(app, body)


# ---------------------------------------------------------------------- item 6
def test_the_gaia_prompt_leaves_the_hand_in_view() -> None:
    seed, prefix = find_position(
        lambda g: g.round is not None and not g.round.plays and g.round.to_move == 0
    )
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, GaiaPrompt)
        dialog = app.screen.query_one("#gaia-box")
        hand = _table(app).query_one(Hand)
        assert not dialog.region.overlaps(hand.region), (dialog.region, hand.region)
        assert not dialog.region.overlaps(_table(app).query_one("#status").region)

    _run(app, body)


# ---------------------------------------------------------------------- item 7
def _five_domain_game() -> tuple[int, list[int], int]:
    """(seed, every move of a round that ends by five domains, the seat that took them)."""
    for seed in range(3000):
        rng = random.Random(seed)
        game = Game(GameOptions(players=4, rounds=1))
        rnd = game.start_round(deal_from_seed(seed, 4))
        moves: list[int] = []
        while not rnd.over:
            move = random_policy(game, rng)
            moves.append(move)
            game.play(move)
        if rnd.ended_by == ENDED_FIVE_DOMAINS:
            return seed, moves, rnd.tricks[-1].winner
    raise AssertionError("no five-domain end in 3000 random rounds")


def test_after_a_five_domain_end_the_players_panel_shows_minus_three() -> None:
    seed, moves, seat = _five_domain_game()
    app = _app(seed, moves)

    async def body(pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, RoundSummary)
        table = _table(app)
        grid = players_table(table.snapshot, {})
        points = [plain(c) for c in grid.columns[-2].cells]
        assert points[seat] == "−3", points

    _run(app, body)


# ---------------------------------------------------------------------- item 8
@pytest.mark.slow
def test_game_over_says_you_keeps_the_record_path_whole_and_no_play_key() -> None:
    app = _app(3, record=LONG_RECORD)

    async def body(pilot: Pilot[Any]) -> None:
        for _ in range(400):
            await pilot.pause()
            screen = app.screen
            if isinstance(screen, GameOver):
                break
            if isinstance(screen, GaiaPrompt | PilePrompt):
                await pilot.press("1")
            elif isinstance(screen, RoundSummary) or (
                isinstance(screen, TableScreen) and screen.snapshot and screen.snapshot.my_turn
            ):
                await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, GameOver)
        path = screen.query_one("#record-path", Static)
        assert plain(path) == LONG_RECORD and path.size.height == 1
        assert path.size.width >= len(LONG_RECORD)
        table = _table(app)
        game = _game(app)
        assert game.winners is not None
        lines = [line.text for line in table.query_one("#log", RichLog).lines]
        over = next(line for line in lines if "game over" in line)
        if 0 in game.winners:
            assert "you" in over.split("won by")[1]
        assert "alice" not in over
        await pilot.press("escape")  # look at the table: the footer offers no play any more
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        footer_keys = {
            b.binding.description for b in app.screen.active_bindings.values() if b.binding.show
        }
        assert "play" not in footer_keys

    _run(app, body)


def test_a_small_terminal_says_how_large_the_table_must_be() -> None:
    seed, prefix = find_position(must_follow(0))
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        banner = table.query_one("#too-small", Static)
        assert banner.display
        text = plain(banner)
        assert "80×24" in text and f"{TableScreen.MIN_WIDTH}×{TableScreen.MIN_HEIGHT}" in text
        await pilot.resize_terminal(*SIZE)
        for _ in range(100):  # the resize reaches the screen a few messages later
            await pilot.pause()
            if not banner.display:
                break
        assert not banner.display

    _run(app, body, size=(80, 24))


def test_help_has_a_rules_reminder() -> None:
    app = _app(*find_position(must_follow(0)))

    async def body(pilot: Pilot[Any]) -> None:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        rules = plain(app.screen.query_one("#help-rules", Static))
        for words in ("must follow", "Mistletoe", "Sickle", "five domains", "−3", "Gaia"):
            assert words in rules, words

    _run(app, body)


def test_four_domains_warning_is_shown_at_the_table() -> None:
    seed, prefix = find_position(
        lambda g: (
            g.round is not None
            and g.round.to_move == 0
            and not g.round.pending_sickles
            and missing_domain(g.view(0), 0) is not None
        ),
        policy=random_policy,
    )
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        table = _table(app)
        text = plain(table.query_one("#warnings", Static))
        assert "You hold four domains" in text and "−3" in text

    _run(app, body)


def test_sickle_warning_is_shown_at_the_table() -> None:
    def wanted(g: Game) -> bool:
        rnd = g.round
        if rnd is None or rnd.to_move != 0 or rnd.pending_sickles:
            return False
        view = g.view(0)
        has_pile = any(t is not None for t in view.pile_tops[0])
        return has_pile and any(m == PLAY_SICKLE for _, m in rnd.trick)

    seed, prefix = find_position(wanted, policy=random_policy)
    app = _app(seed, prefix)

    async def body(pilot: Pilot[Any]) -> None:
        text = plain(_table(app).query_one("#warnings", Static))
        assert "Sickle is in this trick" in text

    _run(app, body)


def test_the_next_round_waits_behind_the_round_summary() -> None:
    seed, moves, _ = _five_domain_game()
    app = _app(seed, moves, rounds=2)

    async def body(pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, RoundSummary)
        table = _table(app)
        assert _game(app).round_index == 1  # the table dealt round 2 already
        snap = table.snapshot
        assert snap is not None and snap.view is not None and snap.view.round_index == 0
        assert not snap.my_turn and "Round 2" not in str(table.status_text())
        await pilot.press("enter")
        await pilot.pause()
        snap = table.snapshot
        assert snap is not None and snap.view is not None and snap.view.round_index == 1

    _run(app, body)


def test_the_last_line_printed_names_the_winner(capsys: pytest.CaptureFixture[str]) -> None:
    result = {"finished": True, "totals": [47, 30, 12, 9], "winners": [0]}
    outcome = {"result": result, "record": "/r", "names": list(NAMES), "my_seat": 0}
    print_outcome(outcome, Path("/g"), as_json=False)
    out = capsys.readouterr().out
    assert "game over: you (alice) won — totals: alice 47, rule-1 30, rule-2 12, rule-3 9" in out
    assert "[0]" not in out and "winners" not in out
    result = {"finished": True, "totals": [20, 30, 30, 9], "winners": [1, 2]}
    print_outcome({**outcome, "result": result}, Path("/g"), as_json=False)
    assert "rule-1 and rule-2 share the win" in capsys.readouterr().out
