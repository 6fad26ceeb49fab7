"""A record's shape and its stop (protocol.md §5, §9): the record must be its table's canonical
transcript (step types, senders, order, heads), and a record that stops ends in a stop tail
whose aborts, with what the schedule still owed, name who is blamed. Content is checked by
audit.py and the card tables' replay.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from druids_p2p.lan.seating import seat_order
from druids_p2p.table.codec import TABLE_TYPES
from druids_p2p.table.table_state import blames_a_deck_check
from druids_p2p.wire import Message, MsgType, Transcript
from druids_p2p.wire.transcript import AuditProblem, AuditStop


# The offline audit's schedule check: a record is its table's canonical transcript, and its stop.
def stop_tail_from(msgs: Sequence[Message], recorder: bytes | None) -> int | None:
    """The first index ``i`` such that ``msgs[i:]`` is the recorder's own messages (no abort among
    them), then aborts of distinct seats; ``None`` without a recorder.

    One scan back from the end: any suffix of a stop tail is one too, and testing forward is O(n²).
    """
    if recorder is None:
        return None
    i = len(msgs)
    aborted: set[bytes] = set()
    while i > 0 and msgs[i - 1].type is MsgType.ABORT and msgs[i - 1].sender not in aborted:
        aborted.add(msgs[i - 1].sender)
        i -= 1
    while i > 0 and msgs[i - 1].type is not MsgType.ABORT and msgs[i - 1].sender == recorder:
        i -= 1
    return i


class ScheduleWalk:
    """Walks a verified record through the schedule; :meth:`run` returns where its stop tail
    begins (its length if it has none) or raises :class:`AuditProblem` at the first breach.

    The one walk of the schedule: the content checks (``audit/audit.py``) take from it the play
    order, where the seating ends, where each round and the result step begin."""

    def __init__(self, transcript: Transcript) -> None:
        messages: Sequence[Message] = transcript.messages
        self.msgs = messages
        self.head_before = transcript.head_before
        """The head before message ``i`` (the transcript's, not recomputed)."""
        seat = messages[0]
        self.list_keys: tuple[bytes, ...] = tuple(seat.body["seats"])
        self.order: tuple[bytes, ...] = ()
        last = messages[-1]
        self.recorder: bytes | None = last.sender if last.type is MsgType.ABORT else None
        """The signer of the record's last entry when it is an abort: whose record this is."""
        self.tail_from = stop_tail_from(messages, self.recorder)
        """The first index from which the rest of the record is a stop tail (None: no recorder)."""
        self._tail_start: int | None = None
        """Where the stop tail begins, once the walk has met it."""
        self.seated_at: int | None = None
        """Where the seating ends (after the nonce step), once the walk has passed it."""

    def seat(self, key: bytes) -> int | None:
        keys = self.order or self.list_keys
        return keys.index(key) if key in keys else None

    # ---------------------------------------------------------------- the walk
    def run(self) -> int:
        """Raises at the first message out of schedule; returns the stop tail's start."""
        end = self._walk()  # (the seat message's own head is the seating's check, step 4)
        if self.seated_at is None:
            self.check_tail(end)  # (else the card table's replay finds its tail and checks it)
        return end

    def _walk(self) -> int:
        i: int | None = self._step(1, "confirm", self.list_keys, {MsgType.SEAT_CONFIRM})
        nonce_at = i
        i = self._step(i, "nonce", self.list_keys, {MsgType.SEAT_NONCE})
        if i is None or nonce_at is None:
            return self._stop_at()
        nonces = {m.sender: m.body["nonce"] for m in self.msgs[nonce_at:i]}
        self.order = seat_order(self.msgs[0].table_id, self.list_keys, nonces)
        self.seated_at = i
        return self._stop_at()

    def _stop_at(self) -> int:
        return self._tail_start if self._tail_start is not None else len(self.msgs)

    def _step(
        self, i: int | None, name: str, senders: Sequence[bytes], types: set[MsgType]
    ) -> int | None:
        """One step at message ``i``: ``None`` once the record ends or its stop tail begins."""
        if i is None:
            return None
        head = self.head_before(i) if i <= len(self.msgs) else b""
        for key in senders:
            if i >= len(self.msgs):
                return None
            msg = self.msgs[i]
            if msg.sender != key or msg.type not in types or msg.head != head:
                if self.is_tail(i):
                    self._tail_start = i
                    return None
                raise self.breach(i, name, key, types, head)
            i += 1
        return i

    def breach(
        self, i: int, name: str, key: bytes, types: set[MsgType], head: bytes
    ) -> AuditProblem:
        msg = self.msgs[i]
        seat = self.seat(msg.sender)
        if msg.type is MsgType.ABORT:
            return AuditProblem(
                "the game goes on after this abort (nothing of the game follows an abort)",
                i,
                seat,
            )
        if msg.type not in types:
            wanted = "/".join(sorted(t.label for t in types))
            return AuditProblem(f"{msg.type.label} when {wanted} was due (step {name})", i, seat)
        if msg.sender != key:
            return AuditProblem(
                f"{msg.type.label} out of the canonical order: step {name} appends seat "
                f"{self.seat(key)}'s message here",
                i,
                seat,
            )
        return AuditProblem(
            f"{msg.type.label} carries head {msg.head.hex()[:12]}…, not the head "
            f"{head.hex()[:12]}… at the start of its step ({name})",
            i,
            seat,
        )

    # ---------------------------------------------------------------- the stop tail
    def is_tail(self, i: int) -> bool:
        """From ``i`` (``>= 0``) on: the recorder's own messages, then aborts, one per seat.

        Answered from :attr:`tail_from`, found once: the walk and the replays ask this at
        every step that does not match, and the blind stop-tail search of many indices."""
        return self.tail_from is not None and i >= self.tail_from

    def check_tail(self, start: int) -> None:
        if self.recorder is None:
            return
        last = len(self.msgs) - 1
        if start > last:
            raise AuditProblem(
                "the record's last abort has no place in it", last, self.seat(self.recorder)
            )
        if self.msgs[last].head != self.head_before(last):
            raise AuditProblem(
                "the recorder's abort must carry the head of its record before it",
                last,
                self.seat(self.recorder),
            )


# Reading a record's stop: why a valid record ends before its game does (``protocol.md`` §9).
DECK_TYPES = TABLE_TYPES
"""Deck messages: the card table's eight (types 60–67), each of which travels on its own."""

ROUND_TYPES = frozenset({*DECK_TYPES, MsgType.MOVE})
"""Messages that carry the 0-based round they belong to (a card table's ``round`` is the round
of the game it deals: one card table per round)."""

_ON_WORD = re.compile(
    r"^stopped on .* \(seat (?P<by>\d+)\)'s word: (?P<reason>.*?)"
    r"(?: \(blames seat (?P<seat>\d+)\))?$"
)
"""The recorder's words when it stopped on another seat's claim (``peer/liveness.py``)."""


@dataclass(frozen=True)
class Owing:
    """The message the step a record stops in still waits for, and from which seats."""

    what: str
    seats: frozenset[int]
    human: bool = False
    """A move (a person's choice), not an automatic message."""


class StopTail:
    """The aborts at the end of a record, from ``start`` (the record's length when none)."""

    def __init__(
        self,
        messages: Sequence[Message],
        start: int,
        names: dict[bytes, str],
        seat_of: Callable[[bytes], int | None],
    ) -> None:
        self.messages = messages
        self.start = start
        self._names = names
        self._seat_of = seat_of
        """A key's play seat, or its place in the seat list before the order is fixed."""

    def aborts(self) -> list[tuple[int, Message]]:
        return [
            (i, m)
            for i, m in enumerate(self.messages)
            if i >= self.start and m.type is MsgType.ABORT
        ]

    def _aborted(self, last: Message) -> str:
        return f"{self._names.get(last.sender, '?')}: {last.body['reason']}"

    def read(self, owing: Owing | None) -> tuple[str, AuditStop] | None:
        """The record's stop (its recorder's abort, read) and the ``aborted`` line, or None.

        A withheld automatic message is read from the record whatever the abort claims (protocol.md
        §9, "Audit verdicts").
        """
        aborts = self.aborts()
        if not aborts:
            return None
        last_index, last = aborts[-1]
        recorder = self._seat_of(last.sender)
        for index, msg in aborts:
            seat = self._seat_of(msg.sender)
            if owing is not None and not owing.human and seat in owing.seats:
                who = self._names.get(msg.sender, "?")
                return self._aborted(last), AuditStop(
                    f"seat {seat} withheld {owing.what}",
                    f"{who} (seat {seat}) withheld {owing.what}: it stopped the table instead "
                    f"(its abort says: {msg.body['reason']})",
                    seat,
                    index,
                    checked=True,
                    stopped_by=recorder,
                )
        claim_index, claim = last_index, last
        if "seat" not in last.body:
            others = [(i, m) for i, m in aborts[:-1] if m.sender != last.sender]
            if others:  # it stopped on another seat's word: that seat's abort is the claim
                claim_index, claim = others[0]
        blamed = claim.body.get("seat")
        claimant = self._seat_of(claim.sender)
        reason = str(claim.body["reason"])
        word = _ON_WORD.match(reason) if claim is last and blamed is None else None
        if word is not None:  # the claimant's abort is not in this record: its words are
            claimant, reason = int(word["by"]), word["reason"]
            blamed = int(word["seat"]) if word["seat"] is not None else None
        summary = stop_summary(reason, blamed, claimant)
        if owing is not None and blamed in owing.seats:
            summary += f" (the record shows it owing {owing.what})"
        return self._aborted(last), AuditStop(
            summary,
            str(last.body["reason"]),
            blamed if blamed is not None else left_seat(reason, claimant),
            claim_index,
            stopped_by=recorder,
            claimed_by=claimant if claim is not last or word is not None else None,
            own_word=claim is last
            and word is None
            and blamed is not None
            and blamed != recorder
            and blames_a_deck_check(reason),
        )

    def explains(self, problem: AuditProblem) -> tuple[str, AuditStop] | None:
        """The stop a content problem explains: the record's stop blames the problem's seat,
        and nothing of a later round than the problem's comes before the stop tail."""
        if problem.seat is None:
            return None
        aborts = self.aborts()
        if not aborts:
            return None
        _, last = aborts[-1]
        claims = {m.body.get("seat") for _, m in aborts if m.sender == last.sender}
        if problem.seat not in claims:
            return None
        where = problem.message_index
        at = self.messages[where].body.get("round", -1) if where is not None else None
        later = [
            m
            for m in self.messages[: self.start]
            if m.type in ROUND_TYPES and (at is None or int(m.body.get("round", 0)) > at)
        ]
        if later:
            return None
        return self._aborted(last), AuditStop(
            f"seat {problem.seat}: {problem.error}",
            str(last.body["reason"]),
            problem.seat,
            where if where is not None else len(self.messages) - 1,
            checked=True,
            stopped_by=self._seat_of(last.sender),
        )


def stop_summary(reason: str, seat: int | None, signer: int | None) -> str:
    """A stop's short verdict from its abort's recorded words (our own wordings, §9)."""
    if seat is not None:
        for marker, kind in (
            (" unreachable: ", "unreachable"),
            (" did not make its move within", "did not move within the move limit"),
            (" flooded this peer: ", "flooded a link (its receiver's own count, §9)"),
        ):
            if marker in reason:
                return f"seat {seat} {kind}"
        if " withheld " in reason:
            what = reason.split(" withheld ", 1)[1].split(" ")[0]
            return f"seat {seat} withheld {what}"
        return f"seat {seat} blamed: {reason}"
    if "lost contact with the table" in reason:
        return "lost contact with the table"
    if " left the table" in reason and signer is not None:
        return f"seat {signer} left"
    return f"seat {signer} stopped the table: {reason}"


def left_seat(reason: str, signer: int | None) -> int | None:
    """The seat a stop names when it blames nobody: the one that left, if it left."""
    return signer if " left the table" in reason else None
