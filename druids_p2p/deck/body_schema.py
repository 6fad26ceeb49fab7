"""How a deck message body is checked and written: one schema per message, deal and table alike.

The deal's seven bodies (:mod:`druids_p2p.deck.messages`) and the card table's six
(:mod:`druids_p2p.deck.table_messages`) follow one rule (deck.md §3): a map with sorted string
keys, exact types (bool is not an int), canonical non-identity points, canonical scalars, bounded
arrays, and :class:`~druids_p2p.deck.errors.MalformedMessage` for anything else. The rule lives
here once, so the two families cannot drift apart: a message names its fields (:class:`Field`, in
the order they are checked) and :class:`Schema` writes the body in sorted key order and reads it
back into the message's constructor arguments. The ``proof`` map of a shuffle, which both
families carry, is here too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, ClassVar, Self, TypeAlias

from druids_p2p.deck.errors import MalformedMessage
from druids_p2p.deck.group import is_canonical_scalar, is_element
from druids_p2p.deck.params import MAX_CARDS, MAX_ROUND
from druids_p2p.deck.shuffle_proof import ShuffleProof

Body: TypeAlias = dict[str, Any]
Check: TypeAlias = Callable[[object, str], Any]
"""Takes a value and the name it is reported under; returns the typed value or raises."""


# --------------------------------------------------------------------------- field checks
def fields(body: object, keys: tuple[str, ...], what: str) -> Mapping[str, Any]:
    """The body as a map with exactly ``keys``, in that (sorted) order."""
    if not isinstance(body, dict):
        raise MalformedMessage(f"{what}: body must be a map")
    if tuple(body) != keys:
        got = ", ".join(repr(k) for k in body)
        raise MalformedMessage(f"{what}: expected keys {', '.join(keys)} in that order, got {got}")
    return body


def point(value: object, where: str) -> bytes:
    if not is_element(value):
        raise MalformedMessage(f"{where}: not a canonical non-identity group element")
    assert isinstance(value, bytes)
    return value


def scalar(value: object, where: str) -> bytes:
    if not is_canonical_scalar(value):
        raise MalformedMessage(f"{where}: not a canonical 32-byte scalar")
    assert isinstance(value, bytes)
    return value


def binary(value: object, size: int, where: str) -> bytes:
    if not isinstance(value, bytes) or len(value) != size:
        raise MalformedMessage(f"{where}: expected {size} bytes")
    return value


def array(value: object, lo: int, hi: int, where: str) -> tuple[Any, ...]:
    if not isinstance(value, list | tuple) or not lo <= len(value) <= hi:
        raise MalformedMessage(f"{where}: expected an array of {lo}..{hi} items")
    return tuple(value)


def points(value: object, lo: int, hi: int, where: str) -> tuple[bytes, ...]:
    items = array(value, lo, hi, where)
    check = is_element
    for i, item in enumerate(items):
        if not check(item):
            raise MalformedMessage(f"{where}[{i}]: not a canonical non-identity group element")
    return items


def scalars(value: object, lo: int, hi: int, where: str) -> tuple[bytes, ...]:
    items = array(value, lo, hi, where)
    for i, item in enumerate(items):
        if not is_canonical_scalar(item):
            raise MalformedMessage(f"{where}[{i}]: not a canonical 32-byte scalar")
    return items


# --------------------------------------------------------------------------- checks as values
def an_int(lo: int, hi: int) -> Check:
    """The check itself, not a wrapper around one (one call per field, not two): every card a
    move opens is read through three of these (round, position, card)."""

    def integer(value: object, where: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise MalformedMessage(f"{where}: expected an integer in {lo}..{hi}")
        return value

    return integer


def bytes_of(size: int) -> Check:
    return lambda value, where: binary(value, size, where)


def points_of(lo: int, hi: int) -> Check:
    return lambda value, where: points(value, lo, hi, where)


def parts_of(part: Callable[[object, str], Any], lo: int, hi: int) -> Check:
    """An array of nested bodies, each read by ``part`` under the name ``where[i]``."""

    def check(value: object, where: str) -> tuple[Any, ...]:
        items = array(value, lo, hi, where)
        return tuple(part(item, f"{where}[{i}]") for i, item in enumerate(items))

    return check


def unchecked(value: object, where: str) -> object:
    """For a field the schema's ``after`` step reads, because its check needs other fields."""
    return value


def as_list(value: tuple[Any, ...]) -> list[Any]:
    return list(value)


def as_bodies(value: tuple[Any, ...]) -> list[Body]:
    return [part.to_body() for part in value]


# --------------------------------------------------------------------------- schemas
@dataclass(frozen=True, slots=True)
class Field:
    """One key of a body: the message attribute it carries, its check, and how it is written."""

    key: str
    attr: str
    check: Check
    out: Callable[[Any], Any] | None = None
    """None: the value travels as it is (bytes, int, str)."""


class Schema:
    """A body's fields: checked in the order given, written and required in sorted key order."""

    __slots__ = ("_converted", "_values", "after", "checked", "keys", "written")

    def __init__(self, *checked: Field, after: Callable[[dict[str, Any]], None] | None = None):
        self.checked = checked
        self.written = tuple(sorted(checked, key=lambda f: f.key))
        self.keys = tuple(f.key for f in self.written)
        self.after = after
        """Checks across fields, run on the checked values (and free to replace them)."""
        attrs = [f.attr for f in self.written]
        self._values: Callable[[object], tuple[Any, ...]]
        """Every written attribute in key order, read in one C call rather than a ``getattr``
        per field: a move that opens a card seals one of these bodies."""
        if len(attrs) > 1:
            self._values = attrgetter(*attrs)
        else:  # attrgetter returns a tuple only for two or more names
            self._values = lambda msg: tuple(getattr(msg, a) for a in attrs)
        self._converted = tuple((f.key, f.out) for f in self.written if f.out is not None)
        """The fields written through their ``out`` (the others travel as they are)."""

    def encode(self, msg: object) -> Body:
        body: Body = dict(zip(self.keys, self._values(msg), strict=True))
        for key, out in self._converted:
            body[key] = out(body[key])
        return body

    def decode(self, body: object, what: str, prefix: str = "") -> dict[str, Any]:
        """The constructor arguments; a value is reported as ``prefix + key``."""
        raw = fields(body, self.keys, what)
        values = {f.attr: f.check(raw[f.key], prefix + f.key) for f in self.checked}
        if self.after is not None:
            self.after(values)
        return values


class Schemed:
    """A message or part whose body is its :attr:`SCHEMA`: ``to_body`` written once for all."""

    __slots__ = ()
    SCHEMA: ClassVar[Schema]

    def to_body(self) -> Body:
        return self.SCHEMA.encode(self)


class Whole(Schemed):
    """A top-level body, named by its message type ``KIND`` in errors."""

    __slots__ = ()
    KIND: ClassVar[str]

    @classmethod
    def from_body(cls, body: object) -> Self:
        return cls(**cls.SCHEMA.decode(body, cls.KIND))


class Part(Schemed):
    """A body nested in an array of another, named by its place there (``batches[1]``)."""

    __slots__ = ()

    @classmethod
    def from_body(cls, body: object, where: str) -> Self:
        return cls(**cls.SCHEMA.decode(body, where, f"{where}."))


ROUND = Field("round", "round_no", an_int(0, MAX_ROUND))
"""Every body names its round, so signed evidence never depends on the envelope for it."""
DLEQ = (Field("e", "e", scalar), Field("s", "s", scalar))
"""The challenge and response of a Schnorr or Chaum-Pedersen proof."""


def opening(positions: int, cards: int) -> tuple[Field, ...]:
    """A card shown by its owner (the deal's ``deck_open``, the table's ``opens``): the position,
    the card it claims, the owner's own share and its DLEQ proof."""
    return (
        Field("pos", "position", an_int(0, positions - 1)),
        Field("card", "card", an_int(0, cards - 1)),
        Field("d", "share", point),
        *DLEQ,
    )


def parse_kind(
    parsers: Mapping[str, Callable[[object], Any]], family: str, kind: object, body: object
) -> Any:
    """Dispatch on the message type; an unknown type is malformed like any other bad shape."""
    parser = parsers.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise MalformedMessage(f"unknown {family} message type {kind!r}")
    return parser(body)


# --------------------------------------------------------------------------- the shuffle proof
PROOF_KEYS = ("c", "ch", "s1", "s2", "s3", "s4", "sh", "sp", "t1", "t2", "t3", "t41", "t42", "th")
"""The ``proof`` map of a shuffle (deck.md §7.1), in the sorted order it travels in."""


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
    f = fields(body, PROOF_KEYS, "proof")

    def vector(key: str) -> tuple[bytes, ...]:
        return points(f[key], size, size, f"proof.{key}")

    def responses(key: str) -> tuple[bytes, ...]:
        return scalars(f[key], size, size, f"proof.{key}")

    return ShuffleProof(
        perm=vector("c"),
        chain=vector("ch"),
        t1=point(f["t1"], "proof.t1"),
        t2=point(f["t2"], "proof.t2"),
        t3=point(f["t3"], "proof.t3"),
        t41=point(f["t41"], "proof.t41"),
        t42=point(f["t42"], "proof.t42"),
        t_hat=vector("th"),
        s1=scalar(f["s1"], "proof.s1"),
        s2=scalar(f["s2"], "proof.s2"),
        s3=scalar(f["s3"], "proof.s3"),
        s4=scalar(f["s4"], "proof.s4"),
        s_hat=responses("sh"),
        s_prime=responses("sp"),
    )


CIPHERTEXTS = (
    Field("a", "a", points_of(1, MAX_CARDS), as_list),
    Field("c", "c", points_of(1, MAX_CARDS), as_list),
)
"""A deck's two ElGamal halves, one point per card, after a pass."""
PROOF = Field("proof", "proof", unchecked, proof_to_body)
"""Read by :func:`shuffled` once the deck's size is known."""


def shuffled(values: dict[str, Any]) -> None:
    """A shuffle's ``after`` step: both halves as long, and a proof of that many entries."""
    if len(values["a"]) != len(values["c"]):
        raise MalformedMessage("a and c must have the same length")
    values["proof"] = proof_from_body(values["proof"], len(values["a"]))
