"""The table log wraps at words to its own width, and again after every resize (issue 28 items
9 and 10): a ``RichLog`` rendered each line at 78 columns at least and never again, so a
narrower log cut its lines ("waiting for rule-1, rule-" / "rule-3": the words between were off
screen) and a resized one kept the old width."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App, ComposeResult

from druids_p2p.tui.widgets import TableLog

WORDS = [f"word{i:02d}" for i in range(40)]
LONG = "Druids (2004) — alice's table: waiting for " + ", ".join(WORDS)


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TableLog()


def _rows(log: TableLog) -> list[str]:
    return [strip.text.rstrip() for strip in log.lines]


def _check_wrapped(log: TableLog) -> None:
    """Every line fits the log's width, and the lines read back as the text, word by word."""
    width = log.scrollable_content_region.width
    rows = _rows(log)
    assert all(len(row) <= width for row in rows), (width, rows)
    assert len(rows) > 1
    text = " ".join(row.strip() for row in rows)
    assert text.endswith(LONG), text  # after the time stamp: every word, none cut
    assert log.virtual_size.width <= width  # nothing to scroll sideways to


def test_a_long_line_at_60_columns_keeps_every_word_and_rewraps_after_a_resize() -> None:
    app = LogApp()

    async def main() -> None:
        async with app.run_test(size=(60, 20)) as pilot:
            log = app.query_one(TableLog)
            log.stamp = lambda: "12:00:00 "
            log.append_line(LONG)
            await pilot.pause()
            _check_wrapped(log)
            narrow = len(log.lines)
            await pilot.resize_terminal(110, 20)
            await pilot.pause()
            await pilot.pause()
            _check_wrapped(log)
            assert len(log.lines) < narrow  # wider: fewer rows, the same words
            await pilot.resize_terminal(40, 20)
            await pilot.pause()
            await pilot.pause()
            _check_wrapped(log)
            assert len(log.lines) > narrow

    asyncio.run(main())


def test_lines_written_before_the_log_has_a_size_wrap_to_it_too() -> None:
    app = LogApp()

    async def main() -> Any:
        async with app.run_test(size=(50, 20)) as pilot:
            log = app.query_one(TableLog)
            log.stamp = lambda: "12:00:00 "
            for _ in range(3):
                log.append_line(LONG)
            await pilot.pause()
            rows = _rows(log)
            assert all(len(r) <= log.scrollable_content_region.width for r in rows)
            assert " ".join(r.strip() for r in rows).count(WORDS[-1]) == 3

    asyncio.run(main())
