"""``druids replay FILE``: a game record stepped through in the terminal UI, printed as text
(without a terminal) or as JSON, for every game a table plays.

Two kinds of file are taken, told apart by their first bytes: a peer's game record
(``record.druids``, which starts with the record's magic header; its seat message says which game
it holds) and a game written in a game's JSON notation (its rules document), the engine's
contract with the outside world, whose ``"game"`` key (if any) names the game (none: the default
game's notation, which has none).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from druids_p2p.cli.app import app, fail, pick_game
from druids_p2p.games.registry import default_game, default_name, game_help, games

if TYPE_CHECKING:
    from druids_p2p.audit.replay import ReplayedGame


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
    game: str | None = typer.Option(
        None,
        "--game",
        help=f'Notation: {game_help()} [the file\'s own "game", else {default_name()}]',
    ),
) -> None:
    """Replay a game record of any game: step through it in the terminal UI (→/← a step,
    PgDn/PgUp a round or a turn, q quits), print it as text when there is no terminal, or as
    JSON with --json; each says which game the record holds.

    A record shows the game as its owner saw it (their hand, everyone's piles) and every hand
    once it is revealed; --json prints the game, the players, each round's hands and moves (a
    card table's moves and outcome), the game in the JSON notation and the audit's verdict. A
    file in the JSON notation is checked through the rules engine and its outcome printed as
    JSON (exit 1: an illegal move, as {"ok": false, ...}). Exit 2: malformed input (one line on
    stderr).
    """
    from druids_p2p.audit.replay import is_record_file

    if file != "-" and is_record_file(Path(file)):
        _replay_record(Path(file), as_json, seat)
        return
    if seat is not None:
        fail("--seat chooses whose view of a game record is shown: the JSON notation has none")
    text = read_text_arg(file)
    try:
        code, result = pick_game(game or notation_game(text)).rules.replay(text)
    except ValueError as exc:
        fail(f"{file}: {exc}")
    print(json.dumps(result))
    if code:
        raise typer.Exit(code)


def _replay_record(path: Path, as_json: bool, seat: int | None) -> None:
    from druids_p2p.audit.replay import RecordReplayError, read_game

    try:
        game = read_game(path, seat=seat)
    except RecordReplayError as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps(game.as_json()))
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("\n".join(record_text(game)))  # no terminal for the viewer: the game as text
        return
    from druids_p2p.tui.game_ui import game_ui

    try:
        viewer = game_ui(game.ruleset).replay
    except ValueError as exc:
        fail(f"{path}: {exc}")
    if viewer is None:
        fail(f"{path}: a {game.ruleset} record has no viewer; add --json to print the replay")
    viewer(game).run()


def notation_game(text: str) -> str:
    """The game a file in the JSON notation names by its ``"game"`` key, else the default
    game's (whose notation has none)."""
    try:
        data = json.loads(text)
    except ValueError:
        return default_game()  # the default game's replay says what is wrong with it
    named = data.get("game") if isinstance(data, dict) else None
    return named if isinstance(named, str) and named in games() else default_game()


def record_text(game: ReplayedGame) -> list[str]:
    """A replayed record as plain lines: which game, who sat where, the audit's verdict, every
    move in order (each round's hands once revealed; a face-down card once every secret is
    known), and how it ended."""
    rules = game.rules
    names = game.names
    seats = ", ".join(f"seat {i} {n}" for i, n in enumerate(names))
    audit = game.audit
    verdict = audit.verdict if audit.problem is None else f"{audit.verdict}: {audit.problem}"
    lines = [
        f"{game.path}: a {game.ruleset} record, {game.options.players} players — {seats}",
        f"audit: {verdict}",
    ]
    width = max((len(n) for n in names), default=0)
    played = game.card_table
    if played is not None:
        for k, p in enumerate(played.plays, start=1):
            card = "" if p.card is None else f" ({rules.format_card(p.card)})"
            lines.append(f"{k:4d}. {names[p.seat]:<{width}}  {p.token}{card}")
    for rnd in game.rounds:
        shown = "not revealed" if rnd.hands is None else "dealt"
        lines.append(f"round {rnd.number + 1}: {shown}")
        for seat, hand in enumerate(rnd.hands or ()):
            cards = " ".join(rules.format_card(c) for c in sorted(hand))
            lines.append(f"      {names[seat]:<{width}}  {cards}")
        for k, (seat, move) in enumerate(rnd.moves, start=1):
            lines.append(f"{k:4d}. {names[seat]:<{width}}  {move.token()}")
    if game.stopped is not None:
        lines.append(f"stopped: {game.stopped}")
    totals: list[int] | None = audit.totals
    winners: list[int] | None = audit.winners
    if played is not None:
        totals, winners = played.totals, played.winners
    if audit.complete or (played is not None and played.complete):
        won = ", ".join(names[w] for w in winners or ())
        how = f" ({played.ended_by})" if played is not None and played.ended_by else ""
        lines.append(f"game over{how}: totals {totals}, won by {won}")
    return lines
