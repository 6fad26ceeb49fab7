"""Running the command line in-process, as a test sees it: exit code, stdout, stderr."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

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


def audit_record(record: str) -> tuple[int, dict[str, Any]]:
    """``druids audit RECORD --json`` in this process: its exit code and its JSON report.

    The end-to-end tests audit every peer's record after a game; run in the test's own process
    (the package already imported) each audit saves a fresh interpreter's start and imports, most
    of an audit's CPU time. The audit command's own process behaviour (exit codes, one-line
    errors) is tested through real processes in test_audit.py and test_audit_verdicts.py. Output
    that is not JSON comes back as ``{"stdout": …, "stderr": …}`` for the failure message."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(["audit", record, "--json"])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    try:
        report: dict[str, Any] = json.loads(out.getvalue())
    except json.JSONDecodeError:
        report = {"stdout": out.getvalue(), "stderr": err.getvalue()[-2000:]}
    return code, report


RESULT_ROW = re.compile(r"^\s+(\d+)\s+(\S+)\s+(-?\d+|-)\s+(\d+|-)$")


def result_block(stdout: str) -> tuple[str, list[tuple[int, str, int, int]], list[str]]:
    """The result block a command printed (``cli/app.py``): its first line, a row per
    seat in play order (seat, name, total, place) and the records."""
    lines = stdout.strip().splitlines()
    rows = [m.groups() for m in map(RESULT_ROW.match, lines) if m]
    records = [line.removeprefix("record: ") for line in lines if line.startswith("record: ")]
    table = [(int(s), n, int(t), int(p)) for s, n, t, p in rows if t != "-" and p != "-"]
    return lines[0], table, records


def check_result_block(stdout: str, report: dict[str, Any]) -> None:
    """The printed result is the audited one: each seat's name and total, the winners named."""
    first, rows, _ = result_block(stdout)
    names = [p["name"] for p in report["players"]]
    assert [(seat, name, total) for seat, name, total, _ in rows] == [
        (seat, names[seat], total) for seat, total in enumerate(report["totals"])
    ], stdout
    assert first.startswith(f"game over: {' and '.join(names[w] for w in report['winners'])} ")
