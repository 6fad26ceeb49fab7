"""``druids history``: the past games this machine kept, newest first (``peer/history.py``).

The records sit deep under the data folder (``games/<game>/me/tables/<id>/record.druids``); this
is where a person finds one again to replay or audit it, and sees the evening's results at a
glance."""

from __future__ import annotations

import json
from datetime import datetime

import typer

from druids_p2p.cli.app import app, fail


@app.command("history")
def history_command(
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list."),
    limit: int = typer.Option(0, "--limit", help="Show only the newest N games (0: all)."),
) -> None:
    """List the past games kept in the data folder, newest first: when, game, players, result,
    record path (replay one with: druids replay RECORD; check it with: druids audit RECORD)."""
    from druids_p2p.peer.history import past_games
    from druids_p2p.wire import data_dir

    if limit < 0:
        fail(f"--limit must be 0 (all) or a number of games, not {limit}")
    data = data_dir()
    games = past_games(data)
    shown = games[:limit] if limit else games
    if as_json:
        print(json.dumps([g.to_json() for g in shown]))
        return
    if not games:
        print(f"no games in {data} yet")
        return
    for game in shown:
        when = datetime.fromtimestamp(game.when).strftime("%Y-%m-%d %H:%M")
        players = ", ".join(p.name for p in game.players) or "?"
        seen = f" (kept by {game.seen_from} seats here)" if game.seen_from > 1 else ""
        print(f"{when}  {game.game or '?'}  {players}{seen}")
        if game.went_on_from:
            print(f"    went on from table {game.went_on_from}, the scores carried")
        print(f"    {game.result()}")
        if game.record.exists():
            print(f"    record: {game.record}")
        else:
            print(f"    folder: {game.folder} (no record)")
    if len(shown) < len(games):
        print(f"({len(games) - len(shown)} older games not shown: --limit 0 shows all)")
