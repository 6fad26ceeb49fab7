"""Acknowledgements (``ack`` receipts): the one frame at a table that is not a signed message.

A receipt says "right after transcript head ``prev`` I appended the message whose hash is
``msg``". It travels only over the table's CURVE links, which authenticate its sender (the CURVE
key is bound to the sender's Ed25519 identity by its signed ``seat_confirm``), so it needs no
Ed25519 signature of its own, and it is not part of the signed transcript.

Why not a signed message: a receipt proves nothing to a third party that the signed messages do
not prove already (a disagreement is convicted with the mover's two signed versions, fetched from
the acker), yet verifying every peer's signed ack of every move was a third of a table's CPU.

The frame is canonical msgpack of fixed size, ``[30, prev: bin 32, msg: bin 32]`` (70 bytes),
so a receiver compares bytes instead of parsing (wire.md section 9).
"""

from __future__ import annotations

from dataclasses import dataclass

from druids_p2p.wire.errors import BadShape
from druids_p2p.wire.msgtypes import HASH_SIZE, MsgType
from druids_p2p.wire.table import next_head

RECEIPT_SIZE = 70
_PREFIX = bytes([0x93, int(MsgType.ACK)])  # fixarray of 3, then positive fixint 30
_BIN32 = bytes([0xC4, HASH_SIZE])


@dataclass(frozen=True, slots=True)
class Receipt:
    """``msg`` was appended right after head ``prev`` by whoever sent this receipt."""

    prev: bytes
    msg: bytes

    @property
    def head(self) -> bytes:
        """The acknowledging peer's transcript head right after ``msg``."""
        return next_head(self.prev, self.msg)


def encode_receipt(prev: bytes, msg: bytes) -> bytes:
    if len(prev) != HASH_SIZE or len(msg) != HASH_SIZE:
        raise BadShape("receipt: prev and msg are 32-byte hashes")
    return _PREFIX + _BIN32 + prev + _BIN32 + msg


def is_receipt(raw: bytes) -> bool:
    """Cheap dispatch: signed messages start with a 2-array (0x92), receipts with this prefix."""
    return raw[:2] == _PREFIX


def decode_receipt(raw: bytes) -> Receipt:
    """Untrusted bytes to a :class:`Receipt`, or :class:`BadShape`."""
    if len(raw) != RECEIPT_SIZE:
        raise BadShape(f"receipt: expected {RECEIPT_SIZE} bytes, got {len(raw)}")
    if raw[:2] != _PREFIX or raw[2:4] != _BIN32 or raw[36:38] != _BIN32:
        raise BadShape("receipt: expected msgpack [30, bin 32, bin 32]")
    return Receipt(prev=bytes(raw[4:36]), msg=bytes(raw[38:70]))
