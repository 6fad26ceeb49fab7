"""``druids tournament --p2p`` for any registered game: the line follows the table's own seat
order, a stopped worker stops its peers, and Druids (2004) over real peer processes, resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from cli_harness import audit_record, run_cli
from tournament_harness import REPO, coin_flip_order, interrupt_after, lines_of, resume_to_the_end

from druids_p2p.tournament.worker import seated


def test_seated_puts_the_bots_in_the_coin_flips_order() -> None:
    assert seated(("a", "b", "c"), [2, 0, 1]) == ["b", "c", "a"]
    assert seated(("a", "b"), [0, 1]) == ["a", "b"]
    # A table stopped before everyone was seated keeps the plan's order.
    assert seated(("a", "b"), [None, None]) == ["a", "b"]
    assert seated(("a", "b"), None) == ["a", "b"]
    assert seated(("a", "b"), [0, 0]) == ["a", "b"]


def test_a_stopped_worker_stops_its_table_first(tmp_path: Path) -> None:
    """The pool stops a worker with SIGTERM; the table player's own cleanup (here: killing a
    child process in a ``finally``, as ``play_table`` kills its peers) runs before it exits."""
    pid_file = tmp_path / "child.pid"
    script = textwrap.dedent(
        f"""
        import subprocess, sys, time
        from druids_p2p.tournament.worker import stopped_cleanly

        with stopped_cleanly():
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            try:
                open({str(pid_file)!r}, "w").write(str(child.pid))
                time.sleep(60)
            finally:
                child.kill()
                child.wait(10)
        """
    )
    worker = subprocess.Popen([sys.executable, "-c", script], cwd=REPO)
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the stand-in worker did not start its child"
        time.sleep(0.05)
    child = int(pid_file.read_text())
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(30) == 128 + signal.SIGTERM
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)  # gone (and reaped by the worker), not orphaned


@pytest.mark.slow
@pytest.mark.e2e
def test_druids2004_tournament_over_real_peer_processes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["tournament", "--game", "druids2004", "--p2p", "--bots", "rule,random"]
    args += ["--players", "2", "--games", "2", "--workers", "2", "--out", str(out), "--json"]
    code, stdout, err = run_cli(args, capsys)
    assert code == 0, err
    document = json.loads(stdout)
    assert document["games"] == 2 and set(document["bots"]) == {"rule", "random"}
    lines = lines_of(out)
    assert [line["index"] for line in lines] == [0, 1]
    for line in lines:
        assert line["status"] == "ok", line["faults"]
        assert line["game"] == "druids2004"
        assert sorted(line["seating"]) == ["random", "rule"]
        assert line["seating"] == coin_flip_order(out / "p2p" / f"game-{line['index']:06d}")
        assert line["round_scores"] == [line["totals"]]  # the whole game is one round
        assert line["ended_by"] in ("column", "row", "nothing_left", "stall")
        best = max(line["totals"])
        assert line["winners"] == [s for s, t in enumerate(line["totals"]) if t == best]
        assert line["moves"] == [None, None]
        game_folder = out / "p2p" / f"game-{line['index']:06d}"
        (record,) = game_folder.glob("seat0/tables/*/record.druids")
        code, report = audit_record(str(record))  # the line's totals are the audited game's
        assert code == 0 and report["verdict"] == "complete", report
        assert report["totals"] == line["totals"], (report, line)
    run = json.loads((out / "run.json").read_text())["config"]
    assert run["game"] == "druids2004" and run["p2p"] is True
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and summary["bots"] == document["bots"]
    for name in ("rule", "random"):
        assert document["bots"][name]["finished"] == 2


@pytest.mark.slow
@pytest.mark.e2e
def test_an_interrupted_druids2004_p2p_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["--game", "druids2004", "--p2p", "--bots", "rule,random", "--players", "2"]
    # A move's budget a loaded machine keeps (the default 100 ms timed a bot out under load):
    # this test is about the resume, and the run's config carries the budget to it.
    args += ["--time-per-move", "1000"]
    interrupt_after([*args, "--games", "4", "--workers", "1"], out, 1, 180)
    assert 1 <= len(lines_of(out)) < 4
    full = resume_to_the_end(out, 4, 600)
    assert all(line["status"] == "ok" for line in full), [line["faults"] for line in full]
    assert json.loads((out / "summary.json").read_text())["complete"] is True
