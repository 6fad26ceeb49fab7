"""``druids peer`` / ``host`` / ``join`` / ``play --headless``: playing over the LAN protocol."""

from __future__ import annotations

import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

import typer

from druids_p2p.cli.app import app, fail
from druids_p2p.engine import GameOptions
from druids_p2p.net.discovery import DEFAULT_PORT


def _identity(name: str | None) -> Any:
    from druids_p2p.wire import IdentityError, load_or_create, rename_identity

    try:
        identity = load_or_create()
        if name and identity.name != name:
            identity = rename_identity(name)
    except IdentityError as exc:
        fail(str(exc))
    return identity


def _emitter(as_json: bool) -> Any:
    def emit(event: dict[str, Any]) -> None:
        if as_json:
            print(json.dumps(event, default=str), flush=True)
        else:
            text = event.get("text") or ", ".join(
                f"{k}={v}" for k, v in event.items() if k not in ("event", "text")
            )
            print(f"[{event.get('event')}] {text}", file=sys.stderr, flush=True)

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
) -> dict[str, Any]:
    from druids_p2p.net.peer import HostSpec, PeerConfig, PeerError, run_peer
    from druids_p2p.wire import data_dir

    if players not in (3, 4, 5):
        fail(f"--players must be 3, 4 or 5, not {players}")
    if not 1 <= rounds <= 5:
        fail(f"--rounds must be 1 to 5, not {rounds}")
    if budget_ms <= 0:
        fail("--budget-ms must be positive")
    if gone_after <= 0:
        fail("--gone-after must be positive")
    logging.basicConfig(level=logging.WARNING, format="druids: %(message)s")
    identity = _identity(name)
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
        announce=announce,
        beacon_port=beacon_port,
        budget_ms=budget_ms,
        gone_after_s=gone_after,
        plugins_dirs=tuple(plugins_dir),
        emit=_emitter(events),
        human_input=ask,
    )
    try:
        return run_peer(config)
    except PeerError as exc:
        fail(str(exc), 1)
    except OSError as exc:
        fail(f"network: {exc}", 1)


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
    gone_after: float = typer.Option(300.0, "--gone-after"),
    plugins_dir: list[Path] = typer.Option([], "--plugins-dir"),
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
        plugins_dir=plugins_dir,
        events=True,
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
    plugins_dir: list[Path] = typer.Option([], "--plugins-dir"),
    as_json: bool = typer.Option(False, "--json", help="Progress as JSON lines."),
) -> None:
    """Host a table: announce it on the LAN, wait for players, then play."""
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
        gone_after=300.0,
        plugins_dir=plugins_dir,
        events=as_json,
    )
    _print_result(result, as_json)


@app.command("join")
def join_command(
    target: str = typer.Argument(..., help="HOST:PORT of a lobby, or a table name from 'tables'."),
    bot: str | None = typer.Option(None, "--bot", help="Let this bot play your seat."),
    interface: str | None = typer.Option(None, "--interface", help="Network interface."),
    address: str | None = typer.Option(None, "--address", help="Local IPv4 address."),
    beacon_port: int = typer.Option(DEFAULT_PORT, "--beacon-port"),
    plugins_dir: list[Path] = typer.Option([], "--plugins-dir"),
    as_json: bool = typer.Option(False, "--json", help="Progress as JSON lines."),
) -> None:
    """Join a table by its lobby address (HOST:PORT) or by its announced name."""
    bind = _bind_address(interface, address)
    if ":" not in target:
        target = _find_table(target, bind, beacon_port)
    result = _run(
        player=_bot_or_human(bot),
        name=None,
        host=False,
        join=target,
        players=4,
        rounds=5,
        variant=False,
        table_name="druids",
        bind=bind,
        port=0,
        announce=False,
        beacon_port=beacon_port,
        budget_ms=100.0,
        gone_after=300.0,
        plugins_dir=plugins_dir,
        events=as_json,
    )
    _print_result(result, as_json)


def _bind_address(interface: str | None, address: str | None) -> str:
    from druids_p2p.net.interfaces import InterfaceError, resolve

    try:
        return resolve(interface=interface, address=address).address
    except InterfaceError as exc:
        fail(str(exc))


def _find_table(name: str, bind: str, beacon_port: int) -> str:
    """A table's lobby address from its beacon (the beacon carries the host's mesh endpoint;
    the lobby socket answers on the same host, so ask the host directly by its endpoint)."""
    from druids_p2p.net.discovery import discover

    for table in discover(bind, beacon_port, 3.0):
        if table.name == name or table.lobby_id.hex().startswith(name):
            return str(table.as_json().get("lobby") or _lobby_from(table))
    fail(f"no table named {name!r} is announced (try 'druids tables')", 1)


def _lobby_from(table: Any) -> str:
    fail(f"table {table.name!r} does not announce a lobby address", 1)


def _print_result(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, default=str))
    elif result.get("aborted"):
        print(f"table stopped: {result['aborted']}")
    else:
        print(f"game over: totals {result['totals']}, winners {result['winners']}")
        print(f"record: {result['record']}")
    if result.get("aborted"):
        raise typer.Exit(1)


@app.command("play")
def play_command(
    headless: bool = typer.Option(False, "--headless", help="No terminal UI."),
    seats: str = typer.Option(
        "human,bot:rule,bot:rule,bot:rule", "--seats", help="bot:NAME or human, per seat."
    ),
    rounds: int = typer.Option(5, "--rounds", help="Rounds in the game (1-5)."),
    variant: bool = typer.Option(False, "--variant", help="Allow Gaia's light side."),
    budget_ms: float = typer.Option(100.0, "--time-per-move", help="Bot budget per move (ms)."),
    workdir: Path | None = typer.Option(None, "--workdir", help="Keep the peers' data here."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Start a whole table of peer processes on this machine (loopback) and play a game."""
    from druids_p2p.net.local_table import LocalTableError, parse_seats, play_table

    if not headless:
        fail("the terminal UI is not available yet: use --headless", 2)
    try:
        seat_list = parse_seats(seats)
    except ValueError as exc:
        fail(str(exc))
    if not 1 <= rounds <= 5:
        fail(f"--rounds must be 1 to 5, not {rounds}")
    base = workdir or Path(tempfile.mkdtemp(prefix="druids-table-"))
    options = GameOptions(players=len(seat_list), variant=variant, rounds=rounds)
    try:
        summary = play_table(seat_list, options, None, budget_ms, base)
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
