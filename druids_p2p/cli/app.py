"""The Typer app every command module registers on, the options several commands share, and
output that survives its reader going away: kept apart from :mod:`druids_p2p.cli.main` so command
modules import it without importing each other."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import typer

from druids_p2p.games.registry import (
    UNUSED_ROUNDS,
    GameSpec,
    check_game,
    check_players,
    default_name,
    game_help,
    game_spec,
    players_help,
    rounds_help,
    variant_help,
)

app = typer.Typer(
    name="druids",
    help="Card games (Druids, any registered game) peer to peer on a LAN: play, replay, audit.",
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


# ---------------------------------------------------------------------- the game options
def game_option() -> Any:
    """``--game``, shared by every command that plays one: any registered game, the default
    game unless told (its help lists them)."""
    return typer.Option(default_name(), "--game", help=game_help())


def players_option(what: str = "seats") -> Any:
    """``--players``, shared likewise: the game's default seats unless told."""
    return typer.Option(None, "--players", help=players_help(what))


def pick_game(name: str | None, players: int | None = None) -> GameSpec:
    """The spec of ``--game NAME``, its ``--players`` checked; exit 2 with one line otherwise."""
    try:
        spec = game_spec(check_game(name))
        if players is not None:
            check_players(spec.name, players)
    except ValueError as exc:
        fail(str(exc))
    return spec


def seats_of(spec: GameSpec, players: int | None) -> int:
    """``--players`` as given (checked by :func:`pick_game`), else the game's default seats."""
    return players if players is not None else spec.default_players


def rounds_of(spec: GameSpec, rounds: int | None) -> int:
    """``--rounds`` checked against the game: 1 to its most (its most if not given); a game
    played without rounds binds the wire's unused value whatever was given."""
    if not spec.rounds:
        return UNUSED_ROUNDS
    if rounds is None:
        return spec.rounds
    if not 1 <= rounds <= spec.rounds:
        fail(f"--rounds must be 1 to {spec.rounds}, not {rounds}")
    return rounds


def rounds_option() -> Any:
    """``--rounds``: the rounds of a game played by rounds (each game's most by default)."""
    return typer.Option(None, "--rounds", help=rounds_help())


def variant_option() -> Any:
    """``--variant``: the game's variant, where it has one."""
    return typer.Option(False, "--variant", help=variant_help())


def options_of(spec: GameSpec, rounds: int | None, variant: bool) -> int:
    """``--rounds`` and ``--variant`` checked against the game (each refused by name where the
    game has no use for it); the rounds to bind."""
    if variant and not spec.variant:
        fail(f"--variant is an option of a game with a variant; {spec.name} has none")
    if rounds is not None and not spec.rounds:
        fail(f"--rounds is an option of a game played by rounds; {spec.name} has none")
    return rounds_of(spec, rounds)


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
