"""``druids replay FILE``: check a game written in the notation and print its outcome as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from druids_p2p.cli.app import app, fail
from druids_p2p.engine.replay import ReplayInputError, replay
from druids_p2p.games.dispatch import DEFAULT_GAME, GAME_HELP
from druids_p2p.games.dispatch import replay as replay_game


def read_text_arg(path: str) -> str:
    """Read a FILE argument ('-' = stdin) as UTF-8, turning every failure into a one-line error."""
    try:
        if path == "-":
            return sys.stdin.buffer.read().decode("utf-8")
        return Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        fail(f"{path}: not UTF-8 text")
    except OSError as exc:
        fail(f"{path}: {exc.strerror or exc}")


@app.command("replay")
def replay_command(
    file: str = typer.Argument(..., help="Game record as JSON, or '-' for stdin."),
    game: str = typer.Option(DEFAULT_GAME, "--game", help=GAME_HELP),
) -> None:
    """Replay a game record through the rules engine; print the outcome as JSON.

    Exit 0: every move legal. Exit 1: an illegal move ({"ok": false, "round", "move", "error"}).
    Exit 2: malformed input (one line on stderr).
    """
    text = read_text_arg(file)
    try:
        code, result = replay(text) if game == DEFAULT_GAME else replay_game(game, text)
    except (ReplayInputError, ValueError) as exc:
        fail(str(exc))
    print(json.dumps(result))
    if code:
        raise typer.Exit(code)
