"""``druids play --game druids2004``: check the command line, then open the 2004 table's UI.

The 2004 game is played offline against in-process bots until the LAN table deals it; every way
of asking for it at a LAN table (``--lan``, ``host``, ``join``, ``--headless``'s peer processes) is
refused here, by the flag the user typed, before anything starts.
"""

from __future__ import annotations

import random
import sys

from druids_p2p.cli.app import fail
from druids_p2p.cli.ui_options import UiOptions, seat_words
from druids_p2p.rulesets import DEFAULT_RULESET, RULESETS
from druids_p2p.rulesets import check_game as _known_game

LAN_GAMES = (DEFAULT_RULESET,)
"""The rule sets the terminal UI's LAN lobby (``--lan``) plays today; peers with bots
(``host``, ``join``, ``--headless``) play every rule set, a person only these."""


def check_game(game: str) -> str:
    """``game`` if it is a rule set of :data:`~druids_p2p.rulesets.RULESETS`; exit 2 otherwise."""
    try:
        return _known_game(game)
    except ValueError as exc:
        fail(str(exc))


def refuse_lan(game: str, where: str) -> None:
    """Exit 2 when ``where`` (``--lan``, ``host``, ...) would need a LAN table for ``game``."""
    check_game(game)
    if game not in LAN_GAMES:
        fail(
            f"{where}: a table of peers does not play {game} yet; play it against bots on "
            f"this machine with 'druids play --game {game}'"
        )


def refuse_human(game: str, bot: str | None, where: str) -> None:
    """Exit 2 when a person would sit at a LAN table of ``game``, whose seats only bots play
    yet (the terminal UI does not show such a table)."""
    if bot is None and game not in LAN_GAMES:
        fail(
            f"{where}: a person cannot sit at a {game} table of peers yet; give --bot NAME, or "
            f"play it against bots on this machine with 'druids play --game {game}'"
        )


def play_2004_ui(opts: UiOptions) -> None:
    """The offline 2004 table: the person and 1 to 3 bots (2 to 4 seats); ``--move-pause``:
    how long each bot's finished turn stays in view."""
    from druids_p2p.cli.bots_cmd import load_registry
    from druids_p2p.cli.play_ui import (
        MAX_PAUSE_S,
        _print_outcome,
        bots_from_options,
        check_time_per_move,
    )

    check_game(opts.game)
    if opts.lan_flags:
        fail("--interface/--address/--fingerprint choose the LAN for --lan")
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
    registry = load_registry(opts.plugins_dir, False)
    known = [b for b in registry.names() if registry.get(b).plays(opts.game)]
    bot_names = bots_from_options(
        opts.seats, opts.bots, opts.players, known, seat_range=(low, high)
    )
    me = 0
    if opts.seats is not None:
        me = seat_words(opts.seats).index("human")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("the terminal UI needs a terminal")

    from druids_p2p.bots.local_game import make_bot
    from druids_p2p.cli.id_cmd import load_identity
    from druids_p2p.tui.bots import bot_seats
    from druids_p2p.tui.game_uis import offline_app
    from druids_p2p.tui.launch import game_folder

    identity = load_identity(opts.name)
    try:
        folder = game_folder(opts.workdir)
    except OSError as exc:
        fail(f"--workdir {opts.workdir}: {exc.strerror or exc}" if opts.workdir else f"{exc}", 1)
    others = bot_seats(bot_names)
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
    )
    outcome = ui.run()
    _print_outcome(outcome, folder, opts.as_json)
