"""A failing bot never looks good (issue 28): a crash, a timeout or an illegal answer forfeits the
game — the bot's loss in every statistic (last place, the table's lowest score, so the worst
margin) — and is shown per bot in the summary, warned about on stderr once per bot with its
first reason; a run in which a bot faulted in every game exits 3. ``druids bench bots`` alike.

The plugin bots are written into a temporary folder, as a user's ``--plugins-dir`` holds them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli

from druids_p2p.tournament.play import score_line

PLUGIN = """
from druids_p2p.bots.host import Bot, BotSpec
from druids_p2p.hookspecs import hookimpl

class Raiser(Bot):
    def choose(self, view):
        raise RuntimeError("boom")

class SeatZeroCheat(Bot):
    '''Plays the first legal move, but answers an illegal one whenever it sits in seat 0.'''
    def choose(self, view):
        return -1 if self.seat == 0 else view.legal[0]

BOTH = ("druids2017", "druids2004")

@hookimpl
def druids_register_bots(register):
    register(BotSpec(name="raiser", factory=Raiser, games=BOTH))
    register(BotSpec(name="cheat", factory=SeatZeroCheat, games=BOTH))
"""

EXIT_BOT_FAILED = 3


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("faulty-plugins")
    (folder / "faulty.py").write_text(textwrap.dedent(PLUGIN))
    return folder


def _tournament(
    bots: str, plugins: Path, out: Path, capsys: pytest.CaptureFixture[str], *more: str
) -> tuple[int, str, str]:
    args = ["tournament", "--bots", bots, "--games", "6", "--players", "3", "--workers", "1"]
    args += ["--time-per-move", "50", "--plugins-dir", str(plugins), "--out", str(out), *more]
    return run_cli(args, capsys)


def _rows(table: str) -> list[dict[str, str]]:
    """The summary table's rows by column, read from the right (the interval has a space)."""
    lines = table.splitlines()
    head = lines[0].split()
    rows = []
    for line in lines[1:]:
        if line[:1].isdigit():
            break  # the footer: "6 games (...)"
        cells = line.split()
        rows.append(dict(zip(reversed(head), reversed(cells), strict=False)) | {"bot": cells[0]})
    return rows


def test_a_bot_that_always_raises_is_last_warned_about_and_fails_the_run(
    plugins: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _tournament("raiser,rule,random", plugins, tmp_path / "text", capsys)
    assert code == EXIT_BOT_FAILED, err
    rows = _rows(out)
    assert [r["bot"] for r in rows][-1] == "raiser"  # last, whatever its fallback moves scored
    raiser = next(r for r in rows if r["bot"] == "raiser")
    assert (raiser["crashed"], raiser["timeouts"], raiser["illegal"]) == ("6", "0", "0")
    assert raiser["first"] == "0%"
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2, err  # once for the bot (first reason), once for the run
    assert "'raiser'" in warnings[0] and "6 of 6" in warnings[0]
    assert "RuntimeError: boom" in warnings[0]
    assert "faulted in every game" in warnings[1] and "Traceback" not in err

    code, out, err = _tournament("raiser,rule,random", plugins, tmp_path / "json", capsys, "--json")
    assert code == EXIT_BOT_FAILED
    bots = json.loads(out)["bots"]
    raiser_stats = bots["raiser"]
    assert raiser_stats["forfeits"] == raiser_stats["crashes"] == raiser_stats["seats"] == 6
    assert raiser_stats["finished"] == 0 and raiser_stats["first_place_rate"] == 0.0
    assert raiser_stats["first_fault"]["text"] == "raised RuntimeError: boom"
    assert raiser_stats["mean_margin"] < min(bots[b]["mean_margin"] for b in ("rule", "random"))
    assert raiser_stats["ordinal"] < min(bots[b]["ordinal"] for b in ("rule", "random"))
    lines = [json.loads(t) for t in (tmp_path / "json" / "games.jsonl").read_text().splitlines()]
    assert {line["status"] for line in lines} == {"crashed"}
    assert {line["blame"] for line in lines} == {"raiser"}
    summary = json.loads((tmp_path / "json" / "summary.json").read_text())
    assert summary["statuses"]["crashed"] == 6


def test_an_illegal_answer_forfeits_that_game_only(
    plugins: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cheat`` answers illegally in seat 0 only: it forfeits those games (last, lowest score)
    and plays the others; the run exits 0, with the warning."""
    code, out, err = _tournament("cheat,rule,random", plugins, tmp_path / "run", capsys, "--json")
    assert code == 0, err
    cheat = json.loads(out)["bots"]["cheat"]
    assert cheat["illegal"] == cheat["forfeits"] == 2  # two deals, seat 0 once in each
    assert cheat["crashes"] == cheat["timeouts"] == 0 and cheat["finished"] == 4
    warning = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "'cheat'" in warning[0] and "illegal move -1" in warning[0]
    lines = [json.loads(t) for t in (tmp_path / "run" / "games.jsonl").read_text().splitlines()]
    for line in lines:
        if line["seating"][0] == "cheat":
            assert line["status"] == "illegal" and line["blame_seat"] == 0
            scored = score_line(line)
            assert scored.ranks is not None and scored.ranks[0] == 3  # last of three
            assert scored.totals is not None and scored.totals[0] == min(line["totals"])
        else:
            assert line["status"] == "ok"


def test_bench_bots_counts_faults_warns_and_fails(
    plugins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["bench", "bots", "--bots", "raiser,rule", "--games", "3", "--players", "3"]
    args += ["--workers", "1", "--plugins-dir", str(plugins)]
    code, out, err = run_cli([*args, "--json"], capsys)
    assert code == EXIT_BOT_FAILED, err
    raiser = json.loads(out)["bots"]["raiser"]
    assert raiser["crashes"] == raiser["forfeits"] == 3 and raiser["first_place_rate"] == 0.0
    assert raiser["mean_margin"] < 0
    assert "warning: bot 'raiser'" in err and "RuntimeError: boom" in err
    code, out, err = run_cli(args, capsys)
    assert code == EXIT_BOT_FAILED
    assert "3 forfeited (3 crashed)" in out


# ------------------------------------------------------------------ how a line is scored
def _line(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "index": 0, "deal": 0, "seating": ["a", "b", "c"], "status": "ok", "blame": None,
        "blame_seat": None, "totals": [10, 30, 20], "faults": [],
    }  # fmt: skip
    return base | fields


def _fault(seat: int, text: str, stage: str = "choose") -> dict[str, Any]:
    bot = "abc"[seat]
    return {"seat": seat, "bot": bot, "round": 0, "move": 1, "stage": stage, "text": text}


def test_a_clean_game_is_scored_by_its_totals() -> None:
    scored = score_line(_line())
    assert scored.ranks == [3, 1, 2] and scored.totals == [10, 30, 20]
    assert scored.firsts == [False, True, False] and scored.forfeits == {}


def test_a_faulting_seat_is_last_at_the_lowest_total_and_never_first() -> None:
    """The winner by totals faulted: it ranks last, scores the table's lowest total; the
    others keep their order and the best of them is first."""
    line = _line(status="crashed", blame="b", blame_seat=1, faults=[_fault(1, "raised E")])
    scored = score_line(line)
    assert scored.ranks == [2, 3, 1]
    assert scored.totals == [10, 10, 20]
    assert scored.firsts == [False, False, True]
    assert scored.forfeits == {1: "crashed"}


def test_every_faulting_seat_forfeits_by_its_first_fault() -> None:
    faults = [
        _fault(2, "no answer within 250 ms (budget 100 ms)"),
        _fault(0, "returned illegal move 99 (unknown); legal: G1"),
        _fault(2, "raised E"),
    ]
    scored = score_line(_line(status="timeout", blame="c", blame_seat=2, faults=faults))
    assert scored.forfeits == {2: "timeout", 0: "illegal"}
    assert scored.ranks == [2, 1, 2]
    assert scored.firsts == [False, True, False]


def test_a_game_without_totals_ranks_the_blamed_seat_last_and_scores_nobody() -> None:
    line = _line(status="crashed", blame="a", blame_seat=0, totals=None)
    scored = score_line(line)
    assert scored.ranks == [2, 1, 1] and scored.totals is None
    assert scored.forfeits == {0: "crashed"} and scored.firsts == [False] * 3
    assert score_line(_line(status="crashed", totals=None)).ranks is None  # nobody blamed
