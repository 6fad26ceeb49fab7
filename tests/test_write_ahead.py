"""The write-ahead rule (protocol.md §8): a peer's record is synced before any signed message of
its own leaves, one fsync for all that one input makes it send. Checked at whole in-process
tables of both games, every record on disk and ``os.fsync`` watched (``tests/power_cut.py``).

Then the rule's other half: a restarted peer shown a message of its own that its record neither
holds nor made again (its storage lost synced writes) stops and signs nothing more.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_arena import Arena
from power_cut import SyncLog, record_path, unsynced
from table_harness import LocalTable

from druids_p2p.net.table_types import RecordLost
from druids_p2p.wire import Transcript, decode, is_receipt, read_record


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
        signed = [raw for raw in raws if not is_receipt(raw)]
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
    table = WatchedTable(log, players=players, seed=5, records=tmp_path, ruleset=ruleset)
    table.run()
    assert all(m.finished for m in table.machines)
    assert not table.unsynced_sends, table.unsynced_sends[:5]
    # A batch costs one fsync (a 2017 trick's end adds its own, as it always did).
    assert table.most_syncs_in_a_batch <= (1 if ruleset == "druids2004" else 2)
    assert sum(table.batches) > 50


def test_a_peer_whose_record_lost_its_own_move_stops_and_signs_nothing(tmp_path: Path) -> None:
    """Its record cut back to before its own move (storage that lost a synced write): the move
    cannot be made again (it was a choice), the other peer's resend answer holds it, and the
    restarted peer stops (RecordLost, nobody blamed) without signing another message."""
    table = LocalTable(players=2, seed=9, records=tmp_path, ruleset="druids2004")
    victim, other = table.machines[1], table.machines[0]

    def moves_of_victim_held_by_the_other() -> int:
        return sum(
            m.sender == victim.me and m.type.label == "move" for m in other.transcript.messages
        )

    table.run(stop=lambda: moves_of_victim_held_by_the_other() >= 2)
    sent = list(victim.transcript.messages)
    own_moves = [i for i, m in enumerate(sent) if m.sender == victim.me and m.type.label == "move"]
    keep = max(i for i in own_moves if i < len(other.transcript))  # the other peer holds it
    victim.transcript.close()
    path = record_path(table, 1)
    path.unlink()
    with Transcript.start(sent[0], path) as kept:
        for msg in sent[1:keep]:
            kept.append(msg)
    with pytest.raises(RecordLost) as stopped:
        table.restart(1)
        while table.queue:
            table.deliver_next()
    assert stopped.value.seat is None
    fresh = table.machines[1]
    assert fresh.chain.seq <= sent[keep].seq, "it signed nothing for the lost move's slot"
    assert [m.raw for m in map(decode, read_record(path).messages)] == [m.raw for m in sent[:keep]]


def test_a_runner_stopping_on_a_lost_record_sends_and_records_nothing(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=2, cheater=None)  # type: ignore[arg-type]
    arena.run(stop=lambda: len(arena.machines[1].transcript) > 20)
    sent_before, length = len(arena.sent), len(arena.machines[1].transcript)
    result = arena.runners[1]._abort(RecordLost(7, ()))
    assert result["aborted"] and result["blame"] is None
    assert len(arena.sent) == sent_before, "no abort, no proof: any slot may be taken"
    assert len(arena.machines[1].transcript) == length
