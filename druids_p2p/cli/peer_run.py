"""Running a peer for `druids peer`, `host` and `join`; `druids id`, the identity it signs with.

The options are checked before any socket opens; the identity is the one file every peer loads
first."""

from __future__ import annotations

import json
import logging
import math
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from druids_p2p.cli.app import (
    ORDER,
    app,
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
from druids_p2p.games.registry import new_table_options

if TYPE_CHECKING:
    from druids_p2p.lan.peer_config import ChatOutbox
    from druids_p2p.wire.identity import Identity


# ``druids id``: show, rename or replace this player's signing identity.


@app.command("id")
def id_command(
    new: bool = typer.Option(False, "--new", help="Make a new key pair (the old file is kept)."),
    name: str | None = typer.Option(None, "--name", help="Set the display name."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show this player's name and public key fingerprint (made on first use).

    The identity lives in the user data folder, or in $DRUIDS_HOME if that is set.
    """
    from druids_p2p.wire.identity import (
        identity_path,
        load_or_create,
        new_identity,
        rename_identity,
    )
    from druids_p2p.wire.msgtypes import IdentityError

    archived = None
    try:
        if new:
            identity, archived = new_identity(name=name)
        elif name is not None:
            identity = rename_identity(name)
        else:
            identity = load_or_create()
    except IdentityError as exc:
        fail(str(exc), 2)
    path = identity_path()
    if as_json:
        out = {
            "name": identity.name,
            "public_key": identity.public_key.hex(),
            "fingerprint": identity.fingerprint,
            "path": str(path),
        }
        if archived is not None:
            out["previous"] = str(archived)
        print(json.dumps(out))
        return
    print(f"name:        {identity.name}")
    print(f"fingerprint: {identity.fingerprint}")
    print(f"public key:  {identity.public_key.hex()}")
    print(f"file:        {path}")
    if archived is not None:
        print(f"previous identity kept as {archived}")


def load_identity(name: str | None) -> Identity:
    """This machine's identity, renamed to ``name`` if one is given (``peer``, ``host``, ``join``,
    ``play``); a bad identity file is one line and exit 2. Here, not in ``peer_run``, so that
    ``play_ui`` and the peer commands need not import each other."""
    from druids_p2p.wire.identity import load_or_create, rename_identity
    from druids_p2p.wire.msgtypes import IdentityError

    try:
        identity = load_or_create()
        if name and identity.name != name:
            identity = rename_identity(name)
    except IdentityError as exc:
        fail(str(exc))
    return identity


# Running one peer for ``druids peer``, ``host`` and ``join``: the checks of their options
# before any socket opens, the bots a peer seats, and the loop that prints its events.


ENDING_EVENTS = frozenset({"result", "game_over", "aborted"})
"""Events the text mode does not show: the result block that ends the command says it all."""


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
        if kind == "chat":  # table talk reads "name: text" (lan/peer_config.py)
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
    rematch_wait: float = 30.0,
    chat_lines: tuple[str, ...] = (),
    coach: bool = False,
) -> dict[str, Any]:
    from druids_p2p.cli.bot_player import bot_player
    from druids_p2p.lan.peer_config import HostSpec, PeerConfig, PeerError, TableChoice
    from druids_p2p.lan.seating import terminal_approver
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
    options = new_table_options(game, players, variant, rounds, coach)
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
        rematch_wait_s=rematch_wait,
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
    """``--say``: the lines said to the table once seated (lan/peer_config.py), checked before any
    socket is opened (a line that cannot be sent stops the command, naming it)."""
    from druids_p2p.lan.peer_config import ChatOutbox, ChatRefused

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


def resume_or_new(resume: bool, new: bool) -> None:
    if resume and new:
        fail("--resume rejoins the saved table, --new starts another: give one of them")


def check_port(option: str, port: int) -> None:
    if not 1 <= port <= 65535:
        fail(f"{option} must be 1..65535, not {port}")


def check_lobby_target(target: str) -> None:
    """``HOST:PORT`` as typed: a port outside 1..65535 or a missing host is named here, before
    any saved table, beacon or socket is looked at."""
    host, sep, port = target.rpartition(":")
    if not sep:
        return  # a table name or lobby id prefix
    if not host or not port.isdigit():
        fail(f"expected HOST:PORT (e.g. 192.168.1.20:45123) or a table name, not {target!r}")
    if not 1 <= int(port) <= 65535:
        fail(f"{target}: port {int(port)} is invalid (a port is 1..65535)")
    import ipaddress
    import socket

    try:
        addresses = {str(i[4][0]) for i in socket.getaddrinfo(host, None, socket.AF_INET)}
    except (OSError, UnicodeError):
        fail(f"{target}: no such host {host!r} (give the IPv4 address 'druids tables' shows)")
    for ip in map(ipaddress.IPv4Address, addresses):
        if ip.is_unspecified or ip.is_multicast or ip == ipaddress.IPv4Address("255.255.255.255"):
            fail(f"{target}: {ip} is not one host's address")


def check_table_name(name: str) -> None:
    """The table name goes into every beacon: one the beacon format refuses is refused here."""
    from druids_p2p.lan.discovery import TABLE_NAME
    from druids_p2p.wire.msgtypes import WireError
    from druids_p2p.wire.schema import check

    try:
        check(TABLE_NAME, name, "--name")
    except WireError as exc:
        fail(f"--name {name!r}: {exc}")


def check_bot(bot: str | None, plugins_dir: list[Path], game: str | None = None) -> None:
    """``--bot NAME`` is looked up before the lobby opens, not once the table is full; with
    ``game``, a bot that does not play it is refused too."""
    check_bots([] if bot is None else [bot], plugins_dir, game)


def check_bots(bots: list[str], plugins_dir: list[Path], game: str | None = None) -> None:
    """Every bot name is looked up, with the plugins of ``plugins_dir`` loaded, before any peer
    process starts (each process loads the same folders): an unknown name is one line naming
    it; with ``game``, a bot that does not play it is refused too."""
    from druids_p2p.cli.tournament_options import load_registry

    if not bots and not plugins_dir:
        return
    registry = load_registry(plugins_dir, False)
    for bot in bots:
        if bot not in registry:
            fail(f"no bot named {bot!r} (known: {', '.join(registry.names())})")
        if game is not None and not registry.get(bot).plays(game):
            known = [b for b in registry.names() if registry.get(b).plays(game)]
            fail(f"bot {bot!r} does not play {game} (bots that do: {', '.join(known)})")


def check_times(gone_after: float, step_deadline: float, rejoin_time: float) -> None:
    if not (math.isfinite(gone_after) and gone_after > 0):
        fail("--gone-after must be a positive number of seconds")
    check_deadlines(step_deadline, rejoin_time)


def check_deadlines(step_deadline: float, rejoin_time: float) -> None:
    if not (math.isfinite(step_deadline) and step_deadline > 0):
        fail("--step-deadline must be a positive number of seconds")
    if not (math.isfinite(rejoin_time) and rejoin_time >= 0):
        fail("--rejoin-time must be a number of seconds, 0 or more")


def bind_address(interface: str | None, address: str | None) -> str:
    from druids_p2p.lan.network import InterfaceError, UnsafeDestination, resolve

    try:
        return resolve(interface=interface, address=address).address
    except (InterfaceError, UnsafeDestination) as exc:
        fail(str(exc))


def check_door(open_door: bool, allow: list[str], approve: bool) -> tuple[str, ...]:
    """``host``'s door options: the ``--allow`` pins (fingerprint prefixes, checked like
    ``--fingerprint``), or one line and exit 2. ``--open`` seats anyone, so it goes alone."""
    from druids_p2p.lan.listener import BadPin, parse_pin

    if open_door and (allow or approve):
        fail("--open seats anyone: it cannot go with --approve or --allow")
    try:
        return tuple(parse_pin(text, "--allow") for text in allow)
    except BadPin as exc:
        fail(str(exc))


MAX_REMATCHES = 99


def check_rematches(rematches: int) -> int:
    """``--rematch N``: 0 to 99 games more."""
    if not 0 <= rematches <= MAX_REMATCHES:
        fail(f"--rematch must be 0 to {MAX_REMATCHES} rematches, not {rematches}")
    return rematches


def check_rematch_wait(seconds: float) -> float:
    """``--rematch-wait SECONDS``: a positive number of seconds."""
    if not (math.isfinite(seconds) and seconds > 0):
        fail(f"--rematch-wait must be a positive number of seconds, not {seconds:g}")
    return seconds
