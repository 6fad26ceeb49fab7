"""Attacks on real peer processes over loopback: a stranger's connection, a seated peer sending
junk, flooding, and equivocating. Nobody crashes; the cheat is dropped or blamed."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

from druids_p2p.audit.audit import audit_file
from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.lan.mesh import raw_to_z85
from druids_p2p.peer.local_table import LocalTable, PeerProcess
from druids_p2p.wire import ZERO_HASH, Identity, MsgType, decode, encode

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]

EVIL_SCRIPT = Path(__file__).with_name("evil_peer.py")


class EvilTable(LocalTable):
    """A LocalTable whose seat ``evil`` runs ``tests/evil_peer.py MODE`` instead of the peer."""

    def __init__(self, seats: list[str], workdir: Path, options: GameOptions, evil: int, mode: str):
        super().__init__(seats, workdir, options, budget_ms=20.0)
        self.evil = evil
        self.mode = mode

    def _argv(self, index: int, role: list[str]) -> list[str]:
        argv = super()._argv(index, role)
        if index == self.evil:
            assert argv[1:3] == ["-m", "druids_p2p"]
            argv[1:3] = [str(EVIL_SCRIPT), self.mode]
        return argv


def _log(peer: PeerProcess) -> str:
    assert peer.stderr_path is not None
    return peer.stderr_path.read_text(errors="replace") if peer.stderr_path.exists() else ""


def _no_crash(peer: PeerProcess) -> None:
    text = _log(peer)
    assert "Traceback" not in text, text[-3000:]


def _play(table: LocalTable, timeout: float = 60.0) -> list[dict[str, Any]]:
    try:
        table.start()
        return table.wait(timeout)
    finally:
        table.close()


def _seat_message(home: Path) -> Any:
    (path,) = (home / "tables").glob("*/seat.msg")
    return decode(path.read_bytes())


def forged_resend(table_id: bytes) -> bytes:
    """A RESEND signed by a key nobody seated: what a stranger on the LAN would send."""
    return encode(
        Identity.generate("stranger"),
        MsgType.RESEND,
        table_id=table_id,
        seq=0,
        prev=ZERO_HASH,
        head=ZERO_HASH,
        body={"head": ZERO_HASH},
    )


def wait_event(
    monitor: zmq.Socket[bytes], events: list[int], wanted: int, seconds: float = 20
) -> bool:
    """Gather the socket monitor's events until ``wanted`` is among them (bounded)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and wanted not in events:
        if monitor.poll(100):
            events.append(recv_monitor_message(monitor)["event"])
    return wanted in events


def close_stranger(
    ctx: zmq.Context[zmq.Socket[bytes]], dealer: zmq.Socket[bytes], monitor: zmq.Socket[bytes]
) -> None:
    dealer.disable_monitor()
    monitor.close(linger=0)
    dealer.close(linger=0)
    ctx.term()


def test_stranger_is_refused_once_seated(tmp_path: Path) -> None:
    """A DEALER with a fresh CURVE key pair cannot even complete the handshake with a seated
    peer's inbox (the ZAP gate admits only seated keys), so nothing it sends is ever read."""
    table = LocalTable(["bot:random"] * 3, tmp_path, GameOptions(players=3, rounds=2), 20.0)
    ctx = zmq.Context()
    dealer = ctx.socket(zmq.DEALER)
    monitor = dealer.get_monitor_socket()
    events: list[int] = []
    try:
        table.start()
        host = table.peers[0]
        host.wait_for("round_started", 30)  # seated: the gate is closed to strangers
        seat = _seat_message(host.home)
        public, secret = zmq.curve_keypair()
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.curve_publickey, dealer.curve_secretkey = public, secret
        dealer.curve_serverkey = raw_to_z85(seat.body["curves"][0])
        dealer.connect(seat.body["endpoints"][0])
        for payload in (forged_resend(seat.table_id), b"garbage"):
            with contextlib.suppress(zmq.Again):  # no link to queue on: that is the point
                dealer.send(payload, zmq.NOBLOCK)
        wait_event(monitor, events, zmq.EVENT_HANDSHAKE_FAILED_AUTH, 5)
        results = table.wait(60)
    finally:
        close_stranger(ctx, dealer, monitor)
        table.close()
    assert zmq.EVENT_HANDSHAKE_FAILED_AUTH in events, events
    assert zmq.EVENT_HANDSHAKE_SUCCEEDED not in events
    summary = table.summary(results)
    assert summary["finished"] and summary["heads_agree"]
    assert all(r["bad_messages"] == 0 for r in results)  # nothing of the stranger's got in
    for peer in table.peers:
        _no_crash(peer)
        assert peer.proc is not None and peer.proc.returncode == 0


def test_junk_from_a_seated_peer_is_dropped_and_the_game_completes(tmp_path: Path) -> None:
    # Two rounds: junk every 7th of the cheater's messages, 5+ times at each peer, and the
    # hand-over to a round's card table of its own with junk arriving (five showed no more).
    options = GameOptions(players=3, rounds=2)
    table = EvilTable(["bot:random"] * 3, tmp_path, options, evil=1, mode="junk")
    results = _play(table)
    summary = table.summary(results)
    assert summary["finished"] and summary["aborted"] is None and summary["heads_agree"]
    for index, (peer, result) in enumerate(zip(table.peers, results, strict=True)):
        _no_crash(peer)
        assert peer.proc is not None and peer.proc.returncode == 0
        if index != 1:
            assert result["bad_messages"] >= 5, result  # counted and dropped, game unaffected
            assert "dropped a bad message" in _log(peer)


def test_a_replay_flood_from_a_seated_peer_is_cut_off_and_blamed(tmp_path: Path) -> None:
    """A seated peer replays one of its signed messages 12,000 times to each peer (issue 27 item
    5): each peer checks its signature once, cuts the link off past its limit, and the table
    stops blaming the flooder (on a peer's own count, or on the word of one that counted)."""
    table = EvilTable(["bot:random"] * 3, tmp_path, GameOptions(players=3), evil=1, mode="flood")
    results = _play(table)
    assert "evil flood" in _log(table.peers[1])
    evil = results[1]["seat"]
    counted = []
    for index, (peer, result) in enumerate(zip(table.peers, results, strict=True)):
        _no_crash(peer)
        if index == 1:
            continue
        assert not result["finished"] and result["aborted"], result
        links = result["links"]
        if result["blame"] is not None:
            assert result["blame"] == evil and "flooded this peer" in result["aborted"], result
            assert links["cut_off"] == [results[1]["name"]], links
            counted.append(index)
        else:
            assert "flooded this peer" in result["aborted"], result  # on the other's word
        assert links["repeats"] >= 8000, links  # not one signature check per copy
    assert counted, "no peer counted the flood itself"


def test_equivocating_peer_is_blamed_by_every_honest_peer(tmp_path: Path) -> None:
    """The cheater sends a second version of its first move to one peer, after the real one:
    that peer proves it, and the other honest peer checks the proof itself."""
    table = EvilTable(
        ["bot:random"] * 3, tmp_path, GameOptions(players=3), evil=1, mode="equivocate"
    )
    results = _play(table)
    evil_seat = results[1]["seat"]
    assert evil_seat is not None
    for index, (peer, result) in enumerate(zip(table.peers, results, strict=True)):
        assert peer.proc is not None and peer.proc.returncode == 1  # aborted: exit code 1
        assert not result["finished"] and result["aborted"]
        assert result["blame"] == evil_seat, result
        if index != 1:
            _no_crash(peer)
            assert "equivocated" in result["aborted"] or "two different" in result["aborted"]


def _blamed_by_every_honest_peer(tmp_path: Path, mode: str, reason: str) -> EvilTable:
    """Seat 1 cheats as ``mode`` says: every peer aborts, and every honest one (the cheater's own
    copy of what it made blames no one) names the cheater for ``reason``."""
    table = EvilTable(["bot:random"] * 3, tmp_path, GameOptions(players=3), evil=1, mode=mode)
    results = _play(table)
    evil_seat = results[1]["seat"]
    assert evil_seat is not None
    for index, (peer, result) in enumerate(zip(table.peers, results, strict=True)):
        assert peer.proc is not None and peer.proc.returncode == 1
        assert not result["finished"] and result["aborted"]
        if index != 1:
            _no_crash(peer)
            assert result["blame"] == evil_seat, result
            assert reason in result["aborted"], result
    return table


def test_a_false_share_of_one_seats_card_is_blamed_by_every_honest_peer(tmp_path: Path) -> None:
    """The cheater's ``table_shares`` carries a false share of a card of one seat, under a proof
    of that seat's shares made for it. Only that seat checks that proof during the deal; it
    blames the cheater, and every other honest peer checks the proof itself (while idle, or on
    that seat's abort) and blames the cheater too, never the seat that found it."""
    _blamed_by_every_honest_peer(tmp_path, "false-share", "invalid decryption share proof")


def test_a_forged_shuffle_is_blamed_by_every_honest_peer_before_any_share(tmp_path: Path) -> None:
    """The cheater's shuffle is fresh encryptions of cards of its choosing: every honest peer
    process refuses it at the shuffle step (its proof of a shuffle fails) and blames it."""
    _blamed_by_every_honest_peer(tmp_path, "forge-shuffle", "invalid proof of a shuffle")


def test_a_false_claim_that_a_true_share_is_bad_is_blamed_on_the_claimant(tmp_path: Path) -> None:
    """The cheater stops the table blaming the next seat for a bad share proof, relaying that
    seat's ``table_shares``, whose proofs all hold: every honest peer checks it, judges the
    claim false and blames the claimant, never the seat it accused (protocol.md §9). Audited,
    the claimant's own record gives its claim as its word alone, not as a verdict on the seat
    it accused; an honest peer's gives the claimant blamed."""
    table = _blamed_by_every_honest_peer(tmp_path, "false-accuse", "falsely blamed")
    lines = []
    for peer in table.peers:
        (record,) = (peer.home / "tables").glob("*/record.druids")
        lines.append(str(audit_file(record).stop))
    assert lines[1].endswith("(the recorder's word: this record does not show it)"), lines[1]
    assert "card table: " in lines[1], lines[1]
    for index in (0, 2):
        assert "falsely blamed" in lines[index], lines[index]
        assert "record does not show" not in lines[index], lines[index]
