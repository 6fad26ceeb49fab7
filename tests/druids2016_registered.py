"""Druids (2016) registered for a test: this checkout's own entry points (pyproject.toml), as
``pip install -e .`` of it would give them, for this process and the processes it starts.

The shared editable install may describe another checkout whose pyproject lacks the game's
entry point; a ``druids_p2p`` distribution earlier on the path shadows it (tests/dist_info.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dist_info import ROOT, checkout_metadata

from druids_p2p.games import registry

BOUND_S = 240.0


def register(folder: Path) -> Iterator[Path]:
    """This checkout's games registered while inside (``folder``: where the metadata goes)."""
    checkout_metadata(folder)
    sys.path.insert(0, str(folder))
    registry.reload()
    try:
        yield folder
    finally:
        sys.path.remove(str(folder))
        registry.reload()


def env(folder: Path) -> dict[str, str]:
    """A child process's environment: this checkout and its metadata first on the path."""
    before = os.environ.get("PYTHONPATH")
    paths = [str(ROOT), str(folder), *([before] if before else [])]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def druids(folder: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``druids ARGS`` as a real process with the game registered."""
    return subprocess.run(
        [sys.executable, "-m", "druids_p2p", *args],
        capture_output=True, text=True, timeout=BOUND_S, env=env(folder),
        input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
    )  # fmt: skip


def json_of(proc: subprocess.CompletedProcess[str]) -> Any:
    import json

    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)
