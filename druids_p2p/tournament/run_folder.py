"""The run folder: ``run.json``, ``games.jsonl`` and ``summary.json``, read and written.

``games.jsonl`` gets one line per finished game, appended as games finish and rewritten in index
order at the end; a torn last line (a killed run) is dropped when the folder is read back, so
the game is simply played again on ``--resume``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from druids_p2p.tournament.config import TournamentConfig, TournamentError
from druids_p2p.tournament.summary import Summary

RUN_FORMAT = 1


@dataclass
class RunResult:
    """What :func:`run_tournament` did; ``lines`` are every game of the folder, in index order."""

    config: TournamentConfig
    out_dir: Path
    lines: list[dict[str, Any]]
    planned: int
    played: int
    """Games played by this invocation (the others were already in the folder)."""
    seconds: float
    interrupted: bool
    summary: Summary
    test: dict[str, Any] | None = None
    """The stopping rule's state (:meth:`.live.Monitor.report`) when one was set."""
    stopped: str | None = None
    """Why the run stopped early (an SPRT decision, a narrow interval), or None."""

    @property
    def complete(self) -> bool:
        return len(self.lines) == self.planned


def read_run(out_dir: Path) -> TournamentConfig | None:
    path = out_dir / "run.json"
    if not path.exists():
        return None
    try:
        return TournamentConfig.from_dict(json.loads(path.read_text())["config"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TournamentError(f"{path}: not a tournament run file ({exc})") from None


def read_games(path: Path) -> dict[int, dict[str, Any]]:
    """Lines of ``games.jsonl`` by index; a torn last line (a killed run) is dropped."""
    games: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return games
    with path.open() as f:
        for text in f:
            try:
                line = json.loads(text)
                games[int(line["index"])] = line
            except (ValueError, KeyError, TypeError):
                continue
    return games


def encode_line(line: dict[str, Any]) -> str:
    return json.dumps(line, separators=(",", ":")) + "\n"


def write_sorted(path: Path, games: dict[int, dict[str, Any]], texts: dict[int, str]) -> None:
    """Rewrite ``games.jsonl`` in index order (reusing the text of lines encoded this run)."""
    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("w") as f:
        for index in sorted(games):
            f.write(texts.get(index) or encode_line(games[index]))
    os.replace(tmp, path)


def write_summary(result: RunResult) -> None:
    document = {
        **result.summary.as_dict(),
        "planned": result.planned,
        "complete": result.complete,
        "statuses": result.summary.statuses,
        "config": result.config.as_dict(),
    }
    if result.test is not None:
        document["test"] = result.test
    (result.out_dir / "summary.json").write_text(json.dumps(document, indent=2) + "\n")
