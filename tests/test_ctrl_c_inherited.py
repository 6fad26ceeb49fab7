"""The processes a test starts handle Ctrl-C as Python's default, however the suite was started.

A suite launched as a background job of a shell without job control (a CI step's ``cmd &``)
inherits SIGINT ignored; the conftest puts the default back in every pytest process, or the
Ctrl-C tests' ``druids`` commands would play on to their end.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAYS_DEFAULT = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"


def _in_background(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``argv`` started as ``sh -c 'ARGV & wait'`` starts it: with SIGINT ignored."""
    script = " ".join(f"'{a}'" for a in argv) + " & wait $!"
    return subprocess.run(
        ["sh", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=240
    )


def test_a_process_a_test_starts_handles_ctrl_c_as_python_default() -> None:
    said = subprocess.run(
        [sys.executable, "-c", SAYS_DEFAULT], capture_output=True, text=True, timeout=60
    )
    assert said.stdout.strip() == "True", said.stderr


@pytest.mark.slow  # three pytest start-ups
def test_a_suite_started_with_ctrl_c_ignored_starts_its_processes_with_the_default() -> None:
    bare = _in_background([sys.executable, "-c", SAYS_DEFAULT])
    assert bare.stdout.strip() == "False", "the background job does not ignore SIGINT here"
    probe = f"{Path(__file__).name}::test_a_process_a_test_starts_handles_ctrl_c_as_python_default"
    for workers in ("0", "1"):  # in the pytest process itself, and in an xdist worker
        run = _in_background(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers,
             f"tests/{probe}"]
        )  # fmt: skip
        assert run.returncode == 0, (workers, run.stdout[-2000:], run.stderr[-2000:])
        assert "1 passed" in run.stdout, (workers, run.stdout[-2000:])
