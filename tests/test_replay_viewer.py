"""``druids replay RECORD``: a peer's game record replayed (headless ``--json``) and stepped through
trick by trick in the terminal UI (Textual Pilot), forward and back, as the record's owner saw it,
with every hand shown after each round's reveal. The records are written by real TableMachines
(tests/table_harness.py) playing whole games in this process."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from table_harness import LocalTable, game_of
from textual.pilot import Pilot
from textual.widgets import RichLog, Static

from druids_p2p.audit.replay import read_game
from druids_p2p.games.druids2017.notation import format_card, format_move
from druids_p2p.games.druids2017.ruleset import replay
from druids_p2p.tui.druids2017.cards import CardChip
from druids_p2p.tui.druids2017.panels import TrickPanel
from druids_p2p.tui.druids2017.replay import ReplayApp, ReplayScreen
from druids_p2p.wire import MsgType, decode, read_record
from druids_p2p.wire.record import RecordWriter

SIZE = (130, 50)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[LocalTable, Path]:
    folder = tmp_path_factory.mktemp("records")
    t = LocalTable(players=3, rounds=2, seed=3, records=folder)
    t.run()
    for machine in t.machines:
        machine.transcript.close()
    assert all(m.finished for m in t.machines)
    return t, folder


def _druids(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "druids_p2p", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
        check=False,
    )


def test_json_prints_the_replayed_game(table: tuple[LocalTable, Path]) -> None:
    t, folder = table
    machine = t.machines[1]
    proc = _druids("replay", str(folder / "p1.druids"), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["kind"] == "record" and out["audit"]["ok"]
    names = [machine.name_of_seat(s) for s in range(3)]
    assert [p["name"] for p in out["players"]] == names
    rounds = out["rounds"]
    assert [r["revealed"] for r in rounds] == [True, True]
    # The moves are the table's own, in order (the owners' words are no moves of the game) ...
    game = game_of(machine)
    played = [(s, format_move(m)) for rnd in game.rounds for s, m in rnd.plays]
    assert [(m["seat"], m["move"]) for r in rounds for m in r["moves"]] == played
    # ... the hands those each machine was dealt at the last round's card table.
    for other in t.machines:
        seat, peer = other.my_seat, other.card_play.peer
        assert seat is not None and peer.state.round_no == 1
        known = peer.known()
        dealt = [known[p] for p, pos in enumerate(peer.state.positions) if pos.owner == seat]
        assert rounds[1]["hands"][seat] == [format_card(c) for c in dealt]
    # The notation it prints replays to the same totals the table reached.
    code, result = replay(json.dumps(out["notation"]))
    assert code == 0 and result["totals"] == game.totals == machine.outcome()[0]
    # A seat's view of the game (no identity beside the record: no owner unless asked).
    assert out["owner"] is None
    assert (
        json.loads(_druids("replay", str(folder / "p1.druids"), "--json", "--seat", "2").stdout)[
            "owner"
        ]
        == 2
    )


def test_the_owner_is_found_beside_the_record_or_as_this_user(
    table: tuple[LocalTable, Path], tmp_path: Path
) -> None:
    """A peer's home keeps its identity beside its tables; the UI's game folder does not, and
    then the user's own identity (``$DRUIDS_HOME``) tells whose record it is."""
    from druids_p2p.wire.identity import identity_path, save_identity

    t, folder = table
    home = tmp_path / "home"
    home.mkdir()
    save_identity(t.ids[2], identity_path(home), replace=False)
    env = dict(os.environ, DRUIDS_HOME=str(home))
    proc = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "replay", str(folder / "p2.druids"), "--json"],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["owner"] == t.machines[2].my_seat
    kept = tmp_path / "peer" / "tables" / "abcd"  # a peer's own home: <home>/tables/<id>/
    kept.mkdir(parents=True)
    (kept / "record.druids").write_bytes((folder / "p0.druids").read_bytes())
    save_identity(t.ids[0], identity_path(tmp_path / "peer"), replace=False)
    assert read_game(kept / "record.druids").owner == t.machines[0].my_seat


def _run(app: ReplayApp, body: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await body(pilot)

    asyncio.run(main())


def _screen(app: ReplayApp) -> ReplayScreen:
    screen = app.screen
    assert isinstance(screen, ReplayScreen)
    return screen


def _caption(app: ReplayApp) -> str:
    return str(_screen(app).query_one("#step", Static).render())


def _hand(app: ReplayApp) -> list[str]:
    return [format_card(c.card) for c in _screen(app).query(CardChip)]


def _log(app: ReplayApp) -> str:
    return "\n".join(line.text for line in _screen(app).query_one("#log", RichLog).lines)


def test_the_viewer_steps_trick_by_trick_as_the_owner_saw_it(
    table: tuple[LocalTable, Path],
) -> None:
    t, folder = table
    owner = t.machines[0]
    game = read_game(folder / "p0.druids", owner=t.ids[0].public_key)
    seat = owner.my_seat
    assert seat is not None and game.owner == seat
    first = game.rounds[0]
    assert first.hands is not None
    dealt = sorted(format_card(c) for c in first.hands[seat])
    app = ReplayApp(game)

    async def body(pilot: Pilot[Any]) -> None:
        for _ in range(200):
            if isinstance(app.screen, ReplayScreen):
                break
            await pilot.pause(0.05)
        await pilot.pause()
        assert "Round 1: dealt" in _caption(app)
        assert sorted(_hand(app)) == dealt  # the owner's hand, nobody else's
        revealed = _screen(app).query_one("#revealed", Static)
        assert not revealed.display  # the others' hands are not known yet
        await pilot.press("right")
        await pilot.pause()
        assert "Round 1, trick 1" in _caption(app)
        first_trick = [(game.names[s], m.token()) for s, m in first.moves[:3]]
        log = _log(app)
        for name, _move in first_trick:
            assert name in log
        owner_move = next(m for name, m in first_trick if name == game.names[seat])
        owner_card = owner_move.split(":")[0]  # a Gaia lead names its domain: 'Gaia:B'
        # played: gone from the hand (one copy: a hand may hold two of a special, as two Sickles)
        assert _hand(app).count(owner_card) == dealt.count(owner_card) - 1
        await pilot.press("left")  # and back
        await pilot.pause()
        assert "Round 1: dealt" in _caption(app) and sorted(_hand(app)) == dealt
        await pilot.press("pagedown")  # the next round's deal
        await pilot.pause()
        assert "Round 2: dealt" in _caption(app)
        await pilot.press("left")  # the end of round 1: its reveal shows every hand
        await pilot.pause()
        assert "Round 1 over" in _caption(app)
        assert revealed.display
        text = str(revealed.render())
        for s, hand in enumerate(first.hands or ()):
            assert game.names[s] in text
            assert all(format_card(c) in text for c in hand)
        await pilot.press("end")
        await pilot.pause()
        assert "Round 2 over" in _caption(app)
        await pilot.press("right")  # nothing after the last step
        await pilot.pause()
        assert "Round 2 over" in _caption(app)
        await pilot.press("q")

    _run(app, body)


def test_the_viewer_offers_no_play_and_shows_the_trick_its_step_is_after(
    table: tuple[LocalTable, Path],
) -> None:
    """Issue 28 item 10: the footer offered "⏎ play" (which did nothing), the hand said "not
    your turn: waiting for …", and the step "Round 1, trick 2" showed "Trick 3" (the next,
    empty trick) in the trick panel."""
    t, folder = table
    app = ReplayApp(read_game(folder / "p0.druids", owner=t.ids[0].public_key))

    async def body(pilot: Pilot[Any]) -> None:
        for _ in range(200):
            if isinstance(app.screen, ReplayScreen):
                break
            await pilot.pause(0.05)
        await pilot.pause()
        for step in (1, 2):
            await pilot.press("right")
            await pilot.pause()
            assert f"Round 1, trick {step}" in _caption(app)
            trick = _screen(app).query_one(TrickPanel)
            text = plain_text(trick)
            assert text.startswith(f"Trick {step}") and "taken by" in text, text
            assert f"Trick {step + 1}" not in text and "any key" not in text
        footer = {b.binding.description for b in app.screen.active_bindings.values()
                  if b.binding.show}  # fmt: skip
        assert "play" not in footer and "next trick" in footer
        hint = str(_screen(app).query_one("#hint", Static).render())
        assert "waiting" not in hint and "your turn" not in hint
        assert not any(chip.can_focus for chip in _screen(app).query(CardChip))
        await pilot.press("q")

    _run(app, body)


def plain_text(widget: Static) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text().strip()


def test_a_record_cut_short_shows_what_it_holds(
    table: tuple[LocalTable, Path], tmp_path: Path
) -> None:
    """A record that stops in round 2 (a crash): round 1 in full, round 2 unrevealed."""
    _, folder = table
    raws = read_record(folder / "p2.druids").messages
    full = read_game(folder / "p2.druids")
    # Just after round 2's first move (Gaia's lead, shown): inside the round, past its words.
    first_move_of_round_2 = next(
        i
        for i, raw in enumerate(raws)
        if _round_of(raw) == 1 and decode(raw).type is MsgType.TABLE_SHOW
    )
    cut = tmp_path / "cut.druids"
    writer = RecordWriter.create(cut)
    for raw in raws[: first_move_of_round_2 + 1]:
        writer.append(raw)
    writer.close()
    game = read_game(cut)
    assert not game.audit.complete  # the audit says the record stops mid-game
    assert game.rounds[0] == full.rounds[0]
    assert game.rounds[1].hands is None
    assert game.rounds[1].moves == full.rounds[1].moves[:1]  # its moves, checked, but no hands
    app = ReplayApp(game)

    async def body(pilot: Pilot[Any]) -> None:
        for _ in range(200):
            if isinstance(app.screen, ReplayScreen):
                break
            await pilot.pause(0.05)
        await pilot.press("end")
        await pilot.pause()
        assert "Round 2: not revealed" in _caption(app)

    _run(app, body)


def _round_of(raw: bytes) -> int | None:
    from druids_p2p.wire import decode

    body = decode(raw).body
    r = body.get("round") if isinstance(body, dict) else None
    return r if isinstance(r, int) else None


def test_a_malformed_record_is_one_line(tmp_path: Path) -> None:
    from druids_p2p.wire.record import MAGIC

    for name, data in (("junk.druids", MAGIC + b"\xff" * 40), ("empty.druids", MAGIC)):
        path = tmp_path / name
        path.write_bytes(data)
        proc = _druids("replay", str(path), "--json")
        assert proc.returncode == 2, proc.stderr
        err = proc.stderr.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err and name in err, err
