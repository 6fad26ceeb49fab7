"""``druids replay`` of Druids (2004) (issue 28): a card table's record is read move by move (text
without a terminal, ``--json``, and the terminal UI's viewer), each saying which game it holds,
and the offline table's record in the notation replays without ``--game``. The records are
written by real TableMachines (tests/table_harness.py) playing whole games in this process."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from table_harness import LocalTable
from textual.pilot import Pilot
from textual.widgets import RichLog, Static

from druids_p2p.audit.replay import read_game
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.games.druids2004.cards import format_card
from druids_p2p.games.seam import PLAY
from druids_p2p.table.codec import moves_of, signed_token
from druids_p2p.tui.druids2004.places import HandLine, ScoreColumn
from druids_p2p.tui.druids2004.replay import Replay2004App, Replay2004Screen
from druids_p2p.tui.game_ui import game_ui
from druids_p2p.wire import MsgType, decode, read_record
from druids_p2p.wire.record import RecordWriter

SIZE = (130, 50)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[LocalTable, Path]:
    folder = tmp_path_factory.mktemp("records2004")
    t = LocalTable(players=3, seed=2, ruleset="druids2004", records=folder)
    t.run()
    for machine in t.machines:
        machine.transcript.close()
    assert all(m.finished for m in t.machines)
    return t, folder


def _druids(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "druids_p2p", *argv],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        env=dict(os.environ), check=False,
    )  # fmt: skip


def test_json_says_druids2004_and_holds_every_move_and_the_outcome(
    table: tuple[LocalTable, Path],
) -> None:
    t, folder = table
    machine = t.machines[1]
    proc = _druids("replay", str(folder / "p1.druids"), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["game"] == "druids2004" and out["kind"] == "record"
    assert out["audit"]["ok"] and out["audit"]["verdict"] == "complete"
    assert [p["name"] for p in out["players"]] == [machine.name_of_seat(s) for s in range(3)]
    played = list(moves_of(machine.card_play.copy, 0))
    assert [(m["seat"], m["move"]) for m in out["moves"]] == [
        (a.seat, signed_token(a)) for a in played
    ]
    plays = [m for m in out["moves"] if m["move"].startswith("play ")]
    assert plays and all(m["card"] for m in plays)  # every secret known: each card is named
    assert all(m["card"] is None for m in out["moves"] if not m["move"].startswith("play "))
    totals, winners = machine.outcome()
    assert out["outcome"] == {
        "complete": True, "totals": totals, "winners": winners,
        "ended_by": machine.card_play.copy.ended_by,
    }  # fmt: skip
    assert out["notation"] is None and out["rounds"] == []


def test_text_without_a_terminal_lists_every_move_and_the_end(
    table: tuple[LocalTable, Path],
) -> None:
    t, folder = table
    machine = t.machines[0]
    proc = _druids("replay", str(folder / "p0.druids"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "a druids2004 record, 3 players" in lines[0]
    assert lines[1] == "audit: complete"
    moves = list(moves_of(machine.card_play.copy, 0))
    listed = lines[2 : 2 + len(moves)]
    for k, (line, accepted) in enumerate(zip(listed, moves, strict=True), start=1):
        assert line.split()[0] == f"{k}." and machine.name_of_seat(accepted.seat) in line
        assert signed_token(accepted) in line
    totals, winners = machine.outcome()
    won = ", ".join(machine.name_of_seat(w) for w in winners or [])
    assert lines[-1].startswith("game over (") and lines[-1].endswith(
        f"totals {totals}, won by {won}"
    )


def test_a_2017_record_says_druids2017_in_text_and_json(tmp_path: Path) -> None:
    t = LocalTable(players=3, rounds=1, seed=3, records=tmp_path)
    t.run()
    for machine in t.machines:
        machine.transcript.close()
    proc = _druids("replay", str(tmp_path / "p0.druids"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "a druids2017 record, 3 players" in lines[0] and lines[2] == "round 1: dealt"
    assert lines[-1].startswith("game over: totals ")
    out = json.loads(_druids("replay", str(tmp_path / "p0.druids"), "--json").stdout)
    assert out["game"] == "druids2017" and "moves" not in out


def test_a_record_cut_before_its_final_reveal_lists_its_moves_and_no_card(
    table: tuple[LocalTable, Path], tmp_path: Path
) -> None:
    _, folder = table
    raws = read_record(folder / "p2.druids").messages
    kinds = (MsgType.MOVE, MsgType.TABLE_PLAY)  # a face-down play is a table_play
    moves = [i for i, raw in enumerate(raws) if decode(raw).type in kinds]
    cut = tmp_path / "cut.druids"
    writer = RecordWriter.create(cut)
    for raw in raws[: moves[20] + 1]:
        writer.append(raw)
    writer.close()
    game = read_game(cut)
    assert game.ruleset == "druids2004" and not game.audit.complete
    assert game.card_table is not None and len(game.card_table.plays) == 21
    assert game.card_table.views == ()  # no secrets: no view may be guessed
    assert all(p.card is None for p in game.card_table.plays)
    proc = _druids("replay", str(cut))
    assert proc.returncode == 0, proc.stderr
    assert "a druids2004 record" in proc.stdout and "game over" not in proc.stdout


def test_the_offline_tables_notation_replays_without_naming_the_game(tmp_path: Path) -> None:
    """The offline 2004 table writes its game in the notation (``record-2004.json``), whose
    ``"game"`` key says which game it is: ``druids replay FILE`` needs no ``--game``."""
    result = play_local_game(["rule", "random"], seed=5, game="druids2004")
    path = tmp_path / "record-2004.json"
    path.write_text(json.dumps(result.record()))
    proc = _druids("replay", str(path))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] and out["finished"] and out["scores"] == result.totals
    refused = _druids("replay", str(path), "--game", "druids2017")  # named, it is read as such
    assert refused.returncode == 2 and "unknown key(s) in the record" in refused.stderr


# ------------------------------------------------------------------ the viewer (Pilot)
def _run(app: Replay2004App, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(200):
                if isinstance(app.screen, Replay2004Screen):
                    break
                await pilot.pause(0.05)
            await pilot.pause()
            await body(pilot)

    asyncio.run(main())


def _caption(app: Replay2004App) -> str:
    return str(app.screen.query_one("#step", Static).render())


def _text(app: Replay2004App, widget: type[Static]) -> str:
    """A widget's content as plain text (a table of the score column included)."""
    console = Console(width=SIZE[0], record=True, file=io.StringIO())
    console.print(app.screen.query_one(widget).content)
    return console.export_text()


def _log(app: Replay2004App) -> str:
    return "\n".join(line.text for line in app.screen.query_one("#log", RichLog).lines)


def test_the_viewer_steps_move_by_move_as_the_owner_saw_it(
    table: tuple[LocalTable, Path],
) -> None:
    t, folder = table
    owner = t.machines[0]
    seat = owner.my_seat
    assert seat is not None
    game = read_game(folder / "p0.druids", owner=t.ids[0].public_key)
    assert game.owner == seat
    assert game_ui("druids2004").replay is Replay2004App  # what ``druids replay`` opens
    moves = list(moves_of(owner.card_play.copy, 0))
    name = owner.name_of_seat
    app = Replay2004App(game)

    async def body(pilot: Pilot[Any]) -> None:
        assert "Druids (2004)" in str(app.screen.query_one("#title", Static).render())
        assert "[0/" in _caption(app) and "before the first move" in _caption(app)
        await pilot.press("right")
        await pilot.pause()
        first = moves[0]
        who = "you" if first.seat == seat else name(first.seat)
        assert f"Move 1: {who} " in _caption(app) and "slot" not in _caption(app)
        assert f"1. {who} " in _log(app)
        await pilot.press("pagedown")  # the next turn: another seat's first move
        await pilot.pause()
        turn = next(k for k, m in enumerate(moves) if m.seat != first.seat)
        them = "you" if moves[turn].seat == seat else name(moves[turn].seat)
        assert f"Move {turn + 1}: {them} " in _caption(app)
        await pilot.press("pageup")  # back to the start of the first turn
        await pilot.pause()
        assert "Move 1:" in _caption(app)
        # The owner's own face-down plays name their card; the others' do not. Places are
        # numbered 1-6, as on every screen (the record's slots are 0-5).
        mine = next(k for k, m in enumerate(moves) if m.seat == seat and m.kind == PLAY)
        await pilot.press("home")
        for _ in range(mine + 1):
            await pilot.press("right")
        await pilot.pause()
        assert game.card_table is not None
        card = game.card_table.plays[mine].card  # the record's final reveal names it
        assert card is not None
        token = signed_token(moves[mine])
        if token.startswith("play slot:"):
            place = int(token.rpartition(":")[2]) + 1
            played = f"you play {format_card(card)} onto place {place}"
        else:
            played = f"you discard {format_card(card)} face down"
        assert f"Move {mine + 1}: {played}" in _caption(app), _caption(app)
        theirs = next(
            k for k, m in enumerate(moves) if m.seat != seat and m.zone.startswith("slot:")
        )
        await pilot.press("home")
        for _ in range(theirs + 1):
            await pilot.press("right")
        await pilot.pause()
        place = int(moves[theirs].zone.rpartition(":")[2]) + 1
        assert re.search(
            rf"Move {theirs + 1}: {re.escape(name(moves[theirs].seat))} plays a (gem|servant) "
            rf"onto place {place}\b",
            _caption(app),
        ), _caption(app)
        await pilot.press("end")
        await pilot.pause()
        totals, _ = owner.outcome()
        assert "game over" in _caption(app) and f"totals {totals}" in _caption(app)
        # The last step shows the owner's hand and scores as the live table ended them.
        final = owner.card_play.copy.view(seat)
        hand = _text(app, HandLine)
        assert all(format_card(c) in hand for c in final.hand)
        rows = _text(app, ScoreColumn).splitlines()
        for s, score in enumerate(final.scores):
            label = "you" if s == seat else name(s)
            row = next(r for r in rows if f" {label} " in f" {r} ")
            assert row.split(label, 1)[1].split()[0] == str(score), row
        await pilot.press("right")  # nothing after the last step
        await pilot.pause()
        assert "game over" in _caption(app)
        await pilot.press("q")

    _run(app, body)
