"""The Typer app every command module registers on, the options several commands share, and
the output they share (lines that survive their reader going away, a game's result block): kept
apart from :mod:`druids_p2p.cli.main` so command modules import it without importing each other."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypedDict

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


ORDER = "play"
"""How the ``players`` of a result are ordered (said in its JSON): by play seat, 0 first."""


class ResultSeat(TypedDict):
    """One seat of a result: its player's name, its play seat, place and total (None while the
    game did not finish), and its record (None where this machine holds none)."""

    name: str
    seat: int
    place: int | None
    total: int | None
    record: str | None


def places(totals: list[int] | None, winners: list[int] | None) -> list[int | None]:
    """Each seat's place: the winners (the rules' word, tie-breaks included) share 1st; every
    other seat comes after them and after each other seat with a higher total."""
    if totals is None or not winners:
        return [None] * len(totals or [])
    won = set(winners)
    out: list[int | None] = []
    for seat, total in enumerate(totals):
        if seat in won:
            out.append(1)
        else:
            ahead = sum(1 for s, t in enumerate(totals) if s not in won and t > total)
            out.append(1 + len(won) + ahead)
    return out


def players(
    names: list[str],
    totals: list[int] | None,
    winners: list[int] | None,
    records: list[str | None],
    finished: bool,
) -> list[ResultSeat]:
    """Every seat's player in play order (``names[s]``, ``records[s]``: play seat ``s``'s)."""
    ranks = places(totals, winners) if finished else [None] * len(names)
    out: list[ResultSeat] = []
    for seat, name in enumerate(names):
        total = totals[seat] if totals is not None and seat < len(totals) else None
        place = ranks[seat] if seat < len(ranks) else None
        record = records[seat] if seat < len(records) else None
        out.append(ResultSeat(name=name, seat=seat, place=place, total=total, record=record))
    return out


def _won(table: list[ResultSeat], winners: list[int] | None) -> str:
    won = [table[w]["name"] for w in winners or () if 0 <= w < len(table)]
    if not won:
        return "nobody won"
    return f"{won[0]} won" if len(won) == 1 else f"{' and '.join(won)} share the win"


def block(result: dict[str, Any], table: list[ResultSeat], records: list[str]) -> list[str]:
    """The lines a command ends with: the outcome, a row per seat (play order), the records."""
    if result.get("aborted"):
        lines = [f"table stopped: {result['aborted']}"]
        blame = result.get("blame")
        if isinstance(blame, int) and 0 <= blame < len(table):
            lines.append(f"blamed: {table[blame]['name']} (seat {blame})")
    else:
        lines = [f"game over: {_won(table, result.get('winners'))} (seats in play order)"]
    width = max([len("player"), *(len(p["name"]) for p in table)])
    lines.append(f"  seat  {'player':<{width}}  total  place")
    for p in table:
        total = "-" if p["total"] is None else str(p["total"])
        place = "-" if p["place"] is None else str(p["place"])
        lines.append(f"  {p['seat']:>4}  {p['name']:<{width}}  {total:>5}  {place:>5}")
    lines += [f"record: {record}" for record in records]
    return lines


def scores_text(names: list[str], scores: list[Any], totals: list[int] | None = None) -> str:
    """A round's scores by name, ``rule-1 +6, random-2 -3``; with running ``totals`` each
    followed by its total so far, ``rule-1 +6 (19)``."""
    parts = []
    for seat, (name, score) in enumerate(zip(names, scores, strict=False)):
        total = f" ({totals[seat]})" if totals is not None and seat < len(totals) else ""
        parts.append(f"{name} {int(score):+d}{total}")
    return ", ".join(parts)


def peer_players(result: dict[str, Any]) -> list[ResultSeat]:
    """A ``host``/``join`` peer's result as players: every seat's name (the seat message's),
    this seat's record only."""
    names = [str(n) for n in result.get("names") or []]
    mine = result.get("seat")
    records: list[str | None] = [
        result.get("record") if seat == mine else None for seat in range(len(names))
    ]
    return players(
        names, result.get("totals"), result.get("winners"), records, bool(result.get("finished"))
    )


__all__ = ["ORDER", "ResultSeat", "block", "peer_players", "places", "players", "scores_text"]
