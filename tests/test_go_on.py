"""The evening goes on (issue 28 item 6): when a seat of a Druids 2017 table is gone for good,
the others, each on its own verdict and its own yes, go on at a new table with a bot in the
empty seat, from the first round not complete, the scores so far carried in an account every
remaining seat signed (``peer/go_on.py``, ``lan/seating.py``, protocol.md §4 "Going on").

Real processes: a ``druids play --headless --go-on`` table loses a bot to ``kill -9`` after its
first round and finishes with a stand-in; in one process: the account's checks (a host that
forges it is blamed before anything is sent), the totals a continued table signs and audits,
and which stops go on at all."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from cli_harness import audit_record, run_cli
from table_harness import LocalTable, game_of

from druids_p2p.audit.audit import audit_messages
from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.lan.lobby import Lobby, join_table
from druids_p2p.lan.mesh import Mesh
from druids_p2p.lan.peer_config import HostSpec, PeerConfig, PeerError
from druids_p2p.lan.seating import make_account, make_join, make_seat_message, seat_list_fault
from druids_p2p.peer.go_on import departed_key, go_on_after
from druids_p2p.peer.local_table import LocalTable as PeerTable
from druids_p2p.table.table_state import Departure, TableFault
from druids_p2p.wire import Identity, MsgType, decode, encode

STEP_S, REJOIN_S = 4.0, 4.0
"""The real-process tables' step deadline and rejoin time (``--step-deadline``,
``--rejoin-time``): a killed seat is unreachable after 8 s, not the defaults' 40 s."""
REMATCH_WAIT_S = 6.0
"""How long the rematch's host waits for the old seats (seat 1 joins within a second or two)."""
CARRIED = (7, -3, 12)
"""Round 1's scores of seats 0 and 1 and of the departed seat, carried to a 3-seat table."""


def _continued(
    table: LocalTable,
    stand_in: int = 2,
    account: dict[str, Any] | None = None,
    join_accounts: dict[int, dict[str, Any] | None] | None = None,
    **seat: Any,
) -> tuple[bytes, dict[str, Any]]:
    """A seat message for ``table``'s seats going on from a previous table: seat
    ``stand_in`` a bot for a departed seat, the others carrying round 1 (``CARRIED``). Every
    join but the stand-in's carries the account unless ``join_accounts`` says otherwise."""
    keys = [s[0] for s in table.seats]
    departed = Identity.generate("gone").public_key
    sat = [k for i, k in enumerate(keys) if i != stand_in] + [departed]
    if account is None:
        rounds = {k: [v] for k, v in zip(sat, CARRIED, strict=True)}
        account = make_account(b"\x11" * 32, departed, rounds)
    offer = decode(table.joins[1]).table_id
    joins = []
    for i in range(1, len(keys)):
        carried = (join_accounts or {}).get(i, None if i == stand_in else account)
        joins.append(make_join(table.ids[i], offer, table.seats[i][2], table.seats[i][3], carried))
    options = GameOptions(players=len(keys), rounds=1)
    raw = make_seat_message(
        table.ids[0], table.seats, options, joins=joins,
        continues=seat.get("continues", account), stand_in=seat.get("stand_in", stand_in),
    )  # fmt: skip
    return raw, account


def _seat_at(table: LocalTable, raw: bytes) -> None:
    table.seat_raw, table.seat_msg = raw, decode(raw)
    table.machines = [table._machine(k) for k in range(len(table.machines))]


def test_a_continued_table_signs_and_audits_the_carried_totals() -> None:
    table = LocalTable(players=3, rounds=1, seed=5)
    raw, _ = _continued(table)
    assert seat_list_fault(decode(raw)) is None
    _seat_at(table, raw)
    table.run()
    keys = [s[0] for s in table.seats]
    carried = dict(zip(keys, CARRIED, strict=True))  # the stand-in (seat 2): the departed's
    for machine in table.machines:
        assert machine.finished
        own = game_of(machine).totals
        totals, winners = machine.outcome()
        assert totals == [t + carried[k] for t, k in zip(own, machine.order, strict=True)]
        assert winners == [s for s, t in enumerate(totals) if t == max(totals)]
        results = [m for m in machine.transcript.messages if m.type is MsgType.RESULT]
        assert [list(m.body["totals"]) for m in results] == [totals] * 3  # what every seat signed
        report = audit_messages([m.raw for m in machine.transcript.messages])
        assert report.problem is None and report.complete, report.problem
        assert report.totals == totals and report.winners == winners
        assert len(report.round_scores) == 2  # the carried round, then this table's


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"stand_in": 0}, "stand-in"),  # the host cannot be the bot
        ({"join_accounts": {1: None}}, "account of the previous table is not the one"),
        ({"join_accounts": {2: "same"}}, "stand-in's quoted join carries an account"),
        ({"account_rounds": 5}, "rounds left make no game"),
        ({"account_key": "stranger"}, "not those of the seats that remain"),
        ({"continues": None}, "a quoted join carries an account"),  # scores dropped
    ],
)
def test_a_forged_account_is_the_hosts_fault_before_anything_is_sent(
    change: dict[str, Any], why: str
) -> None:
    table = LocalTable(players=3, rounds=1, seed=6)
    keys = [s[0] for s in table.seats]
    kwargs: dict[str, Any] = {}
    if "stand_in" in change:
        kwargs["stand_in"] = change["stand_in"]
    if "continues" in change:
        kwargs["continues"] = change["continues"]
    if "join_accounts" in change:
        _, account = _continued(table)
        accounts = {i: (account if a == "same" else a) for i, a in change["join_accounts"].items()}
        kwargs["join_accounts"] = accounts
        kwargs["account"] = account
    if "account_rounds" in change or "account_key" in change:
        departed = Identity.generate("gone").public_key
        other = Identity.generate("x").public_key if "account_key" in change else keys[1]
        n = change.get("account_rounds", 1)
        rounds = {keys[0]: [1] * n, other: [2] * n, departed: [3] * n}
        kwargs["account"] = make_account(b"\x22" * 32, departed, rounds)
    raw, _ = _continued(table, **kwargs)
    fault = seat_list_fault(decode(raw))
    assert fault is not None and why in fault, fault
    _seat_at(table, raw)
    machine = table.machines[1]
    with pytest.raises(TableFault) as caught:
        machine.start()
    assert caught.value.seat == 0  # the host, in the seat list (no order yet)
    assert not [m for m in machine.transcript.messages if m.sender == machine.me]


def _played_round(seed: int) -> LocalTable:
    """A 2-round table of machines with its first round played and audited."""
    table = LocalTable(players=4, rounds=2, seed=seed)
    table.run(stop=lambda: all(m.rounds_audited == 1 for m in table.machines))
    assert all(m.rounds_audited == 1 for m in table.machines)
    return table


def test_only_a_departure_by_this_peers_own_verdict_goes_on() -> None:
    table = _played_round(7)
    machine = table.machines[0]
    gone = machine.order[2] if machine.order[2] != machine.me else machine.order[3]
    seat = machine.order.index(gone)
    machine.abort(Departure("unreachable: gone for 31 s", seat))
    plan = go_on_after(machine, "t")
    assert plan is not None and plan.departed == gone and plan.host == machine.list_keys[0]
    assert (plan.round_from, plan.rounds, plan.options.rounds) == (2, 2, 1)
    scores = {s["key"]: s["rounds"] for s in plan.account["scores"]}
    assert scores == {
        k: [game_of(machine).round_scores[0][machine.order.index(k)]] for k in machine.list_keys
    }
    assert plan.keys == tuple(k for k in machine.list_keys if k != gone)
    # A fault with evidence (a cheat) is not a departure: nobody goes on.
    machine.aborted = None
    machine.abort(TableFault("deal: a bad shuffle proof", seat, (b"x",)))
    assert go_on_after(machine) is None
    # Stopped on another's word: only when that abort blames nobody (its sender left).
    other = next(i for i, k in enumerate(machine.list_keys) if k not in (machine.me, gone))
    for body, departed in (
        ({"reason": "p left the table"}, machine.list_keys[other]),
        ({"reason": "p2 is unreachable", "seat": seat}, None),
    ):
        abort = encode(
            table.ids[other], MsgType.ABORT, table_id=machine.table_id, seq=99,
            prev=b"\x01" * 32, head=machine.head, body=body,
        )  # fmt: skip
        machine.aborted = None
        machine.abort(TableFault("stopped on p's word", None, (abort,)))
        assert departed_key(machine) == departed
    # This peer's own departure, or no round left: nothing.
    machine.aborted = None
    machine.abort(Departure("left", machine.order.index(machine.me)))
    assert go_on_after(machine) is None


def test_the_host_refuses_a_join_whose_account_differs(tmp_path: Path) -> None:
    host_id, joiner_id = Identity.generate("host"), Identity.generate("joiner")
    account = make_account(b"\x33" * 32, b"\x01" * 32, {b"\x02" * 32: [1], b"\x03" * 32: [2]})
    other = make_account(b"\x33" * 32, b"\x01" * 32, {b"\x02" * 32: [1], b"\x03" * 32: [3]})
    host_mesh, joiner_mesh = Mesh("127.0.0.1", 0), Mesh("127.0.0.1", 0)
    config = PeerConfig(home=tmp_path, identity=host_id, announce=False, open_table=True)
    lobby = Lobby(config, host_mesh, HostSpec("t", GameOptions(players=3)), continues=account)
    try:
        announcement = lobby.announcement()
        joiner = PeerConfig(home=tmp_path, identity=joiner_id, lobby_timeout_s=3.0)
        deadline = time.monotonic() + 5
        refused: list[str] = []

        def gather() -> None:
            while time.monotonic() < deadline and not refused:
                for inbound in host_mesh.poll(20):
                    lobby._on_join(inbound.routing_id, inbound.payload)

        thread = threading.Thread(target=gather, daemon=True)
        thread.start()
        with pytest.raises(PeerError) as caught:
            join_table(joiner, joiner_mesh, announcement, other)
        refused.append(str(caught.value))
        thread.join(5)
        assert "account of the previous table is not the host's" in refused[0]
        assert len(lobby.seats) == 1  # nobody seated
    finally:
        lobby.close()
        host_mesh.close()
        joiner_mesh.close()


def _seat_process(play: subprocess.Popen[str], home: Path, timeout: float) -> psutil.Process:
    """The ``druids peer`` process of the seat whose home is ``home``, among ``play``'s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for child in psutil.Process(play.pid).children(recursive=True):
            try:
                if child.environ().get("DRUIDS_HOME") == str(home):
                    return child
            except psutil.Error:
                continue
        time.sleep(0.2)
    raise AssertionError(f"no peer process for {home}")


def _round_ended(home: Path) -> bool:
    for log in home.glob("tables/*/events.jsonl"):
        if '"round_ended"' in log.read_text(errors="replace"):
            return True
    return False


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.timeout(400)
@pytest.mark.parametrize(
    ("how", "why"),
    [
        (signal.SIGKILL, ("unreachable",)),
        # It left, telling the others. A record that shows it owing an automatic message then
        # says it withheld it (protocol §9); one whose peer stopped before that message fell
        # due (its own checks behind the others', under load) says it left.
        (signal.SIGINT, ("withheld", "left")),
    ],
)
def test_a_headless_table_goes_on_without_a_killed_bot_and_finishes(
    tmp_path: Path, how: signal.Signals, why: tuple[str, ...]
) -> None:
    """``druids play --headless --go-on``: seat 2's bot process is killed (-9: gone for good;
    or Ctrl-C: it leaves, telling the others) once round 1 is over; the three others (after
    the step deadline and rejoin time, short here, or at once on its word) go on at a new
    table with a stand-in bot (a fresh identity) and play round 2. The first table's records
    audit as stopped by seat 2; the second's as complete, carrying round 1's audited scores;
    the result's totals are both rounds'."""
    work = tmp_path / "data" / "games" / "evening"
    env = {**os.environ, "DRUIDS_HOME": str(tmp_path / "data")}
    play = subprocess.Popen(
        [sys.executable, "-m", "druids_p2p", "play", "--headless", "--go-on", "--json",
         "--rounds", "2", "--seats", "bot:rule,bot:rule,bot:random,bot:rule",
         "--step-deadline", str(STEP_S), "--rejoin-time", str(REJOIN_S),
         "--workdir", str(work)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        victim = _seat_process(play, work / "random-3", 60)  # seat 2's player (cli: names)
        deadline = time.monotonic() + 120
        while not _round_ended(work / "random-3") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _round_ended(work / "random-3"), "round 1 never ended"
        victim.send_signal(how)  # mid-game
        out, err = play.communicate(timeout=330)
    finally:
        if play.poll() is None:
            play.kill()
    assert play.returncode == 0, (out[-2000:], err[-3000:])  # the result says why, if any
    summary = json.loads(out.splitlines()[-1])
    assert summary["finished"] and not summary["aborted"], summary
    assert summary["lost"] == ["random-3"] and summary["went_on"], summary
    assert "bot for random-3" in [p["name"] for p in summary["players"]], summary
    last_seat: Any = None
    for player in ("rule-1", "rule-2", "rule-4"):
        home = work / player
        tables = sorted(home.glob("tables/*"), key=lambda t: (t / "seat.msg").stat().st_mtime)
        assert len(tables) == 2, tables
        first, second = (t / "record.druids" for t in tables)
        code, report = audit_record(str(first))
        assert report["verdict"] == "stopped", report
        gone = next(p["seat"] for p in report["players"] if p["name"] == "random-3")
        assert report["seat"] == gone, report
        assert any(report["reason"].startswith(f"seat {gone} {w}") for w in why), report
        first_rounds = report["round_scores"]
        first_order = [bytes.fromhex(p["public_key"]) for p in report["players"]]
        code, report = audit_record(str(second))
        assert code == 0 and report["verdict"] == "complete", report
        seat = decode((tables[1] / "seat.msg").read_bytes())
        account = seat.body["continues"]
        assert account["table"] == decode((tables[0] / "seat.msg").read_bytes()).table_id
        stand_in = seat.body["seats"][seat.body["stand_in"]]
        assert stand_in not in first_order and account["for"] in first_order
        carried = {bytes(s["key"]): list(s["rounds"]) for s in account["scores"]}
        assert carried == {key: [first_rounds[0][i]] for i, key in enumerate(first_order)}
        order = [bytes.fromhex(p["public_key"]) for p in report["players"]]
        assert report["round_scores"][0] == [
            carried[account["for"] if key == stand_in else key][0] for key in order
        ]
        assert report["totals"] == [sum(r[i] for r in report["round_scores"]) for i in range(4)]
        if last_seat is not None:
            assert seat.raw == last_seat.raw  # one next table for the three
        last_seat = seat
    assert summary["totals"] == report["totals"]
    listed = subprocess.run(
        [sys.executable, "-m", "druids_p2p", "history", "--json"],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    went_on, stopped = json.loads(listed.stdout)  # newest first; each table once
    assert went_on["status"] == "finished" and stopped["status"] == "stopped"
    assert went_on["went_on_from"].startswith(Path(stopped["folder"]).name)
    assert "bot for random-3" in went_on["went_on_from"]
    assert [p["total"] for p in went_on["players"]] == report["totals"]


class _RematchTable(PeerTable):
    """Seats 0 and 1 say yes to one rematch (``--rematch 1``); seat 2 does not come back. The
    host seats a bot for it after ``REMATCH_WAIT_S`` (``--rematch-wait``; default 30 s)."""

    def _argv(self, index: int, role: list[str]) -> list[str]:
        rematch = ["--rematch", "1", "--rematch-wait", str(REMATCH_WAIT_S)]
        return super()._argv(index, role) + (rematch if index < 2 else [])


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.timeout(400)
def test_a_rematch_seats_the_same_players_and_a_bot_for_the_one_who_left(
    tmp_path: Path,
) -> None:
    """Three ``druids peer`` processes play a game; two want a rematch, the third leaves. The
    first seat hosts the rematch over the links the game left open, and seats a bot (a fresh
    identity, ``bot for NAME``) where the third does not come back; both play it to the end,
    the same options, and every record audits complete."""
    table = _RematchTable(["bot:random"] * 3, tmp_path, GameOptions(players=3, rounds=1))
    try:
        table.start()
        for peer in table.peers:
            assert peer.proc is not None
            peer.proc.wait(300)
    finally:
        table.close()
    names = [table.seat_name(i) for i in range(3)]
    seats: list[Any] = []
    for k in (0, 1):
        results = [e for e in table.peers[k].events if e.get("event") == "result"]
        assert [r["finished"] for r in results] == [True, True], results
        first, second = results
        assert first["record"] != second["record"]
        for result in results:
            code, report = audit_record(result["record"])
            assert code == 0 and report["verdict"] == "complete", report
        seat = decode((Path(second["record"]).parent / "seat.msg").read_bytes())
        assert seat.body["options"]["rounds"] == 1
        assert sorted(seat.body["names"]) == sorted([names[0], names[1], f"bot for {names[2]}"])
        seats.append(seat.raw)
    assert seats[0] == seats[1]
    lone = [e for e in table.peers[2].events if e.get("event") == "result"]
    assert len(lone) == 1 and lone[0]["finished"]


def test_go_on_and_rematch_flags_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["play", "--go-on"], capsys)
    assert code == 2 and "--go-on is for --headless" in err
    code, _, err = run_cli(["peer", "--rematch", "-1"], capsys)
    assert code == 2 and "--rematch must be 0 to 99" in err
    code, _, err = run_cli(["join", "127.0.0.1:1", "--rematch", "100"], capsys)
    assert code == 2 and "--rematch" in err and "Traceback" not in err
    code, _, err = run_cli(["host", "--rematch", "1", "--rematch-wait", "0"], capsys)
    assert code == 2 and "--rematch-wait must be a positive number of seconds, not 0" in err
    seats = ["--seats", "bot:rule,bot:rule,bot:rule"]
    code, _, err = run_cli(["play", "--headless", *seats, "--step-deadline", "-1"], capsys)
    assert code == 2 and "--step-deadline must be a positive number of seconds" in err
    code, _, err = run_cli(["play", "--headless", *seats, "--rejoin-time", "nan"], capsys)
    assert code == 2 and "--rejoin-time must be a number of seconds, 0 or more" in err
    code, _, err = run_cli(["play", "--step-deadline", "3"], capsys)
    assert code == 2 and "--step-deadline is for --headless tables" in err
