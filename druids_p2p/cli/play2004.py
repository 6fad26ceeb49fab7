"""``druids play --game druids2004``: check the command line, then open the 2004 table's UI.

The 2004 game is played offline against in-process bots until the LAN table deals it; every way
of asking for it at a LAN table (``--lan``, ``host``, ``join``, ``--headless``'s peer processes) is
refused here, by the flag the user typed, before anything starts.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from druids_p2p.cli.app import fail
from druids_p2p.rulesets import DEFAULT_RULESET, RULESETS
from druids_p2p.rulesets import check_game as _known_game

LAN_GAMES = (DEFAULT_RULESET,)
"""The rule sets a LAN table (lobby, ``host``, ``join``, ``--headless``) plays today."""


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


def play_2004_ui(
    *,
    game: str,
    seats: str | None,
    bots: str | None,
    players: int | None,
    rounds: int,
    variant: bool,
    budget_ms: float,
    workdir: Path | None,
    name: str | None,
    plugins_dir: list[Path],
    as_json: bool,
    lan_flags: bool = False,
    move_pause: float = 0.6,
) -> None:
    """The offline 2004 table: the person and 1 to 3 bots (2 to 4 seats); ``move_pause``:
    how long each bot's finished turn stays in view."""
    from druids_p2p.cli.bots_cmd import load_registry
    from druids_p2p.cli.play_ui import (
        MAX_PAUSE_S,
        _print_outcome,
        bots_from_options,
        check_time_per_move,
    )

    check_game(game)
    if lan_flags:
        fail("--interface/--address/--fingerprint choose the LAN for --lan")
    if rounds != 5:
        fail(f"--rounds is a druids2017 option: a {game} game has no rounds")
    ruleset = RULESETS[game]
    low, high = ruleset.min_players, ruleset.max_players
    if players is not None and not low <= players <= high:
        fail(f"--players must be {low} to {high} for {game}, not {players}")
    if variant:
        fail(f"--variant is Gaia's light side, a druids2017 option; {game} has none")
    check_time_per_move(budget_ms)
    if not 0 <= move_pause <= MAX_PAUSE_S:
        fail(f"--move-pause must be 0 to {MAX_PAUSE_S:g} seconds, not {move_pause:g}")
    registry = load_registry(plugins_dir, False)
    known = [b for b in registry.names() if registry.get(b).plays(game)]
    bot_names = bots_from_options(seats, bots, players, known, seat_range=(low, high))
    me = 0
    if seats is not None:
        me = [s.strip() for s in seats.split(",") if s.strip()].index("human")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail("the terminal UI needs a terminal")

    from druids_p2p.bots.local_game import make_bot
    from druids_p2p.cli.id_cmd import load_identity
    from druids_p2p.tui.bots import bot_seats
    from druids_p2p.tui.game_uis import offline_app
    from druids_p2p.tui.launch import game_folder

    identity = load_identity(name)
    try:
        folder = game_folder(workdir)
    except OSError as exc:
        fail(f"--workdir {workdir}: {exc.strerror or exc}" if workdir else f"{exc}", 1)
    others = bot_seats(bot_names)
    names = [s.name for s in others]
    names.insert(me, identity.name)
    others_seats = [s for s in range(len(names)) if s != me]
    players_by_seat = {
        seat: make_bot(spec.bot, registry, game)[1]
        for seat, spec in zip(others_seats, others, strict=True)
    }
    ui = offline_app(game)(
        tuple(names),
        players_by_seat,
        seat=me,
        seed=random.SystemRandom().randrange(2**32),
        budget_ms=budget_ms,
        folder=folder,
        pause_s=move_pause,
    )
    outcome = ui.run()
    _print_outcome(outcome, folder, as_json)
