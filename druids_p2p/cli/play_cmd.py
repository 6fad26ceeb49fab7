"""``druids play``: the terminal UI with you and bots (``cli/play_ui.py``), or with ``--headless`` a
whole table of peer processes on loopback (``net/local_table.py``)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import typer

from druids_p2p.cli.app import app, fail, make_folder
from druids_p2p.cli.peer_checks import check_bots, resume_or_new
from druids_p2p.cli.play2004 import check_game, play_2004_ui
from druids_p2p.cli.ui_options import UiOptions
from druids_p2p.net.discovery import DEFAULT_PORT
from druids_p2p.rulesets import (
    CARD_TABLE_RULESETS,
    DEFAULT_RULESET,
    GAME_HELP,
    RULESETS,
    new_table_options,
)


def ui_entry(game: str) -> Callable[[UiOptions], None]:
    """The terminal UI that starts ``game``'s table: one entry point per rule set, each reading
    the same :class:`UiOptions`."""
    from druids_p2p.cli.play_ui import play_ui

    return play_ui if check_game(game) == DEFAULT_RULESET else play_2004_ui


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
    players: int | None = typer.Option(
        None, "--players", help="UI: seats, you + rule bots (3-5; 2-4 for 2004)."
    ),
    name: str | None = typer.Option(None, "--name", help="UI: your display name."),
    interface: str | None = typer.Option(None, "--interface", help="UI --lan: network interface."),
    address: str | None = typer.Option(None, "--address", help="UI --lan: local IPv4 address."),
    beacon_port: int = typer.Option(DEFAULT_PORT, "--beacon-port", help="UI --lan: beacon port."),
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
    trick_pause: float = typer.Option(
        3.0,
        "--trick-pause",
        help="UI: seconds a finished trick stays shown (0: off; a key ends it).",
    ),
    move_pause: float = typer.Option(
        0.6, "--move-pause", help="UI: seconds each move stays shown before the next (0: off)."
    ),
    game: str = typer.Option(DEFAULT_RULESET, "--game", help=GAME_HELP),
    offline: bool = typer.Option(
        False, "--offline", help="UI, druids2004: in-process bots, no peer processes."
    ),
    confirm_plays: bool = typer.Option(
        False,
        "--confirm-plays",
        help="UI: a card is played by a second key (the first marks it; another key cancels).",
    ),
) -> None:
    """Play at a table on this machine: the terminal UI with you and bots (default), the LAN
    lobby (--lan), or a whole headless table of peer processes on loopback (--headless)."""
    if offline and (headless or check_game(game) == DEFAULT_RULESET):
        fail("--offline is the druids2004 terminal UI's table against in-process bots")
    if confirm_plays and headless:
        fail("--confirm-plays guards the terminal UI's keys; --headless has none")
    if not headless:
        ui_entry(game)(
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
                beacon_port=beacon_port,
                plugins_dir=plugins_dir,
                as_json=as_json,
                fingerprints=fingerprint,
                trick_pause=trick_pause,
                move_pause=move_pause,
                offline=offline,
                confirm_plays=confirm_plays,
            )
        )
        return
    from druids_p2p.cli.play_ui import check_time_per_move
    from druids_p2p.net.local_table import LocalTableError, parse_seats, play_table, saved_seats

    rules = RULESETS[check_game(game)]
    try:
        seat_list = parse_seats(
            seats or "human,bot:rule,bot:rule,bot:rule", (rules.min_players, rules.max_players)
        )
    except ValueError as exc:
        fail(f"--seats: {exc}")
    if not 1 <= rounds <= 5:
        fail(f"--rounds must be 1 to 5, not {rounds}")
    check_time_per_move(budget_ms)
    check_bots([seat[4:] for seat in seat_list if seat.startswith("bot:")], plugins_dir, game)
    if game in CARD_TABLE_RULESETS and (rounds != 5 or variant):
        fail(f"--rounds and --variant are druids2017 options; {game} has neither")
    if workdir is not None:
        make_folder("--workdir", workdir)
    resume_or_new(resume, new)
    saved = saved_seats(workdir, len(seat_list)) if workdir is not None else []
    if resume and len(saved) != len(seat_list):
        fail(f"--resume: {workdir or 'a new folder'} holds no unfinished table for every seat")
    if saved and not (resume or new):
        fail(
            f"{workdir} holds an unfinished table: add --resume to play it on, or --new to "
            "start a new table beside it (its records are kept)"
        )
    base = workdir or Path(tempfile.mkdtemp(prefix="druids-table-"))
    options = new_table_options(game, len(seat_list), variant, rounds)
    try:
        summary = play_table(
            seat_list, options, None, budget_ms, base, resume=resume, new=new, game=game,
            plugins_dirs=tuple(plugins_dir),
        )  # fmt: skip
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
