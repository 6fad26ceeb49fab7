"""``druids bench bots`` and ``druids bench tournament``: schemas, a strength check, errors."""

from __future__ import annotations

import json

import pytest
from cli_harness import run_cli


def test_bench_bots_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "bots", "--bots", "rule,random", "--games", "40", "--players", "4"]
    code, out, _ = run_cli([*args, "--seed", "2", "--workers", "2", "--json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["baseline"] == "random" and report["players"] == 4
    assert report["games"] == 40
    rule = report["bots"]["rule"]
    assert rule["games"] == 40
    lo, hi = rule["margin_ci95"]
    assert 0 < lo <= rule["mean_margin"] <= hi  # rule beats random clearly, even on 10 deals
    assert 0.0 <= rule["first_place_rate"] <= 1.0
    assert set(report["bots"]) == {"rule"}


def test_bench_bots_text_with_two_challengers(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "bots", "--bots", "rule,pimc,random", "--games", "3", "--players", "3"]
    code, out, _ = run_cli([*args, "--time-per-move", "2", "--workers", "2"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("rule vs 2 x random: margin ")
    assert lines[1].startswith("pimc vs 2 x random: margin ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "rule"], "then the baseline"),
        (["--bots", "rule,nosuch"], "unknown bot 'nosuch'"),
        (["--players", "2"], "--players must be 3, 4 or 5"),
        (["--games", "0"], "--games must be at least 1"),
        (["--time-per-move", "-5"], "--time-per-move must be above 0"),
    ],
)
def test_bench_bots_bad_flags(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["bench", "bots", *args], capsys)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_bench_tournament_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["bench", "tournament", "--games", "300", "--json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["games"] == 300 and report["workers"] == 2
    assert report["games_per_s"] > 0
    code, out, err = run_cli(["bench", "tournament", "--workers", "0"], capsys)
    assert code == 2 and "--workers must be at least 1" in err
