"""The table transcript: the append-only, hash-chained log of a table's signed messages.

Here each sender's own messages form a strict chain (seq and back-link), and the head hash
commits to the whole order. The order itself is the table's one canonical schedule (wire.md §7,
``protocol.md`` §5), which the table machine keeps (``table/table.py``: a step appended once
complete, in its sender order, each message built on the step's head) and ``druids audit``
checks (``audit/audit_schedule.py``); this class checks only the chains. A transcript always starts
from the signed ``seat`` message, which fixes the table id and the seated keys that every later
message is checked against.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from druids_p2p.wire.envelope import Message, decode, head0, next_head
from druids_p2p.wire.errors import (
    BrokenLink,
    Equivocation,
    NotSeated,
    OutOfPlace,
    RecordError,
    SequenceGap,
    WireError,
    WrongTable,
)
from druids_p2p.wire.msgtypes import ZERO_HASH, MsgType
from druids_p2p.wire.record import RecordRead, RecordWriter, read_record

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
        """Rebuild in memory from raw messages, verifying everything.

        A problem raises :class:`ReplayError` naming the message index, with the original error
        (an :class:`Equivocation` keeps its proof) as ``__cause__``. Duplicates are refused too:
        a saved record never holds one. (The one replay loop: ``druids audit``'s chain check,
        ``wire.audit.verify_chain``, reads its verdict from the same error.)
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

        Raises :class:`WrongTable`, :class:`NotSeated`, :class:`OutOfPlace`,
        :class:`SequenceGap` (ask for a resend), :class:`BrokenLink`, or :class:`Equivocation`
        (keep its pair: it convicts the sender), besides any decoding error.
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
