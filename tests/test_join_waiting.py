"""A joiner never waits in silence (issue 28, item 7): ``druids join`` says how the wait goes,
with how long it has waited, while the table fills; says within seconds when the host stops
answering (here: killed), and keeps saying so; and Ctrl-C quits with a line saying what was
kept. Real ``druids host`` and ``druids join`` processes on loopback, every wait bounded."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BOUND_S = 60.0
WAITED = re.compile(r"waited (\d+) s")


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


class Lines:
    """A process's stream read line by line in a thread, waited on with a bound."""

    def __init__(self, stream: object) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.append(str(line).rstrip("\n"))

    def wait_for(self, pattern: str, after: int = 0) -> tuple[int, str]:
        deadline = time.monotonic() + BOUND_S
        while time.monotonic() < deadline:
            for index, line in enumerate(self.lines[after:], start=after):
                if re.search(pattern, line):
                    return index, line
            time.sleep(0.05)
        raise AssertionError(f"no line matching {pattern!r} in {BOUND_S:g} s: {self.lines}")


def test_a_joiner_says_how_long_it_waits_and_that_a_gone_host_does_not_answer(
    tmp_path: Path,
) -> None:
    port = str(_free_udp_port())
    host = subprocess.Popen(
        [sys.executable, "-m", "druids_p2p", "host", "--open", "--players", "3", "--json",
         "--bot", "random", "--beacon-port", port, "--name", "soon gone"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True,
        env=dict(os.environ, DRUIDS_HOME=str(tmp_path / "host")),
    )  # fmt: skip
    joiner: subprocess.Popen[str] | None = None
    try:
        assert host.stdout is not None
        lobby = {}
        for _ in range(20):  # the lobby's address is among the host's first events
            lobby = json.loads(host.stdout.readline() or "{}")
            if lobby.get("event") == "lobby":
                break
        assert lobby.get("event") == "lobby", lobby
        joiner = subprocess.Popen(
            [sys.executable, "-m", "druids_p2p", "join", lobby["lobby"], "--beacon-port", port],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
            env=dict(os.environ, DRUIDS_HOME=str(tmp_path / "joiner")),
        )  # fmt: skip
        err = Lines(joiner.stderr)
        # The host answers: the joiner says the table is filling, and for how long it waited.
        at, line = err.wait_for(r"^\[waiting\] .*2 of 3 seats taken.*waited \d+ s")
        host.kill()  # gone without a word
        host.wait(10)
        at, line = err.wait_for(r"^\[waiting\] .*does not answer.*waited \d+ s", at + 1)
        first = int(WAITED.findall(line)[0])
        at, line = err.wait_for(r"^\[waiting\] .*does not answer.*waited \d+ s", at + 1)
        assert int(WAITED.findall(line)[0]) > first, err.lines  # it keeps saying so
        joiner.send_signal(signal.SIGINT)
        code = joiner.wait(30)
        time.sleep(0.2)
        assert code == 130, err.lines
        assert "Traceback" not in "\n".join(err.lines)
        last = err.lines[-1]
        assert last.startswith("druids: interrupted: ") and "not seated" in last, err.lines
    finally:
        for proc in (host, joiner):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(10)
