"""The proof of issue 30: a third game, defined in a test package with its own entry point
(``support/highcard``, its distribution's metadata in ``support/highcard_dist``), is played
and checked by the program as it is, with no line of the program naming it.

Every command here is a real ``druids`` process whose ``PYTHONPATH`` holds the game's package
and its metadata (what ``pip install`` of the game would give): a whole table of peer processes
(``druids play --headless --game highcard``) whose records ``druids audit`` finds complete and
``druids replay`` replays, a tournament in workers and over the real protocol, the game's JSON
notation replayed, ``druids demo``, and the game listed by ``druids bots`` and in ``--help``.
Without the metadata on the path the game is unknown, in one line: only the entry point
registers it."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUPPORT = str(ROOT / "tests" / "support")
DIST = str(ROOT / "tests" / "support" / "highcard_dist")
if SUPPORT not in sys.path:
    sys.path.append(SUPPORT)  # the game's package only: importing it registers nothing

from highcard.cards import format_card  # noqa: E402
from highcard.engine import HighCard, Options, deal  # noqa: E402
from highcard.ruleset import HighCardRuleset  # noqa: E402

BOUND_S = 300.0


def env(registered: bool = True) -> dict[str, str]:
    """This checkout, the game's package and (``registered``) its entry point's metadata, in
    front of whatever the suite itself runs with."""
    paths = [str(ROOT), SUPPORT, *([DIST] if registered else [])]
    before = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths + ([before] if before else [])))


def druids(*args: str, registered: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "druids_p2p", *args],
        capture_output=True, text=True, timeout=BOUND_S, stdin=subprocess.DEVNULL,
        env=env(registered),
    )  # fmt: skip


def json_of(proc: subprocess.CompletedProcess[str]) -> Any:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.e2e
@pytest.mark.slow
def test_a_table_of_peer_processes_plays_high_card_and_its_records_audit_and_replay(
    tmp_path: Path,
) -> None:
    seats = "bot:greedy,bot:random,bot:random"
    play = ["play", "--headless", "--game", "highcard", "--seats", seats, "--json"]
    out = json_of(druids(*play, "--workdir", str(tmp_path)))
    assert out["game"] == "highcard" and out["finished"] and out["aborted"] is None, out
    totals, winners = out["totals"], out["winners"]
    assert sum(totals) == 3 and winners and {totals[w] for w in winners} == {max(totals)}
    records = [Path(r) for r in out["records"]]
    assert len(records) == 3 and len({r.read_bytes() for r in records}) == 1
    report = json_of(druids("audit", str(records[0]), "--json"))
    assert report["verdict"] == "complete", report
    assert (report["totals"], report["winners"]) == (totals, winners)
    replayed = json_of(druids("replay", str(records[1]), "--json"))
    assert replayed["game"] == "highcard" and replayed["audit"]["verdict"] == "complete"
    outcome = replayed["outcome"]
    assert outcome["complete"] and outcome["ended_by"] == "tricks"
    assert (outcome["totals"], outcome["winners"]) == (totals, winners)
    shown = [m["card"] for m in replayed["moves"]]
    assert len(shown) == 9 and len(set(shown)) == 9  # every card of every hand, shown once
    assert set(shown) <= {format_card(c) for c in range(12)}


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("p2p", [False, True])
def test_a_tournament_of_high_card(tmp_path: Path, p2p: bool) -> None:
    """In worker processes, and (``--p2p``) a peer process per seat over the real protocol."""
    games = 2 if p2p else 12
    tournament = ["tournament", "--game", "highcard", "--bots", "greedy,random", "--json"]
    sizes = ["--players", "3", "--games", str(games), "--workers", "1"]
    p2p_flag = ["--p2p"] if p2p else []
    summary = json_of(druids(*tournament, *sizes, *p2p_flag, "--out", str(tmp_path)))
    assert set(summary["bots"]) == {"greedy", "random"}
    lines = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(lines) >= games and all(g["game"] == "highcard" for g in lines)
    assert all(g["status"] == "ok" and g["ended_by"] == "tricks" for g in lines), lines
    assert all(sum(g["totals"]) == 3 and g["round_scores"] == [g["totals"]] for g in lines)
    if not p2p:  # (a table of peers reports no move counts)
        assert all(g["moves"] == [3, 3, 3] for g in lines)


def test_high_card_s_notation_replays_through_the_cli(tmp_path: Path) -> None:
    """The file names its game (``"game": "highcard"``): ``druids replay`` needs no --game."""
    rules = HighCardRuleset()
    game = HighCard(Options(players=3), deal(random.Random(4), 3))
    rng = random.Random(4)
    while not game.game_over:
        game.play(rng.choice(game.legal_moves()))
    notation = tmp_path / "game.json"
    notation.write_text(json.dumps(rules.record(game, [], [])))
    replayed = json_of(druids("replay", str(notation)))
    assert replayed["ok"] and replayed["scores"] == game.totals and replayed["finished"]
    record = rules.record(game, [], [])
    record["moves"][1], record["moves"][2] = record["moves"][2], record["moves"][1]
    notation.write_text(json.dumps(record))
    proc = druids("replay", str(notation))
    code, out = rules.replay(json.dumps(record))
    assert proc.returncode == code and json.loads(proc.stdout) == out
    notation.write_text('{"game": "highcard", "players": 2}')
    proc = druids("replay", str(notation))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and '"hands" must be a list' in proc.stderr


def test_druids_demo_plays_high_card() -> None:
    proc = druids("demo", "--game", "highcard", "--players", "3", "--seed", "6")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line[:7] for line in lines[-4:-1]] == ["Trick 1", "Trick 2", "Trick 3"]
    assert lines[-1].startswith("Totals ")


def test_high_card_is_listed_by_druids_bots_and_in_every_game_option_s_help() -> None:
    listed = {b["name"]: b for b in json_of(druids("bots", "--json"))["bots"]}
    assert listed["greedy"]["games"] == ["highcard"]
    assert "highcard" in listed["random"]["games"]  # the built-in random bot plays every game
    for command in ("play", "tournament", "replay", "demo"):
        proc = druids(command, "--help")
        assert proc.returncode == 0 and "highcard" in proc.stdout, (command, proc.stdout)


def test_without_its_entry_point_the_game_is_unknown_in_one_line() -> None:
    """The package alone on the path registers nothing: only the distribution's metadata does."""
    for args in (
        ["play", "--headless", "--game", "highcard", "--seats", "bot:random,bot:random"],
        ["demo", "--game", "highcard"],
    ):
        proc = druids(*args, registered=False)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert "'highcard'" in proc.stderr and "unknown game" in proc.stderr, proc.stderr
        assert proc.stderr.strip().count("\n") == 0


def test_the_terminal_ui_says_in_one_line_that_high_card_has_none() -> None:
    proc = druids("play", "--game", "highcard")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "highcard" in proc.stderr and "terminal UI" in proc.stderr, proc.stderr
