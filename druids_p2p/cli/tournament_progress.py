"""A tournament's progress on stderr: a live bar (games, rate, ETA, ratings, LLR) or, without one,
a status line now and then; never on stdout, which holds the result."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from druids_p2p.cli.app import echo_err

if TYPE_CHECKING:
    from collections.abc import Callable


def rate_text(speed: float | None) -> str:
    """Games per second, or seconds per game under one a second (slow bots: "0 games/s" said
    nothing); empty before the first game."""
    if not speed:
        return ""
    return f"{speed:,.0f} games/s" if speed >= 1 else f"{1 / speed:,.1f} s/game"


class _Rate:
    """A rich progress column: games per second (seconds per game when slower)."""

    @staticmethod
    def make() -> Any:
        from rich.progress import ProgressColumn
        from rich.text import Text

        class RateColumn(ProgressColumn):
            def render(self, task: Any) -> Text:
                return Text(rate_text(task.finished_speed or task.speed))

        return RateColumn()


@dataclass
class Live:
    """The callbacks a run reports to: games done of total, and a status line (ratings, LLR)."""

    progress: Callable[[int, int], None] | None = None
    status: Callable[[str], None] | None = None


STATUS_LINE_EVERY_S = 10.0
"""Without a progress bar, how often a testing run prints its status line on stderr."""


@contextmanager
def progress_bar(enabled: bool, label: str, status_lines: bool = False) -> Iterator[Live]:
    """A live bar on stderr (games done, rate, ETA, the ratings and LLR), or nothing.

    Without the bar, ``status_lines`` prints the status line to stderr every
    :data:`STATUS_LINE_EVERY_S` (a sequential test reports its LLR as it goes). Never stdout.
    """
    if not enabled:
        if not status_lines:
            yield Live()
            return
        last = [time.monotonic()]

        def line(text: str) -> None:
            now = time.monotonic()
            if now - last[0] >= STATUS_LINE_EVERY_S:
                last[0] = now
                echo_err(text)

        yield Live(status=line)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _Rate.make(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
    )
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(label, total=None, status="")
        started = [False]

        def update(done: int, total: int) -> None:
            if not started[0]:
                bar.reset(task, total=total, completed=done)  # rate counts this run's games
                started[0] = True
            else:
                bar.update(task, completed=done, total=total)

        def status(text: str) -> None:
            bar.update(task, status=text)

        yield Live(update, status)


def want_progress(flag: bool, as_json: bool = False) -> bool:
    """The bar when asked for, else on a terminal unless the output is JSON."""
    return flag or (sys.stderr.isatty() and not as_json)
