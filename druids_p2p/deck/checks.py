"""Checks on a seat's key and revealed secrets, made the same way live and at the audit."""

from __future__ import annotations

import hashlib

from druids_p2p.deck import group
from druids_p2p.deck.assign import salt_hash
from druids_p2p.deck.elgamal import Deck
from druids_p2p.deck.encoding import TAG_COMMIT, sha256
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.log import RoundLog, Signed
from druids_p2p.deck.messages import ShuffleMsg
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.proofs import verify_key
from druids_p2p.deck.shuffle_proof import (
    OwnShuffle,
    ShuffleStatement,
    verify_shuffle,
    verify_shuffles,
)


def seed_hash(seed: bytes) -> bytes:
    return hashlib.sha256(seed).digest()


def commitment(params: DeckParams, seat: int, key: bytes, seed_digest: bytes) -> bytes:
    """SHA-256(enc(tag, table id, round, seat, h_i, SHA-256(seed)))."""
    return sha256(TAG_COMMIT, params.table_id, params.round_no, seat, key, seed_digest)


def check_key(params: DeckParams, log: RoundLog, seat: int) -> None:
    """The key share must match the commitment sent before any key was seen, and be known."""
    commit, key = log.commits[seat], log.keys[seat]
    if commitment(params, seat, key.msg.key, key.msg.seed_hash) != commit.msg.commitment:
        raise DeckFault(seat, "key share does not match its commitment", (commit.raw, key.raw))
    if not verify_key(params, seat, key.msg.key, (key.msg.e, key.msg.s)):
        raise DeckFault(seat, "key share has an invalid proof of knowledge", (key.raw,))


def check_reveal(params: DeckParams, log: RoundLog, seat: int) -> None:
    """The revealed secret and seed must be the ones the key message (and commitment) bound."""
    key, reveal = log.keys[seat], log.reveals[seat]
    secret = reveal.msg.secret
    if group.is_zero_scalar(secret) or group.base_mul(secret) != key.msg.key:
        raise DeckFault(
            seat, "revealed secret does not match its published key share", (key.raw, reveal.raw)
        )
    if seed_hash(reveal.msg.seed) != key.msg.seed_hash:
        raise DeckFault(
            seat, "revealed shuffle seed does not match its commitment", (key.raw, reveal.raw)
        )


def check_salt(log: RoundLog, seat: int) -> None:
    """The revealed assignment salt must be the one whose hash the key message carried."""
    key, salt = log.keys[seat], log.salts[seat]
    if salt_hash(salt.msg.salt) != key.msg.salt_hash:
        raise DeckFault(
            seat, "revealed assignment salt does not match its committed hash", (salt.raw, key.raw)
        )


def check_shuffle(
    params: DeckParams, log: RoundLog, signed: Signed[ShuffleMsg], source: Deck, joint_key: bytes
) -> None:
    """The shuffle's proof must show it is a re-encrypted permutation of ``source`` (deck.md
    §7.1). The evidence lets a third party re-check it: the shuffle, its input's message, and
    every key (whose sum is the joint key)."""
    msg, seat = signed.msg, signed.seat
    if not verify_shuffle(
        params, seat, msg.pass_no, joint_key, source, Deck(msg.a, msg.c), msg.proof
    ):
        raise DeckFault(
            seat,
            "shuffle has an invalid proof of a shuffle (it is not a re-encrypted permutation "
            "of its input)",
            (signed.raw, *log.shuffle_input_raw(seat), *log.all_key_raws()),
        )


def check_shuffles(
    params: DeckParams,
    log: RoundLog,
    batch: list[tuple[Signed[ShuffleMsg], Deck]],
    joint_key: bytes,
    own: OwnShuffle | None = None,
    split: bool = False,
) -> None:
    """Several consecutive shuffles (each with its input) checked in one batch, which shares the
    generators and the ciphertexts passed from one to the next (deck.md §7.1). Only if the batch
    fails are they checked one by one, in seat order, to blame the first bad one. ``split``:
    the batch's sum uses the helper thread (``verify_shuffles``)."""
    statements = [
        ShuffleStatement(
            signed.seat,
            signed.msg.pass_no,
            source,
            Deck(signed.msg.a, signed.msg.c),
            signed.msg.proof,
        )
        for signed, source in batch
    ]
    if verify_shuffles(params, joint_key, statements, own, split):
        return
    for signed, source in batch:
        check_shuffle(params, log, signed, source, joint_key)
