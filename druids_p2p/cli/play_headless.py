"""``druids play --headless``: a whole table of peer processes on loopback, one per seat
(``peer/local_table.py``), as a person runs it.

Each seat's player has a name (a bot ``rule-1``, ``random-2``… as the terminal UI names them;
the human seat yours) and its own folder, named so, in a game folder of the data directory
beside every other game (``<data>/games/<when>/``, or ``--workdir``). While the game is played a
line per round goes to stderr (none with ``--json``); the result names every player with total
and place (``cli/result_block.py``); Ctrl-C makes every seat leave, recorded, and says where the
records are.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer

from druids_p2p.cli.app import (
    fail,
    make_folder,
    options_of,
    pick_game,
    rounds_of,
    when_interrupted,
)
from druids_p2p.cli.peer_checks import check_bots, resume_or_new
from druids_p2p.cli.result_block import ORDER, block, players, scores_text
from druids_p2p.cli.streams import say
from druids_p2p.games.registry import new_table_options


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
