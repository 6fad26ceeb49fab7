"""A power cut at a Druids (2004) table, and a seat that forks the game after it (issue 27, 3).

Every peer loses power at once (``tests/power_cut.py``: each record keeps only what was synced,
frames in flight are lost) right after the victim's share of a gem the attacker drew has left;
every peer restarts from its record. The attacker also cuts its own record back to before its
draw and plays another move there: it discards first, then draws, so the same gem is dealt at
another operation. Today the victim, whose record lost the draw, shares that gem again with the
same nonce and another challenge, and two proofs give its table secret; at three seats the
attacker also shows the old game to the third seat, which then holds two shares the victim
signed for one slot and blames it for equivocating.

What must hold: the record is durable before any own message leaves (so the victim still holds
the draw and blames the fork), and every proof nonce is a function of its whole statement (so
no pair of proofs anywhere gives a secret away): no honest seat is blamed.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from power_cut import (
    SyncLog,
    cut_power,
    equivocations,
    record_path,
    recoverable_secrets,
    unsynced,
)
from table_harness import LocalTable

from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import MsgType, decode, read_record


class ForkTable(LocalTable):
    """A 2004 table delivered in order, each seat choosing its moves from the transcript head
    (a restarted seat chooses again what it chose), seat 0 the attacker, seat 1 its victim."""

    attacker, victim = 0, 1

    def __init__(self, players: int, records: Path) -> None:
        super().__init__(
            players=players, seed=3, records=records, ruleset="druids2004", keys_seed=11
        )
        self.wire: list[bytes] = []
        self.faults: dict[int, TableFault] = {}
        self.after_cut = False
        self.fork_head: bytes | None = None
        self.fork_kept = 0
        """The attacker's record length before its draw: what it cuts its own record back to."""
        self.draw_at = 0
        self.forked = False
        self.lost: dict[int, int] = {}
        """Messages each record lost in the cut."""

    def _pick(self) -> int:
        return 0

    def broadcast(self, k: int, raws: list[bytes]) -> None:
        self.wire.extend(raws)
        super().broadcast(k, raws)

    def stopped(self, k: int) -> bool:
        m = self.machines[k]
        return m.aborted is not None or m.finished

    def deliver(self, j: int, raw: bytes, frm: int | None = None) -> None:
        if self.stopped(j):
            return
        if j == self.attacker and decode(raw).sender == self.ids[j].public_key:
            return  # the attacker ignores its old draw: it forks regardless
        try:
            super().deliver(j, raw, frm)
        except TableFault as fault:
            self.faults[j] = fault
            self.machines[j].abort(fault)

    def move(self, k: int) -> None:
        m = self.machines[k]
        view = m.view()
        assert view is not None and m.card_rules is not None
        tokens = {m.card_rules.Move.of(x).token(): x for x in view.legal}
        choice = random.Random(m.head + bytes([k])).choice(view.legal)
        discards = [x for t, x in tokens.items() if t.startswith("Discard:")]
        if k == self.attacker and "Draw:gem" in tokens and (discards or self.forked):
            choice = tokens["Draw:gem"]  # after the fork: the gem it drew before
            if not self.after_cut and self.fork_head is None:
                self.fork_head, self.fork_kept, self.draw_at = (
                    m.head,
                    len(m.transcript),
                    len(self.wire),
                )
            elif self.after_cut and m.head == self.fork_head:
                choice, self.forked = discards[0], True  # the same gem, dealt one operation later
        try:
            self.broadcast(k, m.play(choice))
        except TableFault as fault:
            self.faults[k] = fault
            m.abort(fault)

    def victim_shared_the_draw(self) -> bool:
        if self.fork_head is None:
            return False
        key = self.ids[self.victim].public_key
        return any(
            decode(raw).type is MsgType.TABLE_SHARE and decode(raw).sender == key
            for raw in self.wire[self.draw_at :]
        )

    def cut_and_fork(self, log: SyncLog) -> None:
        """The power cut, the attacker's own record cut back to before its draw, and at three
        seats the old game relayed to the third seat while the fork goes to the victim alone."""
        before = list(dict.fromkeys(self.wire))
        self.lost = cut_power(self, log, forget={self.attacker: self.fork_kept})
        self.after_cut = True
        third = [k for k in range(len(self.machines)) if k not in (self.attacker, self.victim)]
        if not third:
            return
        old = set(before)
        own = self.ids[third[0]].public_key  # its own it makes again: the others' are relayed
        self.queue[:0] = [(self.attacker, third[0], r) for r in before if decode(r).sender != own]
        self.tamper = lambda k, j, raw: (
            None if (k, j) == (self.attacker, third[0]) and raw not in old else raw
        )

    def play_seat(self, k: int) -> int:
        order = next(m.order for m in self.machines if m.order)
        return order.index(self.ids[k].public_key)


@pytest.mark.parametrize("players", [2, 3])
def test_a_fork_after_a_power_cut_reads_no_secret_and_blames_no_honest_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, players: int
) -> None:
    log = SyncLog().install(monkeypatch)
    table = ForkTable(players, tmp_path)
    victim = table.victim
    table.run(stop=lambda: table.victim_shared_the_draw() and unsynced(table, log, victim) > 0)
    assert table.fork_head is not None and table.victim_shared_the_draw() and not table.faults
    table.cut_and_fork(log)
    assert table.lost[victim] > 0, "the cut took back messages the victim had received"
    table.run()
    assert table.forked, "the attacker never reached the head it forks at"
    attacker_key = table.ids[table.attacker].public_key
    assert any(decode(a).sender == attacker_key for a, _ in equivocations(table.wire)), (
        "the attacker signed no second version of its draw: the attack did not happen"
    )
    records = [raw for k in range(players) for raw in read_record(record_path(table, k)).messages]
    leaks = recoverable_secrets(table.wire + records)
    attacker_seat = table.play_seat(table.attacker)
    honest_blamed = {
        k: (fault.seat, fault.reason)
        for k, fault in table.faults.items()
        if k != table.attacker and fault.seat != attacker_seat
    }
    assert not leaks and not honest_blamed, (leaks, honest_blamed)
    assert table.faults.keys() - {table.attacker}, "an honest seat holds both draws: it blames"
