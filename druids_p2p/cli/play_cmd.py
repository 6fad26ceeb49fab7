"""``druids play``: the terminal UI with you and bots (``cli/play_ui.py``), or with ``--headless`` a
whole table of peer processes on loopback (``cli/play_headless.py``). A flag the chosen mode has
no use for is refused by name, never silently ignored."""

from __future__ import annotations

from pathlib import Path

import typer

from druids_p2p.cli.app import app, fail, game_option, rounds_option, variant_option
from druids_p2p.cli.play_ui import MOVE_PAUSE_S, TRICK_PAUSE_S, UiOptions
from druids_p2p.games.registry import players_help
from druids_p2p.lan.discovery import DEFAULT_PORT


@app.command("play")
def play_command(
    headless: bool = typer.Option(False, "--headless", help="No terminal UI."),
    seats: str | None = typer.Option(
        None,
        "--seats",
        help="bot:NAME or human, per seat (headless default: human,bot:rule,bot:rule,bot:rule).",
    ),
    rounds: int | None = rounds_option(),
    variant: bool = variant_option(),
    budget_ms: float = typer.Option(100.0, "--time-per-move", help="Bot budget per move (ms)."),
    workdir: Path | None = typer.Option(None, "--workdir", help="Keep the peers' data here."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    lan: bool = typer.Option(False, "--lan", help="UI: the LAN lobby (host, join, add bots)."),
    bots: str | None = typer.Option(
        None, "--bots", help="UI: the bots at your table, e.g. rule,pimc."
    ),
    players: int | None = typer.Option(
        None, "--players", help="UI: you + rule bots, " + players_help()
    ),
    name: str | None = typer.Option(None, "--name", help="Your display name (your seat's)."),
    interface: str | None = typer.Option(None, "--interface", help="UI --lan: network interface."),
    address: str | None = typer.Option(None, "--address", help="UI --lan: local IPv4 address."),
    beacon_port: int | None = typer.Option(
        None, "--beacon-port", help=f"UI --lan: beacon port [default: {DEFAULT_PORT}]."
    ),
    plugins_dir: list[Path] = typer.Option(
        [],
        "--plugins-dir",
        metavar="DIR",
        help="Also load the plugin bots of DIR (repeatable), in every bot process started.",
    ),
    fingerprint: list[str] = typer.Option(
        [], "--fingerprint", help="UI --lan: join this host (fingerprint prefix) without asking."
    ),
    resume: bool = typer.Option(False, "--resume", help="Headless: rejoin the table in --workdir."),
    new: bool = typer.Option(False, "--new", help="Headless: a new table beside a saved one."),
    trick_pause: float | None = typer.Option(
        None,
        "--trick-pause",
        help=f"UI: seconds a finished trick stays shown (0: off; a key ends it) [default: "
        f"{TRICK_PAUSE_S:g}].",
    ),
    move_pause: float | None = typer.Option(
        None,
        "--move-pause",
        help=f"UI: seconds each move stays shown before the next (0: off) [default: "
        f"{MOVE_PAUSE_S:g}].",
    ),
    game: str = game_option(),
    offline: bool = typer.Option(
        False,
        "--offline",
        help="UI, a game whose UI has an offline table: in-process bots, no peer processes.",
    ),
    go_on: bool = typer.Option(
        False,
        "--go-on",
        help="Headless, a game played by rounds: when a seat is gone for good, the others go on "
        "without it at a new table with a bot in its seat, the scores carried (the UI asks you).",
    ),
    confirm_plays: bool = typer.Option(
        False,
        "--confirm-plays",
        help="UI: a card is played by a second key (the first marks it; another key cancels).",
    ),
) -> None:
    """Play at a table on this machine: the terminal UI with you and bots (default), the LAN
    lobby (--lan), or a whole headless table of peer processes on loopback (--headless)."""
    if offline and headless:
        fail("--offline is the terminal UI's table against in-process bots; not --headless")
    if go_on and not headless:
        fail("--go-on is for --headless: the terminal UI asks you whether to go on")
    if headless:
        refuse_ui_flags(
            {
                "--lan": lan,
                "--bots": bots is not None,
                "--players": players is not None,
                "--interface": interface is not None,
                "--address": address is not None,
                "--beacon-port": beacon_port is not None,
                "--fingerprint": bool(fingerprint),
                "--trick-pause": trick_pause is not None,
                "--move-pause": move_pause is not None,
                "--confirm-plays": confirm_plays,
            },
            bots,
        )
        from druids_p2p.cli.play_headless import play_headless

        play_headless(
            game=game, seats=seats, rounds=rounds, variant=variant, budget_ms=budget_ms,
            workdir=workdir, as_json=as_json, plugins_dir=plugins_dir, resume=resume, new=new,
            name=name, go_on=go_on,
        )  # fmt: skip
        return
    for flag, given in (("--resume", resume), ("--new", new)):
        if given:
            fail(
                f"{flag} is for --headless tables: the terminal UI asks by itself what to do "
                "with a table left unfinished"
            )
    if beacon_port is not None and not lan:
        fail("--beacon-port is the LAN lobby's (--lan): a table on this machine sends no beacon")
    from druids_p2p.cli.play_ui import play_ui

    play_ui(
        UiOptions(
            game=game,
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
            beacon_port=DEFAULT_PORT if beacon_port is None else beacon_port,
            plugins_dir=plugins_dir,
            as_json=as_json,
            fingerprints=fingerprint,
            trick_pause=TRICK_PAUSE_S if trick_pause is None else trick_pause,
            move_pause=MOVE_PAUSE_S if move_pause is None else move_pause,
            offline=offline,
            confirm_plays=confirm_plays,
        )
    )


def refuse_ui_flags(given: dict[str, bool], bots: str | None) -> None:
    """With ``--headless``, a flag of the terminal UI's is refused by name (it would be
    ignored); ``--bots`` is told the ``--seats`` that says the same."""
    if bots is not None:
        names = [b.strip().removeprefix("bot:") for b in bots.split(",") if b.strip()]
        fail(
            "--bots is the terminal UI's option (you and those bots); with --headless name "
            f"every seat: --seats {','.join('bot:' + b for b in names)} (add 'human' to play "
            "a seat yourself)"
        )
    for flag, on in given.items():
        if on:
            fail(f"{flag} is an option of the terminal UI; --headless has no use for it")
