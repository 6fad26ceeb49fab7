"""The peer commands' option checks (``host``, ``join``, ``play --headless``): a bad value is one
line and exit 2, named before any saved table, beacon or socket is looked at."""

from __future__ import annotations

import math
from pathlib import Path

from druids_p2p.cli.app import fail


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
    from druids_p2p.wire.errors import WireError
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
    from druids_p2p.cli.bots_cmd import load_registry

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
