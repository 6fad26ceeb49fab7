"""``druids peer`` / ``host`` / ``join`` / ``play --headless``: playing over the LAN protocol."""

from __future__ import annotations

import json
import logging
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import typer

from druids_p2p.cli.app import app, fail, make_folder
from druids_p2p.cli.id_cmd import load_identity
from druids_p2p.cli.streams import say
from druids_p2p.engine import GameOptions
from druids_p2p.net.discovery import DEFAULT_PORT

DEFAULT_SEARCH_S = 5.0
"""Long enough to hear about five beacons (one a second), short enough to fail promptly."""
MAX_SEARCH_S = 600.0
MAX_CANDIDATE_HOSTS = 64
"""Host keys remembered while looking for a table by name (each one listed if it is ambiguous)."""
_GONE_HELP = "Seconds a player may take over a move before the game ends blaming it."
_STEP_HELP = "Seconds a peer may owe an automatic message (deck, receipt) before it is blamed."
_APPROVE_HELP = "Ask on the terminal (y/n) before seating each joiner; default: seat anyone."
_RESUME_HELP = "Rejoin the unfinished table saved here (after a crash)."
_NEW_HELP = "Start a new table even if an unfinished one is saved here (it is kept)."


def _resume_or_new(resume: bool, new: bool) -> None:
    if resume and new:
        fail("--resume rejoins the saved table, --new starts another: give one of them")


def _emitter(as_json: bool, moves: bool = True) -> Any:
    """Events as JSON lines on stdout (``--json``) or one line each on stderr. A stream whose
    reader went away (a closed pipe) is let go: the game goes on, its events still reach
    ``events.jsonl`` in the table's folder (run_peer)."""

    def emit(event: dict[str, Any]) -> None:
        if not moves and event.get("event") == "move":
            return
        if as_json:
            say(json.dumps(event, default=str))
        else:
            text = event.get("text") or ", ".join(
                f"{k}={v}" for k, v in event.items() if k not in ("event", "text")
            )
            if event.get("event") == "chat":  # table talk reads "name: text" (net/chat.py)
                text = f"{event.get('name')}: {event.get('text')}"
            say(f"[{event.get('event')}] {text}", err=True)

    return emit


def _run(
    *,
    player: str,
    name: str | None,
    host: bool,
    join: str | None,
    players: int,
    rounds: int,
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
    step_deadline: float = 30.0,
    resume: bool = False,
    new: bool = False,
    table_typed: str | None = None,
    resume_folder: Path | None = None,
) -> dict[str, Any]:
    from druids_p2p.cli.bot_player import bot_player
    from druids_p2p.net.admission import terminal_approver
    from druids_p2p.net.errors import PeerError, TableChoice
    from druids_p2p.net.peer_config import HostSpec, PeerConfig
    from druids_p2p.net.session import run_peer
    from druids_p2p.wire import data_dir

    if players not in (3, 4, 5):
        fail(f"--players must be 3, 4 or 5, not {players}")
    if not 1 <= rounds <= 5:
        fail(f"--rounds must be 1 to 5, not {rounds}")
    if budget_ms <= 0:
        fail("--budget-ms must be positive")
    if not (math.isfinite(gone_after) and gone_after > 0):
        fail("--gone-after must be a positive number of seconds")
    if not (math.isfinite(step_deadline) and step_deadline > 0):
        fail("--step-deadline must be a positive number of seconds")
    _resume_or_new(resume, new)
    logging.basicConfig(level=logging.WARNING, format="druids: %(message)s")
    identity = load_identity(name)
    spec = HostSpec(table_name, GameOptions(players=players, variant=variant, rounds=rounds))

    def ask(prompt: str) -> str:
        print(prompt, end="", file=sys.stderr, flush=True)
        line = sys.stdin.readline()
        if not line:
            raise PeerError("standard input closed")
        return line

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
        plugins_dirs=tuple(plugins_dir),
        emit=_emitter(events, move_events),
        human_input=ask,
        bot_players=bot_player,
        approve_join=terminal_approver(ask) if approve and host else None,
        table_name=table_typed,
        resume=resume,
        new=new,
        resume_folder=resume_folder,
    )
    try:
        return run_peer(config)
    except TableChoice as exc:
        fail(str(exc))
    except PeerError as exc:
        fail(str(exc), 1)
    except OSError as exc:
        fail(f"network: {exc}", 1)


def _check_port(option: str, port: int) -> None:
    if not 1 <= port <= 65535:
        fail(f"{option} must be 1..65535, not {port}")


def _check_lobby_target(target: str) -> None:
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


def _check_table_name(name: str) -> None:
    """The table name goes into every beacon: one the beacon format refuses is refused here."""
    from druids_p2p.net.discovery import TABLE_NAME
    from druids_p2p.wire.errors import WireError
    from druids_p2p.wire.schema import check

    try:
        check(TABLE_NAME, name, "--name")
    except WireError as exc:
        fail(f"--name {name!r}: {exc}")


def _check_bot(bot: str | None, plugins_dir: list[Path]) -> None:
    """``--bot NAME`` is looked up before the lobby opens, not once the table is full."""
    from druids_p2p.cli.bots_cmd import load_registry

    registry = load_registry(plugins_dir, False)
    if bot is not None and bot not in registry:
        fail(f"no bot named {bot!r} (known: {', '.join(registry.names())})")


def _check_times(gone_after: float, step_deadline: float) -> None:
    if not (math.isfinite(gone_after) and gone_after > 0):
        fail("--gone-after must be a positive number of seconds")
    if not (math.isfinite(step_deadline) and step_deadline > 0):
        fail("--step-deadline must be a positive number of seconds")


_PLAYER = typer.Option("human", "--player", help="'human' or 'bot:NAME'.")


@app.command("peer", hidden=True)
def peer_command(
    player: str = _PLAYER,
    name: str | None = typer.Option(None, "--name", help="Display name for this identity."),
    host: bool = typer.Option(False, "--host", help="Host a new table."),
    join: str | None = typer.Option(None, "--join", help="Join the lobby at HOST:PORT."),
    players: int = typer.Option(4, "--players"),
    rounds: int = typer.Option(5, "--rounds"),
    variant: bool = typer.Option(False, "--variant"),
    table_name: str = typer.Option("druids", "--table-name"),
    bind: str = typer.Option("127.0.0.1", "--bind", "--address"),
    port: int = typer.Option(0, "--port"),
    announce: bool = typer.Option(True, "--announce/--no-announce"),
    beacon_port: int = typer.Option(DEFAULT_PORT, "--beacon-port"),
    budget_ms: float = typer.Option(100.0, "--budget-ms"),
    gone_after: float = typer.Option(300.0, "--gone-after", help=_GONE_HELP),
    step_deadline: float = typer.Option(30.0, "--step-deadline", help=_STEP_HELP),
    plugins_dir: list[Path] = typer.Option([], "--plugins-dir"),
    moves: bool = typer.Option(True, "--moves/--no-moves", help="An event line per move."),
    approve: bool = typer.Option(False, "--approve", help=_APPROVE_HELP),
    resume: bool = typer.Option(False, "--resume", help=_RESUME_HELP),
    new: bool = typer.Option(False, "--new", help=_NEW_HELP),
) -> None:
    """One peer process (what host/join/play start); progress as JSON lines on stdout."""
    result = _run(
        player=player,
        name=name,
        host=host,
        join=join,
        players=players,
        rounds=rounds,
        variant=variant,
        table_name=table_name,
        bind=bind,
        port=port,
        announce=announce,
        beacon_port=beacon_port,
        budget_ms=budget_ms,
        gone_after=gone_after,
        step_deadline=step_deadline,
        plugins_dir=plugins_dir,
        events=True,
        move_events=moves,
        approve=approve,
        resume=resume,
        new=new,
    )
    if result.get("aborted"):
        raise typer.Exit(1)


def _bot_or_human(bot: str | None) -> str:
    return f"bot:{bot}" if bot else "human"


@app.command("host")
def host_command(
    name: str = typer.Option("druids", "--name", help="Table name shown to others."),
    players: int = typer.Option(4, "--players", help="3, 4 or 5 seats."),
    variant: bool = typer.Option(False, "--variant", help="Allow Gaia's light side."),
    rounds: int = typer.Option(5, "--rounds", help="Rounds in the game (1-5)."),
    bot: str | None = typer.Option(None, "--bot", help="Let this bot play your seat."),
    interface: str | None = typer.Option(None, "--interface", help="Network interface."),
    address: str | None = typer.Option(None, "--address", help="Local IPv4 address."),
    beacon_port: int = typer.Option(DEFAULT_PORT, "--beacon-port"),
    gone_after: float = typer.Option(300.0, "--gone-after", help=_GONE_HELP),
    step_deadline: float = typer.Option(30.0, "--step-deadline", help=_STEP_HELP),
    plugins_dir: list[Path] = typer.Option([], "--plugins-dir"),
    as_json: bool = typer.Option(False, "--json", help="Progress as JSON lines."),
    approve: bool = typer.Option(False, "--approve", help=_APPROVE_HELP),
    resume: bool = typer.Option(False, "--resume", help=_RESUME_HELP),
    new: bool = typer.Option(False, "--new", help=_NEW_HELP),
) -> None:
    """Host a table: announce it on the LAN, wait for players, then play.

    With --approve each joiner is shown (name and key fingerprint) and seated only if you answer
    y; without it anyone who finds the table may sit down (right for a table of bots)."""
    _check_table_name(name)
    _check_port("--beacon-port", beacon_port)
    _check_times(gone_after, step_deadline)
    _check_bot(bot, plugins_dir)
    bind = _bind_address(interface, address)
    result = _run(
        player=_bot_or_human(bot),
        name=None,
        host=True,
        join=None,
        players=players,
        rounds=rounds,
        variant=variant,
        table_name=name,
        bind=bind,
        port=0,
        announce=True,
        beacon_port=beacon_port,
        budget_ms=100.0,
        gone_after=gone_after,
        step_deadline=step_deadline,
        plugins_dir=plugins_dir,
        events=as_json,
        approve=approve,
        resume=resume,
        new=new,
    )
    _print_result(result, as_json)


@app.command("join")
def join_command(
    target: str = typer.Argument(..., help="HOST:PORT of a lobby, or a table name from 'tables'."),
    bot: str | None = typer.Option(None, "--bot", help="Let this bot play your seat."),
    interface: str | None = typer.Option(None, "--interface", help="Network interface."),
    address: str | None = typer.Option(None, "--address", help="Local IPv4 address."),
    beacon_port: int = typer.Option(DEFAULT_PORT, "--beacon-port"),
    search_seconds: float = typer.Option(
        DEFAULT_SEARCH_S, "--search-seconds", help="How long to listen for the table's beacon."
    ),
    fingerprint: str | None = typer.Option(
        None, "--fingerprint", help="Join only a table whose host key has this fingerprint prefix."
    ),
    gone_after: float = typer.Option(300.0, "--gone-after", help=_GONE_HELP),
    step_deadline: float = typer.Option(30.0, "--step-deadline", help=_STEP_HELP),
    plugins_dir: list[Path] = typer.Option([], "--plugins-dir"),
    as_json: bool = typer.Option(False, "--json", help="Progress as JSON lines."),
    resume: bool = typer.Option(False, "--resume", help=_RESUME_HELP),
    new: bool = typer.Option(False, "--new", help=_NEW_HELP),
) -> None:
    """Join a table by its lobby address (HOST:PORT) or by its announced name.

    By name (or a prefix of the lobby id that 'druids tables --json' shows), the table is found by
    its beacon and joined with that signed beacon directly: the host's mesh endpoint and keys are
    in it, so the host's lobby socket is not asked. A name announced by two hosts is refused
    unless --fingerprint says which host is meant.

    Run again after a crash, the same command rejoins the table this player was seated at: the
    saved table is looked up first, by name (the host no longer announces a seated table).
    """
    from druids_p2p.net.table_choice import BadPin, parse_pin

    _resume_or_new(resume, new)
    _check_lobby_target(target)
    _check_port("--beacon-port", beacon_port)
    _check_times(gone_after, step_deadline)
    _check_bot(bot, plugins_dir)
    bind = _bind_address(interface, address)
    pin = None
    if fingerprint is not None:
        try:
            pin = parse_pin(fingerprint)
        except BadPin as exc:
            fail(str(exc))
    announcement = None
    saved = _saved_table(target, resume, new)
    if saved is not None:
        pass  # rejoin it: no beacon, no lobby
    elif ":" not in target:
        if not (math.isfinite(search_seconds) and 0 < search_seconds <= MAX_SEARCH_S):
            fail(f"--search-seconds must be more than 0 and at most {MAX_SEARCH_S:g}")
        emit = _emitter(as_json)
        announcement = _find_table(target, bind, beacon_port, search_seconds, emit, pin)
    elif pin is not None:
        announcement = _lobby_announcement(target, pin)
    result = _run(
        player=_bot_or_human(bot),
        name=None,
        host=False,
        join=None if announcement is not None else target,
        players=4,
        rounds=5,
        variant=False,
        table_name="druids",
        bind=bind,
        port=0,
        announce=False,
        beacon_port=beacon_port,
        budget_ms=100.0,
        gone_after=gone_after,
        step_deadline=step_deadline,
        plugins_dir=plugins_dir,
        events=as_json,
        announcement=announcement,
        table_typed=None if ":" in target else target,
        resume_folder=saved,
        new=new,
    )
    _print_result(result, as_json)


def _saved_table(target: str, resume: bool, new: bool) -> Path | None:
    """The saved table ``join TARGET`` rejoins (before any beacon is listened for), if any."""
    from druids_p2p.net.homes import Request, TableChoiceNeeded, choose_table
    from druids_p2p.wire import data_dir

    if ":" in target:
        request = Request("join", lobby=target, resume=resume, new=new)
    else:
        request = Request("join", name=target, resume=resume, new=new)
    try:
        state = choose_table(data_dir(), request)
    except TableChoiceNeeded as exc:
        fail(str(exc))
    return None if state is None else state.folder


def _bind_address(interface: str | None, address: str | None) -> str:
    from druids_p2p.net.interfaces import InterfaceError, UnsafeDestination, resolve

    try:
        return resolve(interface=interface, address=address).address
    except (InterfaceError, UnsafeDestination) as exc:
        fail(str(exc))


def _find_table(
    name: str, bind: str, beacon_port: int, seconds: float, emit: Any, pin: str | None = None
) -> bytes:
    """The signed beacon of the one open table called ``name`` (or whose lobby id starts with
    it), heard within ``seconds``, hosted by a key whose fingerprint starts with ``pin`` if given.

    Once a match is heard it listens one beacon interval more, so that a second table of the same
    name is noticed instead of joined at random. A name heard from two host keys is ambiguous: the
    candidates are listed (one line each, with fingerprints) and nothing is joined unless ``pin``
    chooses one (table_choice.py)."""
    from druids_p2p.net.discovery import (
        DEFAULT_INTERVAL,
        DEFAULT_JITTER,
        BeaconListener,
        TableAnnouncement,
    )
    from druids_p2p.net.table_choice import candidate_lines, choose

    try:
        listener = BeaconListener(bind, beacon_port)
    except OSError as exc:
        fail(f"cannot listen for tables on port {beacon_port}: {exc.strerror or exc}", 1)
    # Per host key, its matching tables as last listed: a namesake heard once and then silent
    # still makes the name ambiguous. Bounded: the listener lists a few tables per key, and at
    # most MAX_CANDIDATE_HOSTS keys are remembered.
    heard: dict[bytes, list[TableAnnouncement]] = {}
    with listener:
        end = time.monotonic() + seconds
        grace_set = False
        while (left := end - time.monotonic()) > 0:
            now_listed: dict[bytes, list[TableAnnouncement]] = {}
            for t in choose(listener.poll(min(left, 0.25)), name, None).named:
                now_listed.setdefault(t.beacon.host_key, []).append(t)
            for key, tables in now_listed.items():
                if key in heard or len(heard) < MAX_CANDIDATE_HOSTS:
                    heard[key] = tables
            if choose(_flat(heard), name, pin).pinned and not grace_set:
                end = min(end, time.monotonic() + DEFAULT_INTERVAL + 2 * DEFAULT_JITTER)
                grace_set = True  # listen a little longer, for a namesake
    choice = choose(sorted(_flat(heard), key=lambda t: t.first_seen), name, pin)
    if choice.ambiguous or len({t.beacon.host_key for t in choice.pinned}) > 1:
        for line in candidate_lines(choice.named if choice.ambiguous else choice.pinned):
            print(line, file=sys.stderr)
        more = " (more digits)" if pin is not None else ""
        fail(
            f"{choice.hosts} hosts announce a table named {name!r}: choose one with "
            f"--fingerprint FP{more}; a name alone is not an identity"
        )
    if len(choice.pinned) > 1:
        ids = ", ".join(t.lobby_id.hex()[:8] for t in choice.pinned)
        fail(f"{len(choice.pinned)} tables match {name!r} (lobby ids {ids}): join by lobby id", 1)
    if choice.pinned:
        table = choice.pinned[0]
        emit(
            {
                "event": "found",
                "table": table.name,
                "host": table.beacon.host_name,
                "fingerprint": table.beacon.host_fingerprint,
                "endpoint": table.endpoint,
                "source": f"{table.source[0]}:{table.source[1]}",
            }
        )
        return table.beacon.raw
    if choice.named:
        for line in candidate_lines(choice.named):
            print(line, file=sys.stderr)
        fail(f"no table named {name!r} is hosted by fingerprint {pin}: only the hosts above")
    fail(f"no open table named {name!r} heard in {seconds:g} s (try 'druids tables')", 1)


def _flat(heard: dict[bytes, list[Any]]) -> list[Any]:
    return [t for tables in heard.values() for t in tables]


def _lobby_announcement(target: str, pin: str) -> bytes:
    """``join HOST:PORT --fingerprint FP``: the lobby socket's beacon, if its host matches."""
    from druids_p2p.net.discovery import decode_beacon
    from druids_p2p.net.errors import PeerError
    from druids_p2p.net.lobby import query_lobby
    from druids_p2p.net.table_choice import pin_matches
    from druids_p2p.wire.errors import WireError

    try:
        raw = query_lobby(target)
        beacon = decode_beacon(raw)
    except PeerError as exc:
        fail(str(exc), 1)
    except WireError as exc:
        fail(f"{target}: the host's announcement is invalid: {exc}", 1)
    if not pin_matches(pin, beacon.host_key):
        fail(
            f"{target}: the host there is {beacon.host_name} with fingerprint "
            f"{beacon.host_fingerprint}, not --fingerprint {pin}: not joined"
        )
    return raw


def _print_result(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        say(json.dumps(result, default=str))
    elif result.get("aborted"):
        say(f"table stopped: {result['aborted']}")
    else:
        say(f"game over: totals {result['totals']}, winners {result['winners']}")
        say(f"record: {result['record']}")
    if result.get("aborted"):
        raise typer.Exit(1)


@app.command("play")
def play_command(
    headless: bool = typer.Option(False, "--headless", help="No terminal UI."),
    seats: str | None = typer.Option(
        None,
        "--seats",
        help="bot:NAME or human, per seat (headless default: human,bot:rule,bot:rule,bot:rule).",
    ),
    rounds: int = typer.Option(5, "--rounds", help="Rounds in the game (1-5)."),
    variant: bool = typer.Option(False, "--variant", help="Allow Gaia's light side."),
    budget_ms: float = typer.Option(100.0, "--time-per-move", help="Bot budget per move (ms)."),
    workdir: Path | None = typer.Option(None, "--workdir", help="Keep the peers' data here."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    lan: bool = typer.Option(False, "--lan", help="UI: the LAN lobby (host, join, add bots)."),
    bots: str | None = typer.Option(
        None, "--bots", help="UI: the bots at your table, e.g. rule,pimc."
    ),
    players: int | None = typer.Option(None, "--players", help="UI: 3-5 seats (you + rule bots)."),
    name: str | None = typer.Option(None, "--name", help="UI: your display name."),
    interface: str | None = typer.Option(None, "--interface", help="UI --lan: network interface."),
    address: str | None = typer.Option(None, "--address", help="UI --lan: local IPv4 address."),
    beacon_port: int = typer.Option(DEFAULT_PORT, "--beacon-port", help="UI --lan: beacon port."),
    plugins_dir: list[Path] = typer.Option([], "--plugins-dir", help="UI: more bot plugins."),
    fingerprint: list[str] = typer.Option(
        [], "--fingerprint", help="UI --lan: join this host (fingerprint prefix) without asking."
    ),
    resume: bool = typer.Option(False, "--resume", help="Headless: rejoin the table in --workdir."),
    new: bool = typer.Option(False, "--new", help="Headless: a new table beside a saved one."),
    trick_pause: float = typer.Option(
        3.0,
        "--trick-pause",
        help="UI: seconds a finished trick stays shown (0: off; a key ends it).",
    ),
    move_pause: float = typer.Option(
        0.6, "--move-pause", help="UI: seconds each move stays shown before the next (0: off)."
    ),
) -> None:
    """Play at a table on this machine: the terminal UI with you and bots (default), the LAN
    lobby (--lan), or a whole headless table of peer processes on loopback (--headless)."""
    if not headless:
        from druids_p2p.cli.play_ui import play_ui

        play_ui(
            lan=lan,
            seats=seats,
            bots=bots,
            players=players,
            rounds=rounds,
            variant=variant,
            budget_ms=budget_ms,
            workdir=workdir,
            name=name,
            interface=interface,
            address=address,
            beacon_port=beacon_port,
            plugins_dir=plugins_dir,
            as_json=as_json,
            fingerprints=fingerprint,
            trick_pause=trick_pause,
            move_pause=move_pause,
        )
        return
    from druids_p2p.cli.play_ui import check_time_per_move
    from druids_p2p.net.local_table import LocalTableError, parse_seats, play_table, saved_seats

    try:
        seat_list = parse_seats(seats or "human,bot:rule,bot:rule,bot:rule")
    except ValueError as exc:
        fail(str(exc))
    if not 1 <= rounds <= 5:
        fail(f"--rounds must be 1 to 5, not {rounds}")
    check_time_per_move(budget_ms)
    for seat in seat_list:
        if seat.startswith("bot:"):
            _check_bot(seat[4:], [])
    if workdir is not None:
        make_folder("--workdir", workdir)
    _resume_or_new(resume, new)
    saved = saved_seats(workdir, len(seat_list)) if workdir is not None else []
    if resume and len(saved) != len(seat_list):
        fail(f"--resume: {workdir or 'a new folder'} holds no unfinished table for every seat")
    if saved and not (resume or new):
        fail(
            f"{workdir} holds an unfinished table: add --resume to play it on, or --new to "
            "start a new table beside it (its records are kept)"
        )
    base = workdir or Path(tempfile.mkdtemp(prefix="druids-table-"))
    options = GameOptions(players=len(seat_list), variant=variant, rounds=rounds)
    try:
        summary = play_table(seat_list, options, None, budget_ms, base, resume=resume, new=new)
    except LocalTableError as exc:
        fail(str(exc), 1)
    if as_json:
        print(
            json.dumps(
                {k: summary[k] for k in ("totals", "winners", "records")}
                | {"finished": summary["finished"], "aborted": summary["aborted"]}
            )
        )
    elif summary["aborted"]:
        print(f"table stopped: {summary['aborted']}")
    else:
        print(f"game over: totals {summary['totals']}, winners {summary['winners']}")
        for record in summary["records"]:
            print(f"record: {record}")
    if summary["aborted"] or not summary["finished"]:
        raise typer.Exit(1)
