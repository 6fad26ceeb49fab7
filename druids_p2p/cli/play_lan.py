"""``druids play --lan [--game NAME]``: check the LAN flags, then open the terminal UI's lobby.

One path for every game: the lobby lists the tables heard on the chosen network, hosts one of
``--game``'s tables (its seat range and options, ``tui/screens/lobby.py``) and joins only tables
of that game; the table screen after seating is the game's (its spec's ``ui``). The UI's entry
(``cli/play_ui.py``) checks the options against the game first and hands over here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from druids_p2p.cli.app import fail
from druids_p2p.cli.ui_options import UiOptions, table_prefs
from druids_p2p.cli.ui_outcome import open_game_folder, print_outcome

PREFERRED_BOTS = ("rule", "random", "pimc")
"""The bots offered first for a seat, when they play the game."""


def play_lan(opts: UiOptions, trick_s: float, rounds: int) -> None:
    """The LAN lobby of ``opts.game``; ``trick_s``: how long a finished trick stays shown (a
    game without tricks passes 0); ``rounds``: those of a table it hosts (checked)."""
    from druids_p2p.cli.bots_cmd import load_registry
    from druids_p2p.cli.id_cmd import load_identity
    from druids_p2p.lan.listener import BadPin, parse_pin
    from druids_p2p.lan.network import InterfaceError, UnsafeDestination, resolve

    if not 1 <= opts.beacon_port <= 65535:
        fail(f"--beacon-port must be 1..65535, not {opts.beacon_port}")
    try:
        pins = tuple(parse_pin(fp) for fp in opts.fingerprints or ())
    except BadPin as exc:
        fail(str(exc))
    registry = load_registry(opts.plugins_dir, False)
    known = [b for b in registry.names() if registry.get(b).plays(opts.game)]
    try:
        net = resolve(interface=opts.interface, address=opts.address)
    except (InterfaceError, UnsafeDestination) as exc:
        fail(str(exc))
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("the terminal UI needs a terminal; use --headless to play without one")
    identity = load_identity(opts.name)

    from druids_p2p.tui.launch import run_lan
    from druids_p2p.tui.pacing import Pacing
    from druids_p2p.tui.resume import saved_game
    from druids_p2p.tui.screens.lobby import LanSetup

    # A table of this game left unfinished: the UI asks to rejoin it first.
    saved = saved_game(opts.workdir, game=opts.game)
    folder = open_game_folder(opts.workdir)
    preferred = [b for b in PREFERRED_BOTS if b in known]
    setup = LanSetup(
        net=net,
        beacon_port=opts.beacon_port,
        bots=tuple(preferred + [b for b in known if b not in preferred]),
        budget_ms=opts.budget_ms,
        table_name=f"{identity.name}'s table"[:32],
        rounds=rounds,
        variant=opts.variant,
        game=opts.game,
        plugins_dirs=tuple(opts.plugins_dir),
        pins=pins,
    )
    pacing = Pacing(move_s=opts.move_pause, trick_s=trick_s)
    prefs = table_prefs(opts)
    outcome = run_lan(identity, setup, folder, saved, pacing=pacing, game=opts.game, prefs=prefs)
    print_outcome(outcome, Path((outcome or {}).get("folder") or folder), opts.as_json)
