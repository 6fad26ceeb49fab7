"""``druids tournament`` on the command line: outputs, flags, errors, Ctrl-C and --resume."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli
from tournament_harness import coin_flip_order, interrupt_after, lines_of, resume_to_the_end

from druids_p2p.tournament import TIMING_KEYS


def test_json_summary_and_output_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    args = ["tournament", "--bots", "rule,random", "--games", "6", "--players", "3"]
    args += ["--seed", "5", "--workers", "2", "--time-per-move", "10", "--out", str(out)]
    code, stdout, _ = run_cli([*args, "--json", "--progress"], capsys)
    assert code == 0
    document = json.loads(stdout)  # the progress bar went to stderr: stdout is pure JSON
    assert set(document) == {"games", "bots"}
    assert document["games"] == 6
    for name in ("rule", "random"):
        bot = document["bots"][name]
        for key in ("mean_score", "mean_margin", "first_place_rate", "mu", "sigma", "ordinal"):
            assert isinstance(bot[key], float)
        lo, hi = bot["margin_ci95"]
        assert lo <= bot["mean_margin"] <= hi
    run = json.loads((out / "run.json").read_text())
    assert run["config"]["bots"] == ["rule", "random"] and run["config"]["players"] == 3
    lines = lines_of(out)
    assert [line["index"] for line in lines] == list(range(6))
    line = lines[0]
    for key in ("index", "deal", "seed", "seating", "versions", "round_scores", "totals", "status"):
        assert key in line
    for key in ("move_ms_mean", "move_ms_max", "faults", "blame", "winners", *TIMING_KEYS):
        assert key in line
    assert len(line["round_scores"]) == 5 and len(line["move_ms_max"]) == 3
    assert sum(map(sum, line["round_scores"])) == sum(line["totals"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["bots"] == document["bots"] and summary["complete"] is True

    # The table, and a refused second run into the same folder.
    code, stdout, err = run_cli(["tournament", "--bots", "rule,random", "--out", str(out)], capsys)
    assert code == 2 and "already holds a run" in err and len(err.strip().splitlines()) == 1
    code, stdout, err = run_cli(["tournament", "--resume", "--out", str(out)], capsys)
    assert code == 0
    assert stdout.splitlines()[0].split()[:3] == ["bot", "games", "score"]
    assert "6 of 6 games" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "rule,random", "--players", "7"], "--players must be 3, 4 or 5"),
        (["--bots", "rule,random", "--games", "0"], "--games must be at least 1"),
        (["--bots", "rule,random", "--workers", "0"], "--workers must be at least 1"),
        (["--bots", "rule,random", "--time-per-move", "0"], "--time-per-move must be above 0"),
        (["--bots", "rule,nosuch"], "unknown bot 'nosuch'"),
        (["--bots", "rule,random,rule", "--players", "4"], "3 names for --players 4"),
        (["--bots", ","], "give at least one bot name"),
        ([], "--bots is required"),
        (["--resume"], "nothing to resume"),
        (["--bots", "rule", "--games", "x"], "Invalid value for '--games'"),
        (["--bots", "rule", "--plugins-dir", "/no/such/dir"], "no such directory"),
        (["--bots", "rule", "--game-timeout", "-1"], "--game-timeout must be above 0"),
        (["--bots", "rule,random", "--rounds", "0"], "--rounds must be 1 to 5, not 0"),
        (["--bots", "rule", "--rounds", "two"], "Invalid value for '--rounds'"),
        (
            ["--bots", "rule,random", "--game", "druids2004", "--rounds", "2"],
            "--rounds is an option of a game played by rounds; druids2004 has none",
        ),
    ],
)
def test_bad_flags_are_one_line_errors(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stdout, err = run_cli(["tournament", "--out", str(tmp_path / "o"), *args], capsys)
    assert code == 2
    assert stdout == ""
    assert len(err.strip().splitlines()) == 1, err
    assert message in err
    assert "Traceback" not in err


def test_resume_checks_the_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["tournament", "--resume"], capsys)
    assert code == 2 and "--resume needs --out" in err
    code, _, err = run_cli(["tournament", "--resume", "--out", str(tmp_path)], capsys)
    assert code == 2 and "nothing to resume" in err
    out = tmp_path / "run"
    base = ["tournament", "--bots", "rule,random", "--games", "3", "--players", "3"]
    assert run_cli([*base, "--out", str(out), "--json"], capsys)[0] == 0
    code, _, err = run_cli([*base, "--seed", "9", "--resume", "--out", str(out)], capsys)
    assert code == 2 and "different config (seed 0 != 9)" in err
    (out / "run.json").write_text("{not json")
    code, _, err = run_cli(["tournament", "--resume", "--out", str(out)], capsys)
    assert code == 2 and "not a tournament run file" in err


def test_p2p_without_the_networked_table_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "druids_p2p.peer.local_table", None)  # import fails
    args = ["tournament", "--bots", "rule,random", "--p2p", "--out", str(tmp_path / "o")]
    code, stdout, err = run_cli(args, capsys)
    assert code == 2 and stdout == ""
    assert "--p2p cannot be played here" in err and len(err.strip().splitlines()) == 1


def _stand_in_play_table(
    seats: list[str],
    options: Any,
    seed: int,
    time_per_move_ms: float,
    workdir: Path,
    timeout: float = 600.0,
    *,
    new: bool = False,
    game: str | None = None,
) -> dict[str, Any]:
    """The engine in-process in place of the networked table; at module level, because the
    tournament hands its table player to the worker processes by reference (pickled)."""
    from druids_p2p.bots.local_game import play_local_game

    assert workdir.is_dir() and game == "druids2017" and not new
    assert all(seat.startswith("bot:") for seat in seats)
    names = [seat.removeprefix("bot:") for seat in seats]
    from druids_p2p.games.registry import game_options

    own = game_options(game, options)  # the seat message's options, as the game reads them
    played = play_local_game(names, own, seed, time_per_move_ms, enforce_budget=False)
    return {
        "finished": True,
        "aborted": None,
        "blame": None,
        "totals": played.totals,
        "round_scores": played.round_scores,
        "winners": played.winners,
        "records": [played.record()],
    }


def test_p2p_games_have_the_same_line_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in ``play_table`` (the engine in-process) shows what ``--p2p`` does with results."""
    fake = types.ModuleType("druids_p2p.peer.local_table")
    fake.play_table = _stand_in_play_table  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "druids_p2p.peer.local_table", fake)
    common = ["--bots", "rule,random", "--games", "3", "--players", "3", "--json"]
    assert run_cli(["tournament", *common, "--p2p", "--out", str(tmp_path / "p")], capsys)[0] == 0
    assert run_cli(["tournament", *common, "--out", str(tmp_path / "local")], capsys)[0] == 0
    p2p, local = lines_of(tmp_path / "p"), lines_of(tmp_path / "local")
    assert [set(line) for line in p2p] == [set(line) for line in local]
    for a, b in zip(p2p, local, strict=True):
        assert (a["totals"], a["round_scores"], a["seating"]) == (
            b["totals"],
            b["round_scores"],
            b["seating"],
        )
    assert json.loads((tmp_path / "p" / "run.json").read_text())["config"]["p2p"] is True


def test_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import matplotlib  # noqa: F401  (in the dev extra: missing, this fails rather than skips)

    picture = tmp_path / "ratings.png"
    args = ["tournament", "--bots", "rule,random,first_legal_missing"]
    code, _, err = run_cli([*args, "--plot", str(picture)], capsys)
    assert code == 2 and "unknown bot" in err  # errors come before any game is played
    args = ["tournament", "--bots", "rule,random", "--games", "6", "--players", "3", "--json"]
    code, _, _ = run_cli([*args, "--out", str(tmp_path / "o"), "--plot", str(picture)], capsys)
    assert code == 0
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    args = ["tournament", "--bots", "rule,random", "--plot", str(tmp_path / "x.png")]
    code, stdout, err = run_cli([*args, "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and stdout == ""
    assert "--plot needs matplotlib" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_ctrl_c_keeps_finished_games_and_resume_completes_them(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["--bots", "rule,random,pimc", "--games", "60", "--players", "3", "--workers", "2"]
    args += ["--rounds", "1"]  # the resumed run reads it from run.json: its lines have 1 round
    stdout, _ = interrupt_after([*args, "--time-per-move", "2"], out, 3, 60)
    done = lines_of(out)
    assert 3 <= len(done) < 60
    assert [line["index"] for line in done] == sorted(line["index"] for line in done)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and summary["games"] == len(done)
    assert b"bot" in stdout  # the table of what finished
    full = resume_to_the_end(out, 60, 300)
    assert {len(line["round_scores"]) for line in full} == {1}


@pytest.mark.slow
@pytest.mark.e2e
def test_p2p_over_real_peer_processes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--rounds 2`` reaches every table's seat message (the default, all 5, is shown
    in-process above and by ``druids play --headless``)."""
    out = tmp_path / "run"
    args = ["tournament", "--bots", "rule,random", "--games", "3", "--players", "3", "--p2p"]
    args += ["--rounds", "2"]
    code, stdout, err = run_cli([*args, "--workers", "2", "--out", str(out), "--json"], capsys)
    assert code == 0, err
    assert json.loads(stdout)["games"] == 3
    assert json.loads((out / "run.json").read_text())["config"]["rounds"] == 2
    for line in lines_of(out):
        assert line["status"] == "ok", line["faults"]
        assert len(line["round_scores"]) == 2
        assert [sum(seat) for seat in zip(*line["round_scores"], strict=True)] == line["totals"]
        assert line["move_ms_mean"] == [None, None, None]
        assert line["seating"] == coin_flip_order(out / "p2p" / f"game-{line['index']:06d}")
