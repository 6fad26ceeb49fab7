"""Druids (2016) found on the LAN and played with `druids host` and `druids join`, the same
commands as the other games (issue 31): two processes on 127.0.0.1, the host's beacons on a free
port of 127.255.255.255 (loopback only), the joiner finding the table by its name; both records
audit complete and agree on the end."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from cli_harness import audit_record
from lan_peers import Peer, allowed, results_of, table_report

TABLE = "board-night"
LOBBY_TIMEOUT_S = 15.0
GAME_TIMEOUT_S = 90.0


@pytest.mark.e2e
def test_host_and_join_by_name_play_druids2016_to_the_end(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    common = ["--game", "druids2016", "--address", "127.0.0.1", "--beacon-port", port, "--json"]
    host_args = ["host", "--name", TABLE, "--players", "2", "--bot", "rule", *common]
    host_args += allowed([tmp_path / "ns1"])
    peers: list[Peer] = []
    try:
        peers.append(Peer(None, 0, host_args, tmp_path / "ns0"))
        assert peers[0].wait_for("lobby", LOBBY_TIMEOUT_S), "no lobby" + table_report(peers)
        join_args = ["join", TABLE, "--seconds", "10", "--bot", "search", *common]
        peers.append(Peer(None, 1, join_args, tmp_path / "ns1"))
        results = results_of(peers, GAME_TIMEOUT_S)
    finally:
        for peer in peers:
            if peer.proc.poll() is None:
                peer.proc.kill()
                peer.proc.wait(timeout=10)
    why = table_report(peers)
    (found,) = peers[1].events("found")
    assert found["table"] == TABLE and found["host"] == "ns0", found
    for r in results:
        assert r["finished"] and r["aborted"] is None and r["blame"] is None, (r, why)
        assert r["bad_messages"] == 0 and r["faults"] == [], (r, why)
    assert len({(tuple(r["totals"]), tuple(r["winners"] or ())) for r in results}) == 1, why
    assert sorted(r["seat"] for r in results) == [0, 1]
    for r in results:
        code, report = audit_record(r["record"])
        assert code == 0 and report["complete"], report
        assert report["winners"] == r["winners"], report
