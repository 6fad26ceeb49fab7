"""Peer processes of a table test: one ``druids`` process each (in a network namespace, or on
loopback without one), its JSON lines read as they come, and the whole table's outcome collected.
Shared by the LAN, fault, resume and split-audit tests (tests/test_*_netns.py, test_resume_e2e.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from netns import Lan

from druids_p2p.wire.identity import Identity, identity_path, load_or_create, save_identity

EXIT_TIMEOUT_S = 10.0
"""How long a process that printed its result may take to exit and finish its output."""


def made_identity(home: Path, index: int) -> Identity:
    """Peer ``index``'s identity in ``home``, made there if need be (a restarted peer keeps it)."""
    home.mkdir(parents=True, exist_ok=True)
    if not identity_path(home).exists():
        save_identity(Identity.generate(f"ns{index}"), identity_path(home), replace=False)
    return load_or_create(home)


def allowed(homes: list[Path]) -> list[str]:
    """``--allow FP`` for each joiner's home (``homes[i]`` is peer ``i + 1``'s): a host seats
    only the keys it is given (its door is closed by default), here its own table's joiners."""
    args = []
    for index, home in enumerate(homes, start=1):
        args += ["--allow", made_identity(home, index).fingerprint]
    return args


class Peer:
    """One ``druids`` process in a namespace (or on loopback without one): its JSON lines on
    stdout, its stderr in a log file."""

    def __init__(self, lan: Lan | None, index: int, args: list[str], home: Path) -> None:
        self.index = index
        self.home = home
        made_identity(home, index)
        self.log = home / "peer.log"
        self.lines: list[dict[str, Any]] = []
        self.arrived: list[float] = []
        """``time.monotonic()`` when each line was read (timelines in reports)."""
        self._changed = threading.Condition()
        argv = [sys.executable, "-m", "druids_p2p", *args]
        env = {**os.environ, "DRUIDS_HOME": str(home)}
        kwargs: dict[str, Any] = {
            "stdout": subprocess.PIPE,
            "stdin": subprocess.DEVNULL,
            "text": True,
            "env": env,
        }
        with open(self.log, "w") as err:
            kwargs["stderr"] = err
            self.proc = lan.run(index, argv, **kwargs) if lan else subprocess.Popen(argv, **kwargs)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                with self._changed:
                    self.lines.append(obj)
                    self.arrived.append(time.monotonic())
                    self._changed.notify_all()

    def events(self, kind: str) -> list[dict[str, Any]]:
        with self._changed:
            return [e for e in self.lines if e.get("event") == kind]

    def first_after(self, kind: str, since: float) -> float | None:
        """When the first ``kind`` event after ``since`` (monotonic) arrived, if one did."""
        with self._changed:
            pairs = list(zip(self.lines, self.arrived, strict=True))
        return next((t for e, t in pairs if e.get("event") == kind and t > since), None)

    def wait_for(
        self, kind: str, timeout: float, cond: Callable[[list[dict[str, Any]]], bool] = bool
    ) -> list[dict[str, Any]]:
        """The events of ``kind`` once ``cond`` holds for them (default: there is one); [] if
        the time runs out or the process ends first."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [e for e in self.lines if e.get("event") == kind]
                if cond(found):
                    return found
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return []
                self._changed.wait(min(left, 0.2))

    def final(self) -> dict[str, Any] | None:
        """What ``--json`` prints last: the result, as one JSON object without an event key
        (call once the process has exited: this waits for the rest of its output to be read)."""
        self._reader.join(timeout=EXIT_TIMEOUT_S)
        with self._changed:
            last = self.lines[-1] if self.lines else None
        return last if last is not None and "event" not in last else None

    def report(self, since: float) -> str:
        tail = self.log.read_text(errors="replace").splitlines()[-15:] if self.log.exists() else []
        with self._changed:
            seen = [
                f"{e.get('event', '<final>')}@{t - since:.1f}s"
                for e, t in zip(self.lines, self.arrived, strict=True)
            ]
        return (
            f"--- peer {self.index}: exit {self.proc.poll()}, {len(seen)} lines, "
            f"last {seen[-8:]}\n" + "\n".join(f"    {line}" for line in tail)
        )


def table_report(peers: list[Peer]) -> str:
    """Each peer's exit code, last events (seconds since the host's first line), stderr tail."""
    since = min((p.arrived[0] for p in peers if p.arrived), default=time.monotonic())
    return "\n" + "\n".join(p.report(since) for p in peers)


def results_of(
    peers: list[Peer],
    timeout: float,
    exit_codes: tuple[int, ...] = (0,),
    exit_s: float = EXIT_TIMEOUT_S,
) -> list[dict[str, Any]]:
    """Every peer's last result event, once each process has exited (with one of
    ``exit_codes``) after printing it; ``timeout`` bounds the wait for all the results."""
    deadline = time.monotonic() + timeout
    results = []
    for peer in peers:
        got = peer.wait_for("result", max(0.1, deadline - time.monotonic()))
        assert got, f"peer {peer.index} reported no result" + table_report(peers)
        results.append(got[-1])
    for peer in peers:
        try:
            code = peer.proc.wait(timeout=exit_s)  # after lingering ~1.5 s
        except subprocess.TimeoutExpired:
            pytest.fail(f"peer {peer.index} did not exit after its result" + table_report(peers))
        assert code in exit_codes, f"peer {peer.index} exited {code}" + table_report(peers)
    return results


def moves_logged(workdir: Path) -> int:
    """Moves the seats of a headless table have logged so far (events.jsonl, beside records)."""
    count = 0
    for log in workdir.glob("*/tables/*/events.jsonl"):  # a folder per seat
        with open(log, errors="replace") as f:
            count += sum('"event": "move"' in line for line in f)
    return count


def power_cut(argv: list[str], workdir: Path, moves: int, bound_s: float) -> None:
    """Run the ``play --headless`` command ``argv`` until its seats have logged ``moves`` moves
    in ``workdir``, then kill it and every peer it started (kill -9 of the group)."""
    first = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + bound_s
        while moves_logged(workdir) < moves and time.monotonic() < deadline:
            assert first.poll() is None, "the table ended before it could be killed"
            time.sleep(0.05)
    finally:
        os.killpg(first.pid, 9)
        first.wait(10)
    assert moves_logged(workdir) >= moves
    time.sleep(0.5)  # the killed group's sockets are gone before the ports are bound again
