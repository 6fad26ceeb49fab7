"""What ``druids play`` does once its options are read: the person's table in the terminal UI,
local or on the LAN, and what is printed when the UI closes; apart from ``play_cmd`` so that
``druids --help`` imports no Textual."""

from __future__ import annotations

import json
import math
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from druids_p2p.cli.app import fail, options_of, pick_game

if TYPE_CHECKING:
    from druids_p2p.bots.local_game import BotLookup
    from druids_p2p.tui.bots import BotSeat
    from druids_p2p.tui.game_ui import OfflineApp, TablePrefs


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
    from druids_p2p.cli.peer_run import load_identity
    from druids_p2p.cli.tournament_options import load_registry
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

    from druids_p2p.tui.bots import saved_game
    from druids_p2p.tui.game_ui import Pacing
    from druids_p2p.tui.launch import run_local

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
        coach=opts.coach,
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


PREFERRED_BOTS = ("rule", "random", "pimc")
"""The bots offered first for a seat, when they play the game."""


def play_lan(opts: UiOptions, trick_s: float, rounds: int) -> None:
    """The LAN lobby of ``opts.game``; ``trick_s``: how long a finished trick stays shown (a
    game without tricks passes 0); ``rounds``: those of a table it hosts (checked)."""
    from druids_p2p.cli.peer_run import load_identity
    from druids_p2p.cli.tournament_options import load_registry
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

    from druids_p2p.tui.bots import saved_game
    from druids_p2p.tui.game_ui import Pacing
    from druids_p2p.tui.launch import run_lan
    from druids_p2p.tui.lobby import LanSetup

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
        level=opts.level,
    )
    pacing = Pacing(move_s=opts.move_pause, trick_s=trick_s)
    prefs = table_prefs(opts)
    outcome = run_lan(identity, setup, folder, saved, pacing=pacing, game=opts.game, prefs=prefs)
    print_outcome(outcome, Path((outcome or {}).get("folder") or folder), opts.as_json)


def open_game_folder(workdir: Path | None) -> Path:
    """``--workdir`` (made if need be) or a new folder under the data directory; exit 2 naming
    ``--workdir`` if it cannot be made, 1 if the data directory cannot."""
    from druids_p2p.tui.launch import game_folder

    try:
        return game_folder(workdir)
    except OSError as exc:
        if workdir is not None:
            fail(f"--workdir {workdir}: {exc.strerror or exc}")
        fail(f"cannot make the game folder: {exc}", 1)


def print_outcome(outcome: dict[str, Any] | None, folder: Path, as_json: bool) -> None:
    """What a terminal UI's table ended with (``DruidsApp.outcome``), printed after it closes."""
    outcome = outcome or {}
    result = outcome.get("result") or {}
    if as_json:
        print(json.dumps({**outcome, "folder": str(folder)}, default=str))
        return
    if result.get("finished"):
        print(f"game over: {_result_words(result, outcome)}")
    elif outcome.get("stopped"):
        print(f"table stopped: {outcome['stopped']}")
    evening = [s for s in outcome.get("evening") or [] if isinstance(s, dict)]
    if any(int(s.get("games", 0)) > 1 for s in evening):  # rematches: the running scores
        print(
            "this evening: "
            + "; ".join(
                f"{s['name']} {s['wins']} wins, {s['points']} points over {s['games']} games"
                for s in evening
            )
        )
    if outcome.get("record"):
        print(f"record: {outcome['record']}")
    print(f"game folder: {folder}")


def _result_words(result: dict[str, Any], outcome: dict[str, Any]) -> str:
    """``you (alice) won — totals: alice 47, rule-1 30, …``: names, never seat numbers."""
    names = list(outcome.get("names") or [])
    me = outcome.get("my_seat")
    totals = list(result.get("totals") or [])
    winners = [w for w in result.get("winners") or [] if isinstance(w, int)]

    def name(seat: int) -> str:
        return str(names[seat]) if 0 <= seat < len(names) else f"seat {seat}"

    won = [f"you ({name(w)})" if w == me else name(w) for w in winners]
    verb = "won" if len(won) == 1 else "share the win"
    scores = ", ".join(f"{name(seat)} {total}" for seat, total in enumerate(totals))
    return f"{' and '.join(won) or 'nobody'} {verb} — totals: {scores}"


TRICK_PAUSE_S = 3.0
"""``--trick-pause``'s default: seconds a finished trick stays shown."""

MOVE_PAUSE_S = 0.6
"""``--move-pause``'s default: seconds each move stays shown before the next."""


@dataclass(frozen=True, slots=True)
class UiOptions:
    """The UI flags of ``druids play`` as typed (checked by the entry point that reads them)."""

    game: str
    lan: bool
    seats: str | None
    bots: str | None
    players: int | None
    rounds: int | None
    """``--rounds`` if given (None: the game's whole game)."""
    variant: bool
    budget_ms: float
    workdir: Path | None
    name: str | None
    interface: str | None
    address: str | None
    beacon_port: int
    plugins_dir: list[Path] = field(default_factory=list)
    as_json: bool = False
    fingerprints: list[str] = field(default_factory=list)
    trick_pause: float = TRICK_PAUSE_S
    move_pause: float = MOVE_PAUSE_S
    offline: bool = False
    """The engine and in-process bots in this process, no table of peers (a game whose UI has
    an offline table)."""
    confirm_plays: bool = False
    """A card is played by a second key (the first marks it): a guard against misplays."""
    level: str | None = None
    """``--level``: the level the LAN lobby's table setup offers first (at a local table
    ``bots`` already names the level's bot for every seat)."""
    coach: bool = True
    """``--coach/--no-coach``: the coach at the table of you and your bots (a signed option)."""

    @property
    def lan_flags(self) -> bool:
        """Whether a flag that chooses the LAN (--interface, --address, --fingerprint) was given."""
        return bool(self.interface or self.address or self.fingerprints)


def table_prefs(opts: UiOptions) -> TablePrefs:
    """The person's preferences at the tables this command opens: ``--confirm-plays``, and the
    game's legend the first time this data folder sits at that game (remembered there)."""
    from druids_p2p.tui.game_ui import TablePrefs, first_time, game_ui
    from druids_p2p.wire import data_dir

    legend = game_ui(opts.game).legend and first_time(data_dir(), f"legend-{opts.game}")
    return TablePrefs(confirm_plays=opts.confirm_plays, legend=legend)


def seat_words(seats: str) -> list[str]:
    """``--seats`` split into its comma-separated entries, blanks dropped."""
    return [s.strip() for s in seats.split(",") if s.strip()]
