"""What a peer finds on the LAN and on disk: ``druids tables`` and ``druids history``, and the
look-up of the table ``druids join`` names, so that every listing reads alike."""

from __future__ import annotations

import json
import math
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from druids_p2p.cli.app import app, echo_err, fail
from druids_p2p.cli.peer_run import check_port
from druids_p2p.lan import DEFAULT_PORT

if TYPE_CHECKING:
    from druids_p2p.lan.discovery import TableAnnouncement

DEFAULT_SECONDS = 2.5
MAX_SECONDS = 600.0


def _row(t: TableAnnouncement) -> list[str]:
    info, b = t.info, t.beacon
    seated = ", ".join(s.name for s in info.seats) or "-"
    return [
        info.name,
        f"{info.players}" + (" +variant" if info.variant else ""),
        f"{info.seats_taken}/{info.players} ({info.seats_free} free)",
        info.ruleset + (", coach on" if info.coach else ""),
        f"{b.host_name} [{b.host_fingerprint}]",
        info.lobby_address or "-",
        seated,
    ]


def join_line(t: TableAnnouncement) -> str:
    """The command to copy: by lobby address when the host announced one (what ``join HOST:PORT``
    asks), else by lobby id, which ``join`` finds by its beacon."""
    target = t.info.lobby_address or t.lobby_id.hex()[:8]
    return f"  druids join {target}"


def _beacon_port(beacon_port: int | None, old_port: int | None) -> int:
    """``--beacon-port``, as every command calls it; ``--port`` is its old name here, still
    taken (with a note) so that a script written for it keeps working."""
    if old_port is None:
        port = DEFAULT_PORT if beacon_port is None else beacon_port
        check_port("--beacon-port", port)
        return port
    if beacon_port is not None:
        fail("--port is the old name of --beacon-port: give only --beacon-port")
    check_port("--port", old_port)
    echo_err("druids: note: --port is now called --beacon-port")
    return old_port


@app.command("tables")
def tables_command(
    interface: str | None = typer.Option(
        None, "--interface", help="Listen on this network interface (e.g. eth0)."
    ),
    address: str | None = typer.Option(
        None, "--address", help="Listen on the network of this local IPv4 address."
    ),
    beacon_port: int | None = typer.Option(
        None, "--beacon-port", help=f"UDP beacon port [default: {DEFAULT_PORT}]."
    ),
    old_port: int | None = typer.Option(None, "--port", hidden=True),
    seconds: float = typer.Option(DEFAULT_SECONDS, "--seconds", help="How long to listen."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list."),
) -> None:
    """Listen for table beacons and list the open tables.

    Without --interface or --address only this machine (loopback) is searched; name the LAN's
    interface or your address on it to find tables hosted on other machines.
    """
    port = _beacon_port(beacon_port, old_port)
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        fail(f"--seconds must be more than 0 and at most {MAX_SECONDS:g}, not {seconds}")
    from druids_p2p.lan.network import InterfaceError, UnsafeDestination, resolve

    try:
        net = resolve(interface=interface, address=address)
    except (InterfaceError, UnsafeDestination) as exc:
        fail(str(exc))
    from druids_p2p.lan.listener import dropped_note, hear, namesakes  # a peer needs no listing

    try:
        found, dropped = hear(net, port, seconds)
    except OSError as exc:
        fail(f"cannot listen on {net.broadcast}:{port}: {exc.strerror or exc}", 1)
    note = f"note: {dropped_note(dropped)}" if dropped else None
    if as_json:
        print(json.dumps([t.as_json() for t in found]))
        if note is not None:
            print(note, file=sys.stderr)
        return
    if not found:
        where = f"{net.name} ({net.broadcast}:{port})"
        print(f"no open tables heard on {where} in {seconds:g} s")
        if net.is_loopback and interface is None and address is None:
            print("(only this machine was searched; use --interface or --address for the LAN)")
        return
    rows = [["TABLE", "PLAYERS", "SEATS", "GAME", "HOST", "JOIN AT", "SEATED"], *map(_row, found)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join([*(c.ljust(w) for c, w in zip(r, widths, strict=False)), r[-1]]).rstrip())
    print()
    for t in found:
        print(f"to join {t.name!r}:")
        print(join_line(t))
    for name, hosts in namesakes(found).items():
        print(f"note: {hosts} hosts announce {name!r}: join it with --fingerprint FP")
    if note is not None:
        print(note)


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


DEFAULT_SEARCH_S = 5.0
"""Long enough to hear about five beacons (one a second), short enough to fail promptly."""


MAX_SEARCH_S = 600.0


MAX_CANDIDATE_HOSTS = 64
"""Host keys remembered while looking for a table by name (each one listed if it is ambiguous)."""


def saved_table(target: str, resume: bool, new: bool) -> Path | None:
    """The saved table ``join TARGET`` rejoins (before any beacon is listened for), if any."""
    from druids_p2p.peer.homes import Request, TableChoiceNeeded, choose_table
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


def find_table(
    name: str, bind: str, beacon_port: int, seconds: float, emit: Any, pin: str | None = None
) -> bytes:
    """The signed beacon of the one open table called ``name`` (or whose lobby id starts with it),
    heard within ``seconds``, hosted by a key whose fingerprint starts with ``pin`` if given. It
    listens one beacon interval past a match, and refuses a name heard from two keys, or heard while
    the listener dropped beacons for room, unless ``pin`` chooses (discovery.md).
    """
    from druids_p2p.lan.discovery import DEFAULT_INTERVAL, DEFAULT_JITTER
    from druids_p2p.lan.listener import (
        BeaconListener,
        candidate_lines,
        choose,
        matches_target,
        pin_matches,
    )

    keep = None if pin is None else (lambda key: pin_matches(pin, key))
    try:
        listener = BeaconListener(bind, beacon_port, keep=keep)
    except OSError as exc:
        fail(f"cannot listen for tables on port {beacon_port}: {exc.strerror or exc}", 1)
    # Per host key, its matching tables as last listed: a namesake heard once and then silent
    # still makes the name ambiguous. Bounded: the listener lists a few tables per key, and at
    # most MAX_CANDIDATE_HOSTS keys are remembered; as many tables dropped for room.
    heard: dict[bytes, list[TableAnnouncement]] = {}
    hidden: dict[tuple[bytes, bytes], TableAnnouncement] = {}
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
            for t in listener.dropped_tables():
                if matches_target(t, name) and len(hidden) < MAX_CANDIDATE_HOSTS:
                    hidden[(t.beacon.host_key, t.lobby_id)] = t
            if choose(_flat(heard), name, pin).pinned and not grace_set:
                end = min(end, time.monotonic() + DEFAULT_INTERVAL + 2 * DEFAULT_JITTER)
                grace_set = True  # listen a little longer, for a namesake
        dropped = listener.dropped_for_room
    choice = choose(sorted(_flat(heard), key=lambda t: t.first_seen), name, pin)
    if dropped and pin is None:
        for line in candidate_lines(choice.named):
            print(line, file=sys.stderr)
        for t in hidden.values():
            if t.beacon.host_key not in heard:
                print(f"{candidate_lines([t])[0]} [dropped: the list was full]", file=sys.stderr)
        fail(
            f"{dropped} beacon{'s' if dropped != 1 else ''} dropped while looking for {name!r} "
            "(the list of tables was full: a flood?), so the table meant may be hidden: join "
            "with --fingerprint FP of its host, or by HOST:PORT"
        )
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


def lobby_announcement(target: str, pin: str | None) -> bytes:
    """``join HOST:PORT --fingerprint FP`` (or ``--game G``): the lobby socket's beacon, if its
    host matches ``pin`` (any host without one)."""
    from druids_p2p.lan.discovery import decode_beacon
    from druids_p2p.lan.listener import pin_matches
    from druids_p2p.lan.lobby import query_lobby
    from druids_p2p.lan.peer_config import PeerError
    from druids_p2p.wire.msgtypes import WireError

    try:
        raw = query_lobby(target)
        beacon = decode_beacon(raw)
    except PeerError as exc:
        fail(str(exc), 1)
    except WireError as exc:
        fail(f"{target}: the host's announcement is invalid: {exc}", 1)
    if pin is not None and not pin_matches(pin, beacon.host_key):
        fail(
            f"{target}: the host there is {beacon.host_name} with fingerprint "
            f"{beacon.host_fingerprint}, not --fingerprint {pin}: not joined"
        )
    return raw


def check_table_game(announcement: bytes, game: str, target: str) -> None:
    """``join --game G``: the table found plays G, else the join is refused (exit 2) instead of
    the flag being ignored (a table's game is its host's word)."""
    from druids_p2p.lan.discovery import decode_beacon

    plays = decode_beacon(announcement).info.ruleset
    if plays != game:
        fail(f"--game {game}: the table {target} plays {plays}; not joined")
