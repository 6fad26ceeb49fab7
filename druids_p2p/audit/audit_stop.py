"""Reading a record's stop: why a valid record ends before its game does (``protocol.md`` §9).

A record that stops ends in its *stop tail* (where ``audit_schedule`` finds it begins): the
recorder's own last messages, then aborts, the recorder's last. What the schedule still owed when
it stopped (:class:`Owing`) and what the aborts say give the verdict: a seat that signed an abort
while it owed an automatic message withheld it; otherwise the recorder's abort, or the claim of
the seat it stopped on, names who is blamed. The audit (``audit/audit.py``) asks here once it has
checked what the record holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from druids_p2p.table.table_codec import TABLE_TYPES
from druids_p2p.wire import Message, MsgType
from druids_p2p.wire.transcript import AuditProblem, AuditStop

DECK_TYPES = TABLE_TYPES
"""Deck messages: the card table's eight (types 60–67), each of which travels on its own."""

ROUND_TYPES = frozenset({*DECK_TYPES, MsgType.MOVE})
"""Messages that carry the 0-based round they belong to (a card table's ``round`` is the round
of the game it deals: one card table per round)."""

_ON_WORD = re.compile(
    r"^stopped on .* \(seat (?P<by>\d+)\)'s word: (?P<reason>.*?)"
    r"(?: \(blames seat (?P<seat>\d+)\))?$"
)
"""The recorder's words when it stopped on another seat's claim (``TableRunner._peer_aborted``)."""


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

        A seat that signed an abort while the record shows it owed an automatic message of the
        step it stopped in withheld that message (``protocol.md`` §9), whatever its abort says:
        checked from the record. Otherwise the recorder's abort (the last) is the stop, with the
        seat it blames, or, when it stopped on another seat's word, that seat's abort's claim."""
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
