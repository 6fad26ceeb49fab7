"""Chat at the table (lan/peer_config.py): a signed line reaches every peer, attributed; floods,
oversized, forged, replayed and in-chain lines are dropped, and none of it ever changes the game.

The table-level tests use real TableMachines (tests/table_harness.py); the end-to-end test runs
real peer processes over loopback with one seat sending chat attacks (tests/evil_peer.py chat).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_harness import audit_record
from table_harness import LocalTable

from druids_p2p.games.druids2017 import GameOptions
from druids_p2p.lan import peer_config as chat_module
from druids_p2p.lan.network import TokenBucket
from druids_p2p.lan.peer_config import ChatOutbox, ChatRefused, TableChat, check_text
from druids_p2p.peer.local_table import LocalTable as ProcessTable
from druids_p2p.peer.local_table import PeerProcess
from druids_p2p.wire import ZERO_HASH, MsgType, WireError, decode, encode, read_record
from druids_p2p.wire.envelope import verify_equivocation
from druids_p2p.wire.msgtypes import MSG_DOMAIN, PROTOCOL_VERSION, InvalidProof, pack

EVIL_SCRIPT = Path(__file__).with_name("evil_peer.py")


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def seated() -> LocalTable:
    """A 3-seat table played to its end: seated machines with names, seats and a transcript."""
    table = LocalTable(players=3, rounds=1, seed=5)
    table.run()
    assert all(m.finished for m in table.machines)
    return table


Shown = list[list[dict[str, Any]]]


def _chats(table: LocalTable, clock: FakeClock) -> tuple[list[TableChat], Shown]:
    shown: Shown = [[] for _ in table.machines]
    chats = [
        TableChat(m, shown[k].append, clock, wall_ms=lambda: 1_000)
        for k, m in enumerate(table.machines)
    ]
    return chats, shown


def test_a_line_reaches_every_peer_signed_and_attributed(seated: LocalTable) -> None:
    clock = FakeClock()
    chats, shown = _chats(seated, clock)
    raw = chats[0].say("  well played  ")
    assert raw is not None
    msg = decode(raw)  # a signed envelope like any other
    assert msg.type is MsgType.CHAT and msg.seq == 0 and msg.prev == ZERO_HASH
    assert msg.sender == seated.ids[0].public_key and msg.body["text"] == "well played"
    for k in (1, 2):
        assert chats[k].receive(decode(raw))
    name = seated.machines[0].names[seated.ids[0].public_key]
    seat = seated.machines[0].my_seat
    for k in range(3):  # the sayer shows its own line too
        assert shown[k] == [{"event": "chat", "seat": seat, "name": name, "text": "well played"}]


def test_chat_is_never_part_of_the_transcript_or_a_proof(seated: LocalTable) -> None:
    machine = seated.machines[1]
    chats, _ = _chats(seated, FakeClock())
    head = machine.transcript.head
    count = len(machine.transcript.messages)
    a, b = chats[0].say("one"), chats[0].say("two")
    assert a is not None and b is not None
    with pytest.raises(ValueError, match="handled by the peer"):
        machine.receive(decode(a))  # the machine refuses it: the session loop shows it instead
    assert machine.transcript.head == head and len(machine.transcript.messages) == count
    # Two chat lines of one sender share seq 0: no proof of equivocation against an honest peer.
    with pytest.raises(InvalidProof, match="chat line takes no sequence slot"):
        verify_equivocation(*sorted((a, b)))


def test_floods_replays_and_in_chain_lines_are_dropped_never_blamed(seated: LocalTable) -> None:
    clock = FakeClock()
    chats, shown = _chats(seated, clock)
    sayer = seated.machines[0]
    lines = []
    for i in range(3 * chat_module.BURST):  # a flood, signed by hand past our own limit
        body = {"n": 10 + i, "text": f"spam {i}"}
        lines.append(
            encode(sayer.identity, MsgType.CHAT, table_id=sayer.table_id, seq=0,
                   prev=ZERO_HASH, head=sayer.transcript.head, body=body)
        )  # fmt: skip
    got = [chats[1].receive(decode(raw)) for raw in lines]
    assert got == [True] * chat_module.BURST + [False] * (2 * chat_module.BURST)
    clock.now += chat_module.REFILL_S  # one more line after the refill time
    later = encode(sayer.identity, MsgType.CHAT, table_id=sayer.table_id, seq=0, prev=ZERO_HASH,
                   head=sayer.transcript.head, body={"n": 99, "text": "later"})  # fmt: skip
    assert chats[1].receive(decode(later))
    clock.now += 10 * chat_module.REFILL_S
    assert not chats[1].receive(decode(later))  # replayed: shown once
    assert not chats[1].receive(decode(lines[0]))  # an older line: shown once
    in_chain = encode(sayer.identity, MsgType.CHAT, table_id=sayer.table_id, seq=7,
                      prev=b"\x01" * 32, head=sayer.transcript.head,
                      body={"n": 500, "text": "in a chain"})  # fmt: skip
    assert not chats[1].receive(decode(in_chain))
    texts = [e["text"] for e in shown[1]]
    assert texts == [f"spam {i}" for i in range(chat_module.BURST)] + ["later"]
    assert chats[1].machine.aborted is None  # nothing here is a fault


def test_an_oversized_or_forged_line_fails_the_envelope(seated: LocalTable) -> None:
    sayer = seated.machines[0]
    honest = seated.ids[1].public_key

    def hand_signed(text: str, sender: bytes | None = None) -> bytes:
        body = {"n": 1, "text": text}
        signed = pack([PROTOCOL_VERSION, int(MsgType.CHAT), sayer.table_id, sender or sayer.me,
                       0, ZERO_HASH, sayer.transcript.head, body])  # fmt: skip
        return pack([signed, sayer.identity.sign(MSG_DOMAIN + signed)])

    decode(hand_signed("x" * 200))  # the bound itself is fine
    for bad in (hand_signed("x" * 201), hand_signed("bell\x07"), hand_signed("ok", honest)):
        with pytest.raises(WireError):
            decode(bad)


def test_what_the_user_may_say() -> None:
    assert check_text("  hi  ") == "hi"
    for text in ("", "   ", "two\nlines", "é" * 101):
        with pytest.raises(ChatRefused):
            check_text(text)
    outbox = ChatOutbox()
    for i in range(chat_module.OUTBOX_SIZE):
        outbox.say(f"line {i}")
    with pytest.raises(ChatRefused, match="too many"):
        outbox.say("one more")
    assert outbox.take() == [f"line {i}" for i in range(chat_module.OUTBOX_SIZE)]


def test_our_own_flood_is_not_sent(seated: LocalTable) -> None:
    clock = FakeClock()
    events: list[dict[str, Any]] = []
    outbox = ChatOutbox()
    chat = TableChat(seated.machines[2], events.append, clock, outbox)
    for i in range(chat_module.BURST + 3):
        outbox.say(f"line {i}")
    sent = chat.outgoing()
    assert len(sent) == chat_module.BURST
    assert [decode(raw).body["n"] for raw in sent] == sorted({decode(r).body["n"] for r in sent})
    assert sum(e["event"] == "chat_refused" for e in events) == 3


def test_token_bucket_refills_with_the_clock() -> None:
    clock = FakeClock()
    bucket = TokenBucket(2.0, 1.0, clock)
    assert [bucket.take() for _ in range(3)] == [True, True, False]
    clock.now += 0.5
    assert not bucket.take()
    clock.now += 0.5
    assert bucket.take() and not bucket.take()


# --- real peer processes ---------------------------------------------------------------------


class ChatAttackTable(ProcessTable):
    """A table of peer processes whose seat ``evil`` runs ``tests/evil_peer.py chat``."""

    def __init__(self, workdir: Path, evil: int) -> None:
        super().__init__(["bot:random"] * 3, workdir, GameOptions(players=3, rounds=1), 20.0)
        self.evil = evil

    def _argv(self, index: int, role: list[str]) -> list[str]:
        argv = super()._argv(index, role)
        if index == self.evil:
            argv[1:3] = [str(EVIL_SCRIPT), "chat"]
        return argv


def _log(peer: PeerProcess) -> str:
    assert peer.stderr_path is not None
    return peer.stderr_path.read_text(errors="replace") if peer.stderr_path.exists() else ""


@pytest.mark.e2e
@pytest.mark.timeout(120)
def test_chat_attacks_reach_no_further_than_the_log(tmp_path: Path) -> None:
    """The evil seat floods valid lines and sends oversized, forged, impersonating, in-chain and
    replayed ones and an 'equivocation proof' of two chat lines: every honest peer shows some of
    its lines, attributed, a bounded number of them, and the game ends as if nobody had talked."""
    table = ChatAttackTable(tmp_path, evil=1)
    try:
        table.start()
        results = table.wait(90)
    finally:
        table.close()
    summary = table.summary(results)
    assert summary["finished"] and summary["aborted"] is None and summary["heads_agree"]
    evil_name = results[1]["name"]
    sent = [int(line.split()[2]) for line in _log(table.peers[1]).splitlines()
            if line.startswith("evil chat: ")]  # fmt: skip
    assert sent, "the evil seat never chatted"
    for index in (0, 2):
        peer, result = table.peers[index], results[index]
        assert "Traceback" not in _log(peer)
        lines = [e for e in peer.events if e.get("event") == "chat"]
        assert lines, "no chat line reached this peer"
        assert {e["name"] for e in lines} == {evil_name}
        texts = [e["text"] for e in lines]
        assert len(set(texts)) == len(texts)  # a replay is shown once
        assert all(t.startswith("evil line ") for t in texts)  # nothing forged or oversized
        assert len(texts) < sent[-1]  # the flood was cut down to the rate limit
        assert result["bad_messages"] >= 3  # oversized, impersonating, stranger, proof
        # The event log beside the record keeps them, in the record there is no chat at all.
        record = Path(result["record"])
        logged = [json.loads(x) for x in (record.parent / "events.jsonl").read_text().splitlines()]
        assert [e["text"] for e in logged if e.get("event") == "chat"] == texts
        assert all(decode(raw).type is not MsgType.CHAT for raw in read_record(record).messages)
    for result in results:
        code, report = audit_record(result["record"])
        assert code == 0 and report["ok"], report
