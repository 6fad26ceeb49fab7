"""The seven deck message bodies: typed values in, strictly validated plain maps out and back.

Bodies are maps with sorted string keys holding only bytes, ints and arrays (what the wire layer's
canonical msgpack carries). :meth:`from_body` accepts exactly the documented shape: no missing or
extra key, exact types (bool is not an int), every point a canonical non-identity ristretto255
element, every scalar canonical, every array bounded. Anything else raises
:class:`~druids_p2p.deck.errors.MalformedMessage` and nothing else, so untrusted input has one
failure mode. Checks that need the round's parameters (lengths, seats, positions) live in
:mod:`druids_p2p.deck.log`, because a body alone does not know them. Each message names its
fields in a :class:`~druids_p2p.deck.body_schema.Schema`, the one body rule the card table's
messages share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from druids_p2p.deck.body_schema import (
    CIPHERTEXTS,
    DLEQ,
    PROOF,
    ROUND,
    Field,
    Part,
    Schema,
    Whole,
    an_int,
    as_bodies,
    as_list,
    bytes_of,
    opening,
    parse_kind,
    parts_of,
    point,
    points_of,
    scalar,
    shuffled,
)
from druids_p2p.deck.params import MAX_CARDS, MAX_SEATS
from druids_p2p.deck.shuffle_proof import ShuffleProof

DIGEST_BYTES = 32
SEED_BYTES = 32
SALT_BYTES = 32

KIND_COMMIT = "deck_commit"
KIND_KEY = "deck_key"
KIND_SHUFFLE = "deck_shuffle"
KIND_SALT = "deck_salt"
KIND_SHARES = "deck_shares"
KIND_OPEN = "deck_open"
KIND_REVEAL = "deck_reveal"


@dataclass(frozen=True, slots=True)
class CommitMsg(Whole):
    """Binds the key share and the shuffle seed before anybody has seen anybody's key."""

    KIND: ClassVar[str] = KIND_COMMIT
    SCHEMA: ClassVar[Schema] = Schema(ROUND, Field("commit", "commitment", bytes_of(DIGEST_BYTES)))
    round_no: int
    commitment: bytes


@dataclass(frozen=True, slots=True)
class KeyMsg(Whole):
    """The key share h_i, the seed hash it was committed with, the hash of the assignment salt,
    and a Schnorr proof (e, s)."""

    KIND: ClassVar[str] = KIND_KEY
    SCHEMA: ClassVar[Schema] = Schema(
        ROUND,
        Field("key", "key", point),
        Field("seed_hash", "seed_hash", bytes_of(DIGEST_BYTES)),
        Field("salt_hash", "salt_hash", bytes_of(DIGEST_BYTES)),
        *DLEQ,
    )
    round_no: int
    key: bytes
    seed_hash: bytes
    e: bytes
    s: bytes
    salt_hash: bytes


@dataclass(frozen=True, slots=True)
class ShuffleMsg(Whole):
    """One seat's permuted, re-randomised output of one pass, with its proof of a shuffle."""

    KIND: ClassVar[str] = KIND_SHUFFLE
    SCHEMA: ClassVar[Schema] = Schema(
        ROUND, Field("pass", "pass_no", an_int(1, 2)), *CIPHERTEXTS, PROOF, after=shuffled
    )
    round_no: int
    pass_no: int
    a: tuple[bytes, ...]
    c: tuple[bytes, ...]
    proof: ShuffleProof


@dataclass(frozen=True, slots=True)
class SaltMsg(Whole):
    """The assignment salt committed in ``deck_key``, revealed once the final deck is fixed."""

    KIND: ClassVar[str] = KIND_SALT
    SCHEMA: ClassVar[Schema] = Schema(ROUND, Field("salt", "salt", bytes_of(SALT_BYTES)))
    round_no: int
    salt: bytes


@dataclass(frozen=True, slots=True)
class ShareBatch(Part):
    """Decryption shares x_i*A_j for every position of seat ``to``, with one batched DLEQ proof."""

    SCHEMA: ClassVar[Schema] = Schema(
        Field("to", "to", an_int(0, MAX_SEATS - 1)),
        Field("d", "shares", points_of(1, MAX_CARDS), as_list),
        *DLEQ,
    )
    to: int
    shares: tuple[bytes, ...]
    e: bytes
    s: bytes


@dataclass(frozen=True, slots=True)
class SharesMsg(Whole):
    """One batch per other seat, in increasing seat order."""

    KIND: ClassVar[str] = KIND_SHARES
    SCHEMA: ClassVar[Schema] = Schema(
        ROUND,
        Field("batches", "batches", parts_of(ShareBatch.from_body, 1, MAX_SEATS - 1), as_bodies),
    )
    round_no: int
    batches: tuple[ShareBatch, ...]


@dataclass(frozen=True, slots=True)
class OpenMsg(Whole):
    """A seat shows one of its cards: its own share for the position and a DLEQ proof."""

    KIND: ClassVar[str] = KIND_OPEN
    SCHEMA: ClassVar[Schema] = Schema(ROUND, *opening(MAX_CARDS, MAX_CARDS))
    round_no: int
    position: int
    card: int
    share: bytes
    e: bytes
    s: bytes


@dataclass(frozen=True, slots=True)
class RevealMsg(Whole):
    """The round's secrets, published once the round is over (or to let an audit run)."""

    KIND: ClassVar[str] = KIND_REVEAL
    SCHEMA: ClassVar[Schema] = Schema(
        ROUND, Field("x", "secret", scalar), Field("seed", "seed", bytes_of(SEED_BYTES))
    )
    round_no: int
    secret: bytes
    seed: bytes

    def __repr__(self) -> str:
        return f"RevealMsg(round_no={self.round_no}, <secrets>)"


Message: TypeAlias = CommitMsg | KeyMsg | ShuffleMsg | SaltMsg | SharesMsg | OpenMsg | RevealMsg

_PARSERS: dict[str, Any] = {
    cls.KIND: cls.from_body
    for cls in (CommitMsg, KeyMsg, ShuffleMsg, SaltMsg, SharesMsg, OpenMsg, RevealMsg)
}
KINDS = tuple(_PARSERS)


def parse_body(kind: str, body: object) -> Message:
    """Dispatch on the message type; an unknown type is malformed like any other bad shape."""
    msg: Message = parse_kind(_PARSERS, "deck", kind, body)
    return msg
