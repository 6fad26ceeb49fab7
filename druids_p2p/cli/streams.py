"""Writing to stdout/stderr that survives the reader going away.

A peer's progress goes to whoever reads its output (a terminal, a script, a test). If that reader
closes the pipe mid-game, a write raises ``BrokenPipeError``: that must not stop a game the other
players are in. The first failed write swaps the stream for ``/dev/null`` (so neither later writes
nor the interpreter's last flush at exit fail again); the events still go to the table's
``events.jsonl`` (peer/homes.py).
"""

from __future__ import annotations

import contextlib
import os
import sys


def say(line: str, err: bool = False) -> None:
    """Print ``line`` to stdout (or stderr), flushed; a closed stream is let go silently."""
    stream = sys.stderr if err else sys.stdout
    try:
        print(line, file=stream, flush=True)
    except (OSError, ValueError):  # EPIPE, or a stream already closed
        _let_go(err)


def _let_go(err: bool) -> None:
    devnull = open(os.devnull, "w")  # noqa: SIM115 - replaces the stream for the process
    old = sys.stderr if err else sys.stdout
    if err:
        sys.stderr = devnull
    else:
        sys.stdout = devnull
    with contextlib.suppress(OSError, ValueError):
        # Point the file descriptor at /dev/null too: the interpreter's final flush of the
        # original stream (and any child process) then writes nowhere instead of failing.
        os.dup2(devnull.fileno(), old.fileno())
