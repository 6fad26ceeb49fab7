"""Re-signed and re-proven messages, as a cheating peer makes them: shared by the in-process attack
tests and the cheating peer process (``evil_peer.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from druids_p2p.deck.peer import DeckPeer
from druids_p2p.wire import Identity, decode, encode


def thaw(value: Any) -> Any:
    """A decoded body (read-only maps, tuples) as plain dicts and lists to edit."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


def resign(identity: Identity, raw: bytes, **changes: Any) -> bytes:
    """``raw`` with some envelope fields or the body changed, signed by ``identity``."""
    msg = decode(raw)
    fields: dict[str, Any] = {
        "table_id": msg.table_id,
        "seq": msg.seq,
        "prev": msg.prev,
        "head": msg.head,
        "body": thaw(msg.body),
    }
    msg_type = changes.pop("msg_type", msg.type)
    fields.update(changes)
    return encode(identity, msg_type, **fields)


def reproved_opening(deck: DeckPeer, opening: Mapping[str, Any]) -> dict[str, Any]:
    """The same card opening with a fresh proof (the deck draws a new nonce): a second valid
    spelling only its seat can make, which is what an equivocating mover signs."""
    _, e, s = deck._prepare_opening(opening["pos"])
    return {**opening, "e": e, "s": s}


def fake_shuffle_body(size: int) -> dict[str, object]:
    """A deck_shuffle of the wire's shape (the deck layer, not the wire, checks the points)."""
    points, scalars = [b"x" * 32] * size, [b"s" * 32] * size
    proof = {"c": points, "ch": points, "sh": scalars, "sp": scalars, "th": points}
    proof |= {k: b"s" * 32 for k in ("s1", "s2", "s3", "s4")}
    proof |= {k: b"y" * 32 for k in ("t1", "t2", "t3", "t41", "t42")}
    body = {"a": points, "c": [b"y" * 32] * size, "pass": 1, "proof": dict(sorted(proof.items()))}
    return body | {"round": 1}
