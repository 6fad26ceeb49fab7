"""``druids play --game druids2004``: check the command line, then seat the person at a 2004 table.

By default the table is one of peers on this machine, as 2017's: the person's peer in this
process (the terminal UI's table screen over its seat copy) and each bot a ``druids peer``
process over loopback, at the mental card table; a 2004 table this seat left unfinished is
offered first, to rejoin (``tui/resume.py``). ``--offline`` plays the engine against
in-process bots instead (no processes, no mental cards); ``--lan`` opens the LAN lobby of 2004
tables (``cli/play_lan.py``). A person at the plain terminal
(``host``/``join`` without ``--bot``, ``--headless --seats human``) types the moves
(``lan/peer_config.py`` ``PromptPlayer``).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from druids_p2p.cli.app import fail
from druids_p2p.cli.ui_options import UiOptions, seat_words, table_prefs
from druids_p2p.cli.ui_outcome import open_game_folder, print_outcome
from druids_p2p.rulesets import RULESETS
from druids_p2p.rulesets import check_game as _known_game


def check_game(game: str) -> str:
    """``game`` if it is a rule set of :data:`~druids_p2p.rulesets.RULESETS`; exit 2 otherwise."""
    try:
        return _known_game(game)
    except ValueError as exc:
        fail(str(exc))


def play_2004_ui(opts: UiOptions) -> None:
    """You and 1 to 3 bots (2 to 4 seats): at a table of bot peer processes on loopback, or
    with ``--offline`` against in-process bots, or the LAN lobby (``--lan``) of 2004 tables;
    ``--move-pause``: how long each bot's move stays in view."""
    from druids_p2p.cli.bots_cmd import load_registry
    from druids_p2p.cli.play_ui import (
        MAX_PAUSE_S,
        bots_from_options,
        check_time_per_move,
    )

    check_game(opts.game)
    if opts.lan_flags and not opts.lan:
        fail("--interface/--address/--fingerprint choose the LAN for --lan")
    if opts.lan and opts.offline:
        fail("--offline plays against in-process bots; --lan is the LAN lobby")
    if opts.rounds != 5:
        fail(f"--rounds is a druids2017 option: a {opts.game} game has no rounds")
    ruleset = RULESETS[opts.game]
    low, high = ruleset.min_players, ruleset.max_players
    if opts.players is not None and not low <= opts.players <= high:
        fail(f"--players must be {low} to {high} for {opts.game}, not {opts.players}")
    if opts.variant:
        fail(f"--variant is Gaia's light side, a druids2017 option; {opts.game} has none")
    check_time_per_move(opts.budget_ms)
    if not 0 <= opts.move_pause <= MAX_PAUSE_S:
        fail(f"--move-pause must be 0 to {MAX_PAUSE_S:g} seconds, not {opts.move_pause:g}")
    if opts.lan:
        from druids_p2p.cli.play_lan import play_lan

        play_lan(opts, 0.0)  # a 2004 game has no tricks to hold in view
        return
    registry = load_registry(opts.plugins_dir, False)
    known = [b for b in registry.names() if registry.get(b).plays(opts.game)]
    bot_names = bots_from_options(
        opts.seats, opts.bots, opts.players, known, seat_range=(low, high)
    )
    me = 0  # at a table of peers the seat order is drawn by coin flip; offline it is --seats'
    if opts.seats is not None:
        me = seat_words(opts.seats).index("human")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("the terminal UI needs a terminal")

    from druids_p2p.cli.id_cmd import load_identity
    from druids_p2p.tui.bots import bot_seats

    identity = load_identity(opts.name)
    folder = open_game_folder(opts.workdir)
    others = bot_seats(bot_names)
    if not opts.offline:
        from druids_p2p.tui.launch import run_local
        from druids_p2p.tui.pacing import Pacing
        from druids_p2p.tui.resume import saved_game

        outcome = run_local(
            identity,
            others,
            rounds=5,
            variant=False,
            budget_ms=opts.budget_ms,
            folder=folder,
            plugins_dirs=tuple(opts.plugins_dir),
            saved=saved_game(opts.workdir, game=opts.game),  # asked first: rejoin it?
            pacing=Pacing(move_s=opts.move_pause, trick_s=0.0),
            game=opts.game,
            prefs=table_prefs(opts),
        )
        print_outcome(outcome, Path((outcome or {}).get("folder") or folder), opts.as_json)
        return

    from druids_p2p.bots.local_game import make_bot
    from druids_p2p.tui.game_uis import offline_app

    names = [s.name for s in others]
    names.insert(me, identity.name)
    others_seats = [s for s in range(len(names)) if s != me]
    players_by_seat = {
        seat: make_bot(spec.bot, registry, opts.game)[1]
        for seat, spec in zip(others_seats, others, strict=True)
    }
    ui = offline_app(opts.game)(
        tuple(names),
        players_by_seat,
        seat=me,
        seed=random.SystemRandom().randrange(2**32),
        budget_ms=opts.budget_ms,
        folder=folder,
        pause_s=opts.move_pause,
        prefs=table_prefs(opts),
    )
    outcome = ui.run()
    print_outcome(outcome, folder, opts.as_json)
