"""``druids audit FILE``: re-verify a saved game record and replay it through the rules."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from druids_p2p.cli.app import app, fail

if TYPE_CHECKING:
    from druids_p2p.wire.transcript import AuditReport


def _verdict_line(report: AuditReport) -> str:
    """The first line: the verdict (``protocol.md`` §9, "Audit verdicts")."""
    if report.stop is not None:
        return str(report.stop)
    if report.complete:
        return "valid and complete"
    return "valid, incomplete: the record ends before its game does, with no recorded stop"


def _summary(path: Path, report: AuditReport) -> str:
    lines = [
        f"{path}: {_verdict_line(report)}",
        f"  {report.messages} messages, table {report.table_id.hex()[:16]}, every one valid",
    ]
    for p in report.players:
        lines.append(f"  seat {p['seat']}: {p['name']} ({p['fingerprint']})")
    for r, scores in enumerate(report.round_scores):
        lines.append(f"  round {r + 1}: " + "  ".join(f"{s:+d}" for s in scores))
    lines.append("  totals:  " + "  ".join(str(t) for t in report.totals))
    if report.complete and report.winners is not None:
        names = ", ".join(report.players[w]["name"] for w in report.winners)
        rounds = f" after {len(report.round_scores)} rounds" if report.round_scores else ""
        lines.append(f"  game over{rounds}; won by {names}")  # (a card table: one game)
    else:
        lines.append(f"  game not finished ({len(report.round_scores)} rounds scored)")
    if report.stop is not None:
        lines.append(f"  recorded reason: {report.stop.reason}")
    return "\n".join(lines)


@app.command("audit")
def audit_command(
    file: Path = typer.Argument(..., help="A game record written by a peer."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Re-verify every signature and link of a game record and replay every move.

    Exit 0: valid and complete (the game was played to its end). Exit 3: valid, incomplete
    (the record of a peer still playing, or one cut at an entry boundary). Exit 4: valid, stopped
    with a recorded reason (the seat it names, e.g. "seat 2 unreachable", "seat 1 left"). Exit 1:
    invalid: the first problem, naming the message index and the seat at fault. Exit 2: the file
    is no readable record. --json prints the same verdict as its "verdict" field.
    """
    if not file.is_file() or not os.access(file, os.R_OK):
        fail(f"{file}: no such readable file")
    from druids_p2p.audit.audit import audit_file  # here: a peer process needs no auditor

    report = audit_file(file)
    if as_json:
        print(json.dumps(report.to_json()))
        raise typer.Exit(report.exit_code)
    if report.problem is not None:
        problem = str(report.problem)
        fail(problem if problem.startswith(str(file)) else f"{file}: {problem}", report.exit_code)
    print(_summary(file, report))
    raise typer.Exit(report.exit_code)
