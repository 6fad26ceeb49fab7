"""``druids peer`` / ``host`` / ``join``: playing over the LAN protocol.

Checking the options and running the peer are in :mod:`.peer_run`, finding the table a join
names in :mod:`.tables`; ``druids play`` is :mod:`.play_cmd`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TypedDict

import typer

from druids_p2p.cli.app import (
    app,
    echo_err,
    fail,
    game_option,
    pick_game,
    players_option,
    rounds_option,
    variant_option,
)
from druids_p2p.cli.peer_run import (
    bind_address,
    check_bot,
    check_door,
    check_lobby_target,
    check_port,
    check_rematch_wait,
    check_rematches,
    check_table_name,
    check_times,
    emitter,
    print_result,
    resume_or_new,
    run_one_peer,
)
from druids_p2p.cli.tables import (
    DEFAULT_SEARCH_S,
    MAX_SEARCH_S,
    check_table_game,
    find_table,
    lobby_announcement,
    saved_table,
)
from druids_p2p.lan import DEFAULT_PORT

_GONE_HELP = "Seconds a player may take over a move before the game ends blaming it."


_STEP_HELP = (
    "Seconds a peer may owe an automatic message (seating, a card-table step, an owners' word, "
    "its result) before it is blamed."
)


_REJOIN_HELP = "Seconds, once a game, a silent peer that owes a message gets to rejoin."


_APPROVE_HELP = "Ask on the terminal (y/n) before seating each joiner not --allow'ed."


_OPEN_HELP = "Seat anyone who asks while seats are free (default: only --allow'ed or approved)."


_ALLOW_HELP = "Seat the joiner whose key has this fingerprint (prefix) without asking; repeatable."


_RESUME_HELP = "Rejoin the unfinished table saved here (after a crash)."


_NEW_HELP = "Start a new table even if an unfinished one is saved here (it is kept)."


_GO_ON_HELP = (
    "A game played by rounds: when a seat is gone for good, go on without it at a new table "
    "with a bot in its seat, from the first round not complete, the scores so far carried."
)


_PLAYER = typer.Option("human", "--player", help="'human' or 'bot:NAME'.")

# The options that peer, host and join all take, declared once (typer reads them per command).
_BEACON_PORT = typer.Option(DEFAULT_PORT, "--beacon-port")
_GONE_AFTER = typer.Option(300.0, "--gone-after", help=_GONE_HELP)
_STEP_DEADLINE = typer.Option(10.0, "--step-deadline", help=_STEP_HELP)
_REJOIN_TIME = typer.Option(30.0, "--rejoin-time", help=_REJOIN_HELP)
_PLUGINS_DIR = typer.Option([], "--plugins-dir")
_RESUME = typer.Option(False, "--resume", help=_RESUME_HELP)
_NEW = typer.Option(False, "--new", help=_NEW_HELP)
_GO_ON = typer.Option(False, "--go-on", help=_GO_ON_HELP)
_REMATCH = typer.Option(
    0,
    "--rematch",
    help="Play N rematches after the game: the same players and options at a new table "
    "(the first seat hosts it; a bot sits for any seat that does not come within "
    "--rematch-wait).",
    metavar="N",
)
_REMATCH_WAIT = typer.Option(
    30.0,
    "--rematch-wait",
    help="Hosting a rematch: seconds to wait for the old seats before a bot sits in an empty one.",
    metavar="SECONDS",
)
# ... and those host and join take.
_BOT = typer.Option(None, "--bot", help="Let this bot play your seat.")
_INTERFACE = typer.Option(None, "--interface", help="Network interface.")
_ADDRESS = typer.Option(None, "--address", help="Local IPv4 address.")
_JSON = typer.Option(False, "--json", help="Progress as JSON lines.")
_GAME = game_option()
# ... and those a host takes: who it seats (lan/seating.py).
_APPROVE = typer.Option(False, "--approve", help=_APPROVE_HELP)
_OPEN = typer.Option(False, "--open", help=_OPEN_HELP)
_ALLOW = typer.Option([], "--allow", help=_ALLOW_HELP, metavar="FP")
_COACH = typer.Option(
    False,
    "--coach/--no-coach",
    help="Host a table with the coach on (a person may ask what the strongest bot would play): "
    "it seats one person, the rest bots; every peer refuses it with a second person.",
)
_SAY = typer.Option(
    [], "--say", help="Say this line to the table once seated (table chat; repeatable)."
)


@app.command("peer", hidden=True)
def peer_command(
    player: str = _PLAYER,
    name: str | None = typer.Option(None, "--name", help="Display name for this identity."),
    host: bool = typer.Option(False, "--host", help="Host a new table."),
    join: str | None = typer.Option(None, "--join", help="Join the lobby at HOST:PORT."),
    players: int | None = players_option(),
    rounds: int | None = rounds_option(),
    variant: bool = variant_option(),
    table_name: str = typer.Option("druids", "--table-name"),
    bind: str = typer.Option("127.0.0.1", "--bind", "--address"),
    port: int = typer.Option(0, "--port"),
    announce: bool = typer.Option(True, "--announce/--no-announce"),
    beacon_port: int = _BEACON_PORT,
    budget_ms: float = typer.Option(100.0, "--budget-ms"),
    gone_after: float = _GONE_AFTER,
    step_deadline: float = _STEP_DEADLINE,
    rejoin_time: float = _REJOIN_TIME,
    plugins_dir: list[Path] = _PLUGINS_DIR,
    moves: bool = typer.Option(True, "--moves/--no-moves", help="An event line per move."),
    approve: bool = _APPROVE,
    open_door: bool = _OPEN,
    allow: list[str] = _ALLOW,
    resume: bool = _RESUME,
    new: bool = _NEW,
    game: str = _GAME,
    go_on: bool = _GO_ON,
    rematches: int = _REMATCH,
    rematch_wait: float = _REMATCH_WAIT,
    say: list[str] = _SAY,
    coach: bool = _COACH,
) -> None:
    """One peer process (what host/join/play start); progress as JSON lines on stdout."""
    pick_game(game, players)
    pins = check_door(open_door, allow, approve)
    result = run_one_peer(
        player=player,
        name=name,
        host=host,
        join=join,
        players=players,
        rounds=rounds,
        variant=variant,
        table_name=table_name,
        bind=bind,
        port=port,
        announce=announce,
        beacon_port=beacon_port,
        budget_ms=budget_ms,
        gone_after=gone_after,
        step_deadline=step_deadline,
        rejoin_time=rejoin_time,
        plugins_dir=plugins_dir,
        events=True,
        move_events=moves,
        approve=approve,
        open_door=open_door,
        allow=pins,
        resume=resume,
        new=new,
        game=game,
        go_on=go_on,
        rematches=check_rematches(rematches),
        rematch_wait=check_rematch_wait(rematch_wait),
        chat_lines=tuple(say),
        coach=coach,
    )
    if result.get("aborted"):
        raise typer.Exit(1)


class LanSeat(TypedDict):
    """The part of :func:`run_one_peer`'s options that ``host`` and ``join`` fill alike."""

    player: str
    name: None
    bind: str
    port: int
    beacon_port: int
    budget_ms: float
    gone_after: float
    step_deadline: float
    rejoin_time: float
    plugins_dir: list[Path]


def _lan_seat(
    bot: str | None,
    interface: str | None,
    address: str | None,
    beacon_port: int,
    gone_after: float,
    step_deadline: float,
    rejoin_time: float,
    plugins_dir: list[Path],
    game: str | None = None,
) -> LanSeat:
    """Check the options ``host`` and ``join`` share, in the order both report them, and turn
    them into the seat's peer options: the bot (or the person) on this machine's LAN address."""
    check_port("--beacon-port", beacon_port)
    check_times(gone_after, step_deadline, rejoin_time)
    check_bot(bot, plugins_dir, game)
    return LanSeat(
        player=f"bot:{bot}" if bot else "human",
        name=None,
        bind=bind_address(interface, address),
        port=0,
        beacon_port=beacon_port,
        budget_ms=100.0,
        gone_after=gone_after,
        step_deadline=step_deadline,
        rejoin_time=rejoin_time,
        plugins_dir=plugins_dir,
    )


@app.command("host")
def host_command(
    name: str = typer.Option("druids", "--name", help="Table name shown to others."),
    players: int | None = players_option(),
    variant: bool = variant_option(),
    rounds: int | None = rounds_option(),
    bot: str | None = _BOT,
    interface: str | None = _INTERFACE,
    address: str | None = _ADDRESS,
    beacon_port: int = _BEACON_PORT,
    gone_after: float = _GONE_AFTER,
    step_deadline: float = _STEP_DEADLINE,
    rejoin_time: float = _REJOIN_TIME,
    plugins_dir: list[Path] = _PLUGINS_DIR,
    as_json: bool = _JSON,
    approve: bool = _APPROVE,
    open_door: bool = _OPEN,
    allow: list[str] = _ALLOW,
    resume: bool = _RESUME,
    new: bool = _NEW,
    game: str = _GAME,
    go_on: bool = _GO_ON,
    rematches: int = _REMATCH,
    rematch_wait: float = _REMATCH_WAIT,
    say: list[str] = _SAY,
    coach: bool = _COACH,
) -> None:
    """Host a table: announce it on the LAN, wait for players, then play.

    Only joiners you let in are seated: --allow FP (a fingerprint, from 'druids id'), --approve (ask
    y/n for each) or --open (anyone); without them every joiner is refused.
    """
    pick_game(game, players)
    check_table_name(name)
    pins = check_door(open_door, allow, approve)
    times = (gone_after, step_deadline, rejoin_time)
    seat = _lan_seat(bot, interface, address, beacon_port, *times, plugins_dir, game)
    result = run_one_peer(
        **seat,
        host=True,
        join=None,
        players=players,
        rounds=rounds,
        variant=variant,
        table_name=name,
        announce=True,
        events=as_json,
        approve=approve,
        open_door=open_door,
        allow=pins,
        resume=resume,
        new=new,
        game=game,
        go_on=go_on,
        rematches=check_rematches(rematches),
        rematch_wait=check_rematch_wait(rematch_wait),
        chat_lines=tuple(say),
        coach=coach,
    )
    print_result(result, as_json)


@app.command("join")
def join_command(
    target: str = typer.Argument(..., help="HOST:PORT of a lobby, or a table name from 'tables'."),
    bot: str | None = _BOT,
    interface: str | None = _INTERFACE,
    address: str | None = _ADDRESS,
    beacon_port: int = _BEACON_PORT,
    seconds: float | None = typer.Option(
        None,
        "--seconds",
        help=f"How long to listen for the table's beacon [default: {DEFAULT_SEARCH_S:g}].",
    ),
    search_seconds: float | None = typer.Option(None, "--search-seconds", hidden=True),
    fingerprint: str | None = typer.Option(
        None, "--fingerprint", help="Join only a table whose host key has this fingerprint prefix."
    ),
    gone_after: float = _GONE_AFTER,
    step_deadline: float = _STEP_DEADLINE,
    rejoin_time: float = _REJOIN_TIME,
    plugins_dir: list[Path] = _PLUGINS_DIR,
    as_json: bool = _JSON,
    resume: bool = _RESUME,
    new: bool = _NEW,
    game: str | None = typer.Option(
        None, "--game", help="Join only a table of this game (its host's word; default: any)."
    ),
    go_on: bool = _GO_ON,
    rematches: int = _REMATCH,
    rematch_wait: float = _REMATCH_WAIT,
    say: list[str] = _SAY,
) -> None:
    """Join a table by its lobby address (HOST:PORT) or by its announced name.

    By name, the table's signed beacon is joined directly; a name two hosts announce needs
    --fingerprint. Run again after a crash, the same command rejoins the table this player sat at.
    """
    from druids_p2p.lan.listener import BadPin, parse_pin

    if game is not None:
        pick_game(game)  # the table's game is the host's word: --game only checks it
    resume_or_new(resume, new)
    check_lobby_target(target)
    times = (gone_after, step_deadline, rejoin_time)
    seat = _lan_seat(bot, interface, address, beacon_port, *times, plugins_dir)
    pin = None
    if fingerprint is not None:
        try:
            pin = parse_pin(fingerprint)
        except BadPin as exc:
            fail(str(exc))
    if search_seconds is not None:  # the old name (druids tables has always said --seconds)
        if seconds is not None:
            fail("--search-seconds is the old name of --seconds: give only --seconds")
        echo_err("druids: note: --search-seconds is now called --seconds, as in druids tables")
        seconds = search_seconds
    if seconds is not None and ":" in target:
        fail(f"--seconds listens for a table's beacon: {target} is joined at its lobby")
    announcement = None
    saved = saved_table(target, resume, new)
    if saved is not None:
        pass  # rejoin it: no beacon, no lobby
    elif ":" not in target:
        seconds = DEFAULT_SEARCH_S if seconds is None else seconds
        if not (math.isfinite(seconds) and 0 < seconds <= MAX_SEARCH_S):
            fail(f"--seconds must be more than 0 and at most {MAX_SEARCH_S:g}")
        emit = emitter(as_json)
        announcement = find_table(target, seat["bind"], beacon_port, seconds, emit, pin)
    elif pin is not None or game is not None:
        announcement = lobby_announcement(target, pin)
    if announcement is not None and game is not None:
        check_table_game(announcement, game, target)
    result = run_one_peer(
        **seat,
        host=False,
        join=None if announcement is not None else target,
        players=None,
        rounds=None,
        variant=False,
        table_name="druids",
        announce=False,
        events=as_json,
        announcement=announcement,
        table_typed=None if ":" in target else target,
        resume_folder=saved,
        new=new,
        go_on=go_on,
        rematches=check_rematches(rematches),
        rematch_wait=check_rematch_wait(rematch_wait),
        chat_lines=tuple(say),
    )
    print_result(result, as_json)
