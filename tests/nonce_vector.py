"""deck.md §8's vector: each proof's nonce from the secret and its whole statement, and the proof
made with it; last, one share of one position at two operations of the card table, whose two
nonces differ (the fork of issue 27 item 3). ``protocol_vectors`` writes and checks it."""

from __future__ import annotations

import hashlib
from typing import Any

from druids_p2p.deck import group
from druids_p2p.deck.encoding import TAG_NONCE, encode
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.proofs import (
    Statement,
    batch_digest,
    batch_statement,
    key_statement,
    nonce,
    open_statement,
    prove_batch,
    prove_key,
    prove_open,
)
from druids_p2p.deck.table_state import context_params

TABLE_ID = hashlib.sha256(b"druids-p2p nonce vector table").digest()
ROUND = 3
PARAMS = DeckParams(TABLE_ID, ROUND, 8, 3, 2)


def _hex(value: Any) -> str:
    return value.hex() if isinstance(value, bytes) else str(value)


def _scalar(label: bytes) -> bytes:
    return group.scalar_from_wide(hashlib.sha512(label).digest())


def _proof_lines(
    name: str, x: bytes, statement: Statement, proof: tuple[bytes, bytes]
) -> list[str]:
    """The statement's items, the nonce, and the proof made with it (deck.md §8)."""
    w = nonce(x, statement)
    e, s = proof
    lines = [f"{name} tag = {statement.tag.decode()}"]
    lines += [f"{name} item {i} = {_hex(item)}" for i, item in enumerate(statement.items)]
    lines += [f"{name} w = {w.hex()}", f"{name} w·B = {group.base_mul(w).hex()}"]
    return [*lines, f"{name} e = {e.hex()}", f"{name} s = {s.hex()}"]


def nonce_lines() -> list[str]:
    """deck.md §8: each proof's nonce from the secret and its whole statement, and the proof."""
    x = _scalar(b"druids-p2p vector nonce secret")
    key = group.base_mul(x)
    a_list = [group.base_mul(_scalar(b"druids-p2p vector nonce A%d" % t)) for t in range(2)]
    d_list = [group.mul(x, a) for a in a_list]
    a, d = a_list[0], d_list[0]
    lines = [
        f"table_id = {TABLE_ID.hex()}",
        f"round = {ROUND}",
        f"x = {x.hex()}",
        f"h = {key.hex()}",
    ]
    lines += [f"A_{t} = {p.hex()}" for t, p in enumerate(a_list)]
    lines += [f"d_{t} = {p.hex()}" for t, p in enumerate(d_list)]
    statement = key_statement(PARAMS, 1, key)
    lines.append(
        "key-pok nonce input = enc(nonce tag, x, tag, items, 0) = "
        + encode(TAG_NONCE, x, statement.tag, *statement.items, 0).hex()
    )
    lines += _proof_lines("key-pok (seat 1)", x, statement, prove_key(PARAMS, 1, x, key))
    statement = open_statement(PARAMS, 1, 4, key, a, d)
    proof = prove_open(PARAMS, 1, 4, x, key, a, d)
    lines += _proof_lines("open-dleq (seat 1, position 4)", x, statement, proof)
    digest = batch_digest(PARAMS, 1, 2, key, a_list, d_list)
    lines.append(f"shares-batch digest (sender 1, recipient 2) = {digest.hex()}")
    statement = batch_statement(PARAMS, 1, 2, key, a_list, d_list)
    proof = prove_batch(PARAMS, 1, 2, x, key, a_list, d_list)
    lines += _proof_lines("shares-dleq (sender 1, recipient 2)", x, statement, proof)
    for op in (1, 2):  # the same share of one position at two operations: two nonces
        params = context_params(TABLE_ID, 0, 3, b"share", "d", op)
        statement = open_statement(params, 1, 4, key, a, d)
        w = nonce(x, statement)
        lines.append(f"table_share context(share, d, {op}) seat 1 position 4 w = {w.hex()}")
    return lines
