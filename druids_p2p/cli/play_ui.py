"""``druids play`` without ``--headless``: check the command line, then open the terminal UI."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from druids_p2p.cli.app import fail
from druids_p2p.cli.ui_options import UiOptions, seat_words, table_prefs
from druids_p2p.cli.ui_outcome import open_game_folder, print_outcome

MAX_BOTS = 4
MAX_PAUSE_S = 60.0
"""The longest a move or a trick may be held on the table (--move-pause, --trick-pause)."""


def check_time_per_move(budget_ms: float) -> None:
    """``--time-per-move`` is checked here, by the name the user typed: the peers it is handed
    to call it ``--budget-ms``, which would be a confusing thing to be told about."""
    if not (math.isfinite(budget_ms) and budget_ms > 0):
        fail(f"--time-per-move must be a positive number of milliseconds, not {budget_ms:g}")


def bots_from_options(
    seats: str | None,
    bots: str | None,
    players: int | None,
    known: list[str] | None = None,
    seat_range: tuple[int, int] = (3, 5),
) -> list[str]:
    """The bot names for the other seats, from ``--seats``, ``--bots`` or ``--players``.

    An unknown name (``known`` given) is reported before the count: ``--bots nosuchbot`` is a
    typo to name, not a table one bot short. ``seat_range``: the game's table sizes."""
    if seats is not None:
        if bots is not None:
            fail("give --seats or --bots, not both")
        names = seat_words(seats)
        if names.count("human") != 1:
            fail("with the terminal UI, --seats must name exactly one 'human' seat (you)")
        out = []
        for seat in names:
            if seat == "human":
                continue
            if not seat.startswith("bot:") or len(seat) == 4:
                fail(f"a seat is 'human' or 'bot:NAME', not {seat!r}")
            out.append(seat[4:])
    elif bots is not None:
        out = [b.strip().removeprefix("bot:") for b in bots.split(",") if b.strip()]
    else:
        out = ["rule"] * ((players or 4) - 1)
    for bot in out:
        if known is not None and bot not in known:
            fail(f"no bot named {bot!r} (known: {', '.join(known)})")
    low, high = seat_range
    if not low - 1 <= len(out) <= min(high - 1, MAX_BOTS):
        fail(
            f"a table has {low} to {high} seats: you and {low - 1} to {high - 1} bots, "
            f"not {len(out)} bot(s)"
        )
    if players is not None and players != len(out) + 1:
        fail(f"--players {players} does not match you and {len(out)} bot(s)")
    return out


def play_ui(opts: UiOptions) -> None:
    """The Druids 2017 table: you and bots on this machine, or the LAN lobby (``--lan``)."""
    from druids_p2p.cli.bots_cmd import load_registry
    from druids_p2p.cli.id_cmd import load_identity

    if not 1 <= opts.rounds <= 5:
        fail(f"--rounds must be 1 to 5, not {opts.rounds}")
    check_time_per_move(opts.budget_ms)
    if opts.players is not None and opts.players not in (3, 4, 5):
        fail(f"--players must be 3, 4 or 5, not {opts.players}")
    for flag, seconds in (("--trick-pause", opts.trick_pause), ("--move-pause", opts.move_pause)):
        if not 0 <= seconds <= MAX_PAUSE_S:
            fail(f"{flag} must be 0 to {MAX_PAUSE_S:g} seconds, not {seconds:g}")
    if opts.lan:
        from druids_p2p.cli.play_lan import play_lan

        play_lan(opts, opts.trick_pause)
        return
    if opts.fingerprints:
        fail("--fingerprint pins LAN hosts: it goes with --lan")
    if opts.interface is not None or opts.address is not None:
        fail("--interface/--address choose the LAN for --lan; a local table is loopback only")
    registry = load_registry(opts.plugins_dir, False)
    bot_names = bots_from_options(opts.seats, opts.bots, opts.players, registry.names())
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("the terminal UI needs a terminal; use --headless to play without one")
    identity = load_identity(opts.name)

    from druids_p2p.tui.bots import bot_seats
    from druids_p2p.tui.launch import run_local
    from druids_p2p.tui.pacing import Pacing

    pacing = Pacing(move_s=opts.move_pause, trick_s=opts.trick_pause)
    from druids_p2p.tui.resume import saved_game

    # A table of this game left unfinished: the UI asks to rejoin it first.
    saved = saved_game(opts.workdir, game=opts.game)

    folder = open_game_folder(opts.workdir)

    outcome = run_local(
        identity,
        bot_seats(bot_names),
        rounds=opts.rounds,
        variant=opts.variant,
        budget_ms=opts.budget_ms,
        folder=folder,
        plugins_dirs=tuple(opts.plugins_dir),
        saved=saved,
        pacing=pacing,
        prefs=table_prefs(opts),
    )
    print_outcome(outcome, Path((outcome or {}).get("folder") or folder), opts.as_json)
