"""The Typer application objects that every command module registers on.

Kept separate from :mod:`druids_p2p.cli.main` so that command modules can import ``app`` without
importing each other.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import typer

app = typer.Typer(
    name="druids",
    help="Druids (Amigo, 2017) peer to peer on a LAN: play, replay, audit, bench.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

bench_app = typer.Typer(
    help="Benchmarks: speed is measured here, never in tests.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(bench_app, name="bench")


class Interrupted(Exception):
    """Ctrl-C that reached a command's top: main prints what was kept and exits 130.

    Typer turns a bare ``KeyboardInterrupt`` into a silent exit 130; each command's callback is
    wrapped (``main._guard``) to raise this instead, so that the line is never lost."""


_kept: list[Callable[[], str]] = []


def when_interrupted(kept: Callable[[], str]) -> None:
    """What this command has kept so far, said after "interrupted" if Ctrl-C stops it (the
    latest call wins; asked at that moment, so it can name a folder made since)."""
    _kept[:] = [kept]


def kept_line() -> str | None:
    """What the running command said it keeps (:func:`when_interrupted`), or None."""
    return _kept[-1]() if _kept else None


def forget_kept() -> None:
    _kept.clear()


class CliError(Exception):
    """A user-facing failure: printed as one line on stderr, exits with ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, code: int = 2) -> NoReturn:
    """Stop the command with a one-line error; never a traceback."""
    raise CliError(message, code)


def echo_err(message: str) -> None:
    print(message, file=sys.stderr)


def make_folder(option: str, folder: Path) -> None:
    """Create an output folder named on the command line, or stop naming the option and why."""
    if folder.exists() and not folder.is_dir():
        fail(f"{option} {folder}: not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"{option} {folder}: {exc.strerror or exc}")
