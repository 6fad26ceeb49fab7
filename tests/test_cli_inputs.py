"""Bad input on the command line: one line naming the input, exit 2, never a traceback or a hang.

Each case runs ``druids`` as a real process (bounded by a timeout), so a command that would start
peers, wait in a lobby or leave a socket open shows up as a failure here, not as a hung suite.
Also here: ``druids tables`` prints a ``druids join HOST:PORT`` line that, run as printed, joins.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from druids_p2p.wire import load_or_create

CLI_TIMEOUT_S = 60.0


def druids(
    home: Path, *argv: str, timeout: float = CLI_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DRUIDS_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "druids_p2p", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=env,
        check=False,
    )


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


LONG_NAME = "x" * 60


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--bots", "nosuchbot"], "no bot named 'nosuchbot'"),
        (["play", "--headless", "--time-per-move", "0"], "--time-per-move must be"),
        (["play", "--headless", "--time-per-move", "nan"], "--time-per-move must be"),
        (["play", "--headless", "--time-per-move", "-5"], "--time-per-move must be"),
        (["play", "--headless", "--seats", "human,bot:nosuch,bot:rule"], "no bot named 'nosuch'"),
        (["play", "--headless", "--workdir", "/dev/null"], "--workdir /dev/null"),
        (["replay", "/tmp", "--json"], "/tmp"),
        (["replay", "-", "--seat", "1"], "--seat"),
        (["join", "127.0.0.1:99999"], "port 99999"),
        (["join", "127.0.0.1:0"], "port 0"),
        (["join", ":80"], "':80'"),
        (["join", "127.0.0.1:abc"], "'127.0.0.1:abc'"),
        (["join", "999.1.1.1:4000"], "no such host '999.1.1.1'"),
        (["join", "nosuchhost.invalid:4000"], "no such host 'nosuchhost.invalid'"),
        (["join", "255.255.255.255:4000"], "is not one host's address"),
        (["join", "0.0.0.0:4000"], "is not one host's address"),
        (["join", "127.0.0.1:4000", "--bot", "nosuchbot"], "no bot named 'nosuchbot'"),
        (["join", "friday", "--beacon-port", "99999"], "--beacon-port must be 1..65535"),
        (["host", "--name", LONG_NAME], "--name"),
        (["host", "--name", "bad\x07name"], "--name"),
        (["host", "--beacon-port", "0"], "--beacon-port must be 1..65535"),
        (["host", "--beacon-port", "99999"], "--beacon-port must be 1..65535"),
        (["host", "--bot", "nosuchbot"], "no bot named 'nosuchbot'"),
        (["host", "--players", "three"], "--players': 'three'"),  # a number: named as typed
        (["host", "--gone-after", "soon"], "--gone-after': 'soon'"),
        (["host", "--plugins-dir", "/nonexistent-dir"], "--plugins-dir /nonexistent-dir"),
        (["tournament", "--bots", "rule,random", "--out", "/dev/null"], "--out /dev/null"),
        # A flag the chosen mode has no use for is refused by name, never silently ignored.
        (["play", "--headless", "--bots", "rule,nosuchbot"], "--seats bot:rule,bot:nosuchbot"),
        (["play", "--headless", "--players", "4"], "--players"),
        (["play", "--headless", "--lan"], "--lan"),
        (["play", "--headless", "--trick-pause", "1"], "--trick-pause"),
        (["play", "--headless", "--move-pause", "0"], "--move-pause"),
        (["play", "--headless", "--beacon-port", "45000"], "--beacon-port"),
        (["play", "--headless", "--fingerprint", "abcd1234"], "--fingerprint"),
        (["play", "--headless", "--interface", "lo"], "--interface"),
        (["play", "--headless", "--seats", "bot:rule,bot:rule,bot:rule", "--name", "bo"], "--name"),
        (["play", "--resume"], "--resume"),
        (["play", "--new"], "--new"),
        (["play", "--beacon-port", "45000"], "--beacon-port"),
        (["tables", "--port", "45000", "--beacon-port", "45001"], "give only --beacon-port"),
        (["join", "127.0.0.1:4000", "--seconds", "3"], "--seconds"),
        (
            ["tournament", "--bots", "rule,random", "--time-per-move", "inf"],
            "--time-per-move must be",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, argv: list[str], message: str) -> None:
    proc = druids(tmp_path, *argv)
    err = proc.stderr.strip()
    assert proc.returncode == 2, (proc.returncode, err)
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("druids: error:") and message in err, err
    assert "--budget-ms" not in err  # an internal flag the user never typed


def test_replay_of_a_malformed_file_is_one_line(tmp_path: Path) -> None:
    for content in (b"{}", b"\x00\x01 not a record", b"[1, 2"):
        path = tmp_path / "bad.rec"
        path.write_bytes(content)
        proc = druids(tmp_path, "replay", str(path), "--json")
        assert proc.returncode == 2, (content, proc.stderr)
        err = proc.stderr.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
        assert str(path) in err or "bad.rec" in err, err


# --- druids tables prints the line to join by --------------------------------------------------


def _wait_for_table(home: Path, beacon_port: int, deadline_s: float) -> list[str]:
    """``druids tables`` until it lists one table (bounded): its output lines."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        proc = druids(home, "tables", "--beacon-port", str(beacon_port), "--seconds", "1.5")
        assert proc.returncode == 0, proc.stderr
        if "druids join " in proc.stdout:
            return proc.stdout.splitlines()
    raise AssertionError("the hosted table was never listed")


@pytest.mark.slow
@pytest.mark.e2e
def test_tables_prints_a_join_line_that_joins(tmp_path: Path) -> None:
    """Host a 3-seat table; the line ``druids tables`` prints, run as printed (with a bot), seats
    each joiner and the game is played to the end."""
    beacon_port = free_udp_port()
    env = dict(os.environ, DRUIDS_HOME=str(tmp_path / "host"))
    friends = [load_or_create(tmp_path / f"joiner{i}").fingerprint for i in range(2)]
    host = subprocess.Popen(
        [
            sys.executable, "-m", "druids_p2p", "host", "--players", "3", "--rounds", "1",
            "--bot", "rule", "--beacon-port", str(beacon_port), "--json", "--name", "copy me",
            "--allow", friends[0], "--allow", friends[1],
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )  # fmt: skip
    joiners: list[subprocess.Popen[str]] = []
    try:
        lines = _wait_for_table(tmp_path / "lister", beacon_port, 60)
        (join_line,) = [line.strip() for line in lines if line.strip().startswith("druids join ")]
        argv = shlex.split(join_line)
        assert argv[:2] == ["druids", "join"] and len(argv) == 3
        target = argv[2]
        ip, _, port = target.rpartition(":")
        assert ip == "127.0.0.1" and 1 <= int(port) <= 65535
        assert any("copy me" in line and target in line for line in lines), lines
        for i in range(2):
            joiners.append(
                subprocess.Popen(
                    [sys.executable, "-m", "druids_p2p", *argv[1:], "--bot", "random", "--json"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    stdin=subprocess.DEVNULL,
                    text=True,
                    env=dict(os.environ, DRUIDS_HOME=str(tmp_path / f"joiner{i}")),
                )
            )
        results = []
        for proc in [host, *joiners]:
            out, _ = proc.communicate(timeout=180)
            assert proc.returncode == 0, out[-2000:]
            results.append(json.loads(out.strip().splitlines()[-1]))
        assert all(r.get("finished") for r in results), results
        assert len({json.dumps(r["totals"]) for r in results}) == 1
    finally:
        for proc in [host, *joiners]:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
