"""Table identity and the transcript head chain: the hashes that bind messages to one table."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from druids_p2p.wire.msgtypes import HEAD_DOMAIN, TABLE_DOMAIN
from druids_p2p.wire.safe_msgpack import pack


def derive_table_id(seats: Sequence[bytes], options: Mapping[str, Any], nonce: bytes) -> bytes:
    """SHA-256 over the seat list, the options and a nonce.

    Every later message carries this id under its sender's signature, so signing any message at
    the table also signs the exact seat list and options: a peer cannot be moved to a table whose
    membership differs from the one it agreed to. Options are encoded with sorted keys so that the
    id does not depend on how a caller built the dict.
    """
    canonical = {key: options[key] for key in sorted(options, key=lambda k: k.encode("utf-8"))}
    return hashlib.sha256(TABLE_DOMAIN + pack([list(seats), canonical, nonce])).digest()


def head0(table_id: bytes) -> bytes:
    """The head of an empty transcript of this table."""
    return hashlib.sha256(HEAD_DOMAIN + table_id).digest()


def next_head(head: bytes, message_hash: bytes) -> bytes:
    """The head after appending one message: each head commits to the whole order before it."""
    return hashlib.sha256(head + message_hash).digest()
