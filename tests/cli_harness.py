"""Running the command line in-process, as a test sees it: exit code, stdout, stderr."""

from __future__ import annotations

import pytest

from druids_p2p.cli.main import main


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``druids ARGS`` in this process; a ``SystemExit`` is the exit code, as a shell sees it."""
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
