"""``druids audit FILE``: re-verify a saved game record and replay it through the rules."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer

from druids_p2p.cli.app import app, fail
from druids_p2p.net.audit import audit_file
from druids_p2p.wire.audit import AuditReport


def _summary(path: Path, report: AuditReport) -> str:
    lines = [f"{path}: {report.messages} messages, table {report.table_id.hex()[:16]}, all valid"]
    for p in report.players:
        lines.append(f"  seat {p['seat']}: {p['name']} ({p['fingerprint']})")
    for r, scores in enumerate(report.round_scores):
        lines.append(f"  round {r + 1}: " + "  ".join(f"{s:+d}" for s in scores))
    lines.append("  totals:  " + "  ".join(str(t) for t in report.totals))
    if report.complete and report.winners is not None:
        names = ", ".join(report.players[w]["name"] for w in report.winners)
        lines.append(f"  game over after {len(report.round_scores)} rounds; won by {names}")
    else:
        lines.append(f"  game not finished ({len(report.round_scores)} rounds scored)")
    if report.aborted is not None:
        lines.append(f"  aborted by {report.aborted}")
    return "\n".join(lines)


@app.command("audit")
def audit_command(
    file: Path = typer.Argument(..., help="A game record written by a peer."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Re-verify every signature and link of a game record and replay every move.

    Exit 0: the record is valid (a summary is printed). Exit 1: the first problem, naming the
    message index and seat. Exit 2: the file cannot be read at all.
    """
    if not file.is_file() or not os.access(file, os.R_OK):
        fail(f"{file}: no such readable file")
    report = audit_file(file)
    if as_json:
        print(json.dumps(report.to_json()))
        if not report.ok:
            raise typer.Exit(1)
        return
    if report.problem is not None:
        problem = str(report.problem)
        fail(problem if problem.startswith(str(file)) else f"{file}: {problem}", 1)
    print(_summary(file, report))
