"""Attacks on the links between real peer processes over loopback (``tests/evil_peer.py``): a host
that lists its own key for a joiner, ``ipc://`` endpoints in a join, a seat message and a
confirmation, and a stranger who connected before seating. Every process's traffic stays on
127.0.0.1 (the ``ipc://`` endpoints are socket files in the test's own folder)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import zmq
from test_peer_attacks_e2e import (
    EvilTable,
    _log,
    _no_crash,
    _seat_message,
    close_stranger,
    forged_resend,
    wait_event,
)

from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.lan.discovery import decode_beacon
from druids_p2p.lan.lobby import query_lobby
from druids_p2p.lan.mesh import raw_to_z85
from druids_p2p.peer.local_table import LocalTable, PeerProcess
from druids_p2p.wire import rename_identity

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

GONE = ("--gone-after", "8")
"""Short, so that a table that (wrongly) waits for a peer it cannot reach ends inside the test's
time, blaming that peer as gone: what these attacks achieved before they were refused."""


def _evil(tmp_path: Path, evil: int, mode: str, seats: int = 3) -> EvilTable:
    """One round: each attack is refused or blamed at seating; a table that fills without the
    refused joiner shows it by playing a round to the end (five showed nothing more)."""
    options = GameOptions(players=seats, rounds=1)
    table = EvilTable(["bot:random"] * seats, tmp_path, options, evil, mode)
    table.extra_args = GONE
    return table


def _exit_code(peer: PeerProcess, timeout: float = 60.0) -> int:
    assert peer.proc is not None
    return peer.proc.wait(timeout)


def test_a_host_listing_its_own_key_for_a_joiner_is_blamed_by_every_peer(tmp_path: Path) -> None:
    """The host lists a CURVE key and inbox of its own for joiner 1 (its join quoted unchanged).
    Before, every peer's link to joiner 1 ended at the host, the gates shut joiner 1 out, and
    joiner 1 was blamed as gone. Now every honest peer, joiner 1 too, blames the host (seat-list
    index 0) from the seat message before the table starts."""
    table = _evil(tmp_path, evil=0, mode="substitute")
    try:
        table.start()
        results = [table.peers[k].wait_for("result", 60) for k in (1, 2)]
        codes = [_exit_code(table.peers[k]) for k in (1, 2)]
    finally:
        table.close()
    assert codes == [1, 1]
    for k, result in zip((1, 2), results, strict=True):
        peer = table.peers[k]
        _no_crash(peer)
        assert result["aborted"] and not result["finished"], result
        assert result["blame"] == 0, result
        assert "seat message is refused" in result["aborted"]
        assert not [e for e in peer.events if e.get("event") == "round_started"]


def test_a_seat_message_with_an_ipc_endpoint_is_refused(tmp_path: Path) -> None:
    table = _evil(tmp_path, evil=0, mode="ipc-seat")
    try:
        table.start()
        codes = [_exit_code(table.peers[k]) for k in (1, 2)]
    finally:
        table.close()
    assert codes == [1, 1]
    for k in (1, 2):
        text = _log(table.peers[k])
        assert "the host's seat message is refused" in text and "only tcp://" in text, text
        _no_crash(table.peers[k])


def test_a_join_with_an_ipc_endpoint_is_refused_and_the_table_fills_without_it(
    tmp_path: Path,
) -> None:
    table = _evil(tmp_path, evil=1, mode="ipc-join")
    extra: PeerProcess | None = None
    # the seat that replaces the refused joiner: the host allows its key beside the table's own
    stand_in = rename_identity("seat3-random", tmp_path / "seat3").fingerprint
    table.extra_args = (*table.extra_args, "--allow", stand_in)
    try:
        table.start()
        assert _exit_code(table.peers[1]) == 1
        text = _log(table.peers[1])
        assert "the host refused: join refused" in text and "only tcp://" in text, text
        lobby = table.peers[0].wait_for("lobby", 10)["lobby"]
        extra = PeerProcess(3, tmp_path / "seat3", table._argv(3 - 1, ["--join", lobby]), False)
        extra.argv = [a if a != "seat2-random" else "seat3-random" for a in extra.argv]
        extra.start()
        honest = [table.peers[0], table.peers[2], extra]
        results = [p.wait_for("result", 60) for p in honest]
    finally:
        table.close()
        if extra is not None:
            extra.kill()
    assert all(r["finished"] and not r["aborted"] for r in results), results
    assert len({r["head"] for r in results}) == 1
    for peer in honest:
        _no_crash(peer)


def test_a_confirmation_with_an_ipc_endpoint_is_blamed_on_its_signer(tmp_path: Path) -> None:
    table = _evil(tmp_path, evil=1, mode="ipc-confirm")
    try:
        table.start()
        results = [table.peers[k].wait_for("result", 60) for k in (0, 2)]
    finally:
        table.close()
    evil = list(_seat_message(table.peers[0].home).body["names"]).index("seat1-random")
    for k, result in zip((0, 2), results, strict=True):
        assert result["aborted"] and result["blame"] == evil, result  # its seat-list index
        assert "seat confirmation is refused" in result["aborted"]
        _no_crash(table.peers[k])


def _connect_stranger(dealer: zmq.Socket[bytes], lobby: str) -> tuple[Any, bytes]:
    """Connect ``dealer`` with a fresh CURVE key to the host's inbox, as the lobby announces it."""
    beacon = decode_beacon(query_lobby(lobby))
    public, secret = zmq.curve_keypair()
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.curve_publickey, dealer.curve_secretkey = public, secret
    dealer.curve_serverkey = raw_to_z85(beacon.info.curve_key)
    dealer.connect(beacon.info.endpoint)
    return beacon, public


def test_a_stranger_connected_before_seating_delivers_nothing_after(tmp_path: Path) -> None:
    """A stranger completes the CURVE handshake with the host's inbox while the lobby is open,
    then, once the table is seated, sends a forged resend and garbage. Before, that
    connection stayed up and the host read all of it; now the host dropped the connection when
    its gate closed and refuses it again: nothing reaches the table."""
    table = LocalTable(["bot:random"] * 3, tmp_path, GameOptions(players=3, rounds=1), 20.0)
    ctx = zmq.Context()
    dealer = ctx.socket(zmq.DEALER)
    monitor = dealer.get_monitor_socket()
    events: list[int] = []
    try:
        host = PeerProcess(0, tmp_path / "seat0", table._argv(0, table.host_role()), False)
        table.peers = [host]
        host.start()
        lobby = host.wait_for("lobby", 30)["lobby"]
        _connect_stranger(dealer, lobby)
        dealer.send(b"hello from before seating")
        assert wait_event(monitor, events, zmq.EVENT_HANDSHAKE_SUCCEEDED), events
        for index in (1, 2):
            peer = PeerProcess(
                index, tmp_path / f"seat{index}", table._argv(index, ["--join", lobby]), False
            )
            table.peers.append(peer)
            peer.start()
        host.wait_for("round_started", 30)  # every confirmation is in: the gate is closed
        for payload in (forged_resend(bytes(32)), b"garbage"):
            with contextlib.suppress(zmq.Again):
                dealer.send(payload, zmq.NOBLOCK)
        refused = wait_event(monitor, events, zmq.EVENT_HANDSHAKE_FAILED_AUTH)
        results = table.wait(60)
    finally:
        close_stranger(ctx, dealer, monitor)
        table.close()
    assert zmq.EVENT_DISCONNECTED in events and refused, events
    summary = table.summary(results)
    assert summary["finished"] and summary["heads_agree"]
    assert results[0]["bad_messages"] == 0, results[0]  # nothing of the stranger's got in
    for peer in table.peers:
        _no_crash(peer)
