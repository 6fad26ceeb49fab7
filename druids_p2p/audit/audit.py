"""``druids audit`` for LAN game records: the whole game re-checked from the signed messages alone,
in protocol.md §9's order ("Offline audit"), ending in one of its verdicts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from druids_p2p.audit.audit_card_table import CardTableReplay
from druids_p2p.audit.schedule import Owing, ScheduleWalk, StopTail
from druids_p2p.games.registry import RULESETS, table_options
from druids_p2p.games.seam import CardTableRuleset
from druids_p2p.lan.seating import (
    carried_rounds,
    confirm_contradiction,
    seat_list_fault,
    winners_of,
)
from druids_p2p.wire import Message, MsgType, RecordError, read_record
from druids_p2p.wire.identity import fingerprint
from druids_p2p.wire.transcript import (
    AuditProblem,
    AuditReport,
    AuditStop,
    verify_chain,
    version_refusal,
)


def audit_file(path: Path) -> AuditReport:
    """Audit a table's record file; never raises."""
    try:
        read = read_record(path)
    except RecordError as exc:
        return AuditReport(problem=AuditProblem(str(exc), unreadable=True))
    if not read.messages:
        why = f"record {read.tail}" if read.tail else "empty record: no seat message"
        return AuditReport(problem=AuditProblem(why, 0, unreadable=True))
    return audit_messages(read.messages, read.tail)


def audit_messages(raws: Sequence[bytes], tail: str | None = None) -> AuditReport:
    """Audit a record's entries in protocol.md §9's order ("Offline audit"); a fault its recorder's
    own abort names is the reason it stopped (*stopped*, evidence checked), not an invalid record.
    """
    refusal = version_refusal(raws)
    if refusal is not None:
        return AuditReport(messages=len(raws), problem=AuditProblem(refusal, unreadable=True))
    report = AuditReport(messages=len(raws))
    audit: _TableAudit | None = None
    try:
        transcript = verify_chain(raws)
        report.table_id = transcript.table_id
        if tail is not None:
            raise AuditProblem(f"record {tail}", len(raws))
        messages = list(transcript.messages)
        audit = _TableAudit(messages, report)
        walk = ScheduleWalk(transcript)  # the seating; the rest: audit/audit_card_table.py
        audit.tail.start = walk.run()
        audit.run(walk)
    except AuditProblem as problem:
        stop = audit.stopped_on(problem) if audit is not None else None
        if stop is None:
            report.problem = problem
        else:
            report.stop = stop
    return report


def check_seating(messages: Sequence[Message], keys: tuple[bytes, ...], until: int) -> None:
    """The seating's content up to message ``until`` (protocol.md §3, §4): the seat list is the
    seats' own word, each confirmation agrees with its signer's join, each nonce opens its
    commitment; for every game a table plays. Raises :class:`AuditProblem`."""
    seat_msg = messages[0]
    listed = seat_list_fault(seat_msg)
    if listed is not None:  # the seat list is not the seats' own word: the host's fault
        raise AuditProblem(listed, 0, keys.index(seat_msg.sender))
    confirms: dict[bytes, Message] = {}
    for index in range(1, until):
        msg = messages[index]
        if msg.type is MsgType.SEAT_CONFIRM:
            wrong = confirm_contradiction(seat_msg, msg)
            if wrong is not None:
                raise AuditProblem(
                    f"seat confirmation names {wrong}, which its signer's own word does not",
                    index,
                    keys.index(msg.sender),
                )
            confirms[msg.sender] = msg
        elif msg.type is MsgType.SEAT_NONCE:
            confirm = confirms.get(msg.sender)
            if (
                confirm is None
                or hashlib.sha256(msg.body["nonce"]).digest() != (confirm.body["commit"])
            ):
                raise AuditProblem(
                    "seat nonce does not match its commitment", index, keys.index(msg.sender)
                )
        elif msg.type is not MsgType.ABORT:
            raise AuditProblem(f"{msg.type.label} before the seats were fixed", index)


class _TableAudit:
    def __init__(self, messages: list[Message], report: AuditReport) -> None:
        self.messages = messages
        self.report = report
        seat = messages[0]
        self.keys: tuple[bytes, ...] = tuple(seat.body["seats"])
        self.names = dict(zip(self.keys, seat.body["names"], strict=True))
        try:
            self.ruleset, self.options = table_options(seat.body["options"])
        except ValueError as exc:
            sender = self.keys.index(seat.sender) if seat.sender in self.keys else None
            raise AuditProblem(f"table options are not playable: {exc}", 0, sender) from None
        self.rules: CardTableRuleset = RULESETS[self.ruleset]
        self.table_id = seat.table_id
        self.order: tuple[bytes, ...] = ()
        self.by_raw = {m.raw: m for m in messages}
        self.owing: Owing | None = None
        """What the step the record stops in still waits for (None if it stops between steps)."""
        self.tail = StopTail(messages, len(messages), self.names, self.seat_or_list)
        """The stop tail (where ``schedule.py`` found it begins): the recorder's own last
        messages and the aborts."""
        self.rounds_checked = False
        """The chain and the schedule held (steps 1-3): a problem found from now on (seating,
        deal, moves) may be the reason the record's stop gives."""

    def seat(self, key: bytes) -> int | None:
        return self.order.index(key) if key in self.order else None

    def run(self, walk: ScheduleWalk) -> None:
        """The content of what ``walk`` found in place: the seating, each round, the result."""
        end = len(self.messages)
        self.rounds_checked = True
        check_seating(self.messages, self.keys, end if walk.seated_at is None else walk.seated_at)
        if walk.seated_at is None:
            self._finish_unseated()
            return
        self.order = walk.order
        self.report.players = [
            {"seat": i, "name": self.names[k], "public_key": k.hex(), "fingerprint": fingerprint(k)}
            for i, k in enumerate(self.order)
        ]
        self._card_table(walk, self.rules)

    def _card_table(self, walk: ScheduleWalk, rules: CardTableRuleset) -> None:
        """A game at a mental card table: replayed with every card known, then the result."""
        carried = carried_rounds(self.messages[0])  # a continued table's (lan/seating.py)
        replay = CardTableReplay(self.messages, walk, rules, self.options, carried=carried)
        try:
            replay.run()
        except AuditProblem:  # perhaps what the record's stop names: its aborts, for stopped_on
            aborts = len(self.messages)
            while aborts > 0 and self.messages[aborts - 1].type is MsgType.ABORT:
                aborts -= 1
            self.tail.start = aborts
            raise
        finally:
            self.owing = replay.owing
            self.report.totals = replay.totals
            self.report.round_scores = replay.round_scores
        self.report.complete = replay.complete
        self.report.winners = winners_of(replay.totals) if replay.complete else None
        end = min(self.tail.start, len(self.messages))
        if replay.blind_at is not None:  # the rest is not replayed: only its stop tail is read
            # (the first index from replay.i on where the tail begins; None: the record does
            # not end in an abort, so it has no tail)
            start = None if walk.tail_from is None else max(replay.i, walk.tail_from)
            replay.i = start if start is not None and start < end else len(self.messages)
        if replay.i < len(self.messages) and walk.is_tail(replay.i):
            walk.check_tail(replay.i)
            self.tail.start = end = replay.i
        for i in range(replay.i, end):
            msg = self.messages[i]
            raise AuditProblem(f"{msg.type.label} after the game ended", i, self.seat(msg.sender))
        self._stopped()

    def _finish_unseated(self) -> None:
        confirmed = {m.sender for m in self.messages if m.type is MsgType.SEAT_CONFIRM}
        nonced = {m.sender for m in self.messages if m.type is MsgType.SEAT_NONCE}
        if len(confirmed) < len(self.keys):
            self.owing = Owing("seat_confirm", self._list_seats(set(self.keys) - confirmed))
        else:
            self.owing = Owing("seat_nonce", self._list_seats(set(self.keys) - nonced))
        self._stopped()

    def _list_seats(self, keys: set[bytes]) -> frozenset[int]:
        return frozenset(self.keys.index(k) for k in keys)

    def seat_or_list(self, key: bytes) -> int | None:
        """A key's play seat, or its place in the seat list before the order is fixed."""
        if self.order:
            return self.seat(key)
        return self.keys.index(key) if key in self.keys else None

    def _stopped(self) -> None:
        """The record ends in aborts: read its stop (``schedule.py``)."""
        read = self.tail.read(self.owing)
        if read is not None:
            self.report.aborted, self.report.stop = read

    def stopped_on(self, problem: AuditProblem) -> AuditStop | None:
        """The stop a content problem explains (``schedule.py``), once steps 1-3 held."""
        if not self.rounds_checked:
            return None
        read = self.tail.explains(problem)
        if read is None:
            return None
        self.report.aborted, stop = read
        return stop
