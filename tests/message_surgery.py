"""Re-signed and re-proven messages, as a cheating peer makes them: shared by the in-process attack
tests and the cheating peer process (``evil_peer.py``)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from druids_p2p.deck import group
from druids_p2p.deck.proofs import open_statement
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.wire import Identity, Message, MsgType, decode, encode
from druids_p2p.wire.envelope import head0, next_head


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


def reproved_show(peer: TablePeer, show: Mapping[str, Any]) -> dict[str, Any]:
    """The same ``table_show`` (a card played face up) with another valid proof: a second valid
    spelling only its seat can make, which is what an equivocating mover signs. Its nonce is
    random: an honest prover's is the statement's own (deck.md §8), so proving again would give
    the same bytes. The proof's context is the show's own (deck.md §9: ``open``, its zone, its
    operation)."""
    p, x = show["pos"], peer._secret
    params = peer.state.context(b"open", show["zone"], show["op"])
    a = peer.state.positions[p].a
    statement = open_statement(params, peer.seat, p, peer._key, a, group.mul(x, a))
    w = group.scalar_from_wide(os.urandom(64))
    e = statement.challenge(group.base_mul(w), group.mul(w, a))
    return {**show, "e": e, "s": group.scalar_add(w, group.scalar_mul(e, x))}


def fake_shuffle_body(size: int, deck: str = "deck", op: int = 0) -> dict[str, object]:
    """A ``table_shuffle`` of the wire's shape (the deck layer, not the wire, checks the points)."""
    points, scalars = [b"x" * 32] * size, [b"s" * 32] * size
    proof: dict[str, bytes | list[bytes]] = {"b": scalars, "c": points, "sp": scalars}
    proof |= {k: b"s" * 32 for k in ("s1", "s2", "s3", "s4")}
    proof |= {k: b"y" * 32 for k in ("d1", "d2", "t1", "t3", "t41", "t42")}
    body = {"a": points, "c": [b"y" * 32] * size, "deck": deck, "op": op}
    return body | {"proof": dict(sorted(proof.items())), "round": 1}


def rechain(
    raws: list[bytes],
    identities: Mapping[bytes, Identity],
    original: list[bytes],
    heads: Mapping[int, bytes] | None = None,
) -> list[bytes]:
    """A tampered record made consistent again, so that only the tamper is wrong: every message
    re-signed with its sender's seq and back-link in its new place, and with the head of the same
    *position* as it had in ``original`` (a message that carried the head before entry j now
    carries the new record's head before entry j), or the head ``heads`` gives its new index."""
    from druids_p2p.wire import ZERO_HASH, message_hash
    from druids_p2p.wire.envelope import head0, next_head

    def head_list(chain: list[bytes], table_id: bytes) -> list[bytes]:
        out = [head0(table_id)]
        for raw in chain:
            out.append(next_head(out[-1], message_hash(raw)))
        return out

    table_id = decode(original[0]).table_id
    old_heads = head_list(original, table_id)
    position = {h: j for j, h in reversed(list(enumerate(old_heads)))}
    out: list[bytes] = []
    new_heads = [head0(table_id)]
    last: dict[bytes, bytes] = {}
    seqs: dict[bytes, int] = {}
    for i, raw in enumerate(raws):
        msg = decode(raw)
        seq = seqs.get(msg.sender, 0)
        if heads is not None and i in heads:
            head = heads[i]
        else:
            j = position.get(msg.head)
            head = new_heads[j] if j is not None and j < len(new_heads) else msg.head
        fields: dict[str, Any] = {
            "table_id": msg.table_id,
            "seq": seq,
            "prev": last.get(msg.sender, ZERO_HASH),
            "head": head,
            "body": thaw(msg.body),
        }
        new = encode(identities[msg.sender], msg.type, **fields)
        out.append(new)
        last[msg.sender] = message_hash(new)
        seqs[msg.sender] = seq + 1
        new_heads.append(next_head(new_heads[-1], message_hash(new)))
    return out


def record_heads(messages: Sequence[Message]) -> list[bytes]:
    """``heads[i]``: the transcript head before message ``i`` (``heads[len]``: the final head),
    for messages a test forges (they need not verify as a transcript does)."""
    heads = [head0(messages[0].table_id)]
    for msg in messages:
        heads.append(next_head(heads[-1], msg.hash))
    return heads


def abort_after(identity: Identity, raws: Sequence[bytes], body: dict[str, object]) -> bytes:
    """``identity``'s ABORT as the next message of its chain, built on the head after ``raws``."""
    msgs = [decode(r) for r in raws]
    own = [m for m in msgs if m.sender == identity.public_key]
    return encode(
        identity,
        MsgType.ABORT,
        table_id=msgs[0].table_id,
        seq=len(own),
        prev=own[-1].hash if own else bytes(32),
        head=record_heads(msgs)[-1],
        body=body,
    )
