"""What the tournament command's tests share: reading ``games.jsonl``, and a run interrupted by
Ctrl-C, then resumed, through real ``druids tournament`` processes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "DRUIDS_PLUGINS": "none"}
COIN_FLIP = re.compile(r"seat order fixed by coin flip — (.*)")


def lines_of(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(t) for t in (folder / "games.jsonl").read_text().splitlines()]


def interrupt_after(args: list[str], out: Path, games: int, wait_s: float) -> tuple[bytes, bytes]:
    """``druids tournament ARGS --out OUT``, sent Ctrl-C once ``games`` games are written (or
    after ``wait_s``); its stdout and stderr, once it has exited 130 without a traceback."""
    cmd = [sys.executable, "-m", "druids_p2p", "tournament", *args, "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=REPO, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    path = out / "games.jsonl"
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists() and len(path.read_text().splitlines()) >= games:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert b"interrupted" in stderr and b"--resume" in stderr
    assert b"Traceback" not in stderr
    return stdout, stderr


def resume_to_the_end(out: Path, planned: int, timeout: float) -> list[dict[str, Any]]:
    """``druids tournament --resume --out OUT`` to the end: every planned game's line, the
    lines written before the resume unchanged."""
    done = {line["index"]: line for line in lines_of(out)}
    resumed = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "tournament", "--resume", "--out", str(out)],
        cwd=REPO,
        env=ENV,
        capture_output=True,
        timeout=timeout,
    )
    assert resumed.returncode == 0, resumed.stderr
    full = lines_of(out)
    assert [line["index"] for line in full] == list(range(planned))
    for line in full:
        if line["index"] in done:
            assert line == done[line["index"]]
    return full


def coin_flip_order(game_folder: Path) -> list[str]:
    """The bots in the order the seating's coin flip gave, from seat 0's table events."""
    (events,) = game_folder.glob("seat0/tables/*/events.jsonl")
    for text in events.read_text().splitlines():
        found = COIN_FLIP.search(json.loads(text).get("text") or "")
        if found:
            seats = [part.split(": ", 1) for part in found.group(1).split(", ")]
            return [name.split("-", 1)[1] for _, name in sorted(seats, key=lambda s: int(s[0]))]
    raise AssertionError(f"no coin flip in {events}")
