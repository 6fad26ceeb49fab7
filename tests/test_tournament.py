"""Tournaments: the plan, the fast game loop, reproducibility, failures, resume, the summary."""

from __future__ import annotations

import itertools
import json
import math
import statistics
import textwrap
from pathlib import Path
from typing import Any

import pytest

from druids_p2p.bots.local_game import play_local_game
from druids_p2p.games.druids2017.game import GameOptions
from druids_p2p.plugins import BotRegistry, load_bots
from druids_p2p.tournament import (
    TIMING_KEYS,
    TournamentConfig,
    TournamentError,
    deal_seed,
    plan_challenge,
    plan_tournament,
    play_game,
    run_tournament,
)
from druids_p2p.tournament.summary import clustered_mean_ci, t_quantile_975

PLUGIN = '''
import os, time
from druids_p2p.bots.host import Bot
from druids_p2p.hookspecs import hookimpl

class First(Bot):
    def choose(self, view):
        return view.legal[0]

class Sleeper(Bot):
    """Hangs for good in the second round."""
    def choose(self, view):
        if view.round_index == 1:
            time.sleep(3600)
        return view.legal[-1]

class Crasher(Bot):
    """Takes its whole process down in the third round."""
    def choose(self, view):
        if view.round_index == 2:
            os._exit(1)
        return view.legal[0]

def broken():
    raise RuntimeError("no bot today")

@hookimpl
def druids_register_bots(register):
    register(name="broken", factory=broken)
    register(name="first", factory=First, version="2.0")
    register(name="sleeper", factory=Sleeper, version="0.1")
    register(name="crasher", factory=Crasher, version="0.2")
'''


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plugins")
    (folder / "testbots.py").write_text(textwrap.dedent(PLUGIN))
    return folder


@pytest.fixture(scope="module")
def registry(plugin_dir: Path) -> BotRegistry:
    return load_bots([plugin_dir], default_dirs=False, entry_points=False)


def config_for(
    registry: BotRegistry, bots: tuple[str, ...], games: int, **kw: Any
) -> TournamentConfig:
    return TournamentConfig(
        bots=bots,
        versions=tuple(registry.get(b).version for b in bots),
        players=kw.pop("players", 4),
        games=games,
        seed=kw.pop("seed", 7),
        time_per_move_ms=kw.pop("time_per_move_ms", 20.0),
        **kw,
    )


def strip_timing(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in line.items() if k not in TIMING_KEYS} for line in lines]


def read_lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in (folder / "games.jsonl").read_text().splitlines()]


# ---------------------------------------------------------------------------- the plan
def test_deal_seeds_are_hashed_not_adjacent() -> None:
    seeds = [deal_seed(0, d) for d in range(50)]
    assert len(set(seeds)) == 50
    assert all(abs(a - b) != 1 for a, b in itertools.pairwise(seeds))
    assert deal_seed(1, 0) not in seeds
    assert all(0 <= s < 2**63 for s in seeds)


def test_every_bot_sits_in_every_seat_of_every_deal() -> None:
    plan = plan_tournament(["a", "b", "c", "d"], 4, 10, master=3)
    assert len(plan) == 12  # rounded up to whole deals
    assert [g.index for g in plan] == list(range(12))
    for deal in range(3):
        games = [g for g in plan if g.deal == deal]
        assert len({g.seed for g in games}) == 1
        for seat in range(4):
            assert sorted(g.seating[seat] for g in games) == ["a", "b", "c", "d"]
    assert plan == plan_tournament(["a", "b", "c", "d"], 4, 10, master=3)
    assert plan != plan_tournament(["a", "b", "c", "d"], 4, 10, master=4)


def test_more_bots_than_seats_are_balanced() -> None:
    bots = ["a", "b", "c", "d", "e", "f", "g"]
    plan = plan_tournament(bots, 3, 3 * 70, master=1)
    deals: dict[str, int] = dict.fromkeys(bots, 0)
    for g in plan:
        if g.index % 3 == 0:
            for name in g.seating:
                deals[name] += 1
    assert max(deals.values()) - min(deals.values()) <= 1
    assert sum(deals.values()) == 70 * 3


def test_fewer_bots_than_seats_and_challenges_rotate_distinct_seatings() -> None:
    plan = plan_tournament(["a", "b"], 4, 8, master=0)
    for deal in (0, 1):
        seatings = [g.seating for g in plan if g.deal == deal]
        assert len(set(seatings)) == 4
        assert all(set(s) == {"a", "b"} for s in seatings)
    challenge = plan_challenge("hero", "base", 4, 8, master=0)
    assert [g.seating.index("hero") for g in challenge] == [0, 3, 2, 1, 0, 3, 2, 1]
    assert [g.seed for g in challenge] == [g.seed for g in plan]
    assert len(plan_tournament(["solo"], 4, 5, master=0)) == 5  # one bot: one game per deal


# ------------------------------------------------------------------------ the game loop
@pytest.mark.parametrize(
    "seating",
    [
        ("random", "random", "random", "random"),
        ("rule", "random", "first", "rule"),
        ("pimc", "random", "rule"),
        ("first", "rule", "random", "random", "first"),
    ],
)
def test_play_game_plays_the_same_game_as_play_local_game(
    seating: tuple[str, ...], registry: BotRegistry
) -> None:
    options = GameOptions(players=len(seating))
    for seed in (0, 12345):
        line = play_game(seating, options, seed, 5.0, registry)
        ref = play_local_game(
            list(seating), options, seed, 5.0, enforce_budget=False, registry=registry
        )
        assert line["status"] == "ok"
        assert line["totals"] == ref.totals
        assert line["round_scores"] == ref.round_scores
        assert line["winners"] == ref.winners
        assert line["moves"] == [len(ref.move_times_ms(s)) for s in range(len(seating))]
        assert line["faults"] == [] == ref.faults


def test_a_bot_whose_factory_raises_forfeits(registry: BotRegistry) -> None:
    line = play_game(("rule", "broken", "random"), GameOptions(players=3), 1, 5.0, registry)
    assert (line["status"], line["blame"], line["blame_seat"]) == ("crashed", "broken", 1)
    assert line["totals"] is None
    assert line["faults"][0]["stage"] == "factory"
    assert "RuntimeError: no bot today" in line["faults"][0]["text"]


# ---------------------------------------------------------------------- whole tournaments
def test_same_seed_same_results_whatever_the_workers(
    registry: BotRegistry, plugin_dir: Path, tmp_path: Path
) -> None:
    config = config_for(registry, ("rule", "random", "first"), 24, players=3)
    runs = [
        run_tournament(config, registry, tmp_path / name, workers=w, plugins_dirs=[plugin_dir])
        for name, w in (("one", 1), ("two", 2), ("again", 2))
    ]
    files = [strip_timing(read_lines(r.out_dir)) for r in runs]
    assert len(files[0]) == 24
    assert [line["index"] for line in files[0]] == list(range(24))
    assert files[0] == files[1] == files[2]
    assert runs[0].summary.as_dict() == runs[1].summary.as_dict()
    other = run_tournament(
        config_for(registry, ("rule", "random", "first"), 24, players=3, seed=8),
        registry,
        tmp_path / "other",
        workers=2,
        plugins_dirs=[plugin_dir],
    )
    assert strip_timing(other.lines) != files[0]


def test_hanging_and_crashing_bots_forfeit_and_the_tournament_goes_on(
    registry: BotRegistry, plugin_dir: Path, tmp_path: Path
) -> None:
    config = config_for(registry, ("sleeper", "crasher", "random", "rule"), 12, players=3)
    result = run_tournament(
        config, registry, tmp_path / "run", workers=2, plugins_dirs=[plugin_dir]
    )
    assert result.complete and not result.interrupted
    by_status: dict[str, list[dict[str, Any]]] = {}
    for line in result.lines:
        by_status.setdefault(line["status"], []).append(line)
    for line in result.lines:
        if "crasher" in line["seating"]:
            assert line["status"] == "crashed"
            assert line["blame"] == "crasher"
            assert line["seating"][line["blame_seat"]] == "crasher"
            assert line["totals"] is None
        elif "sleeper" in line["seating"]:
            assert line["status"] == "timeout"
            assert line["blame"] == "sleeper"
            assert line["totals"] is not None  # finished on fallback moves, for reference
            assert "no answer within" in line["faults"][0]["text"]
        else:
            assert line["status"] == "ok"
    assert by_status["crashed"] and by_status["timeout"]
    bots = result.summary.bots
    assert bots["crasher"]["crashes"] == bots["crasher"]["forfeits"] == bots["crasher"]["games"]
    assert bots["sleeper"]["timeouts"] >= 1
    assert bots["random"]["forfeits"] == bots["rule"]["forfeits"] == 0
    assert bots["rule"]["mu"] > bots["crasher"]["mu"]


@pytest.mark.slow
def test_a_bot_the_host_cannot_stop_is_killed_at_the_game_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import druids_p2p.tournament.runner as local_pool

    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "hog.py").write_text(
        "import re\nfrom druids_p2p.bots.host import Bot\n"
        "from druids_p2p.hookspecs import hookimpl\n"
        "class Hog(Bot):\n    def choose(self, view):\n"
        "        re.fullmatch(r'(a|aa)+b', 'a' * 100)  # holds the GIL for ages\n"
        "        return view.legal[0]\n"
        "@hookimpl\ndef druids_register_bots(register):\n    register(name='hog', factory=Hog)\n"
    )
    monkeypatch.setattr(local_pool, "TASK_SLACK_S", 0.2)
    reg = load_bots([folder], default_dirs=False, entry_points=False)
    config = config_for(reg, ("hog", "random", "rule"), 3, players=3)
    result = run_tournament(
        config, reg, tmp_path / "run", workers=3, plugins_dirs=[folder], game_timeout=1.0
    )
    assert [line["status"] for line in result.lines] == ["timeout"] * 3
    assert {line["blame"] for line in result.lines} == {"hog"}
    assert "timeout" in result.lines[0]["faults"][0]["text"]


def test_resume_plays_exactly_what_is_missing(
    registry: BotRegistry, plugin_dir: Path, tmp_path: Path
) -> None:
    config = config_for(registry, ("rule", "random", "first"), 30, players=3)
    full = run_tournament(config, registry, tmp_path / "full", workers=2)
    part = run_tournament(config, registry, tmp_path / "part", workers=1, stop_after=5)
    assert part.interrupted and not part.complete
    assert 5 <= len(part.lines) < 30
    saved = json.loads((tmp_path / "part" / "summary.json").read_text())
    assert saved["complete"] is False and saved["games"] == len(part.lines)
    # A torn last line, as a killed run may leave, is dropped and replayed.
    with (tmp_path / "part" / "games.jsonl").open("a") as f:
        f.write('{"index": 29, "dea')
    with pytest.raises(TournamentError, match="already holds a run"):
        run_tournament(config, registry, tmp_path / "part", workers=2)
    other = config_for(registry, ("rule", "random", "first"), 30, players=3, seed=99)
    with pytest.raises(TournamentError, match="different config"):
        run_tournament(other, registry, tmp_path / "part", workers=2, resume=True)
    with pytest.raises(TournamentError, match="nothing to resume"):
        run_tournament(config, registry, tmp_path / "empty", workers=2, resume=True)
    rest = run_tournament(config, registry, tmp_path / "part", workers=2, resume=True)
    assert rest.complete and rest.played == 30 - len(part.lines)
    assert strip_timing(read_lines(tmp_path / "part")) == strip_timing(read_lines(full.out_dir))
    assert rest.summary.as_dict() == full.summary.as_dict()


# ------------------------------------------------------------------------- the summary
def test_summary_numbers_match_a_hand_computation(registry: BotRegistry, tmp_path: Path) -> None:
    config = config_for(registry, ("rule", "random", "first"), 9, players=3, seed=3)
    result = run_tournament(config, registry, tmp_path / "run", workers=2)
    lines = read_lines(tmp_path / "run")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["games"] == 9 and summary["complete"] is True
    t2 = 4.302653  # Student's t, 97.5%, 2 degrees of freedom (3 deals)
    for bot in ("rule", "random", "first"):
        margins: dict[int, list[float]] = {}
        scores: list[float] = []
        firsts = 0
        placed: dict[int, list[float]] = {}
        for line in lines:
            seat = line["seating"].index(bot)
            totals = line["totals"]
            others = [t for s, t in enumerate(totals) if s != seat]
            margins.setdefault(line["deal"], []).append(totals[seat] - sum(others) / 2)
            scores.append(totals[seat])
            firsts += totals[seat] == max(totals)
            placed.setdefault(line["deal"], []).append(float(totals[seat] == max(totals)))
        deal_means = [statistics.fmean(m) for m in margins.values()]
        mean = statistics.fmean(deal_means)
        half = t2 * statistics.stdev(deal_means) / math.sqrt(3)
        deal_firsts = [statistics.fmean(p) for p in placed.values()]
        rate = statistics.fmean(deal_firsts)
        first_half = t2 * statistics.stdev(deal_firsts) / math.sqrt(3)
        got = summary["bots"][bot]
        assert got["games"] == 9
        assert got["mean_margin"] == pytest.approx(mean)
        assert got["margin_ci95"] == pytest.approx([mean - half, mean + half])
        assert got["mean_score"] == pytest.approx(statistics.fmean(scores))
        assert got["first_place_rate"] == pytest.approx(firsts / 9) == pytest.approx(rate)
        # its interval: deals as the units, as the margin's, clipped to a rate's bounds
        assert got["first_place_ci95"] == pytest.approx(
            [max(0.0, rate - first_half), min(1.0, rate + first_half)]
        )
    # Ratings: PlackettLuce, one update per game in index order, ranks from totals.
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {b: model.rating(name=b) for b in ("rule", "random", "first")}
    for line in lines:
        totals = line["totals"]
        ranks = [1 + sum(o > t for o in totals) for t in totals]
        new = model.rate([[ratings[b]] for b in line["seating"]], ranks=ranks)
        for b, team in zip(line["seating"], new, strict=True):
            ratings[b] = team[0]
    for bot, rating in ratings.items():
        got = summary["bots"][bot]
        assert got["mu"] == pytest.approx(rating.mu)
        assert got["sigma"] == pytest.approx(rating.sigma)
        assert got["ordinal"] == pytest.approx(rating.ordinal())
    assert result.summary.as_dict() == {"games": summary["games"], "bots": summary["bots"]}


def test_clustered_ci_and_t_quantiles() -> None:
    assert t_quantile_975(1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile_975(30) == pytest.approx(2.0423, abs=1e-4)
    assert t_quantile_975(60) == pytest.approx(2.0003, abs=1e-4)
    assert t_quantile_975(10**6) == pytest.approx(1.95996, abs=1e-4)
    assert clustered_mean_ci([(0, 1.0), (0, 3.0)]) == (2.0, None)  # one deal: no interval
    # Unequal clusters: the CR1 sandwich estimate.
    values = [(0, 1.0), (0, 2.0), (1, 4.0), (2, 0.0), (2, 2.0), (2, 4.0)]
    mean, ci = clustered_mean_ci(values)
    assert mean == pytest.approx(13 / 6)
    sums = {0: 3.0, 1: 4.0, 2: 6.0}
    counts = {0: 2, 1: 1, 2: 3}
    se = math.sqrt(3 / 2 * sum((sums[c] - counts[c] * mean) ** 2 for c in sums)) / 6
    assert ci == pytest.approx([mean - t_quantile_975(2) * se, mean + t_quantile_975(2) * se])
