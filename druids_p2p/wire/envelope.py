"""The signed envelope: how one message becomes bytes and untrusted bytes become a message, with
the signed frame it shares with beacons, the table id and head chain that bind a message to its
table, and the proof that a sender equivocated. Byte layout: docs/protocol/wire.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nacl.bindings import crypto_sign_open
from nacl.exceptions import BadSignatureError

from druids_p2p.wire.identity import Identity, is_weak_key
from druids_p2p.wire.msgtypes import (
    HASH_SIZE,
    HEAD_DOMAIN,
    KEY_SIZE,
    MAX_DEPTH,
    MAX_MESSAGE_SIZE,
    MAX_SEQ,
    MSG_DOMAIN,
    PROTOCOL_VERSION,
    SIGNATURE_SIZE,
    TABLE_DOMAIN,
    ZERO_HASH,
    BadShape,
    BadSignature,
    InvalidProof,
    MsgType,
    TooLarge,
    WireError,
    pack,
    require_canonical,
    unpack,
)
from druids_p2p.wire.schema import BODIES, Parsed, check, parse

__all__ = ["equivocation_body", "verify_equivocation"]


# The signed frame shared by wire messages and discovery beacons: ``[signed: bin, sig: bin 64]``.
ED25519_ORDER = 2**252 + 27742317777372353535851937790883648493
"""The order L of the Ed25519 base point. Signatures with S >= L are refused explicitly (RFC 8032
5.1.7) so that nobody but the signer can produce a second valid signature, hence a second hash."""


def split_signed_frame(data: Any, limit: int, what: str, frame: str) -> tuple[bytes, Any, Any]:
    """Size-check and unpack the outer frame: (the bytes, the frame tuple, the signature item).

    The signature item comes back unchecked: callers check it and the canonical form in their order.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise WireError(f"expected bytes, got {type(data).__name__}")
    raw = bytes(data)
    if len(raw) > limit:
        raise TooLarge(f"{what} of {len(raw)} bytes exceeds the {limit} byte limit")
    items = unpack(raw, max_depth=1)
    if not isinstance(items, tuple) or len(items) != 2:
        n = len(items) if isinstance(items, tuple) else type(items).__name__
        raise BadShape(f"{frame}: expected array [signed, signature], got {n}")
    signed, signature = items
    if not isinstance(signed, bytes):
        raise BadShape(f"{frame}: signed part must be bin, got {type(signed).__name__}")
    return raw, items, signature


def verify_signature(
    key: bytes, message: bytes, signature: bytes, label: str, subject: str = ""
) -> None:
    """Strict Ed25519 verification, canonical S first (wire.md §2, signature rules).

    libsodium's verifier, not OpenSSL's: about twice as fast, and strict where OpenSSL is lenient.
    """
    if len(signature) != 64 or int.from_bytes(signature[32:], "little") >= ED25519_ORDER:
        raise BadSignature(f"{label}: non-canonical S (>= group order)")
    if len(key) != 32:
        raise BadSignature(f"{label}: a public key is 32 bytes, not {len(key)}")
    try:
        crypto_sign_open(signature + message, key)
    except (BadSignatureError, ValueError):
        raise BadSignature(f"{label} does not verify for {subject}{key.hex()[:16]}…") from None


# Table identity and the transcript head chain: the hashes that bind messages to one table.
def derive_table_id(seats: Sequence[bytes], options: Mapping[str, Any], nonce: bytes) -> bytes:
    """The table id (wire.md §6), so every signature at a table also signs its seats and options."""
    canonical = {key: options[key] for key in sorted(options, key=lambda k: k.encode("utf-8"))}
    return hashlib.sha256(TABLE_DOMAIN + pack([list(seats), canonical, nonce])).digest()


def head0(table_id: bytes) -> bytes:
    """The head of an empty transcript of this table."""
    return hashlib.sha256(HEAD_DOMAIN + table_id).digest()


def next_head(head: bytes, message_hash: bytes) -> bytes:
    """The head after appending one message: each head commits to the whole order before it."""
    return hashlib.sha256(head + message_hash).digest()


# The signed envelope: how one message becomes bytes and how untrusted bytes become a message.
Body = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Message:
    """A decoded, verified message. ``body`` holds arrays as tuples; treat it as read-only."""

    version: int
    type: MsgType
    table_id: bytes
    sender: bytes
    seq: int
    prev: bytes
    head: bytes
    body: Body
    signature: bytes
    raw: bytes
    hash: bytes
    parsed: Any = field(default=None, compare=False)
    """A body of a type whose schema is :class:`~druids_p2p.wire.schema.Parsed` (the card
    table's), as its owner's parser returned it when the body was checked; else None."""

    def __repr__(self) -> str:
        return (
            f"Message({self.type.label}, sender={self.sender.hex()[:12]}, seq={self.seq}, "
            f"hash={self.hash.hex()[:12]})"
        )


def message_hash(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


def _bin(value: Any, size: int, what: str) -> bytes:
    if not isinstance(value, bytes):
        raise BadShape(f"{what}: expected bin of {size} bytes, got {type(value).__name__}")
    if len(value) != size:
        raise BadShape(f"{what}: expected bin of {size} bytes, got {len(value)} bytes")
    return value


def _uint(value: Any, hi: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadShape(f"{what}: expected int, got {type(value).__name__}")
    if not 0 <= value <= hi:
        raise BadShape(f"{what}: {value} out of range [0, {hi}]")
    return value


Header = tuple[MsgType, bytes, bytes, int, bytes, bytes, dict[str, Any], Any]
"""type, table id, sender, seq, prev, head, body, and the body as parsed (or None)."""


def _check_header(fields: Any) -> Header:
    if not isinstance(fields, tuple) or len(fields) != 8:
        n = len(fields) if isinstance(fields, tuple) else type(fields).__name__
        raise BadShape(f"signed part: expected array of 8 fields, got {n}")
    version, type_no, table_id, sender, seq, prev, head, body = fields
    _uint(version, 2**32, "version")
    if version != PROTOCOL_VERSION:
        raise BadShape(
            f"unsupported protocol version {version} (this peer speaks {PROTOCOL_VERSION})"
        )
    try:
        msg_type = MsgType(_uint(type_no, 255, "type"))
    except ValueError:
        raise BadShape(f"type: unknown message type {type_no}") from None
    _bin(table_id, HASH_SIZE, "table_id")
    _bin(sender, KEY_SIZE, "sender")
    if is_weak_key(sender):
        raise BadShape("sender: small-order public key refused")
    _uint(seq, MAX_SEQ, "seq")
    _bin(prev, HASH_SIZE, "prev")
    if (seq == 0) != (prev == ZERO_HASH):
        raise BadShape("prev: must be all zero exactly when seq is 0")
    _bin(head, HASH_SIZE, "head")
    if not isinstance(body, dict):
        raise BadShape(f"body: expected map, got {type(body).__name__}")
    schema = BODIES[msg_type]
    parsed = None
    if isinstance(schema, Parsed):  # the card table's: parsed once, by its owner's parser
        parsed = parse(schema, body, f"{msg_type.label} body")
    else:
        check(schema, body, f"{msg_type.label} body")
    if msg_type is MsgType.SEAT:
        _check_seat_shape(body)
    return msg_type, table_id, sender, seq, prev, head, body, parsed


def _check_seat_shape(body: Body) -> None:
    seats, names = body["seats"], body["names"]
    if len(names) != len(seats):
        raise BadShape(f"seat body: {len(names)} names for {len(seats)} seats")
    folded = [name.casefold() for name in names]
    for i, name in enumerate(folded):
        if name in folded[:i]:  # a host seats colliding names as "name-2" (protocol.md §3)
            raise BadShape(f"seat body: names[{i}] {names[i]!r} is already a seat's name")
    if body["options"]["players"] != len(seats):
        raise BadShape(
            f"seat body: options.players is {body['options']['players']} "
            f"but {len(seats)} seats are listed"
        )
    for i, key in enumerate(seats):
        if is_weak_key(key):
            raise BadShape(f"seat body: seats[{i}] is a small-order public key")


def _check_claims(msg: Message) -> None:
    """Checks of what a message asserts, beyond its shape; the same for encode and decode."""
    if msg.type is MsgType.SEAT:
        body = msg.body
        if derive_table_id(body["seats"], body["options"], body["nonce"]) != msg.table_id:
            raise InvalidProof("seat: table_id is not the hash of these seats, options and nonce")
        if msg.sender not in body["seats"]:
            raise InvalidProof("seat: the sender is not one of the seats it lists")
    elif msg.type is MsgType.EQUIVOCATION:
        first = verify_equivocation(msg.body["a"], msg.body["b"])
        if first.table_id != msg.table_id:
            raise InvalidProof("equivocation: the quoted messages belong to another table")


def _verify(sender: bytes, signed: bytes, signature: bytes) -> None:
    verify_signature(sender, MSG_DOMAIN + signed, signature, "signature", "sender ")


def _parse(raw: bytes) -> tuple[bytes, bytes, Message]:
    """Everything but the signature: (signed, signature, message)."""
    raw, frame, signature = split_signed_frame(raw, MAX_MESSAGE_SIZE, "message", "frame")
    signed = frame[0]
    _bin(signature, SIGNATURE_SIZE, "signature")
    require_canonical(raw, frame, "frame")
    fields = unpack(signed, max_depth=MAX_DEPTH)
    msg_type, table_id, sender, seq, prev, head, body, parsed = _check_header(fields)
    require_canonical(signed, fields, "signed part")
    msg = Message(
        version=PROTOCOL_VERSION,
        type=msg_type,
        table_id=table_id,
        sender=sender,
        seq=seq,
        prev=prev,
        head=head,
        body=body,
        signature=signature,
        raw=raw,
        hash=message_hash(raw),
        parsed=parsed,
    )
    return signed, signature, msg


def decode(raw: bytes) -> Message:
    """Turn untrusted bytes into a verified :class:`Message`, or raise :class:`WireError`.

    Checks run cheapest first (size, msgpack, shape, canonical form, signature, claims), so junk
    costs little and a signature is verified only over bytes that are otherwise acceptable.
    """
    signed, signature, msg = _parse(raw)
    _verify(msg.sender, signed, signature)
    _check_claims(msg)
    return msg


def claimed_version(raw: bytes) -> int | None:
    """The protocol version ``raw`` claims (the first field of its signed part), or None if the
    bytes are no message frame with a version first. Nothing else is checked, the signature
    least of all: a reader of a record peeks at it to refuse a record of another version by
    name, where this version's checks would only call its every message malformed."""
    try:
        signed = split_signed_frame(raw, MAX_MESSAGE_SIZE, "message", "frame")[1][0]
        fields = unpack(signed, max_depth=MAX_DEPTH)
    except WireError:
        return None
    if not isinstance(fields, tuple) or not fields:
        return None
    version = fields[0]
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version <= 2**32:
        return None  # not a version the header allows
    return version


def parse_unverified(raw: bytes) -> Message:
    """All checks of :func:`decode` except the signature and the claims; never trust the result.

    For looking at a message before paying for (or recursing into) its verification, and for
    reporting *who* a refused message claims to be from.
    """
    return _parse(raw)[2]


def canonical(value: Any) -> Any:
    """Sort map keys (by UTF-8 bytes) and turn arrays into lists, at every level."""
    if isinstance(value, _LEAF_TYPES):
        return value
    if isinstance(value, Mapping):
        if set(map(type, value)) == {str}:  # code-point order is UTF-8 byte order
            keys = sorted(value)
        else:
            keys = sorted(value, key=lambda k: k.encode("utf-8") if isinstance(k, str) else b"")
        if set(map(type, value.values())) <= _LEAVES:  # a flat body: nothing below to sort
            return {k: value[k] for k in keys}
        return {k: canonical(value[k]) for k in keys}
    if isinstance(value, list | tuple):
        if set(map(type, value)) <= _LEAVES:  # a deck's point list: nothing below to sort
            return list(value)
        return [canonical(v) for v in value]
    return value


_OUT_OF_CHAIN = frozenset({MsgType.EQUIVOCATION, MsgType.RESEND, MsgType.HELLO, MsgType.CHAT})


def verify_equivocation(a: bytes, b: bytes) -> Message:
    """Return the first message if (a, b) convicts its sender (wire.md §8), else raise InvalidProof.

    Nested proofs are refused before any signature, so a proof costs at most three checks.
    """
    if a >= b:
        raise InvalidProof(
            "equivocation: the two messages must differ and be in byte order (a < b)"
        )
    try:
        kinds = [parse_unverified(a).type, parse_unverified(b).type]
        if not _OUT_OF_CHAIN.intersection(kinds):
            first, second = decode(a), decode(b)
    except WireError as exc:
        raise InvalidProof(f"equivocation: a quoted message is invalid: {exc}") from None
    if MsgType.EQUIVOCATION in kinds:
        raise InvalidProof("equivocation: a proof may not quote another proof")
    if MsgType.RESEND in kinds or MsgType.HELLO in kinds or MsgType.CHAT in kinds:
        raise InvalidProof(
            "equivocation: a resend request, hello or chat line takes no sequence slot"
        )
    if first.sender != second.sender:
        raise InvalidProof("equivocation: the two messages have different senders")
    if first.table_id != second.table_id:
        raise InvalidProof("equivocation: the two messages belong to different tables")
    if first.seq != second.seq:
        raise InvalidProof("equivocation: the two messages have different sequence numbers")
    return first


_LEAVES = frozenset({bytes, int, str})
_LEAF_TYPES = (bytes, int, str)


def _frozen(value: Any) -> Any:
    """Arrays as tuples at every level: the shape :func:`decode` gives a body."""
    if isinstance(value, dict):
        if set(map(type, value.values())) <= _LEAVES:
            return dict(value)
        return {k: _frozen(v) for k, v in value.items()}
    if isinstance(value, list):
        if set(map(type, value)) <= _LEAVES:
            return tuple(value)
        return tuple(_frozen(v) for v in value)
    return value


def encode(
    identity: Identity,
    msg_type: MsgType | str,
    *,
    table_id: bytes,
    seq: int,
    prev: bytes,
    head: bytes,
    body: Body,
) -> bytes:
    """Sign a message. The body is checked against its schema first, so that this peer never
    sends anything its peers would refuse; a bad argument raises :class:`WireError`."""
    return encode_message(
        identity, msg_type, table_id=table_id, seq=seq, prev=prev, head=head, body=body
    ).raw


def encode_message(
    identity: Identity,
    msg_type: MsgType | str,
    *,
    table_id: bytes,
    seq: int,
    prev: bytes,
    head: bytes,
    body: Body,
) -> Message:
    """:func:`encode`, returning the message as :func:`decode` would give it back, so that a
    sender need not parse (or verify) what it has just signed itself."""
    try:
        kind = MsgType.parse(msg_type)
    except ValueError as exc:
        raise BadShape(str(exc)) from None
    body_c = canonical(body)
    fields = [PROTOCOL_VERSION, int(kind), table_id, identity.public_key, seq, prev, head, body_c]
    parsed = _check_header(tuple(fields))[7]
    signed = pack(fields)
    signature = identity.sign(MSG_DOMAIN + signed)
    raw = pack([signed, signature])
    if len(raw) > MAX_MESSAGE_SIZE:
        raise TooLarge(f"message of {len(raw)} bytes exceeds the {MAX_MESSAGE_SIZE} byte limit")
    msg = Message(
        PROTOCOL_VERSION,
        kind,
        table_id,
        identity.public_key,
        seq,
        prev,
        head,
        _frozen(body_c),
        signature,
        raw,
        message_hash(raw),
        parsed,
    )
    _check_claims(msg)
    return msg


# Proof that a sender equivocated: two different messages it signed for the same slot.
def equivocation_body(first: bytes, second: bytes) -> dict[str, Any]:
    """The body of an ``equivocation`` message quoting the pair, in its one canonical order."""
    a, b = sorted((first, second))
    return {"a": a, "b": b}
