"""Whole games between real peer processes on a namespaced LAN: found by beacon, played, audited.

Four namespaces on one bridge (``tests/netns.py``): ns0 hosts with ``druids host``, ns1..ns3 run
``druids join lan-test``, which hears the host's beacon on 10.77.0.255 and joins with that signed
beacon (no lobby address is typed or asked for). Every process has its own ``DRUIDS_HOME``, so its
own identity, secrets and record. The second test pulls one joiner's cable in the middle of play
for a few seconds: the others must mark it away, wait, and finish the game once it is back.

Safety: every packet stays inside the namespaces (10.77.0.0/24 on a private bridge, broadcast only
to 10.77.0.255); the root namespace gets no links and sends nothing. Every wait is bounded.
On failure the assertion message carries each peer's last events and the tail of its stderr log.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_harness import audit_record
from lan_peers import Peer, allowed, results_of, table_report
from netns import Lan, open_lan

TABLE = "lan-test"
PLAYERS = 4
ROUNDS = 2
LOBBY_TIMEOUT_S = 15.0
GAME_TIMEOUT_S = 45.0
"""A 4-player, 2-round game takes well under 10 s on two slow cores."""
CUT_VICTIM = 2
CUT_S = 4.0
CUT_AFTER_MOVES = 10
"""Pull the cable once the host has seen this many moves: mid-game, with most of it still to go."""
GONE_AFTER_S = 30.0
"""Much longer than the cut, but short enough that a peer that never comes back ends the game
with a clear reason inside ``GAME_TIMEOUT_S``."""


def _netns_names() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10)
    return {line.split()[0] for line in out.stdout.splitlines() if line.strip()}


def _root_links() -> set[str]:
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, timeout=10)
    return {line.split(":")[1].strip() for line in out.stdout.splitlines()}


@pytest.fixture
def lan4() -> Iterator[Lan]:
    """A 4-peer LAN; afterwards not one of its namespaces, nor any new root link, is left."""
    before = _root_links() if shutil.which("ip") else set()
    with open_lan(PLAYERS) as lan:  # skips the test where namespaces cannot be made
        made = {lan.switch, *lan.names}
        assert made <= _netns_names()
        yield lan
        assert _root_links() == before  # the LAN lives entirely inside its namespaces
    assert not made & _netns_names(), "the harness left namespaces behind"
    assert _root_links() == before


def _start_table(
    lan: Lan | None,
    tmp_path: Path,
    address: Callable[[int], str],
    *extra: str,
    peers: list[Peer] | None = None,
) -> list[Peer]:
    """The host in ns0, then once its beacon is up the joiners in ns1..ns3, all bots; each is
    added to ``peers`` (returned) as soon as it is started."""
    peers = [] if peers is None else peers
    common = ["--bot", "random", "--json", *extra]
    host_args = ["host", "--name", TABLE, "--players", str(PLAYERS), "--rounds", str(ROUNDS)]
    host_args += allowed([tmp_path / f"ns{i}" for i in range(1, PLAYERS)])
    host = Peer(lan, 0, [*host_args, "--address", address(0), *common], tmp_path / "ns0")
    peers.append(host)
    lobby = host.wait_for("lobby", LOBBY_TIMEOUT_S)
    assert lobby, "the host did not open its lobby" + table_report(peers)
    assert lobby[0]["endpoint"].startswith(f"tcp://{address(0)}:")
    for i in range(1, PLAYERS):
        args = ["join", TABLE, "--address", address(i), "--seconds", "10", *common]
        peers.append(Peer(lan, i, args, tmp_path / f"ns{i}"))
    return peers


def _finish(peers: list[Peer]) -> list[dict[str, Any]]:
    """Every peer's result event, once every process has exited 0 after printing it."""
    results = results_of(peers, GAME_TIMEOUT_S)
    for peer in peers:
        final = peer.final()
        assert final is not None, f"peer {peer.index} printed no final JSON" + table_report(peers)
        result = {k: v for k, v in results[peer.index].items() if k != "event"}
        assert final == {**result, "order": "play", "players": final["players"]}  # + the names
        assert [p["name"] for p in final["players"]] == result["names"]
    return results


def _check_game(peers: list[Peer], results: list[dict[str, Any]]) -> None:
    """One finished game that every peer saw the same, and that every record proves."""
    why = table_report(peers)
    for r in results:
        assert r["finished"] and r["aborted"] is None and r["blame"] is None, (r, why)
        assert r["bad_messages"] == 0 and r["faults"] == [], (r, why)
        assert len(r["round_scores"]) == ROUNDS and r["winners"], (r, why)
    assert len({json.dumps([r["totals"], r["round_scores"], r["winners"]]) for r in results}) == 1
    assert len({r["head"] for r in results}) == 1, [r["head"] for r in results]
    assert sorted(r["seat"] for r in results) == list(range(PLAYERS))
    assert sorted(r["name"] for r in results) == [f"ns{i}" for i in range(PLAYERS)]
    for peer, r in zip(peers, results, strict=True):
        assert Path(r["record"]).is_relative_to(peer.home)  # each its own record
    for r in results:
        code, report = audit_record(r["record"])
        assert code == 0, report
        assert report["ok"] and report["complete"], report
        assert report["totals"] == r["totals"] and report["winners"] == r["winners"], report


def _check_found_by_beacon(peers: list[Peer], host_address: str) -> None:
    for peer in peers[1:]:
        (found,) = peer.events("found")
        assert found["table"] == TABLE and found["host"] == "ns0", found
        assert found["endpoint"].startswith(f"tcp://{host_address}:"), found
        assert found["source"].startswith(f"{host_address}:"), found  # heard across the bridge
        (joining,) = peer.events("joining")
        assert joining["table"] == TABLE, joining
    joined = sorted(e["name"] for e in peers[0].events("joined"))
    assert joined == [f"ns{i}" for i in range(1, PLAYERS)]


@pytest.mark.netns
@pytest.mark.e2e
def test_table_found_by_beacon_plays_to_the_end_and_every_record_audits(
    lan4: Lan, tmp_path: Path
) -> None:
    peers = _start_table(lan4, tmp_path, lan4.address)
    results = _finish(peers)
    _check_found_by_beacon(peers, lan4.address(0))
    _check_game(peers, results)


@pytest.mark.netns
@pytest.mark.e2e
def test_a_cable_pulled_mid_game_is_waited_for_and_the_game_completes(
    lan4: Lan, tmp_path: Path
) -> None:
    peers = _start_table(lan4, tmp_path, lan4.address, "--gone-after", str(GONE_AFTER_S))
    host, victim = peers[0], peers[CUT_VICTIM]
    moves = host.wait_for("move", GAME_TIMEOUT_S, lambda ms: len(ms) >= CUT_AFTER_MOVES)
    assert moves, "the game did not get going" + table_report(peers)
    lan4.cut(CUT_VICTIM)
    cut_at = time.monotonic()
    try:
        time.sleep(CUT_S)
        assert not host.events("result"), "the game ended during the cut" + table_report(peers)
    finally:
        lan4.restore(CUT_VICTIM)
    restored_at = time.monotonic()
    results = _finish(peers)
    resumed = [p.first_after("move", restored_at) for p in peers]
    print(
        f"cut at {len(moves)} moves for {restored_at - cut_at:.1f} s; first move after the "
        "restore, per peer (s): "
        + ", ".join("-" if t is None else f"{t - restored_at:.2f}" for t in resumed)
    )
    _check_game(peers, results)
    name = f"ns{CUT_VICTIM}"
    others = [p for i, p in enumerate(peers) if i != CUT_VICTIM]
    away = [p.index for p in others if any(e["name"] == name for e in p.events("away"))]
    back = [p.index for p in others if any(e["name"] == name for e in p.events("rejoined"))]
    assert away, f"nobody noticed {name} was gone" + table_report(peers)
    assert sorted(back) == sorted(away), (away, back)  # everyone who missed it saw it return
    assert not victim.events("rejoining")  # it never restarted: the same process went on


@pytest.mark.e2e
def test_join_by_name_on_loopback(tmp_path: Path) -> None:
    """The same join-by-beacon path without namespaces (runs where the tests above skip): four
    processes on 127.0.0.1, beacons on a free port of 127.255.255.255."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    peers: list[Peer] = []
    try:
        _start_table(None, tmp_path, lambda i: "127.0.0.1", "--beacon-port", port, peers=peers)
        results = _finish(peers)
    finally:
        for peer in peers:
            if peer.proc.poll() is None:
                peer.proc.kill()
                peer.proc.wait(timeout=10)
    _check_found_by_beacon(peers, "127.0.0.1")
    _check_game(peers, results)
