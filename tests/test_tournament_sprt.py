"""Sequential testing: the SPRT's statistics against published values, and early stops."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from druids_p2p.plugins import load_bots
from druids_p2p.tournament import TIMING_KEYS, TournamentConfig, run_tournament
from druids_p2p.tournament.config import (
    SprtTest,
    bounds,
    elo_to_score,
    llr_multinomial,
    llr_normal,
    mle_with_mean,
    plan_lineups,
)
from druids_p2p.tournament.live import MIN_DEALS, Monitor

PENTA = [0.0, 0.25, 0.5, 0.75, 1.0]
TRI = [0.0, 0.5, 1.0]


def test_bounds_are_walds() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert (round(lower, 2), round(upper, 2)) == (-2.94, 2.94)  # fishtest's and fastchess's
    assert bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "expected"),
    [
        # fastchess app/tests/sprt_test.cpp, "logistic" model: Stats(W, L, D) ...
        ((21184, 40708, 21404), 0.5, 2.5, -1.57),
        ((57030, 106593, 57433), 0.0, 2.0, -2.59),
        # ... and Stats(LL, LD, WL, DD, WD, WW), WL and DD pooled at 1/2.
        ((223, 9863, 20279 + 1000, 10037, 246), 0.5, 2.5, -3.07),
        ((871, 26175, 55003 + 980, 26678, 821), 0.0, 2.0, -4.98),
    ],
)
def test_llr_matches_fastchess_published_values(
    counts: tuple[int, ...], elo0: float, elo1: float, expected: float
) -> None:
    support = TRI if len(counts) == 3 else PENTA
    llr = llr_multinomial(support, counts, elo_to_score(elo0), elo_to_score(elo1))
    assert llr == pytest.approx(expected, abs=0.01)


probs5 = st.lists(st.floats(0.01, 1.0), min_size=5, max_size=5).map(
    lambda xs: [x / sum(xs) for x in xs]
)


@settings(max_examples=60, deadline=None)
@given(probs5, st.floats(0.05, 0.95))
def test_mle_has_the_asked_mean_and_stays_a_distribution(probs: list[float], s: float) -> None:
    p = mle_with_mean(PENTA, probs, s)
    assert all(x > 0 for x in p)
    assert math.fsum(p) == pytest.approx(1.0, abs=1e-9)
    assert math.fsum(a * x for a, x in zip(PENTA, p, strict=True)) == pytest.approx(s, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 500), min_size=5, max_size=5),
    st.floats(-50, 50),
    st.floats(0.5, 40),
)
def test_llr_is_antisymmetric_and_zero_between_equal_hypotheses(
    counts: list[int], elo: float, gap: float
) -> None:
    s0, s1 = elo_to_score(elo), elo_to_score(elo + gap)
    assert llr_multinomial(PENTA, counts, s0, s0) == pytest.approx(0.0, abs=1e-9)
    there = llr_multinomial(PENTA, counts, s0, s1)
    assert llr_multinomial(PENTA, counts, s1, s0) == pytest.approx(-there, abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-60, 60), min_size=2, max_size=40).filter(lambda v: len(set(v)) > 1),
    st.floats(-10, 10),
    st.floats(0.5, 10),
)
def test_normal_llr_is_the_sum_of_normal_log_likelihood_ratios(
    values: list[float], m0: float, gap: float
) -> None:
    m1 = m0 + gap
    mean = math.fsum(values) / len(values)
    var = math.fsum((v - mean) ** 2 for v in values) / len(values)
    if var < 1e-6:
        return
    direct = math.fsum(((v - m0) ** 2 - (v - m1) ** 2) / (2 * var) for v in values)
    assert llr_normal(values, m0, m1) == pytest.approx(direct, rel=1e-6, abs=1e-6)


def test_bad_tests_are_refused() -> None:
    for args in ((5, 0, 0.05, 0.05), (0, 5, 0.0, 0.05), (0, 5, 0.6, 0.5)):
        with pytest.raises(ValueError):
            SprtTest(*args)
    with pytest.raises(ValueError):
        SprtTest(0, 5, 0.05, 0.05, stat="wins")


# ------------------------------------------------------------------------- the monitor
def fake_line(spec: Any, rng: random.Random) -> dict[str, Any]:
    totals = [rng.randrange(-20, 60) + (15 if b == "hero" else 0) for b in spec.seating]
    return {
        "index": spec.index, "deal": spec.deal, "seating": list(spec.seating), "status": "ok",
        "totals": totals, "blame_seat": None,
    }  # fmt: skip


def test_the_decision_does_not_depend_on_the_order_games_finish() -> None:
    specs = plan_lineups([("hero", "base", "base", "base")], 400, master=0)
    rng = random.Random(1)
    lines = [fake_line(spec, rng) for spec in specs]
    decisions = []
    for order in range(3):
        shuffled = lines[:]
        random.Random(order).shuffle(shuffled)
        if order == 2:
            shuffled = shuffled + shuffled[:50]  # a rerun batch: seen twice, counted once
        monitor = Monitor(("hero", "base"), specs, SprtTest(0, 40, 0.05, 0.05))
        for line in shuffled:
            monitor.add(line)
        assert monitor.decision is not None
        decisions.append((monitor.decision.deal, monitor.decision.verdict, monitor.llr))
    assert decisions[0] == decisions[1] == decisions[2]
    assert decisions[0][1] == "H1" and decisions[0][0] + 1 >= MIN_DEALS
    assert Monitor(("hero", "base"), specs).pair == ("hero", "base")


# ------------------------------------------------------------------ whole tournaments
def strip(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in line.items() if k not in TIMING_KEYS} for line in lines]


def test_sprt_stops_at_the_same_deal_whatever_the_workers_and_on_resume(tmp_path: Path) -> None:
    registry = load_bots([], default_dirs=False, entry_points=False)
    config = TournamentConfig(
        bots=("rule", "random"),
        versions=("1", "1"),
        players=3,
        games=3000,
        seed=3,
        time_per_move_ms=10.0,
        mode="lineup",
        lineups=(("rule", "random", "random"),),
        sprt=(0.0, 100.0, 0.05, 0.05),
    )
    one = run_tournament(config, registry, tmp_path / "one", workers=1)
    two = run_tournament(config, registry, tmp_path / "two", workers=2)
    assert one.stopped is not None and "H1 accepted" in one.stopped
    assert not one.interrupted and len(one.lines) < 300
    deals = {line["deal"] for line in one.lines}
    assert deals == set(range(len(deals))) and len(one.lines) == 3 * len(deals)
    assert strip(one.lines) == strip(two.lines) and one.test == two.test
    assert one.test is not None and one.test["sprt"]["llr"] >= one.test["sprt"]["bounds"][1]
    part = run_tournament(config, registry, tmp_path / "part", workers=1, stop_after=6)
    assert part.interrupted and part.stopped is None
    rest = run_tournament(config, registry, tmp_path / "part", workers=2, resume=True)
    assert strip(rest.lines) == strip(one.lines) and rest.stopped == one.stopped
    saved = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert saved["test"]["stopped"]["verdict"] == "H1"


def test_stop_after_ci_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tournament", "--bots", "rule,random,random", "--games", "3000", "--seed", "2"]
    args += ["--stop-after-ci", "30", "--out", str(tmp_path / "ci"), "--json"]
    code, stdout, err = run_cli(args, capsys)
    assert code == 0, err
    document = json.loads(stdout)
    lo, hi = document["bots"]["rule"]["margin_ci95"]
    assert hi - lo < 30
    assert document["test"]["stopped"]["reason"] == "ci"
    assert document["games"] == 3 * document["test"]["deals"] < 3000
    assert "95% CI of the margin" in err
    code, stdout, err = run_cli(
        ["tournament", "--bots", "rule,random,random", "--games", "30", "--sprt-stat", "margin",
         "--sprt", "0,5,0.05,0.05", "--out", str(tmp_path / "m"), "--json"], capsys,
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(stdout)["test"]["sprt"]["stat"] == "margin"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "rule,random,pimc", "--sprt", "0,5,0.05,0.05"], "needs a match of two bots"),
        (["--bots", "rule,random", "--sprt", "0,5,0.05"], "give four numbers"),
        (["--bots", "rule,random", "--sprt", "5,0,0.05,0.05"], "first bound must be below"),
        (["--bots", "rule,random", "--sprt", "0,5,0,0.05"], "alpha and beta"),
        (["--bots", "rule,random", "--sprt", "0,5,0.05,0.05", "--sprt-stat", "x"], "--sprt-stat"),
        (["--bots", "rule,random", "--stop-after-ci", "0"], "--stop-after-ci must be above 0"),
    ],
)
def test_bad_stopping_rules_are_one_line_errors(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stdout, err = run_cli(["tournament", "--out", str(tmp_path / "o"), *args], capsys)
    assert code == 2 and stdout == ""
    assert len(err.strip().splitlines()) == 1, err
    assert message in err


def test_progress_shows_ratings_and_the_llr_and_is_off_for_json_or_no_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from druids_p2p.cli.tournament_options import want_progress

    args = ["tournament", "--bots", "rule,random,random", "--games", "60", "--progress"]
    args += ["--sprt", "0,100,0.05,0.05", "--out", str(tmp_path / "p")]
    code, stdout, err = run_cli(args, capsys)
    assert code == 0, err
    assert "LLR +" in err and "rule " in err and "games/s" in err  # the bar's status column
    assert "LLR" not in stdout
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert want_progress(False) is True
    assert want_progress(False, as_json=True) is False
    assert want_progress(True, as_json=True) is True
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert want_progress(False) is False
