"""The write-ahead rule (protocol.md §8): a peer's record is synced before any signed message of
its own leaves, one fsync for all that one input makes it send. Checked at whole in-process
tables of both games, every record on disk and ``os.fsync`` watched (``tests/power_cut.py``).

Then the restart's side: a peer whose record lost one of its own moves anyway (storage that lost
a synced write) takes it back from the others' resend answers; one that had already made another
message for that slot stops and signs nothing more.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_arena import Arena
from power_cut import SyncLog, equivocations, record_path, unsynced
from table_harness import LocalTable

from druids_p2p.table.table_state import RecordLost
from druids_p2p.wire import Message, MsgType, Transcript, decode


class WatchedTable(LocalTable):
    """Checks, at every send, that the sender's record is durable; counts fsyncs per batch."""

    def __init__(self, log: SyncLog, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.log = log
        self.batches = [0] * len(self.machines)
        paths = [str(record_path(self, k).resolve()) for k in range(len(self.machines))]
        self.syncs_seen = [log.calls.get(p, 0) for p in paths]  # creating a record syncs it
        self.most_syncs_in_a_batch = 0
        self.unsynced_sends: list[str] = []

    def broadcast(self, k: int, raws: list[bytes]) -> None:
        signed = list(raws)  # (version 2 has no unsigned receipts: every frame is signed)
        if signed:
            path = str(record_path(self, k).resolve())
            syncs = self.log.calls.get(path, 0)
            self.most_syncs_in_a_batch = max(self.most_syncs_in_a_batch, syncs - self.syncs_seen[k])
            self.syncs_seen[k] = syncs
            self.batches[k] += 1
            lag = unsynced(self, self.log, k)
            if lag:
                labels = ", ".join(decode(raw).type.label for raw in signed)
                self.unsynced_sends.append(f"peer {k} sent {labels} with {lag} bytes unsynced")
        super().broadcast(k, raws)


@pytest.mark.parametrize(
    ("ruleset", "players"), [("druids2004", 2), ("druids2004", 3), ("druids2017", 3)]
)
def test_every_own_message_leaves_after_its_record_is_synced_one_fsync_a_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ruleset: str, players: int
) -> None:
    log = SyncLog().install(monkeypatch)
    table = WatchedTable(
        log, players=players, seed=5, keys_seed=5, records=tmp_path, ruleset=ruleset
    )
    table.run()
    assert all(m.finished for m in table.machines)
    assert not table.unsynced_sends, table.unsynced_sends[:5]
    # A batch costs one fsync (a 2017 trick's end adds its own, as it always did).
    assert table.most_syncs_in_a_batch <= (1 if ruleset == "druids2004" else 2)
    assert sum(table.batches) > 50


def _cut_before_own_move(table: LocalTable, k: int) -> list[Message]:
    """Run a 2004 table until another peer holds two of peer k's moves, then cut k's record back
    to before the last of them (storage that lost a synced write, or an older copy put back) and
    restart k; return what its record held before the cut."""
    victim, other = table.machines[k], table.machines[1 - k]

    def moves_held_by_the_other() -> list[int]:
        return [
            i
            for i, m in enumerate(other.transcript.messages)
            if m.sender == victim.me and m.type is MsgType.MOVE
        ]

    table.run(stop=lambda: len(moves_held_by_the_other()) >= 2)
    sent = list(victim.transcript.messages)
    move = other.transcript.message_at(moves_held_by_the_other()[-1])
    keep = [m.raw for m in sent].index(move.raw)
    victim.transcript.close()
    path = record_path(table, k)
    path.unlink()
    with Transcript.start(sent[0], path) as kept:
        for msg in sent[1:keep]:
            kept.append(msg)
    table.restart(k)
    return sent[: keep + 1]


def test_a_peer_whose_record_lost_its_own_move_takes_it_back_from_the_others(
    tmp_path: Path,
) -> None:
    """The move was a choice, so its replay cannot make it; the other peer's resend answer
    holds it, and the restarted peer takes it back as its record's own (never asking its
    player again): one version of every slot, one transcript, one end."""
    table = LocalTable(players=2, seed=9, records=tmp_path, ruleset="druids2004", keys_seed=9)
    held = _cut_before_own_move(table, 1)
    table.broadcast(1, table.machines[1].resend_own())
    table.run()
    assert all(m.finished for m in table.machines)
    assert len({m.head for m in table.machines}) == 1
    assert table.machines[1].transcript.messages[len(held) - 1].raw == held[-1].raw
    raws = [m.raw for k in range(2) for m in table.machines[k].transcript.messages]
    assert not equivocations(raws + [m.raw for m in held])


def test_a_peer_that_made_another_message_for_a_slot_it_signed_stops_and_signs_nothing(
    tmp_path: Path,
) -> None:
    """Its player moved again before the other peer's copy came back (a record that lost a
    synced write: the write-ahead rule leaves no other way): shown its first version, it stops
    (RecordLost, nobody blamed) and signs nothing more, not even an abort."""
    table = LocalTable(players=2, seed=9, records=tmp_path, ruleset="druids2004", keys_seed=9)
    held = _cut_before_own_move(table, 1)
    fresh = table.machines[1]
    answers, table.queue = table.queue, []
    view = fresh.view()
    assert view is not None and fresh.my_turn
    token = held[-1].body["move"]
    rules = fresh.card_rules
    assert rules is not None
    other_move = next(m for m in view.legal if rules.Move.of(m).token() != token)
    fresh.play(other_move)
    signed = fresh.chain.seq
    first = next((frm, to) for frm, to, raw in answers if raw == held[-1].raw)  # a resend answer
    with pytest.raises(RecordLost) as stopped:
        table.deliver(first[1], held[-1].raw, first[0])
    assert stopped.value.seat is None and held[-1].raw in stopped.value.evidence
    assert fresh.chain.seq == signed, "nothing signed once it knew"


def test_a_runner_stopping_on_a_lost_record_sends_and_records_nothing(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=2, cheater=None)  # type: ignore[arg-type]
    arena.run(stop=lambda: len(arena.machines[1].transcript) > 20)
    sent_before, length = len(arena.sent), len(arena.machines[1].transcript)
    result = arena.runners[1]._abort(RecordLost(7, ()))
    assert result["aborted"] and result["blame"] is None
    assert len(arena.sent) == sent_before, "no abort, no proof: any slot may be taken"
    assert len(arena.machines[1].transcript) == length
