"""A person at a Druids (2004) table of peers in the terminal UI (issue 18), by key presses.

This process is the person's peer (``run_peer`` on a thread, its seat a copy of the game at the
mental card table) and each bot a ``druids peer`` process on loopback, as ``druids play --game
druids2004`` seats them. The keys are the offline table's (``board.py``); what they choose goes
to the table's one accept path, and what the screen shows comes from the seat copy's view.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from board_keys import press_keys
from cli_harness import audit_record
from peer_table2004_keys import my_turn, play_by_keys, run_app, table_screen, until
from textual.pilot import Pilot

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import format_card, is_gem
from druids_p2p.games.druids2004.view import HIDDEN
from druids_p2p.tui.app import DruidsApp
from druids_p2p.tui.bots import bot_seats
from druids_p2p.tui.druids2004.lan_table import TABLE_UI, LanTable2004Screen
from druids_p2p.tui.game_ui import NO_PACING
from druids_p2p.tui.player import NetSession, local_table
from druids_p2p.tui.widgets import TableLog
from druids_p2p.wire import MsgType, decode, load_or_create
from druids_p2p.wire.record import read_record

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SIZE = (112, 40)


def _app(tmp_path: Path, bots: list[str], sessions: list[NetSession]) -> DruidsApp:
    identity = load_or_create().with_name("tester")
    seats = bot_seats(bots)

    def make(post: Callable[[Any], object]) -> NetSession:
        spec = local_table(seats, budget_ms=20.0, game="druids2004")
        session = NetSession(post, identity, tmp_path / "game", spec, TABLE_UI.snapshots)
        sessions.append(session)
        return session

    return DruidsApp(
        table_ui=TABLE_UI,
        make_session=make,
        expected=tuple(s.name for s in seats),
        pacing=NO_PACING,
    )


def _run(
    app: DruidsApp, sessions: list[NetSession], body: Callable[[Pilot[Any]], Awaitable[None]]
) -> None:
    run_app(app, SIZE, body, sessions)


def _log(table: LanTable2004Screen) -> str:
    return "\n".join(str(line.text) for line in table.query_one(TableLog).lines)


def _own_messages(record: str, me: bytes) -> list[Any]:
    return [m for m in map(decode, read_record(Path(record)).messages) if m.sender == me]


def test_a_persons_play_and_draw_reach_the_table_of_peers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person's card, chosen by keys, lands face up (to them) on the place they chose; the
    draw they choose brings a card into their hand, which only the bot peer's share can open;
    both are this seat's signed messages in its record; the bot sees only backs."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    sessions: list[NetSession] = []
    app = _app(tmp_path, ["rule"], sessions)

    async def body(pilot: Pilot[Any]) -> None:
        table = table_screen(app)
        await until(pilot, lambda: my_turn(table), "the person's first turn")
        view = table.shown
        assert view is not None and view.seat == table.snapshot.my_seat  # type: ignore[union-attr]
        assert len(view.hand) == 7 and HIDDEN not in view.hand
        assert "your hand: " in _log(table)
        play = next(m for m in view.legal if mv.decode(m).kind == mv.KIND_PLAY)
        card, slot = mv.decode(play).card, mv.decode(play).slot
        await press_keys(pilot, table, play)
        await until(pilot, lambda: my_turn(table) or table.stopped is not None, "the play")
        after = table.shown
        assert after is not None and table.stopped is None
        assert card not in after.hand
        place = after.row[slot]
        assert place is not None and card in [c for _, c in (*place.gems, *place.servants)]
        assert f"you play {format_card(card)} onto place {slot + 1}" in _log(table)
        for _ in range(after.plays_left):  # the turn's other card, then the draw
            other = next(m for m in after.legal if mv.decode(m).kind == mv.KIND_PLAY)
            await press_keys(pilot, table, other)
            await until(pilot, lambda: my_turn(table), "the second play")
            after = table.shown
            assert after is not None
        draw = mv.DRAW_GEM if mv.DRAW_GEM in after.legal else mv.DRAW_SERVANT
        hand = after.hand
        await press_keys(pilot, table, draw)
        await until(pilot, lambda: my_turn(table), "the drawn card (the turn goes on)")
        drawn = table.shown
        assert drawn is not None and len(drawn.hand) == len(hand) + 1
        new = next(c for c in drawn.hand if c not in hand)
        assert is_gem(new) == (draw == mv.DRAW_GEM) and new != HIDDEN
        where = "the gem pile" if draw == mv.DRAW_GEM else "your reserve"
        assert f"you draw {format_card(new)} from {where}" in _log(table)
        record = table.record
        assert record is not None
        me = sessions[0].identity.public_key
        mine = _own_messages(record, me)
        assert any(m.type is MsgType.TABLE_PLAY for m in mine)
        draws = [m for m in mine if m.type is MsgType.MOVE and m.body["move"].startswith("Draw:")]
        assert draws and draws[0].body["move"] == mv.format_move(draw)
        await pilot.press("q")
        await pilot.pause()

    _run(app, sessions, body)


def test_a_whole_2004_game_by_keys_at_a_table_of_bot_peer_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every turn of the person chosen by the rule policy and played by its keys; every ritual
    read step by step; the game ends at every peer with the same result, shown at the end."""
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    sessions: list[NetSession] = []
    app = _app(tmp_path, ["rule", "random"], sessions)
    rng = random.Random(5)
    rituals = 0

    async def body(pilot: Pilot[Any]) -> None:
        nonlocal rituals
        table = table_screen(app)
        rituals = await play_by_keys(pilot, app, 3, rng)
        result = table.result
        assert result is not None and result["finished"]
        view = table.shown
        assert view is not None and view.game_over
        assert list(view.scores) == list(result["totals"])
        await pilot.press("enter")  # leaves the table
        await pilot.pause()

    _run(app, sessions, body)
    assert rituals > 0
    bots = [peer.result() for peer in sessions[0].bots.peers]
    outcome = app.return_value
    assert outcome is not None and outcome["result"]["finished"]
    for bot in bots:
        assert bot is not None and bot["finished"]
        assert bot["totals"] == outcome["result"]["totals"]
        assert bot["winners"] == outcome["result"]["winners"]
    first = bots[0]
    assert first is not None
    code, report = audit_record(str(first["record"]))  # the person's moves audit as any seat's
    assert code == 0 and report["verdict"] == "complete", report
    assert report["totals"] == outcome["result"]["totals"]
