"""The wire half of ``druids audit``: the verdict types and the chain check of a saved record.

Anyone holding a record file can check, without trusting the peer that wrote it, that every
seated player signed its messages in this order (:func:`verify_chain`). The game checks (the
schedule, the deals, every move) are ``audit.audit``'s, which builds on this; the result names the
first problem precisely (message index, seat, why) rather than a bare "invalid".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from druids_p2p.wire.envelope import claimed_version, parse_unverified
from druids_p2p.wire.errors import WireError
from druids_p2p.wire.msgtypes import PROTOCOL_VERSION
from druids_p2p.wire.transcript import ReplayError, Transcript


@dataclass(frozen=True)
class AuditProblem(Exception):
    """The first thing wrong with a record; ``message_index``/``seat`` are None when the problem
    belongs to no single message (an unreadable file) or no seat (an unsigned blob).
    ``unreadable``: the file is no record at all (no header, no complete entry, an I/O error)."""

    error: str
    message_index: int | None = None
    seat: int | None = None
    unreadable: bool = False

    def __str__(self) -> str:
        where = []
        if self.message_index is not None:
            where.append(f"message {self.message_index}")
        if self.seat is not None:
            where.append(f"seat {self.seat}")
        return f"{', '.join(where)}: {self.error}" if where else self.error


@dataclass(frozen=True)
class AuditStop:
    """Why a valid record stops before the end of its game: its recorder's abort, read.

    ``summary`` is the verdict's short form (``seat 2 unreachable``, ``seat 1 left``,
    ``lost contact with the table``, ``seat 3 withheld table_reveal``...); ``reason`` the recorded
    words. ``seat`` is the blamed play seat (None when nobody is blamed), ``message_index`` the
    entry that shows it (the evidence when ``checked``, else the recorder's abort).
    ``checked``: the audit found the blamed fault in the record itself, not only the claim.
    ``claimed_by``: the seat whose abort the recorder stopped on, when it stopped on another
    peer's word (the blame is then that peer's claim, not the recorder's)."""

    summary: str
    reason: str
    seat: int | None
    message_index: int
    checked: bool = False
    stopped_by: int | None = None
    """The recorder's own seat (the signer of the record's last entry, its abort)."""
    claimed_by: int | None = None

    def __str__(self) -> str:
        text = f"valid, stopped: {self.summary}"
        if self.checked:
            text += " (evidence checked)"
        elif self.claimed_by is not None:
            text += f" (on seat {self.claimed_by}'s word)"
        return text


VERDICT_EXIT = {"complete": 0, "invalid": 1, "unreadable": 2, "incomplete": 3, "stopped": 4}
"""``druids audit``'s exit code for each verdict (protocol.md §9, "Audit verdicts")."""


@dataclass
class AuditReport:
    messages: int = 0
    table_id: bytes = b""
    players: list[dict[str, Any]] = field(default_factory=list)
    round_scores: list[list[int]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    complete: bool = False
    winners: list[int] | None = None
    aborted: str | None = None
    problem: AuditProblem | None = None
    stop: AuditStop | None = None
    """Set when the record is valid and ends in its recorder's abort."""

    @property
    def ok(self) -> bool:
        """The record is valid (complete, a prefix, or stopped with a recorded reason)."""
        return self.problem is None

    @property
    def verdict(self) -> str:
        """``complete``, ``incomplete``, ``stopped``, ``invalid`` or ``unreadable``: exactly one."""
        if self.problem is not None:
            return "unreadable" if self.problem.unreadable else "invalid"
        if self.stop is not None:
            return "stopped"
        return "complete" if self.complete else "incomplete"

    @property
    def exit_code(self) -> int:
        return VERDICT_EXIT[self.verdict]

    def to_json(self) -> dict[str, Any]:
        if self.problem is not None:
            return {
                "ok": False,
                "verdict": self.verdict,
                "error": self.problem.error,
                "message_index": self.problem.message_index,
                "seat": self.problem.seat,
            }
        out: dict[str, Any] = {
            "ok": True,
            "verdict": self.verdict,
            "table_id": self.table_id.hex(),
            "messages": self.messages,
            "players": self.players,
            "rounds": len(self.round_scores),
            "round_scores": self.round_scores,
            "totals": self.totals,
            "complete": self.complete,
            "winners": self.winners,
            "aborted": self.aborted,
        }
        if self.stop is not None:
            out |= {
                "reason": self.stop.summary,
                "recorded_reason": self.stop.reason,
                "seat": self.stop.seat,
                "message_index": self.stop.message_index,
                "evidence_checked": self.stop.checked,
                "stopped_by": self.stop.stopped_by,
                "claimed_by": self.stop.claimed_by,
            }
        return out


def version_refusal(raws: Sequence[bytes], verb: str = "audits") -> str | None:
    """One line refusing a record of another protocol version (None for one of ours), read
    from the version its first message claims: such a record is not judged by this version's
    rules, which would call each of its messages malformed, but named, with who ``verb`` it."""
    version = claimed_version(raws[0]) if raws else None
    if version is None or version == PROTOCOL_VERSION or version == 0:
        return None  # ours, or none there ever was: the checks say what is wrong with it
    other = "an older" if version < PROTOCOL_VERSION else "a newer"
    return (
        f"a protocol version {version} record (this druids-p2p reads version "
        f"{PROTOCOL_VERSION}; {other} druids-p2p {verb} it)"
    )


def _claimed_seat(raw: bytes, transcript: Transcript | None) -> int | None:
    if transcript is None:
        return None
    try:
        return transcript.seat_of(parse_unverified(raw).sender)
    except WireError:
        return None


def verify_chain(raws: Sequence[bytes]) -> Transcript:
    """Every signature, sequence number and link of a record, in record order: the transcript,
    or the first message that breaks the chain (its index, and the seat it claims to be from).
    The replay is :meth:`Transcript.replay`'s; this reads its verdict."""
    if not raws:
        raise AuditProblem("empty record: no seat message")
    try:
        return Transcript.replay(raws)
    except ReplayError as exc:
        seat = _claimed_seat(exc.raw, exc.transcript)
        raise AuditProblem(str(exc.why), exc.index, seat) from None
