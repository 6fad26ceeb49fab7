"""``druids play`` without ``--headless``: check the command line against the game's spec, then
open its terminal UI (its spec's ``ui``). One entry for every game: each flag the game has no use
for is refused by name (``--rounds``, ``--variant``, ``--offline``)."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from druids_p2p.cli.app import fail, options_of, pick_game
from druids_p2p.cli.ui_options import UiOptions, seat_words, table_prefs
from druids_p2p.cli.ui_outcome import open_game_folder, print_outcome

if TYPE_CHECKING:
    from druids_p2p.bots.local_game import BotLookup
    from druids_p2p.tui.bots import BotSeat
    from druids_p2p.tui.game_ui import OfflineApp

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
    """Any game's table in the terminal UI: you and bots at a table of bot peer processes on
    loopback (a table of this game left unfinished is offered first, to rejoin), the LAN lobby
    (``--lan``), or, for a game whose UI has one, ``--offline`` against in-process bots."""
    from druids_p2p.cli.bots_cmd import load_registry
    from druids_p2p.cli.id_cmd import load_identity
    from druids_p2p.tui.game_ui import game_ui, offline_app

    spec = pick_game(opts.game, opts.players)
    game = spec.name
    try:
        ui = game_ui(game)
        offline = offline_app(game) if opts.offline else None
    except ValueError as exc:
        fail(str(exc))
    if opts.fingerprints and not opts.lan:
        fail("--fingerprint pins LAN hosts: it goes with --lan")
    if (opts.interface is not None or opts.address is not None) and not opts.lan:
        fail("--interface/--address choose the LAN for --lan; a local table is loopback only")
    if opts.lan and opts.offline:
        fail("--offline plays against in-process bots; --lan is the LAN lobby")
    rounds = options_of(spec, opts.rounds, opts.variant)
    check_time_per_move(opts.budget_ms)
    trick_s = opts.trick_pause if ui.tricks else 0.0
    for flag, seconds in (("--trick-pause", trick_s), ("--move-pause", opts.move_pause)):
        if not 0 <= seconds <= MAX_PAUSE_S:
            fail(f"{flag} must be 0 to {MAX_PAUSE_S:g} seconds, not {seconds:g}")
    if opts.lan:
        from druids_p2p.cli.play_lan import play_lan

        play_lan(opts, trick_s, rounds)
        return
    registry = load_registry(opts.plugins_dir, False)
    known = [b for b in registry.names() if registry.get(b).plays(game)]
    bot_names = bots_from_options(
        opts.seats, opts.bots, opts.players, known, (spec.min_players, spec.max_players)
    )
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("the terminal UI needs a terminal; use --headless to play without one")
    identity = load_identity(opts.name)

    from druids_p2p.tui.bots import bot_seats

    folder = open_game_folder(opts.workdir)
    others = bot_seats(bot_names)
    if offline is not None:
        _play_offline(opts, offline, identity.name, others, registry, folder)
        return

    from druids_p2p.tui.launch import run_local
    from druids_p2p.tui.pacing import Pacing
    from druids_p2p.tui.resume import saved_game

    outcome = run_local(
        identity,
        others,
        rounds=rounds,
        variant=opts.variant,
        budget_ms=opts.budget_ms,
        folder=folder,
        plugins_dirs=tuple(opts.plugins_dir),
        saved=saved_game(opts.workdir, game=game),  # asked first: rejoin it?
        pacing=Pacing(move_s=opts.move_pause, trick_s=trick_s),
        game=game,
        prefs=table_prefs(opts),
    )
    print_outcome(outcome, Path((outcome or {}).get("folder") or folder), opts.as_json)


def _play_offline(
    opts: UiOptions,
    offline: OfflineApp,
    name: str,
    others: list[BotSeat],
    registry: BotLookup,
    folder: Path,
) -> None:
    """You and in-process bots on this machine (no processes, no mental cards): the seat order
    is ``--seats``' (at a table of peers it is drawn by coin flip)."""
    from druids_p2p.bots.local_game import make_bot

    me = seat_words(opts.seats).index("human") if opts.seats is not None else 0
    names = [s.name for s in others]
    names.insert(me, name)
    others_seats = [s for s in range(len(names)) if s != me]
    players_by_seat = {
        seat: make_bot(spec.bot, registry, opts.game)[1]
        for seat, spec in zip(others_seats, others, strict=True)
    }
    ui = offline(
        tuple(names),
        players_by_seat,
        seat=me,
        seed=random.SystemRandom().randrange(2**32),
        budget_ms=opts.budget_ms,
        folder=folder,
        pause_s=opts.move_pause,
        prefs=table_prefs(opts),
    )
    print_outcome(ui.run(), folder, opts.as_json)
