"""The seven deck message bodies: typed values in, strictly validated plain maps out and back.

Bodies are maps with sorted string keys holding only bytes, ints and arrays (what the wire layer's
canonical msgpack carries). :meth:`from_body` accepts exactly the documented shape: no missing or
extra key, exact types (bool is not an int), every point a canonical non-identity ristretto255
element, every scalar canonical, every array bounded. Anything else raises
:class:`~druids_p2p.deck.errors.MalformedMessage` and nothing else, so untrusted input has one
failure mode. Checks that need the round's parameters (lengths, seats, positions) live in
:mod:`druids_p2p.deck.log`, because a body alone does not know them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from druids_p2p.deck.errors import MalformedMessage
from druids_p2p.deck.group import is_canonical_scalar, is_element
from druids_p2p.deck.params import MAX_CARDS, MAX_ROUND, MAX_SEATS
from druids_p2p.deck.shuffle_proof import ShuffleProof

DIGEST_BYTES = 32
SEED_BYTES = 32
SALT_BYTES = 32

Body: TypeAlias = dict[str, Any]

KIND_COMMIT = "deck_commit"
KIND_KEY = "deck_key"
KIND_SHUFFLE = "deck_shuffle"
KIND_SALT = "deck_salt"
KIND_SHARES = "deck_shares"
KIND_OPEN = "deck_open"
KIND_REVEAL = "deck_reveal"


# --------------------------------------------------------------------------- field checks
def _fields(body: object, keys: tuple[str, ...], what: str) -> Mapping[str, Any]:
    if not isinstance(body, dict):
        raise MalformedMessage(f"{what}: body must be a map")
    if tuple(body) != keys:
        got = ", ".join(repr(k) for k in body)
        raise MalformedMessage(f"{what}: expected keys {', '.join(keys)} in that order, got {got}")
    return body


def _point(value: object, where: str) -> bytes:
    if not is_element(value):
        raise MalformedMessage(f"{where}: not a canonical non-identity group element")
    assert isinstance(value, bytes)
    return value


def _scalar(value: object, where: str) -> bytes:
    if not is_canonical_scalar(value):
        raise MalformedMessage(f"{where}: not a canonical 32-byte scalar")
    assert isinstance(value, bytes)
    return value


def _bin(value: object, size: int, where: str) -> bytes:
    if not isinstance(value, bytes) or len(value) != size:
        raise MalformedMessage(f"{where}: expected {size} bytes")
    return value


def _int(value: object, lo: int, hi: int, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise MalformedMessage(f"{where}: expected an integer in {lo}..{hi}")
    return value


def _array(value: object, lo: int, hi: int, where: str) -> tuple[Any, ...]:
    if not isinstance(value, list | tuple) or not lo <= len(value) <= hi:
        raise MalformedMessage(f"{where}: expected an array of {lo}..{hi} items")
    return tuple(value)


def _round(fields: Mapping[str, Any]) -> int:
    """Every body names its round, so signed evidence never depends on the envelope for it."""
    return _int(fields["round"], 0, MAX_ROUND, "round")


def _points(value: object, lo: int, hi: int, where: str) -> tuple[bytes, ...]:
    items = _array(value, lo, hi, where)
    check = is_element
    for i, item in enumerate(items):
        if not check(item):
            raise MalformedMessage(f"{where}[{i}]: not a canonical non-identity group element")
    return items


# --------------------------------------------------------------------------- messages
@dataclass(frozen=True, slots=True)
class CommitMsg:
    """Binds the key share and the shuffle seed before anybody has seen anybody's key."""

    KIND: ClassVar[str] = KIND_COMMIT
    round_no: int
    commitment: bytes

    def to_body(self) -> Body:
        return {"commit": self.commitment, "round": self.round_no}

    @classmethod
    def from_body(cls, body: object) -> CommitMsg:
        f = _fields(body, ("commit", "round"), cls.KIND)
        return cls(_round(f), _bin(f["commit"], DIGEST_BYTES, "commit"))


@dataclass(frozen=True, slots=True)
class KeyMsg:
    """The key share h_i, the seed hash it was committed with, the hash of the assignment salt,
    and a Schnorr proof (e, s)."""

    KIND: ClassVar[str] = KIND_KEY
    round_no: int
    key: bytes
    seed_hash: bytes
    e: bytes
    s: bytes
    salt_hash: bytes

    def to_body(self) -> Body:
        return {
            "e": self.e,
            "key": self.key,
            "round": self.round_no,
            "s": self.s,
            "salt_hash": self.salt_hash,
            "seed_hash": self.seed_hash,
        }

    @classmethod
    def from_body(cls, body: object) -> KeyMsg:
        f = _fields(body, ("e", "key", "round", "s", "salt_hash", "seed_hash"), cls.KIND)
        return cls(
            round_no=_round(f),
            key=_point(f["key"], "key"),
            seed_hash=_bin(f["seed_hash"], DIGEST_BYTES, "seed_hash"),
            salt_hash=_bin(f["salt_hash"], DIGEST_BYTES, "salt_hash"),
            e=_scalar(f["e"], "e"),
            s=_scalar(f["s"], "s"),
        )


PROOF_KEYS = ("c", "ch", "s1", "s2", "s3", "s4", "sh", "sp", "t1", "t2", "t3", "t41", "t42", "th")
"""The ``proof`` map of a ``deck_shuffle`` (deck.md §7.1), in the sorted order it travels in."""


def _scalars(value: object, lo: int, hi: int, where: str) -> tuple[bytes, ...]:
    items = _array(value, lo, hi, where)
    for i, item in enumerate(items):
        if not is_canonical_scalar(item):
            raise MalformedMessage(f"{where}[{i}]: not a canonical 32-byte scalar")
    return items


def proof_to_body(proof: ShuffleProof) -> Body:
    return {
        "c": list(proof.perm),
        "ch": list(proof.chain),
        "s1": proof.s1,
        "s2": proof.s2,
        "s3": proof.s3,
        "s4": proof.s4,
        "sh": list(proof.s_hat),
        "sp": list(proof.s_prime),
        "t1": proof.t1,
        "t2": proof.t2,
        "t3": proof.t3,
        "t41": proof.t41,
        "t42": proof.t42,
        "th": list(proof.t_hat),
    }


def proof_from_body(body: object, size: int) -> ShuffleProof:
    """Every vector of the proof has one entry per ciphertext (``size``)."""
    f = _fields(body, PROOF_KEYS, "proof")

    def points(key: str) -> tuple[bytes, ...]:
        return _points(f[key], size, size, f"proof.{key}")

    def scalars(key: str) -> tuple[bytes, ...]:
        return _scalars(f[key], size, size, f"proof.{key}")

    return ShuffleProof(
        perm=points("c"),
        chain=points("ch"),
        t1=_point(f["t1"], "proof.t1"),
        t2=_point(f["t2"], "proof.t2"),
        t3=_point(f["t3"], "proof.t3"),
        t41=_point(f["t41"], "proof.t41"),
        t42=_point(f["t42"], "proof.t42"),
        t_hat=points("th"),
        s1=_scalar(f["s1"], "proof.s1"),
        s2=_scalar(f["s2"], "proof.s2"),
        s3=_scalar(f["s3"], "proof.s3"),
        s4=_scalar(f["s4"], "proof.s4"),
        s_hat=scalars("sh"),
        s_prime=scalars("sp"),
    )


@dataclass(frozen=True, slots=True)
class ShuffleMsg:
    """One seat's permuted, re-randomised output of one pass, with its proof of a shuffle."""

    KIND: ClassVar[str] = KIND_SHUFFLE
    round_no: int
    pass_no: int
    a: tuple[bytes, ...]
    c: tuple[bytes, ...]
    proof: ShuffleProof

    def to_body(self) -> Body:
        return {
            "a": list(self.a),
            "c": list(self.c),
            "pass": self.pass_no,
            "proof": proof_to_body(self.proof),
            "round": self.round_no,
        }

    @classmethod
    def from_body(cls, body: object) -> ShuffleMsg:
        f = _fields(body, ("a", "c", "pass", "proof", "round"), cls.KIND)
        round_no = _round(f)
        pass_no = _int(f["pass"], 1, 2, "pass")
        a = _points(f["a"], 1, MAX_CARDS, "a")
        c = _points(f["c"], 1, MAX_CARDS, "c")
        if len(a) != len(c):
            raise MalformedMessage("a and c must have the same length")
        return cls(round_no, pass_no, a, c, proof_from_body(f["proof"], len(a)))


@dataclass(frozen=True, slots=True)
class SaltMsg:
    """The assignment salt committed in ``deck_key``, revealed once the final deck is fixed."""

    KIND: ClassVar[str] = KIND_SALT
    round_no: int
    salt: bytes

    def to_body(self) -> Body:
        return {"round": self.round_no, "salt": self.salt}

    @classmethod
    def from_body(cls, body: object) -> SaltMsg:
        f = _fields(body, ("round", "salt"), cls.KIND)
        return cls(_round(f), _bin(f["salt"], SALT_BYTES, "salt"))


@dataclass(frozen=True, slots=True)
class ShareBatch:
    """Decryption shares x_i*A_j for every position of seat ``to``, with one batched DLEQ proof."""

    to: int
    shares: tuple[bytes, ...]
    e: bytes
    s: bytes

    def to_body(self) -> Body:
        return {"d": list(self.shares), "e": self.e, "s": self.s, "to": self.to}

    @classmethod
    def from_body(cls, body: object, where: str) -> ShareBatch:
        f = _fields(body, ("d", "e", "s", "to"), where)
        return cls(
            to=_int(f["to"], 0, MAX_SEATS - 1, f"{where}.to"),
            shares=_points(f["d"], 1, MAX_CARDS, f"{where}.d"),
            e=_scalar(f["e"], f"{where}.e"),
            s=_scalar(f["s"], f"{where}.s"),
        )


@dataclass(frozen=True, slots=True)
class SharesMsg:
    """One batch per other seat, in increasing seat order."""

    KIND: ClassVar[str] = KIND_SHARES
    round_no: int
    batches: tuple[ShareBatch, ...]

    def to_body(self) -> Body:
        return {"batches": [b.to_body() for b in self.batches], "round": self.round_no}

    @classmethod
    def from_body(cls, body: object) -> SharesMsg:
        f = _fields(body, ("batches", "round"), cls.KIND)
        round_no = _round(f)
        items = _array(f["batches"], 1, MAX_SEATS - 1, "batches")
        return cls(
            round_no, tuple(ShareBatch.from_body(b, f"batches[{i}]") for i, b in enumerate(items))
        )


@dataclass(frozen=True, slots=True)
class OpenMsg:
    """A seat shows one of its cards: its own share for the position and a DLEQ proof."""

    KIND: ClassVar[str] = KIND_OPEN
    round_no: int
    position: int
    card: int
    share: bytes
    e: bytes
    s: bytes

    def to_body(self) -> Body:
        return {
            "card": self.card,
            "d": self.share,
            "e": self.e,
            "pos": self.position,
            "round": self.round_no,
            "s": self.s,
        }

    @classmethod
    def from_body(cls, body: object) -> OpenMsg:
        f = _fields(body, ("card", "d", "e", "pos", "round", "s"), cls.KIND)
        return cls(
            round_no=_round(f),
            position=_int(f["pos"], 0, MAX_CARDS - 1, "pos"),
            card=_int(f["card"], 0, MAX_CARDS - 1, "card"),
            share=_point(f["d"], "d"),
            e=_scalar(f["e"], "e"),
            s=_scalar(f["s"], "s"),
        )


@dataclass(frozen=True, slots=True)
class RevealMsg:
    """The round's secrets, published once the round is over (or to let an audit run)."""

    KIND: ClassVar[str] = KIND_REVEAL
    round_no: int
    secret: bytes
    seed: bytes

    def __repr__(self) -> str:
        return f"RevealMsg(round_no={self.round_no}, <secrets>)"

    def to_body(self) -> Body:
        return {"round": self.round_no, "seed": self.seed, "x": self.secret}

    @classmethod
    def from_body(cls, body: object) -> RevealMsg:
        f = _fields(body, ("round", "seed", "x"), cls.KIND)
        return cls(
            round_no=_round(f),
            secret=_scalar(f["x"], "x"),
            seed=_bin(f["seed"], SEED_BYTES, "seed"),
        )


Message: TypeAlias = CommitMsg | KeyMsg | ShuffleMsg | SaltMsg | SharesMsg | OpenMsg | RevealMsg

_PARSERS: dict[str, Any] = {
    KIND_COMMIT: CommitMsg.from_body,
    KIND_KEY: KeyMsg.from_body,
    KIND_SHUFFLE: ShuffleMsg.from_body,
    KIND_SALT: SaltMsg.from_body,
    KIND_SHARES: SharesMsg.from_body,
    KIND_OPEN: OpenMsg.from_body,
    KIND_REVEAL: RevealMsg.from_body,
}
KINDS = tuple(_PARSERS)


def parse_body(kind: str, body: object) -> Message:
    """Dispatch on the message type; an unknown type is malformed like any other bad shape."""
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise MalformedMessage(f"unknown deck message type {kind!r}")
    msg: Message = parser(body)
    return msg
