"""Proof that a sender equivocated: two different messages it signed for the same slot."""

from __future__ import annotations

from typing import Any

from druids_p2p.wire.envelope import Message, decode, parse_unverified
from druids_p2p.wire.errors import InvalidProof, WireError
from druids_p2p.wire.msgtypes import MsgType

_CONTROL = frozenset({MsgType.EQUIVOCATION, MsgType.RESEND, MsgType.HELLO, MsgType.CHAT})


def verify_equivocation(a: bytes, b: bytes) -> Message:
    """Return the first message if (a, b) convicts its sender, else raise :class:`InvalidProof`.

    Requires ``a < b`` bytewise so that a proof has a single spelling. Quoted messages may not be
    proofs themselves, and that is checked before any signature, so verifying a proof costs at
    most three signature checks however it is nested. Nor may they be resend requests, hellos
    (keepalives) or chat lines: like proofs, those are out-of-chain messages that always carry
    seq 0 and are never appended to a transcript, so an honest peer signs many of them.
    """
    if a >= b:
        raise InvalidProof(
            "equivocation: the two messages must differ and be in byte order (a < b)"
        )
    try:
        kinds = [parse_unverified(a).type, parse_unverified(b).type]
        if not _CONTROL.intersection(kinds):
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


def equivocation_body(first: bytes, second: bytes) -> dict[str, Any]:
    """The body of an ``equivocation`` message quoting the pair, in its one canonical order."""
    a, b = sorted((first, second))
    return {"a": a, "b": b}
