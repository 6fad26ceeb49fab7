"""The wire layer: identities, signed message envelopes, and the hash-chained game record.

Pure code over bytes (no sockets): everything a peer receives passes :func:`decode`, and every
failure of this layer is a :class:`WireError`. The byte-level protocol is specified in
``docs/protocol/wire.md``.
"""

from druids_p2p.wire.envelope import (
    Message,
    decode,
    derive_table_id,
    encode,
    equivocation_body,
    head0,
    message_hash,
    next_head,
    verify_equivocation,
)
from druids_p2p.wire.identity import (
    Identity,
    data_dir,
    fingerprint,
    identity_path,
    load_identity,
    load_or_create,
    new_identity,
    rename_identity,
)
from druids_p2p.wire.msgtypes import (
    MAX_MESSAGE_SIZE,
    PROTOCOL_VERSION,
    ZERO_HASH,
    BadShape,
    BadSignature,
    BrokenLink,
    Equivocation,
    IdentityError,
    InvalidProof,
    Malformed,
    MsgType,
    NotSeated,
    OutOfPlace,
    RecordError,
    SequenceError,
    SequenceGap,
    StaleSequence,
    TooLarge,
    WireError,
    WrongTable,
)
from druids_p2p.wire.record import RecordRead, read_record
from druids_p2p.wire.schema import BODIES
from druids_p2p.wire.transcript import AppendResult, Transcript

__all__ = [
    "BODIES",
    "MAX_MESSAGE_SIZE",
    "PROTOCOL_VERSION",
    "ZERO_HASH",
    "AppendResult",
    "BadShape",
    "BadSignature",
    "BrokenLink",
    "Equivocation",
    "Identity",
    "IdentityError",
    "InvalidProof",
    "Malformed",
    "Message",
    "MsgType",
    "NotSeated",
    "OutOfPlace",
    "RecordError",
    "RecordRead",
    "SequenceError",
    "SequenceGap",
    "StaleSequence",
    "TooLarge",
    "Transcript",
    "WireError",
    "WrongTable",
    "data_dir",
    "decode",
    "derive_table_id",
    "encode",
    "equivocation_body",
    "fingerprint",
    "head0",
    "identity_path",
    "load_identity",
    "load_or_create",
    "message_hash",
    "new_identity",
    "next_head",
    "read_record",
    "rename_identity",
    "verify_equivocation",
]
