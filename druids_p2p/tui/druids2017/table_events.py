"""What each event of the table says in the log, and what it changes on the table screen
(phase line, who joined, who is away, why the table stopped). Split from ``table.py``."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text

from druids_p2p.games.druids2017.notation import Move
from druids_p2p.games.druids2017.rules import ENDED_FIVE_DOMAINS
from druids_p2p.tui.druids2017.cards import move_text
from druids_p2p.tui.druids2017.table_screen_state import TableScreenState
from druids_p2p.tui.widgets import name_text, who

EVENT_STYLE = {
    "aborted": "bold red",
    "bot_failed": "bold red",
    "warning": "yellow",
    "away": "yellow",
    "rejoined": "cyan",
    "slow": "magenta",
    "round_ended": "bold",
    "game_over": "bold green",
}


def clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def _move_line(table: TableScreenState, event: dict[str, Any]) -> Text:
    snap = table.snapshot
    seat = event.get("seat")
    line = name_text(snap, int(seat)) if snap is not None and seat is not None else Text("?")
    line.append(" play " if snap is not None and seat == snap.my_seat else " plays ")
    try:
        variant = snap is not None and snap.variant
        line.append_text(move_text(Move.from_token(str(event.get("move"))), variant))
    except ValueError:
        line.append(str(event.get("move")))
    return line


def describe(table: TableScreenState, kind: str, event: dict[str, Any]) -> Text | str | None:
    """The log line of one event (None: nothing to log), updating the screen's state."""
    snap = table.snapshot
    if kind == "lobby":
        table.players = int(event.get("players", table.players))
        table.joined = []
        table.phase_text = "Waiting for players to join…"
        return f"table open; lobby at {event.get('lobby')} — waiting for players"
    if kind == "joined":
        table.joined.append(str(event.get("name")))
        return f"{event.get('name')} joined ({event.get('seats')}/{table.players})"
    if kind == "refused":
        return f"refused {event.get('name')} (fingerprint {event.get('fingerprint')})"
    if kind == "joining":
        table.phase_text = "Asking the host for a seat…"
        return f"asking for a seat at '{event.get('table')}' (host {event.get('host')})"
    if kind == "rejoining":
        return f"rejoining the unfinished table in {event.get('folder')}"
    if kind == "seated" and "record" in event:
        table.record = str(event["record"])
        table.phase_text = "Seated: fixing the seat order by coin flip…"
        return f"seated; game record: {table.record}"
    if kind == "round_started":
        r = int(event.get("round", 0)) + 1
        rounds = snap.rounds if snap is not None else "?"
        table.phase_text = f"Round {r} of {rounds}: shuffling and dealing (mental cards)…"
        return f"round {r}: shuffling and dealing"
    if kind == "move":
        return _move_line(table, event)
    if kind == "round_ended":
        r = int(event.get("round", 0)) + 1
        how = "five domains" if event.get("ended_by") == ENDED_FIVE_DOMAINS else "all played"
        table.phase_text = f"Round {r} over ({how}): revealing and auditing the deal…"
        return f"round {r} over ({how}) — scores: {table.by_name(event.get('scores'))}"
    if kind == "game_over":
        table.finished = True
        winners = ", ".join(table.seat_name(w) for w in event.get("winners") or ())
        return f"game over — totals: {table.by_name(event.get('totals'))}; won by {winners}"
    if kind == "away":
        name = str(event.get("name"))
        table.away[name] = time.monotonic() - float(event.get("seconds", 0.0))
        table.rejoined.pop(name, None)
        return f"{name} is away (silent for {event.get('seconds')} s); the table waits"
    if kind == "rejoined":
        name = str(event.get("name"))
        since = table.away.pop(name, None)
        table.rejoined[name] = time.monotonic()
        gone = f" after {clock(time.monotonic() - since)}" if since is not None else ""
        return f"{name} is back{gone}"
    if kind in ("slow", "not_slow"):
        name = str(event.get("name"))
        if kind == "slow":
            table.slow.add(name)
        else:
            table.slow.discard(name)
        return str(event.get("text"))
    if kind == "aborted":
        reason = str(event.get("reason"))
        blame = event.get("blame")
        table.blame = int(blame) if isinstance(blame, int) else None
        blamed = ""
        if table.blame is not None and snap is not None:
            blamed = f" — blamed: seat {table.blame} ({snap.name(table.blame)})"
        table.stopped = f"{reason}{blamed}"
        return f"TABLE STOPPED: {reason}{blamed}"
    if kind == "result":
        table.result = {k: v for k, v in event.items() if k != "event"}
        if event.get("record"):
            table.record = str(event["record"])
        table.finished = bool(event.get("finished"))
        table.show_end(event)
        return f"game record: {table.record}"
    if kind in ("warning", "bot_failed"):
        return str(event.get("text"))
    text = event.get("text")
    return str(text) if text else None


def took_line(table: TableScreenState) -> Text | None:
    """``rule-2 takes the trick`` (``you take``) for the trick just completed."""
    snap = table.snapshot
    view = snap.view if snap is not None else None
    if snap is None or view is None or not view.tricks:
        return None
    winner = view.tricks[-1][2]
    line = name_text(snap, winner)
    line.append(" take the trick" if who(snap, winner) == "you" else " takes the trick")
    return line
