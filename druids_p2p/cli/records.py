"""The commands over a game's record: ``druids audit`` checks one, ``druids replay`` shows one and
``druids demo`` plays bots to make one; none of them opens a socket."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from druids_p2p.cli.app import app, fail, game_option, pick_game, players_option
from druids_p2p.games.registry import default_game, default_name, game_help, games

if TYPE_CHECKING:
    from druids_p2p.audit.replay import ReplayedGame
    from druids_p2p.wire.transcript import AuditReport


def _verdict_line(report: AuditReport) -> str:
    """The first line: the verdict (``protocol.md`` §9, "Audit verdicts")."""
    if report.stop is not None:
        return str(report.stop)
    if report.complete:
        return "valid and complete"
    return "valid, incomplete: the record ends before its game does, with no recorded stop"


def _summary(path: Path, report: AuditReport) -> str:
    lines = [
        f"{path}: {_verdict_line(report)}",
        f"  {report.messages} messages, table {report.table_id.hex()[:16]}, every one valid",
    ]
    for p in report.players:
        lines.append(f"  seat {p['seat']}: {p['name']} ({p['fingerprint']})")
    for r, scores in enumerate(report.round_scores):
        lines.append(f"  round {r + 1}: " + "  ".join(f"{s:+d}" for s in scores))
    lines.append("  totals:  " + "  ".join(str(t) for t in report.totals))
    if report.complete and report.winners is not None:
        names = ", ".join(report.players[w]["name"] for w in report.winners)
        rounds = f" after {len(report.round_scores)} rounds" if report.round_scores else ""
        lines.append(f"  game over{rounds}; won by {names}")  # (a card table: one game)
    else:
        lines.append(f"  game not finished ({len(report.round_scores)} rounds scored)")
    if report.stop is not None:
        lines.append(f"  recorded reason: {report.stop.reason}")
    return "\n".join(lines)


@app.command("audit")
def audit_command(
    file: Path = typer.Argument(..., help="A game record written by a peer."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Re-verify every signature and link of a game record and replay every move.

    Exit 0: valid, complete. Exit 3: valid, incomplete. Exit 4: valid, stopped (naming whom it
    blames). Exit 1: invalid (the first problem's message and seat). Exit 2: no readable record.
    """
    if not file.is_file() or not os.access(file, os.R_OK):
        fail(f"{file}: no such readable file")
    from druids_p2p.audit.audit import audit_file  # here: a peer process needs no auditor

    report = audit_file(file)
    if as_json:
        print(json.dumps(report.to_json()))
        raise typer.Exit(report.exit_code)
    if report.problem is not None:
        problem = str(report.problem)
        fail(problem if problem.startswith(str(file)) else f"{file}: {problem}", report.exit_code)
    print(_summary(file, report))
    raise typer.Exit(report.exit_code)


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
    """Replay a game record of any game: step through it, print it as text, or as JSON with --json.

    In the terminal UI →/← is a step, PgDn/PgUp a round or turn, q quits. A game in JSON notation is
    checked and its outcome printed (exit 1: an illegal move; 2: malformed input).
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


@app.command("demo")
def demo_command(
    players: int | None = players_option(),
    seed: int = typer.Option(1, "--seed", help="Seed for the deals and the random players."),
    variant: bool = typer.Option(False, "--variant", help="Allow the game's variant, if any."),
    game_name: str = game_option(),
) -> None:
    """Play a whole game between random local players and print it, as the game tells it."""
    from druids_p2p.bots.host import RandomBot
    from druids_p2p.bots.local_game import play_local_game

    spec = pick_game(game_name, players)
    seats = players if players is not None else spec.default_players
    options = spec.rules.make_options(seats, variant)
    result = play_local_game(
        [RandomBot] * seats, options, seed, game=spec.name, enforce_budget=False
    )
    print("\n".join(spec.rules.describe(result.state)))
