"""Running one peer from the command line: its configuration from the options, its events as
lines on the terminal, its result printed (what ``druids peer``, ``host`` and ``join`` share)."""

from __future__ import annotations

import json
import logging
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from druids_p2p.cli.app import (
    ORDER,
    block,
    fail,
    peer_players,
    pick_game,
    rounds_of,
    say,
    scores_text,
    seats_of,
    when_interrupted,
)
from druids_p2p.cli.id_cmd import load_identity
from druids_p2p.cli.peer_checks import check_times, resume_or_new
from druids_p2p.games.registry import new_table_options

ENDING_EVENTS = frozenset({"result", "game_over", "aborted"})
"""Events the text mode does not show: the result block that ends the command says it all."""

if TYPE_CHECKING:
    from druids_p2p.lan.chat import ChatOutbox


def emitter(as_json: bool, moves: bool = True) -> Any:
    """Events as JSON lines on stdout (``--json``) or one line each on stderr. A stream whose
    reader went away (a closed pipe) is let go: the game goes on, its events still reach
    ``events.jsonl`` in the table's folder (run_peer). In text, a round's scores name the
    players (the coin flip's order, from the ``seated`` event)."""
    order: list[str] = []

    def emit(event: dict[str, Any]) -> None:
        kind = event.get("event")
        if not moves and kind == "move":
            return
        if as_json:
            say(json.dumps(event, default=str))
            return
        if kind in ENDING_EVENTS:
            return
        if kind == "seated" and isinstance(event.get("order"), list):
            order[:] = [str(name) for name in event["order"]]
        text = event.get("text") or ", ".join(
            f"{k}={v}" for k, v in event.items() if k not in ("event", "text")
        )
        if kind == "chat":  # table talk reads "name: text" (lan/chat.py)
            text = f"{event.get('name')}: {event.get('text')}"
        scores = event.get("scores")
        if kind == "round_ended" and order and isinstance(scores, list):
            n = int(event.get("round", 0)) + 1
            text = f"round {n} over ({event.get('ended_by')}): {scores_text(order, scores)}"
        say(f"[{kind}] {text}", err=True)

    return emit


def run_one_peer(
    *,
    player: str,
    name: str | None,
    host: bool,
    join: str | None,
    players: int | None,
    rounds: int | None,
    variant: bool,
    table_name: str,
    bind: str,
    port: int,
    announce: bool,
    beacon_port: int,
    budget_ms: float,
    gone_after: float,
    plugins_dir: list[Path],
    events: bool,
    announcement: bytes | None = None,
    move_events: bool = True,
    approve: bool = False,
    open_door: bool = False,
    allow: tuple[str, ...] = (),
    step_deadline: float = 10.0,
    rejoin_time: float = 30.0,
    resume: bool = False,
    new: bool = False,
    table_typed: str | None = None,
    resume_folder: Path | None = None,
    game: str | None = None,
    go_on: bool = False,
    rematches: int = 0,
    chat_lines: tuple[str, ...] = (),
) -> dict[str, Any]:
    from druids_p2p.cli.bot_player import bot_player
    from druids_p2p.lan.admission import terminal_approver
    from druids_p2p.lan.errors import PeerError, TableChoice
    from druids_p2p.lan.peer_config import HostSpec, PeerConfig
    from druids_p2p.peer.session import run_peer
    from druids_p2p.wire import data_dir

    played = pick_game(game, players)
    game, players, rounds = played.name, seats_of(played, players), rounds_of(played, rounds)
    if budget_ms <= 0:
        fail("--budget-ms must be positive")
    check_times(gone_after, step_deadline, rejoin_time)
    resume_or_new(resume, new)
    chat = outbox_of(chat_lines)
    logging.basicConfig(level=logging.WARNING, format="druids: %(message)s")
    identity = load_identity(name)
    options = new_table_options(game, players, variant, rounds)
    spec = HostSpec(table_name, options, game)

    def ask(prompt: str) -> str:
        print(prompt, end="", file=sys.stderr, flush=True)
        line = sys.stdin.readline()
        if not line:
            raise PeerError("standard input closed")
        return line

    seated: dict[str, str] = {}
    shown = emitter(events, move_events)

    def emit(event: dict[str, Any]) -> None:
        if event.get("event") == "seated" and event.get("record"):
            seated["record"] = str(event["record"])
        if event.get("event") == "result" and event.get("finished"):
            seated["finished"] = "yes"
        shown(event)

    def terminated(signum: int, frame: object) -> None:
        # A local table stops its peers once every seat reported the same finished game
        # (peer/local_table.py): then the game is done and written, and this is a clean exit.
        raise SystemExit(0 if "finished" in seated else 128 + signum)

    signal.signal(signal.SIGTERM, terminated)

    def kept() -> str:
        if "record" in seated:
            return f"this seat's record is kept: {seated['record']}"
        return "not seated at a table yet: nothing of one was kept"

    when_interrupted(kept)
    config = PeerConfig(
        home=data_dir(),
        identity=identity,
        player=player,
        bind=bind,
        port=port,
        host=spec if host else None,
        join=join,
        announcement=announcement,
        announce=announce,
        beacon_port=beacon_port,
        budget_ms=budget_ms,
        gone_after_s=gone_after,
        step_deadline_s=step_deadline,
        rejoin_time_s=rejoin_time,
        plugins_dirs=tuple(plugins_dir),
        emit=emit,
        human_input=ask,
        bot_players=bot_player,
        approve_join=terminal_approver(ask) if approve and host else None,
        allow_joins=allow,
        open_table=open_door,
        table_name=table_typed,
        resume=resume,
        new=new,
        resume_folder=resume_folder,
        go_on_ask=_always_yes if go_on else None,
        rematch_ask=_yes_times(rematches) if rematches else None,
        chat=chat,
    )
    if host and not (open_door or allow or approve):
        say(
            "druids: no --open, --allow FP or --approve: every joiner will be refused "
            "(each refusal shows its fingerprint, to --allow)",
            err=True,
        )
    try:
        return run_peer(config)
    except TableChoice as exc:
        fail(str(exc))
    except PeerError as exc:
        fail(str(exc), 1)
    except OSError as exc:
        fail(f"network: {exc}", 1)


def _always_yes(offer: dict[str, Any]) -> bool:
    """``--go-on``: every offer to go on without a departed seat is taken."""
    return True


def _yes_times(times: int) -> Any:
    """``--rematch N``: yes to the first N rematches offered."""
    left = [times]

    def ask(offer: dict[str, Any]) -> bool:
        if left[0] <= 0:
            return False
        left[0] -= 1
        return True

    return ask


def outbox_of(lines: tuple[str, ...]) -> ChatOutbox:
    """``--say``: the lines said to the table once seated (lan/chat.py), checked before any
    socket is opened (a line that cannot be sent stops the command, naming it)."""
    from druids_p2p.lan.chat import ChatOutbox, ChatRefused

    outbox = ChatOutbox()
    for line in lines:
        try:
            outbox.say(line)
        except ChatRefused as exc:
            fail(f"--say {line!r}: {exc}")
    return outbox


def print_result(result: dict[str, Any], as_json: bool) -> None:
    """The peer's result: with ``--json`` all of it, ``players`` added (every seat's name, total
    and place, in play order); else the result block every command ends with."""
    table = peer_players(result)
    if as_json:
        say(json.dumps({**result, "order": ORDER, "players": table}, default=str))
    else:
        for line in block(result, table, [str(result["record"])] if result.get("record") else []):
            say(line)
    if result.get("aborted"):
        raise typer.Exit(1)
