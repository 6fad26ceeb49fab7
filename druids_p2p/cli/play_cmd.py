"""`druids play`: the terminal UI with you and bots, or with --headless a table of peer processes.

Headless, each seat is a peer process on loopback, as a person runs one; the UI part stays in
play_ui so that `druids --help` does not load it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer

from druids_p2p.cli.app import (
    ORDER,
    app,
    block,
    fail,
    game_option,
    make_folder,
    options_of,
    pick_game,
    players,
    rounds_of,
    rounds_option,
    say,
    scores_text,
    variant_option,
    when_interrupted,
)
from druids_p2p.cli.peer_run import check_bots, check_deadlines, resume_or_new
from druids_p2p.cli.play_ui import MOVE_PAUSE_S, TRICK_PAUSE_S, UiOptions
from druids_p2p.games.registry import new_table_options, players_help
from druids_p2p.lan import DEFAULT_PORT

# ``druids play``: the terminal UI with you and bots (``cli/play_ui.py``), or with ``--headless`` a
# whole table of peer processes on loopback (``cli/play_cmd.py``). A flag the chosen mode has
# no use for is refused by name, never silently ignored.


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
    step_deadline: float | None = typer.Option(
        None,
        "--step-deadline",
        help="Headless: seconds a peer may owe an automatic message before it is blamed "
        "[default: 10].",
    ),
    rejoin_time: float | None = typer.Option(
        None,
        "--rejoin-time",
        help="Headless: seconds, once a game, a silent peer that owes a message gets to rejoin "
        "[default: 30].",
    ),
    confirm_plays: bool = typer.Option(
        False,
        "--confirm-plays",
        help="UI: a card is played by a second key (the first marks it; another key cancels).",
    ),
    level: str | None = typer.Option(
        None,
        "--level",
        metavar="easy|normal|hard",
        help="Every bot seat plays this level: the game's bot measured for it (druids bots).",
    ),
    coach: bool = typer.Option(
        True,
        "--coach/--no-coach",
        help="UI, your table of bots: the coach (key a: what the strongest bot would play, and "
        "why) is on, a signed table option; --no-coach leaves it off.",
    ),
) -> None:
    """Play at a table on this machine: the terminal UI with you and bots (default), the LAN
    lobby (--lan), or a whole headless table of peer processes on loopback (--headless)."""
    if offline and headless:
        fail("--offline is the terminal UI's table against in-process bots; not --headless")
    if not coach and (headless or lan or offline):
        where, why = (
            ("--headless", "a headless table has no coach")
            if headless
            else ("--lan", "the lobby's tables have it off (druids host --coach turns it on)")
            if lan
            else ("--offline", "the offline table is yours and your bots' alone: it is at hand")
        )
        fail(f"--no-coach is for the terminal UI's table of you and your bots, not {where}: {why}")
    if go_on and not headless:
        fail("--go-on is for --headless: the terminal UI asks you whether to go on")
    if level is not None:
        seats, bots = level_seats(level, game, seats, bots, players, headless and not lan)
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

        play_headless(
            game=game, seats=seats, rounds=rounds, variant=variant, budget_ms=budget_ms,
            workdir=workdir, as_json=as_json, plugins_dir=plugins_dir, resume=resume, new=new,
            name=name, go_on=go_on, step_deadline=step_deadline, rejoin_time=rejoin_time,
        )  # fmt: skip
        return
    for flag, given in (("--resume", resume), ("--new", new)):
        if given:
            fail(
                f"{flag} is for --headless tables: the terminal UI asks by itself what to do "
                "with a table left unfinished"
            )
    for flag, value in (("--step-deadline", step_deadline), ("--rejoin-time", rejoin_time)):
        if value is not None:
            fail(f"{flag} is for --headless tables (the terminal UI's table keeps the defaults)")
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
            level=level,
            coach=coach,
        )
    )


def level_seats(
    level: str, game: str, seats: str | None, bots: str | None, players: int | None, headless: bool
) -> tuple[str | None, str | None]:
    """``--seats`` and ``--bots`` for ``--level``: you and the level's bot in every other seat
    (the bot named after the level plays the game's bot for it: ``bots/host.py``); a bad
    level, or bots also named, is a one-line error."""
    from druids_p2p.games.spec import LEVELS

    if level not in LEVELS:
        fail(f"--level {level!r}: choose one of {', '.join(LEVELS)}")
    if seats is not None or bots is not None:
        flag = "--seats" if seats is not None else "--bots"
        fail(
            f"--level {level} seats its bot in every bot seat; {flag} names them: give one "
            f"(a seat 'bot:{level}' is that level's bot)"
        )
    spec = pick_game(game, players)
    others = [level] * ((players or spec.default_players) - 1)
    if headless:
        return ",".join(["human", *(f"bot:{b}" for b in others)]), None
    return None, ",".join(others)


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


# ``druids play --headless``: a whole table of peer processes on loopback, one per seat
# (``peer/local_table.py``), as a person runs it.
#
# Each seat's player has a name (a bot ``rule-1``, ``random-2``… as the terminal UI names them;
# the human seat yours) and its own folder, named so, in a game folder of the data directory
# beside every other game (``<data>/games/<when>/``, or ``--workdir``). While the game is played a
# line per round goes to stderr (none with ``--json``); the result names every player with total
# and place (``cli/app.py``); Ctrl-C makes every seat leave, recorded, and says where the
# records are.


def default_seats(seats: int) -> str:
    """``--seats`` unless told: you and rule bots, the game's default number of seats."""
    return ",".join(["human", *["bot:rule"] * (seats - 1)])


def human_name(name: str | None) -> str:
    """The human seat's player: ``--name``, else this person's identity's name (not made if
    there is none yet), else the login name."""
    from druids_p2p.wire import IdentityError, data_dir
    from druids_p2p.wire.identity import check_name, default_name, identity_path, load_identity

    if name is not None:
        try:
            return check_name(name)
        except IdentityError as exc:
            fail(f"--name {name!r}: {exc}")
    path = identity_path(data_dir())
    if path.exists():
        try:
            return load_identity(path).name
        except IdentityError:
            pass
    return default_name()


def player_names(seats: list[str], name: str | None) -> list[str]:
    """Each seat's player name, also its folder's: bots numbered in seat order as the terminal
    UI names them (``rule-1``, ``random-2``), the human seat ``human_name`` (made unique)."""
    from druids_p2p.lan.seating import unique_name

    bots = iter(range(1, len(seats) + 1))
    names = [seat if seat == "human" else f"{seat[4:]}-{next(bots)}"[:32] for seat in seats]
    if "human" in seats:
        me = re.sub(r"[^\w.-]", "_", human_name(name)).strip(".") or "me"
        names[seats.index("human")] = unique_name(me, [n for n in names if n != "human"])
    return names


class Progress:
    """The first seat's events as a line per round on stderr, players named; a game not
    played by rounds (``spec.rounds == 0``) is told with no round count."""

    def __init__(self, rounds: int, card_table: bool = False) -> None:
        """``card_table``: a game of one long round (not played by rounds), whose opening is
        said too."""
        self.rounds = rounds
        self.card_table = card_table
        self.order: list[str] = []
        self.totals: list[int] = []

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "seated" and isinstance(event.get("order"), list):
            self.order = [str(n) for n in event["order"]]
            say(f"seats in play order (the coin flip's): {', '.join(self.order)}", err=True)
        elif kind == "round_ended" and isinstance(event.get("scores"), list) and self.order:
            scores = [int(s) for s in event["scores"]]
            running = self.totals or [0] * len(scores)
            self.totals = [t + s for t, s in zip(running, scores, strict=False)]
            said = scores_text(self.order, scores, self.totals)
            if self.card_table:  # one long round: no round to count
                ended = event.get("ended_by")
                say(f"game over{f' ({ended})' if ended else ''}: {said}", err=True)
            else:
                n = int(event.get("round", 0)) + 1
                say(f"round {n} of {self.rounds}: {said}", err=True)
        elif kind == "rejoining":
            say(str(event.get("text") or kind), err=True)
        elif self.card_table and kind == "round_started":  # its opening, said without a round
            say("the table opens: keys, shuffles, the deal", err=True)


def deadline_flags(step_deadline: float | None, rejoin_time: float | None) -> tuple[str, ...]:
    """``--step-deadline`` and ``--rejoin-time`` for every peer, those given (else its own)."""
    flags = (("--step-deadline", step_deadline), ("--rejoin-time", rejoin_time))
    return tuple(part for flag, value in flags if value is not None for part in (flag, str(value)))


def play_headless(
    *,
    game: str,
    seats: str | None,
    rounds: int | None,
    variant: bool,
    budget_ms: float,
    workdir: Path | None,
    as_json: bool,
    plugins_dir: list[Path],
    resume: bool,
    new: bool,
    name: str | None,
    go_on: bool = False,
    step_deadline: float | None = None,
    rejoin_time: float | None = None,
) -> None:
    from druids_p2p.cli.play_ui import check_time_per_move
    from druids_p2p.peer.homes import game_folder
    from druids_p2p.peer.local_table import (
        LocalTableError,
        TableLeft,
        parse_seats,
        play_table,
        saved_seats,
    )
    from druids_p2p.wire import data_dir

    spec = pick_game(game)
    game = spec.name
    try:
        seat_list = parse_seats(
            seats or default_seats(spec.default_players), (spec.min_players, spec.max_players)
        )
    except ValueError as exc:
        fail(f"--seats: {exc}")
    if name is not None and "human" not in seat_list:
        fail("--name names your seat ('human' in --seats), and these seats have none")
    if rounds is not None and spec.rounds:
        rounds_of(spec, rounds)
    check_time_per_move(budget_ms)
    check_deadlines(1.0 if step_deadline is None else step_deadline, rejoin_time or 0.0)
    check_bots([seat[4:] for seat in seat_list if seat.startswith("bot:")], plugins_dir, game)
    by_rounds = spec.rounds > 0
    rounds = options_of(spec, rounds, variant)
    if workdir is not None:
        make_folder("--workdir", workdir)
    resume_or_new(resume, new)
    names = player_names(seat_list, name)
    saved = saved_seats(workdir, names) if workdir is not None else []
    if resume and len(saved) != len(seat_list):
        fail(f"--resume: {workdir or 'a new folder'} holds no unfinished table for every seat")
    if saved and not (resume or new):
        fail(
            f"{workdir} holds an unfinished table: add --resume to play it on, or --new to "
            "start a new table beside it (its records are kept)"
        )
    try:
        base = game_folder(data_dir(), workdir)
    except OSError as exc:
        fail(f"cannot make the game folder: {exc}", 1)
    when_interrupted(lambda: f"every seat left the table; its records are kept in {base}")
    if not as_json:
        say(f"a table of {len(seat_list)} peer processes; their records go to {base}", err=True)
    options = new_table_options(game, len(seat_list), variant, rounds)
    try:
        summary = play_table(
            seat_list, options, None, budget_ms, base, resume=resume, new=new, game=game,
            plugins_dirs=tuple(plugins_dir), names=names, go_on=go_on,
            peer_flags=deadline_flags(step_deadline, rejoin_time),
            listener=None if as_json else Progress(rounds, not by_rounds),
        )  # fmt: skip
    except LocalTableError as exc:
        fail(str(exc), 1)
    except TableLeft as left:
        if left.finished:
            when_interrupted(lambda: f"the game had ended; its records are kept in {base}")
        raise
    _print(summary, base, as_json, game)
    if summary["aborted"] or not summary["finished"]:
        raise typer.Exit(1)


def _print(summary: dict[str, Any], base: Path, as_json: bool, game: str) -> None:
    """The result: every seat's player in play order, in text or JSON (``players``, and the
    older keys ``totals``, ``winners``, ``records``, every list in that one order)."""
    by_seat = {s: i for i, s in enumerate(summary["play_seats"]) if isinstance(s, int)}
    order = [by_seat.get(seat, seat) for seat in range(len(summary["play_seats"]))]
    names = [str(summary["seats"].get(seat) or "?") for seat in range(len(order))]
    records = [summary["records"][i] for i in order]
    table = players(
        names, summary["totals"], summary["winners"], records, bool(summary["finished"])
    )
    if as_json:
        out = {
            "game": game,
            "finished": summary["finished"],
            "aborted": summary["aborted"],
            "blame": summary["blame"],
            "order": ORDER,
            "players": table,
            "totals": summary["totals"],
            "winners": summary["winners"],
            "records": records,
            "folder": str(base),
            "went_on": summary.get("went_on", []),
            "lost": summary.get("lost", []),
        }
        print(json.dumps(out))
        return
    for line in summary.get("went_on", []):
        print(line)  # a seat gone for good, a stand-in in its place (--go-on)
    for line in block(summary, table, [r for r in records if r]):
        print(line)
