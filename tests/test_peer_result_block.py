"""``druids host`` and ``druids join`` end with the result block ``play --headless`` ends with
(issue 28 item 5): every seat's player by name, with total and place, seats in play order, and
this seat's record; no debug dump of the peer's result on stderr; ``--json`` adds ``players``.
Real processes on loopback: a host and two joiners, each seat a bot, one round."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from cli_harness import audit_record, check_result_block, result_block

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BOUND_S = 240.0


def _druids(home: Path, *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "druids_p2p", *argv],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        env=dict(os.environ, DRUIDS_HOME=str(home)),
    )  # fmt: skip


def test_host_and_join_end_with_every_player_named_and_no_debug_dump(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        beacon_port = str(s.getsockname()[1])
    host = _druids(
        tmp_path / "host", "host", "--open", "--players", "3", "--rounds", "1", "--bot", "rule",
        "--beacon-port", beacon_port, "--name", "blocks",
    )  # fmt: skip
    procs = [host]
    try:
        assert host.stderr is not None
        lobby = ""
        for _ in range(50):  # "[lobby] lobby=HOST:PORT, …" is among the host's first lines
            line = host.stderr.readline()
            if line.startswith("[lobby] lobby="):
                lobby = line.split("=", 1)[1].split(",", 1)[0]
                break
        assert lobby, "the host never said where its lobby is"
        for i, extra in enumerate(([], ["--json"])):
            procs.append(_druids(tmp_path / f"j{i}", "join", lobby, "--bot", "random", *extra))
        with ThreadPoolExecutor(len(procs)) as pool:  # every pipe read at once: none fills
            outs = list(pool.map(lambda proc: proc.communicate(timeout=BOUND_S), procs))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    assert [proc.returncode for proc in procs] == [0, 0, 0], outs
    (host_out, host_err), (join_out, join_err), (json_out, _) = outs
    for out, err in ((host_out, host_err), (join_out, join_err)):
        assert "move_latency_ms" not in out + err and "[result]" not in err  # no debug dump
        _, rows, records = result_block(out)
        assert len(rows) == 3 and len(records) == 1  # every seat; this seat's record
        code, report = audit_record(records[0])
        assert code == 0 and report["verdict"] == "complete", report
        check_result_block(out, report)
    result = json.loads(json_out.strip().splitlines()[-1])
    names = [p["name"] for p in report["players"]]
    assert [(p["seat"], p["name"], p["total"]) for p in result["players"]] == [
        (seat, names[seat], total) for seat, total in enumerate(report["totals"])
    ]
    assert result["order"] == "play" and result["totals"] == report["totals"]  # old keys kept
