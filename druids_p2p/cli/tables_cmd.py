"""``druids tables``: list the open tables announced on the chosen network."""

from __future__ import annotations

import json
import math
import sys

import typer

from druids_p2p.cli.app import app, echo_err, fail
from druids_p2p.cli.peer_run import check_port
from druids_p2p.lan.discovery import DEFAULT_PORT, TableAnnouncement
from druids_p2p.lan.interfaces import InterfaceError, UnsafeDestination, resolve

DEFAULT_SECONDS = 2.5
MAX_SECONDS = 600.0


def _row(t: TableAnnouncement) -> list[str]:
    info, b = t.info, t.beacon
    seated = ", ".join(s.name for s in info.seats) or "-"
    return [
        info.name,
        f"{info.players}" + (" +variant" if info.variant else ""),
        f"{info.seats_taken}/{info.players} ({info.seats_free} free)",
        info.ruleset,
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
    try:
        net = resolve(interface=interface, address=address)
    except (InterfaceError, UnsafeDestination) as exc:
        fail(str(exc))
    from druids_p2p.lan.beacon_listener import dropped_note, hear  # a peer needs no listing
    from druids_p2p.lan.table_choice import namesakes

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
