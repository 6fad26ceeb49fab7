"""The table transcript, the append-only hash-chained log of a table's signed messages, and the
wire half of druids audit: the verdict types and the chain check of a saved record (each
sender's messages a strict chain; the order itself is the table's schedule, checked by the audit
package).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from druids_p2p.wire.envelope import (
    Message,
    claimed_version,
    decode,
    head0,
    next_head,
    parse_unverified,
)
from druids_p2p.wire.msgtypes import (
    PROTOCOL_VERSION,
    ZERO_HASH,
    BrokenLink,
    Equivocation,
    MsgType,
    NotSeated,
    OutOfPlace,
    RecordError,
    SequenceGap,
    WireError,
    WrongTable,
)
from druids_p2p.wire.record import RecordRead, RecordWriter, read_record

# The table transcript: the append-only, hash-chained log of a table's signed messages.
AppendResult = Literal["appended", "duplicate"]


class ReplayError(RecordError):
    """Message ``index`` of a replayed record is refused (``__cause__`` says why, an
    :class:`Equivocation` keeping its proof); ``raw`` is that message, ``transcript`` what the
    record held before it (None when its first message is not a seat message)."""

    def __init__(
        self, index: int, why: WireError, raw: bytes, transcript: Transcript | None
    ) -> None:
        super().__init__(f"message {index}: {why}")
        self.index = index
        self.why = why
        self.raw = raw
        self.transcript = transcript


_NOT_IN_TRANSCRIPT = frozenset({MsgType.HELLO, MsgType.JOIN, MsgType.SEAT, MsgType.CHAT})


class Transcript:
    """Append-only log of one table; optionally mirrored to a record file as it grows."""

    def __init__(self, seat: Message, writer: RecordWriter | None = None) -> None:
        if seat.type is not MsgType.SEAT:
            raise OutOfPlace(f"a transcript starts with a seat message, not {seat.type.label}")
        if seat.seq != 0:
            raise OutOfPlace(f"the seat message must be its sender's first (seq 0), not {seat.seq}")
        self.seat_message = seat
        self.table_id: bytes = seat.table_id
        self.seats: tuple[bytes, ...] = tuple(seat.body["seats"])
        self.names: tuple[str, ...] = tuple(seat.body["names"])
        self.options: Mapping[str, Any] = seat.body["options"]
        self._seat_of = {key: i for i, key in enumerate(self.seats)}
        self._messages: list[Message] = []
        self._chains: dict[bytes, list[Message]] = {key: [] for key in self.seats}
        self.head: bytes = head0(self.table_id)
        self._heads: list[bytes] = []
        """``_heads[i]``: the head once message ``i`` is appended (the transcript owns them)."""
        self._head_index: dict[bytes, int] = {}
        self._index_of_raw: dict[bytes, int] = {}
        """Where each message's bytes sit (a view of ``_messages``: :meth:`find`)."""
        self._writer = writer
        self._add(seat)

    # --- construction ------------------------------------------------------------------------

    @classmethod
    def start(cls, seat: bytes | Message, path: Path | None = None) -> Transcript:
        """A new transcript from a signed seat message; with ``path``, a new record file too."""
        msg = seat if isinstance(seat, Message) else decode(seat)
        writer = RecordWriter.create(path) if path is not None else None
        try:
            transcript = cls(msg, writer)
        except WireError:
            if writer is not None:
                writer.close()
            raise
        transcript.flush(sync=True)  # a record always holds at least its founding message
        return transcript

    @classmethod
    def replay(cls, raws: Iterable[bytes]) -> Transcript:
        """Rebuild in memory from raw messages, verifying everything (also the audit's chain check).

        A problem raises :class:`ReplayError` naming the message index (its cause: the error).
        """
        transcript: Transcript | None = None
        for index, raw in enumerate(raws):
            try:
                if transcript is None:
                    transcript = cls.start(raw)
                elif transcript.append(raw) == "duplicate":
                    raise RecordError("duplicate of an earlier message")
            except WireError as exc:
                raise ReplayError(index, exc, raw, transcript) from exc
        if transcript is None:
            raise RecordError("empty record: no seat message")
        return transcript

    @classmethod
    def resume(cls, path: Path) -> tuple[Transcript, RecordRead]:
        """Reopen a record after a crash: re-verify it, cut a partially written last message, and
        continue appending. The returned :class:`RecordRead` says what (if anything) was cut."""
        read = read_record(path)
        if read.corrupt:
            raise RecordError(f"{path}: {read.tail}; refusing to append after corruption")
        try:
            transcript = cls.replay(read.messages)
        except RecordError as exc:
            raise RecordError(f"{path}: {exc}") from exc.__cause__
        transcript._writer = RecordWriter.resume(path, read.end)
        return transcript, read

    # --- queries -----------------------------------------------------------------------------

    @property
    def messages(self) -> Sequence[Message]:
        return tuple(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def message_at(self, index: int) -> Message:
        """The message at ``index`` in transcript order, without copying the transcript (as
        :attr:`messages` does): a table quotes a move it recorded as evidence by its index."""
        return self._messages[index]

    def find(self, raw: bytes) -> Message | None:
        """The decoded (and checked) message with these exact bytes, if it is here: the table's
        deck codec opens messages through this instead of decoding them again."""
        index = self._index_of_raw.get(raw)
        return None if index is None else self._messages[index]

    @property
    def heads(self) -> Sequence[bytes]:
        """``heads[i]``: the head once message ``i`` is appended (``heads[0]``: after the seat
        message). A live view, not a copy."""
        return self._heads

    def head_before(self, index: int) -> bytes:
        """The head message ``index`` was appended to (``head_0`` before the seat message)."""
        return self._heads[index - 1] if index > 0 else head0(self.table_id)

    def index_of_head(self, head: bytes) -> int | None:
        """The first ``i`` with ``heads[i] == head`` (None for a head this transcript never had)."""
        return self._head_index.get(head)

    def seat_of(self, key: bytes) -> int | None:
        return self._seat_of.get(key)

    def next_seq(self, sender: bytes) -> int:
        return len(self._chains[sender])

    def last_hash(self, sender: bytes) -> bytes:
        """What ``sender``'s next message must carry as ``prev``."""
        chain = self._chains[sender]
        return chain[-1].hash if chain else ZERO_HASH

    def since(self, sender: bytes, seq: int) -> Sequence[Message]:
        """The sender's messages from ``seq`` on, for answering a resend request."""
        return tuple(self._chains.get(sender, [])[seq:])

    # --- appending ---------------------------------------------------------------------------

    def append(self, message: bytes | Message) -> AppendResult:
        """Check and append one message; ``"duplicate"`` if these exact bytes are already here.

        Raises a :class:`WireError` naming the failed check (:class:`SequenceGap`: ask for a resend;
        :class:`Equivocation`: keep its pair, which convicts the sender).
        """
        msg = message if isinstance(message, Message) else decode(message)
        if msg.table_id != self.table_id:
            raise WrongTable(
                f"message for table {msg.table_id.hex()[:16]}…, "
                f"this is table {self.table_id.hex()[:16]}…"
            )
        chain = self._chains.get(msg.sender)
        if chain is None:
            raise NotSeated(f"sender {msg.sender.hex()[:16]}… has no seat at this table")
        seat = self._seat_of[msg.sender]
        if msg.seq < len(chain):
            earlier = chain[msg.seq]
            if earlier.raw == msg.raw:
                return "duplicate"
            raise Equivocation(earlier.raw, msg.raw, msg.sender, msg.seq)
        if msg.type in _NOT_IN_TRANSCRIPT:
            raise OutOfPlace(f"seat {seat}: a {msg.type.label} message has no place in a table")
        if msg.seq > len(chain):
            raise SequenceGap(
                f"seat {seat}: sequence gap, expected {len(chain)}, got {msg.seq}",
                msg.sender,
                len(chain),
                msg.seq,
            )
        if msg.prev != self.last_hash(msg.sender):
            raise BrokenLink(
                f"seat {seat}: seq {msg.seq} does not link to this sender's message {msg.seq - 1}"
            )
        self._add(msg)
        return "appended"

    def _add(self, msg: Message) -> None:
        if self._writer is not None:
            self._writer.append(msg.raw)
        self._chains[msg.sender].append(msg)
        self._index_of_raw[msg.raw] = len(self._messages)
        self._messages.append(msg)
        self.head = next_head(self.head, msg.hash)
        self._head_index.setdefault(self.head, len(self._heads))
        self._heads.append(self.head)

    # --- durability --------------------------------------------------------------------------

    def flush(self, sync: bool = True) -> None:
        """Push buffered messages to the file; with ``sync`` (before an own message leaves, end of
        trick) make them durable."""
        if self._writer is not None:
            self._writer.flush(sync)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()

    def __enter__(self) -> Transcript:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# The wire half of ``druids audit``: the verdict types and the chain check of a saved record.
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

    ``summary`` is the verdict's short form, ``seat`` the blamed seat (None: nobody),
    ``message_index`` its evidence, ``checked`` whether the record itself shows the fault.
    """

    summary: str
    reason: str
    seat: int | None
    message_index: int
    checked: bool = False
    stopped_by: int | None = None
    """The recorder's own seat (the signer of the record's last entry, its abort)."""
    claimed_by: int | None = None
    """The seat whose abort the recorder stopped on, when that was another peer's claim."""
    own_word: bool = False
    """The recorder's own abort blames another seat for a failed deck check this record does
    not show (its evidence was never recorded, or the claim is false): its word alone."""

    def __str__(self) -> str:
        text = f"valid, stopped: {self.summary}"
        if self.checked:
            text += " (evidence checked)"
        elif self.claimed_by is not None:
            text += f" (on seat {self.claimed_by}'s word)"
        elif self.own_word:
            text += " (the recorder's word: this record does not show it)"
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
