"""Druids (2016) through the program's own commands, as real processes: a headless table of two
peer processes over loopback whose two records ``druids audit`` finds complete, the game file
replayed by ``druids replay --game druids2016`` (exit 0, 1, 2 and its JSON), ``druids demo``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from druids2016_registered import druids, json_of, register

GAME = ["--game", "druids2016"]
FILE = {
    "first": 0,
    "tiles": "CMFCR",
    "placement": {"0": ["c1", "a1", "d1"], "1": ["c7", "b7", "e7"]},
    "moves": ["a1n", "e7s"],
}


@pytest.fixture(scope="module")
def meta(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from register(tmp_path_factory.mktemp("meta"))


@pytest.mark.e2e
@pytest.mark.slow
def test_a_headless_table_of_two_peer_processes_plays_and_both_records_audit(
    tmp_path: Path, meta: Path
) -> None:
    seats = ["--seats", "bot:search,bot:rule", "--json", "--workdir", str(tmp_path)]
    out = json_of(druids(meta, "play", "--headless", *GAME, *seats))
    assert out["game"] == "druids2016" and out["finished"] and out["aborted"] is None, out
    assert sorted(out["totals"]) in ([0, 2], [1, 1])
    records = [Path(r) for r in out["records"]]
    assert len(records) == 2 and len({r.read_bytes() for r in records}) == 1
    for record in records:
        report = json_of(druids(meta, "audit", str(record), "--json"))
        assert report["verdict"] == "complete", report
        assert (report["totals"], report["winners"]) == (out["totals"], out["winners"])
    replayed = json_of(druids(meta, "replay", str(records[0]), "--json"))
    placements = [m for m in replayed["moves"] if m["move"] == "play placement"]
    assert len(placements) == 4 and replayed["outcome"]["complete"]


def test_replay_of_a_game_file_exit_codes_and_json(tmp_path: Path, meta: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(FILE))
    out = json_of(druids(meta, "replay", *GAME, str(good), "--json"))
    assert set(out) == {"result", "legal", "position"} and out["result"] is None
    assert out["position"]["to_move"] == 0 and "c1n" in out["legal"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(FILE | {"moves": ["a1n", "e7n"]}))
    proc = druids(meta, "replay", *GAME, str(bad), "--json")
    assert proc.returncode == 1, proc.stderr
    failed = json.loads(proc.stdout)
    assert failed["move"] == 1 and "e7n" in failed["error"] and "faces n" in failed["error"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(FILE | {"tiles": "CCCCC"}))
    proc = druids(meta, "replay", *GAME, str(broken), "--json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and str(broken) in proc.stderr and "tiles" in proc.stderr
    named = tmp_path / "named.json"  # the file's "game" picks the game without --game
    named.write_text(json.dumps(FILE | {"game": "druids2016"}))
    assert json_of(druids(meta, "replay", str(named), "--json"))["legal"] == out["legal"]


def test_demo_prints_a_whole_game(meta: Path) -> None:
    proc = druids(meta, "demo", *GAME, "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("P0 wins") or last.startswith("P1 wins") or last.startswith("Drawn")


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("p2p", [False, True])
def test_a_tournament_of_druids2016(tmp_path: Path, meta: Path, p2p: bool) -> None:
    """In worker processes, and (``--p2p``) a peer process per seat over the real protocol: each
    game a win or a draw of the two seats, its ratings in the summary."""
    games = 2 if p2p else 6
    args = ["tournament", *GAME, "--bots", "rule,random", "--games", str(games), "--json"]
    args += ["--time-per-move", "20", "--workers", "1", "--out", str(tmp_path)]
    summary = json_of(druids(meta, *args, *(["--p2p"] if p2p else [])))
    assert set(summary["bots"]) == {"rule", "random"}, summary
    lines = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(lines) >= games and all(g["game"] == "druids2016" for g in lines), lines
    assert all(g["status"] == "ok" and len(g["totals"]) == 2 for g in lines), lines
