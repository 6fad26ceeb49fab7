"""Fixed lineups (``--bots pimc,rule,rule,rule``) and gauntlets (``--gauntlet A --bots B,C``)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli

from druids_p2p.tournament.config import deal_seed, plan_lineups


def lines_of(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(t) for t in (folder / "games.jsonl").read_text().splitlines()]


def test_a_fixed_lineup_rotates_through_every_seat_of_every_deal() -> None:
    plan = plan_lineups([("pimc", "rule", "rule", "rule")], 10, master=2)
    assert len(plan) == 12 and [g.index for g in plan] == list(range(12))
    for deal in range(3):
        games = [g for g in plan if g.deal == deal]
        assert {g.seed for g in games} == {deal_seed(2, deal)}
        assert sorted(g.seating.index("pimc") for g in games) == [0, 1, 2, 3]
        assert all(sorted(g.seating) == ["pimc", "rule", "rule", "rule"] for g in games)


def test_a_gauntlet_meets_every_opponent_set_on_the_same_deals() -> None:
    lineups = [("hero", "a", "a"), ("hero", "b", "c")]
    plan = plan_lineups(lineups, 12, master=0)
    assert len(plan) == 12  # two deals of 2 sets x 3 rotations
    assert [g.deal for g in plan] == [0] * 6 + [1] * 6
    assert [g.seating for g in plan[:6]] == [
        ("hero", "a", "a"), ("a", "a", "hero"), ("a", "hero", "a"),
        ("hero", "b", "c"), ("b", "c", "hero"), ("c", "hero", "b"),
    ]  # fmt: skip
    with pytest.raises(ValueError):
        plan_lineups([("a", "b", "c"), ("a", "b")], 6, master=0)


def test_repeated_bots_play_a_lineup_and_are_rated_per_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["tournament", "--bots", "rule,random,random", "--games", "9", "--seed", "4"]
    code, stdout, err = run_cli([*args, "--workers", "2", "--out", str(out), "--json"], capsys)
    assert code == 0, err
    document = json.loads(stdout)
    assert set(document["bots"]) == {"rule", "random"}
    lines = lines_of(out)
    assert len(lines) == 9
    assert all(sorted(line["seating"]) == ["random", "random", "rule"] for line in lines)
    run = json.loads((out / "run.json").read_text())["config"]
    assert run["mode"] == "lineup" and run["lineups"] == [["rule", "random", "random"]]
    assert run["bots"] == ["rule", "random"] and run["players"] == 3
    rule, rand = document["bots"]["rule"], document["bots"]["random"]
    assert (rule["games"], rule["seats"]) == (9, 9)
    assert (rand["games"], rand["seats"]) == (9, 18)
    margins = []
    for line in lines:
        seat = line["seating"].index("rule")
        totals = line["totals"]
        margins.append(totals[seat] - (sum(totals) - totals[seat]) / 2)
    assert rule["mean_margin"] == pytest.approx(sum(margins) / 9)
    # Ratings: each seat enters the update from the bot's one rating; the bot takes the mean.
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    mu = {"rule": model.rating().mu, "random": model.rating().mu}
    sigma = {"rule": model.rating().sigma, "random": model.rating().sigma}
    for line in lines:
        totals = line["totals"]
        ranks = [1 + sum(o > t for o in totals) for t in totals]
        teams = [[model.rating(mu=mu[b], sigma=sigma[b])] for b in line["seating"]]
        new = model.rate(teams, ranks=ranks)
        for b in ("rule", "random"):
            seats = [new[s][0] for s, n in enumerate(line["seating"]) if n == b]
            mu[b] = math.fsum(r.mu for r in seats) / len(seats)
            sigma[b] = math.fsum(r.sigma for r in seats) / len(seats)
    assert rule["mu"] == pytest.approx(mu["rule"]) and rand["mu"] == pytest.approx(mu["random"])
    assert rand["sigma"] == pytest.approx(sigma["random"])
    # --resume takes the lineup from run.json.
    code, _, err = run_cli(["tournament", "--resume", "--out", str(out), "--json"], capsys)
    assert code == 0 and "9 of 9 games" in err


def test_gauntlet_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g"
    plugins = str(Path(__file__).resolve().parent.parent / "plugins")
    args = ["tournament", "--gauntlet", "rule", "--bots", "random,cautious+random", "--players"]
    args += ["3", "--plugins-dir", plugins]
    code, _, err = run_cli([*args, "--games", "12", "--out", str(out), "--json"], capsys)
    assert code == 0, err
    run = json.loads((out / "run.json").read_text())["config"]
    assert run["mode"] == "gauntlet"
    assert run["lineups"] == [["rule", "random", "random"], ["rule", "cautious", "random"]]
    assert run["bots"] == ["rule", "random", "cautious"]
    lines = lines_of(out)
    assert [line["seating"] for line in lines[:3]] == [
        ["rule", "random", "random"], ["random", "random", "rule"], ["random", "rule", "random"]
    ]  # fmt: skip
    assert len(lines) == 12 and {line["deal"] for line in lines} == {0, 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "rule,rule", "--players", "3"], "2 names for --players 3"),
        (["--bots", "rule,rule"], "--players must be 3, 4 or 5, not 2"),
        (["--gauntlet", "rule", "--bots", "rule,random"], "also among the opponents"),
        (["--gauntlet", "rule,pimc", "--bots", "random"], "--gauntlet: give one bot"),
        (["--gauntlet", "rule", "--bots", "random+cautious,random"], None),
        (["--gauntlet", "rule", "--bots", "random+pimc", "--players", "4"], "3 bots each"),
        (["--gauntlet", "nosuch", "--bots", "random"], "unknown bot 'nosuch'"),
        (["--gauntlet", "rule", "--bots", "random+nosuch"], "unknown bot 'nosuch'"),
    ],
)
def test_bad_lineups_are_one_line_errors(
    args: list[str], message: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        ["tournament", "--out", str(tmp_path / "o"), "--games", "3", *args], capsys
    )
    if message is None:  # a single name beside a '+' set is players-1 copies: fine
        assert code == 0, err
        return
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert message in err
