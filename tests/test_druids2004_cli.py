"""Druids (2004) on the command line: replay (exit 0 / 1 with index and reason / 2 one line),
demo and bench engine with ``--game``; the default stays Druids (2017)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from druids_p2p.cli.main import main
from druids_p2p.games.druids2004.notation import to_json
from druids_p2p.games.druids2004.ruleset import play_random_game
from druids_p2p.games.druids2004.setup import Options


def record(seed: int = 4, players: int = 3) -> dict[str, Any]:
    game, _ = play_random_game(random.Random(seed), Options(players=players))
    return to_json(game)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
        raise SystemExit(0)
    out = capsys.readouterr()
    code = info.value.code
    return (code if isinstance(code, int) else 0), out.out, out.err


def test_replay_a_whole_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = record()
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data))
    code, out, _ = run(["replay", "--game", "druids2004", str(path)], capsys)
    result = json.loads(out)
    game, _ = play_random_game(random.Random(4), Options(players=3))
    assert code == 0 and result["ok"] and result["finished"]
    assert result["scores"] == game.scores and result["ended_by"] == game.ended_by


def test_replay_an_illegal_move_names_its_index_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = record()
    data["moves"] = [data["moves"][0], "Draw:gem"]  # a turn plays its two cards before drawing
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data))
    code, out, _ = run(["replay", "--game", "druids2004", str(path)], capsys)
    start = data["setup"]["start"]
    assert code == 1
    assert json.loads(out) == {
        "ok": False,
        "move": 1,
        "error": f"P{start} must first play 1 more card(s)",
    }


def test_replay_a_wrong_reshuffle_is_illegal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = record()
    index = next(i for i, m in enumerate(data["moves"]) if isinstance(m, dict))
    entry = data["moves"][index]
    data["moves"][index] = {"reshuffle": entry["reshuffle"], "order": entry["order"][:-1]}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data))
    code, out, _ = run(["replay", "--game", "druids2004", str(path)], capsys)
    result = json.loads(out)
    assert code == 1 and result["move"] == index
    assert result["error"].startswith(f"not an order of seat {entry['reshuffle']}'s reserve")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("setup"), "the record lacks 'setup'"),
        (lambda d: d.update(players=5), "'players' must be 2, 3 or 4, not 5"),
        (lambda d: d.update(game="druids2017"), "'game' must be 'druids2004'"),
        (lambda d: d["moves"].insert(0, "K10>0"), "move 0: unknown move token 'K10>0'"),
        (lambda d: d["setup"]["gems"].pop(), "setup: gems must list 54 cards, not 53"),
        (lambda d: d["moves"].append("Stop"), "an entry after the game ended"),
        (lambda d: d["options"].update(tie_order="x"), "tie_order must be one of"),
        (lambda d: d.update(extra=1), "unknown key(s) in the record: extra"),
    ],
)
def test_replay_malformed_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    data = record()
    change(data)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data))
    code, out, err = run(["replay", "--game", "druids2004", str(path)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_unknown_game_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["demo", "--game", "chess"], capsys)
    assert code == 2 and "--game 'chess': unknown game" in err and err.count("\n") == 1


def test_demo_prints_a_whole_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["demo", "--game", "druids2004", "--players", "2", "--seed", "3"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("Druids (2004), 2 players")
    assert lines[1] == "Turn 1: P" + lines[0].split("; P")[1][0]
    assert lines[-2].startswith("Game over:") and lines[-1].startswith("Scores [")


def test_bench_engine_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["bench", "engine", "--game", "druids2004", "--players", "2", "--games", "3", "--json"],
        capsys,
    )
    result = json.loads(out)
    assert code == 0 and result["game"] == "druids2004" and result["games"] == 3
    assert result["moves"] > 0


def test_replay_reads_the_game_a_notation_names(tmp_path: Path) -> None:
    """A real process: a 2004 record names its game (``"game": "druids2004"``), so it needs no
    --game (issue 28: ``druids replay`` reads every record the program writes); named as
    druids2017 it is read as one, and refused."""
    path = tmp_path / "g.json"
    path.write_text(json.dumps(record()))

    def replay(*more: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "druids_p2p", "replay", str(path), *more]
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)

    proc = replay()
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ok"] is True
    proc = replay("--game", "druids2017")
    assert proc.returncode == 2 and "unknown key(s) in the record" in proc.stderr
