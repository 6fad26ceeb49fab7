"""``druids replay FILE``: a game record stepped through in the terminal UI, or printed as JSON.

Two kinds of file are taken, told apart by their first bytes: a peer's game record
(``record.druids``, which starts with the record's magic header) and a game written in the JSON
notation (docs/rules.md), the engine's contract with the outside world.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from druids_p2p.cli.app import app, fail
from druids_p2p.rulesets import DEFAULT_RULESET as DEFAULT_GAME
from druids_p2p.rulesets import GAME_HELP, RULESETS, check_game


def read_text_arg(path: str) -> str:
    """Read a FILE argument ('-' = stdin) as UTF-8, turning every failure into a one-line error."""
    try:
        if path == "-":
            return sys.stdin.buffer.read().decode("utf-8")
        return Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        fail(f"{path}: neither a game record nor the JSON notation (not UTF-8 text)")
    except OSError as exc:
        fail(f"{path}: {exc.strerror or exc}")


@app.command("replay")
def replay_command(
    file: str = typer.Argument(
        ...,
        help="A game record (a peer's record.druids) or a game in the JSON notation; '-' = stdin "
        "(notation only).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print the replayed game as JSON instead of opening the viewer."
    ),
    seat: int | None = typer.Option(
        None, "--seat", help="Record: show the game as this play seat saw it [the record's owner]."
    ),
    game: str = typer.Option(DEFAULT_GAME, "--game", help=GAME_HELP),
) -> None:
    """Replay a game record: step through it trick by trick in the terminal UI (→/← a trick,
    PgDn/PgUp a round, q quits), or print it with --json.

    A record shows the game as its owner saw it (their hand, everyone's piles) and every hand
    once a round is revealed; --json prints the players, each round's hands and moves, the game
    in the JSON notation and the audit's verdict. A file in the JSON notation is checked through
    the rules engine and its outcome printed as JSON (exit 1: an illegal move, as
    {"ok": false, "round", "move", "error"}). Exit 2: malformed input (one line on stderr).
    """
    from druids_p2p.net.record_replay import is_record_file

    if file != "-" and is_record_file(Path(file)):
        _replay_record(Path(file), as_json, seat)
        return
    if seat is not None:
        fail("--seat chooses whose view of a game record is shown: the JSON notation has none")
    text = read_text_arg(file)
    try:
        code, result = RULESETS[check_game(game)].replay(text)
    except ValueError as exc:
        fail(f"{file}: {exc}")
    print(json.dumps(result))
    if code:
        raise typer.Exit(code)


def _replay_record(path: Path, as_json: bool, seat: int | None) -> None:
    from druids_p2p.net.record_replay import RecordReplayError, read_game

    try:
        game = read_game(path, seat=seat)
    except RecordReplayError as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps(game.as_json()))
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("the replay viewer needs a terminal; add --json to print the replayed game")
    from druids_p2p.tui.game_uis import game_ui

    try:
        viewer = game_ui(game.ruleset).replay
    except ValueError as exc:
        fail(f"{path}: {exc}")
    if viewer is None:
        fail(f"{path}: a {game.ruleset} record has no viewer; add --json to print the replay")
    viewer(game).run()
