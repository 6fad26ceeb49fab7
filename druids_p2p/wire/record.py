"""The on-disk game record: a magic header, then each raw message prefixed by its length.

Messages are signed and hash-chained, so the file needs no checksums: it only lets a reader find the
last complete message after a crash, streaming one bounded message at a time.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from druids_p2p.wire.msgtypes import MAX_MESSAGE_SIZE, RecordError

MAGIC = b"DRUIDS-P2P-REC\x00\x01"
"""16 bytes: the format name, a NUL, and the record format version (1)."""
LENGTH_SIZE = 4


@dataclass(frozen=True)
class RecordRead:
    """What could be read from a record file and, if reading stopped early, why."""

    messages: tuple[bytes, ...]
    end: int
    """Offset just past the last complete message: where appending may resume."""
    size: int
    tail: str | None = None
    """Why reading stopped before the end of the file, or None if the file is complete."""
    corrupt: bool = False
    """True when the tail is not merely a cut-off last message but an impossible length field."""


def _read_exact(f: BinaryIO, n: int) -> bytes:
    chunks = []
    while n > 0:
        chunk = f.read(n)
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def iter_record(f: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """Yield (offset, raw) for each complete message; stop silently at a short tail."""
    offset = len(MAGIC)
    while True:
        prefix = _read_exact(f, LENGTH_SIZE)
        if len(prefix) < LENGTH_SIZE:
            return
        length = int.from_bytes(prefix, "big")
        if not 1 <= length <= MAX_MESSAGE_SIZE:
            return
        raw = _read_exact(f, length)
        if len(raw) < length:
            return
        yield offset, raw
        offset += LENGTH_SIZE + length


def read_record(path: Path) -> RecordRead:
    """Read every complete message; a bad header raises :class:`RecordError`, a bad tail is
    reported in the result (with everything before it) so that callers can still use the rest."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            header = _read_exact(f, len(MAGIC))
            if header != MAGIC:
                if len(header) < len(MAGIC) and MAGIC.startswith(header):
                    raise RecordError(f"{path}: truncated record header ({len(header)} bytes)")
                raise RecordError(f"{path}: not a druids-p2p record (bad magic header)")
            messages = []
            end = len(MAGIC)
            for offset, raw in iter_record(f):
                messages.append(raw)
                end = offset + LENGTH_SIZE + len(raw)
    except OSError as exc:
        raise RecordError(f"cannot read record {path}: {exc.strerror or exc}") from None
    tail, corrupt = _describe_tail(path, end, size, len(messages))
    return RecordRead(tuple(messages), end, size, tail, corrupt)


def _describe_tail(path: Path, end: int, size: int, count: int) -> tuple[str | None, bool]:
    if end == size:
        return None, False
    with open(path, "rb") as f:
        f.seek(end)
        prefix = f.read(LENGTH_SIZE)
    where = f"message {count} at offset {end}"
    if len(prefix) < LENGTH_SIZE:
        return f"truncated: {where} has {len(prefix)} of {LENGTH_SIZE} length bytes", False
    length = int.from_bytes(prefix, "big")
    if not 1 <= length <= MAX_MESSAGE_SIZE:
        return f"corrupt: {where} declares length {length} (allowed 1..{MAX_MESSAGE_SIZE})", True
    have = size - end - LENGTH_SIZE
    return f"truncated: {where} has {have} of {length} bytes", False


def sync_dir(directory: Path) -> None:
    """Make a new (or renamed) file's directory entry durable too; best effort where the OS
    has no such call (a file synced but not its entry can vanish in a power cut)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class RecordWriter:
    """Appends messages to a record file. Writes are buffered; :meth:`flush` with ``sync`` makes
    them durable, which the table does before any message of its own leaves (protocol.md §8,
    write-ahead), at the end of every trick and on close."""

    def __init__(self, f: BinaryIO, path: Path) -> None:
        self._f = f
        self.path = path
        self._unsynced = True
        """Written since the last fsync (a sync with nothing new costs nothing)."""

    @classmethod
    def create(cls, path: Path) -> RecordWriter:
        """Start a new record; refuses to overwrite an existing file, which may be a game."""
        try:
            f = open(path, "xb")  # noqa: SIM115 - owned by the writer until close()
        except OSError as exc:
            raise RecordError(f"cannot create record {path}: {exc.strerror or exc}") from None
        writer = cls(f, path)
        try:
            f.write(MAGIC)
            writer.flush(sync=True)
            sync_dir(path.parent)
        except (OSError, RecordError):
            f.close()
            raise
        return writer

    @classmethod
    def resume(cls, path: Path, end: int) -> RecordWriter:
        """Continue a record after a crash, cutting off a partial message past ``end``."""
        try:
            f = open(path, "r+b")  # noqa: SIM115
            f.truncate(end)
            f.seek(end)
        except OSError as exc:
            raise RecordError(f"cannot reopen record {path}: {exc.strerror or exc}") from None
        return cls(f, path)

    def append(self, raw: bytes) -> None:
        if not 1 <= len(raw) <= MAX_MESSAGE_SIZE:
            raise RecordError(f"cannot record a message of {len(raw)} bytes")
        try:
            self._f.write(len(raw).to_bytes(LENGTH_SIZE, "big") + raw)
            self._unsynced = True
        except OSError as exc:
            raise RecordError(f"cannot write record {self.path}: {exc.strerror or exc}") from None

    def flush(self, sync: bool = True) -> None:
        try:
            self._f.flush()
            if sync and self._unsynced:
                os.fsync(self._f.fileno())
                self._unsynced = False
        except OSError as exc:
            raise RecordError(f"cannot flush record {self.path}: {exc.strerror or exc}") from None

    def close(self) -> None:
        if not self._f.closed:
            try:
                self.flush(sync=True)
            finally:
                self._f.close()
