"""Faults a LAN party meets, with real peer processes on loopback: a stopped table must not block
the next one from the same homes, a joiner killed mid-game comes back with its exact
``druids join NAME`` command, and a peer whose stdout pipe is closed plays on."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import lan_peers
import pytest
import test_lan_netns as lan
from cli_harness import audit_record
from lan_peers import Peer, power_cut, table_report

from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.peer.local_table import LocalTable, PeerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(400)]

BOUND_S = 120.0


def _audit(record: str) -> dict[str, Any]:
    code, report = audit_record(record)
    report["_code"] = code
    return report


def _moves(peer: PeerProcess, count: int) -> None:
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        if sum(e.get("event") == "move" for e in peer.events) >= count:
            return
        assert peer.proc is not None and peer.proc.poll() is None, peer.tail_log()
        time.sleep(0.02)
    pytest.fail(f"seat {peer.index} saw fewer than {count} moves")


def _host(table: LocalTable, tmp_path: Path, rounds: int) -> PeerProcess:
    """Seat 0's ``druids peer --host`` process, exactly as LocalTable.start makes it."""
    assert table.options is not None and table.options.rounds == rounds
    return PeerProcess(0, tmp_path / "seat0", table._argv(0, table.host_role()), False)


def test_a_stopped_table_does_not_block_the_next_one_from_the_same_homes(tmp_path: Path) -> None:
    # Game 1: a joiner is killed for good; the others stop ("gone for"), their records end in
    # that abort.
    options = GameOptions(players=3, rounds=5)
    first = LocalTable(
        ["bot:random"] * 3, tmp_path, options, 20.0, extra_args=("--gone-after", "3")
    )
    try:
        first.start()
        victim = first.peers[1]
        victim.wait_for("seated", BOUND_S)
        _moves(victim, 5)
        victim.kill()
        stopped = [first.peers[i].wait_for("result", BOUND_S) for i in (0, 2)]
    finally:
        first.close()
    assert all("gone for" in r["aborted"] for r in stopped), stopped
    # Game 2 in the same homes, with the same commands: the host hosts a new table (it does not
    # try to resume the stopped one), the other survivor joins it.
    second = LocalTable(["bot:random"] * 3, tmp_path, GameOptions(players=3, rounds=1), 20.0)
    host = _host(second, tmp_path, rounds=1)
    second.peers = [host]
    try:
        host.start()
        lobby = str(host.wait_for("lobby", BOUND_S)["lobby"])
        assert not [e for e in host.events if e.get("event") == "rejoining"]
        # The killed seat's table is still playing as far as its home knows: another command
        # is refused in one line naming --resume and --new, and nothing is started.
        argv = second._argv(1, ["--join", lobby])
        env = {**os.environ, "DRUIDS_HOME": str(tmp_path / "seat1")}
        refused = subprocess.run(
            argv, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL
        )
        assert refused.returncode == 2, refused.stderr
        line = refused.stderr.strip()
        assert len(line.splitlines()) == 1 and "Traceback" not in line, line
        assert "unfinished table" in line and "--resume" in line and "--new" in line, line
        for index, extra in ((1, ["--new"]), (2, [])):
            argv = [*second._argv(index, ["--join", lobby]), *extra]
            peer = PeerProcess(index, tmp_path / f"seat{index}", argv, False)
            second.peers.append(peer)
            peer.start()
        results = second.wait(BOUND_S)
    finally:
        second.close()
    summary = second.summary(results)
    assert summary["finished"] and summary["heads_agree"], summary
    for record in summary["records"]:
        report = _audit(record)
        assert report["_code"] == 0 and report["ok"] and report["complete"], report
    # The old tables stay on disk beside the new ones, marked stopped (seat 1's, set aside by
    # --new once its new table was seated).
    for index, why in ((0, "gone for"), (1, "set aside"), (2, "gone for")):
        files = (tmp_path / f"seat{index}").glob("tables/*/state.json")
        states = sorted((json.loads(p.read_text()) for p in files), key=lambda s: s["status"])
        assert [s["status"] for s in states] == ["finished", "stopped"], states
        assert why in states[1]["stopped"], states


def _free_udp_port() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def test_a_joiner_killed_mid_game_comes_back_with_its_exact_join_name_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    peers: list[Peer] = []
    try:
        port = _free_udp_port()
        lan._start_table(None, tmp_path, lambda i: "127.0.0.1", "--beacon-port", port, peers=peers)
        victim = peers[2]
        got = victim.wait_for("move", lan.GAME_TIMEOUT_S, lambda found: len(found) >= 8)
        assert got, "the game did not get going" + table_report(peers)
        victim.proc.kill()
        victim.proc.wait(timeout=10)
        command = victim.proc.args
        assert isinstance(command, list)  # the argv the peer was started with
        args: list[str] = command[3:]  # after python -m druids_p2p
        assert args[:2] == ["join", lan.TABLE]
        # the same home keeps the same identity: the rerun must not make a new one
        monkeypatch.setattr(lan_peers, "save_identity", lambda *a, **k: None)
        rerun = Peer(None, 2, list(args), victim.home)
        peers[2] = rerun
        results = lan._finish(peers)
    finally:
        for peer in peers:
            if peer.proc.poll() is None:
                peer.proc.kill()
                peer.proc.wait(timeout=10)
    assert rerun.events("rejoining"), table_report(peers)
    assert not rerun.events("found")  # the saved table was found first, without a beacon
    lan._check_game(peers, results)


class ClosingPeer(PeerProcess):
    """Reads its peer's stdout until a few moves went by, then closes the pipe for good."""

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        moves = 0
        for line in self.proc.stdout:
            if '"event": "move"' in line:
                moves += 1
                if moves >= 4:
                    break
        self.proc.stdout.close()


def test_a_closed_stdout_does_not_stop_the_game(tmp_path: Path) -> None:
    table = LocalTable(["bot:random"] * 3, tmp_path, GameOptions(players=3, rounds=2), 20.0)
    host = _host(table, tmp_path, rounds=2)
    table.peers = [host]
    try:
        host.start()
        lobby = str(host.wait_for("lobby", BOUND_S)["lobby"])
        deaf = ClosingPeer(1, tmp_path / "seat1", table._argv(1, ["--join", lobby]), False)
        other = PeerProcess(2, tmp_path / "seat2", table._argv(2, ["--join", lobby]), False)
        table.peers += [deaf, other]
        deaf.start()
        other.start()
        results = [host.wait_for("result", BOUND_S), other.wait_for("result", BOUND_S)]
        assert deaf.proc is not None
        code = deaf.proc.wait(BOUND_S)
    finally:
        table.close()
    assert code == 0, deaf.tail_log()
    assert "Broken pipe" not in (tmp_path / "seat1" / "peer.log").read_text()
    (log,) = (tmp_path / "seat1").glob("tables/*/events.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    (result,) = [e for e in events if e["event"] == "result"]
    assert result["finished"] and all(r["finished"] for r in results), (result, results)
    assert {r["head"] for r in results} == {result["head"]}
    assert sum(e["event"] == "move" for e in events) > 4  # the log went on after the pipe closed
    report = _audit(result["record"])
    assert report["_code"] == 0 and report["ok"] and report["complete"], report


def test_play_headless_killed_with_all_its_peers_resumes_with_resume(tmp_path: Path) -> None:
    """The whole machine goes down mid-game (the command and every peer process, kill -9): the
    same command says in one line that the table is unfinished; with --resume every seat
    rejoins from its record and the game completes, every record auditing."""
    argv = [sys.executable, "-m", "druids_p2p", "play", "--headless", "--seats",
            "bot:random,bot:random,bot:random", "--rounds", "2", "--time-per-move", "20",
            "--workdir", str(tmp_path), "--json"]  # fmt: skip
    power_cut(argv, tmp_path, 3 * 6, BOUND_S)  # the command and its peers
    again = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert again.returncode == 2, again.stderr
    line = again.stderr.strip()
    assert len(line.splitlines()) == 1 and "--resume" in line and "--new" in line, line
    resumed = subprocess.run([*argv, "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["finished"] and summary["aborted"] is None, summary
    for record in summary["records"]:
        report = _audit(record)
        assert report["_code"] == 0 and report["ok"] and report["complete"], report
        assert report["totals"] == summary["totals"], report
    assert all(Path(r).parent.parent.parent.parent == tmp_path for r in summary["records"])


def test_ctrl_c_leaves_the_table_recorded_and_marks_it_stopped(tmp_path: Path) -> None:
    """Ctrl-C is leaving, not a crash: the peer records and sends an abort saying so, its table
    is marked stopped (so the next command from that home starts a new one), the others stop."""
    from druids_p2p.peer.homes import HomeTable, Request, choose_table

    table = LocalTable(["bot:random"] * 3, tmp_path, GameOptions(players=3, rounds=5), 20.0)
    try:
        table.start()
        leaver = table.peers[1]
        leaver.wait_for("seated", BOUND_S)
        _moves(leaver, 5)
        assert leaver.proc is not None
        leaver.proc.send_signal(2)  # SIGINT
        left = leaver.wait_for("result", BOUND_S)
        others = [table.peers[i].wait_for("result", BOUND_S) for i in (0, 2)]
        code = leaver.proc.wait(BOUND_S)
    finally:
        table.close()
    assert code == 1 and "Traceback" not in (tmp_path / "seat1" / "peer.log").read_text()
    assert "left the table (interrupted)" in left["aborted"] and left["blame"] is None, left
    assert all("left the table" in r["aborted"] for r in others), others
    state = HomeTable(Path(left["record"]).parent)
    assert state.status == "stopped" and "left the table" in state.info()["stopped"]
    assert choose_table(tmp_path / "seat1", Request("join", lobby="127.0.0.1:1")) is None
    report = _audit(left["record"])
    assert "left the table" in json.dumps(report), report
    # A game left cleanly is a valid record that stopped, naming who left (issue 14): not exit 1.
    assert report["_code"] == 4 and report["verdict"] == "stopped", report
    assert report["reason"] == f"seat {left['seat']} left" and report["seat"] == left["seat"]
