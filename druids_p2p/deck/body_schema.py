"""The one statement of the card table's message bodies, and how one is checked and written.

One statement, so the wire's decoder and the deck check a body alike: its shape on receipt (a
bad one is dropped, blaming nobody), its group membership when stored (a failure convicts the
signer). The rule and the two parts: deck.md §5.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, ClassVar, Self, TypeAlias

from druids_p2p.deck.errors import MalformedMessage
from druids_p2p.deck.group import ORDER, below_order, is_canonical_scalar, is_element, is_element_32
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
    """The whole check of a point: its shape and that it is a canonical non-identity element."""
    if not is_element(value):
        raise MalformedMessage(f"{where}: not a canonical non-identity group element")
    assert isinstance(value, bytes)
    return value


def scalar(value: object, where: str) -> bytes:
    """The whole check of a scalar: 32 bytes of an integer below l."""
    if not is_canonical_scalar(value):
        raise MalformedMessage(f"{where}: not a canonical 32-byte scalar")
    assert isinstance(value, bytes)
    return value


def binary(value: object, size: int, where: str) -> bytes:
    if not isinstance(value, bytes) or len(value) != size:
        raise MalformedMessage(f"{where}: expected {size} bytes")
    return value


def bin32(value: object, where: str) -> bytes:
    """A point's or a scalar's shape: 32 bytes (its value is the group's to judge)."""
    if not isinstance(value, bytes) or len(value) != 32:
        raise MalformedMessage(f"{where}: expected bin of 32 bytes")
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


def bin32s(value: object, lo: int, hi: int, where: str) -> tuple[bytes, ...]:
    """An array of ``lo..hi`` items of 32 bytes each (points or scalars, by shape)."""
    items = array(value, lo, hi, where)
    if set(map(type, items)) != {bytes} or set(map(len, items)) != {32}:
        for i, item in enumerate(items):
            bin32(item, f"{where}[{i}]")
    return items


# --------------------------------------------------------------------------- the group's part
# (Each takes values of 32 bytes, as the shape checked them.)
def element(value: bytes, where: str) -> None:
    """A member check: a point that is a canonical non-identity element."""
    if not is_element_32(value):
        raise MalformedMessage(f"{where}: not a canonical non-identity group element")


def canonical(value: bytes, where: str) -> None:
    """A member check: a scalar below l."""
    if int.from_bytes(value, "little") >= ORDER:  # (below_order, inline: two per proof)
        raise MalformedMessage(f"{where}: not a canonical 32-byte scalar")


def elements(values: tuple[bytes, ...], where: str) -> None:
    check = is_element_32
    for i, value in enumerate(values):
        if not check(value):
            raise MalformedMessage(f"{where}[{i}]: not a canonical non-identity group element")


def canonicals(values: tuple[bytes, ...], where: str) -> None:
    for i, value in enumerate(values):
        if not below_order(value):
            raise MalformedMessage(f"{where}[{i}]: not a canonical 32-byte scalar")


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


def bin32s_of(lo: int, hi: int) -> Check:
    return lambda value, where: bin32s(value, lo, hi, where)


def parts_of(part: Callable[[object, str], Any], lo: int, hi: int) -> Check:
    """An array of nested bodies, each read by ``part`` under the name ``where[i]``."""

    def check(value: object, where: str) -> tuple[Any, ...]:
        items = array(value, lo, hi, where)
        return tuple(part(item, f"{where}[{i}]") for i, item in enumerate(items))

    return check


def parts_members(values: tuple[Part, ...], where: str) -> None:
    """The member checks of each nested body, named ``where[i].key``."""
    for i, value in enumerate(values):
        value.SCHEMA.members(value, f"{where}[{i}].")


def unchecked(value: object, where: str) -> object:
    """For a field the schema's ``after`` step reads, because its check needs other fields."""
    return value


def as_list(value: tuple[Any, ...]) -> list[Any]:
    return list(value)


def as_bodies(value: tuple[Any, ...]) -> list[Body]:
    return [part.to_body() for part in value]


# --------------------------------------------------------------------------- schemas
Member: TypeAlias = Callable[[Any, str], None]
"""Takes a typed value of the right shape and its name; raises if the group refuses it."""


@dataclass(frozen=True, slots=True)
class Field:
    """One key of a body: the message attribute it carries, its shape check, what the group
    must further say of it (``member``), and how it is written."""

    key: str
    attr: str
    check: Check
    out: Callable[[Any], Any] | None = None
    """None: the value travels as it is (bytes, int, str)."""
    member: Member | None = None
    """None: the shape is the whole check (an integer, a name)."""


def _one(judged: list[Field]) -> Callable[[object], tuple[Any, ...]]:
    """A getter of zero or one attribute as a tuple (``attrgetter`` of one gives no tuple)."""
    attrs = [f.attr for f in judged]
    return lambda msg: tuple(getattr(msg, a) for a in attrs)


def point_field(key: str, attr: str) -> Field:
    """A point: 32 bytes, then a canonical non-identity element (deck.md §3)."""
    return Field(key, attr, bin32, member=element)


def scalar_field(key: str, attr: str) -> Field:
    """A scalar: 32 bytes, then below l (deck.md §3)."""
    return Field(key, attr, bin32, member=canonical)


class Schema:
    """A body's fields: checked in the order given, written and required in sorted key order."""

    __slots__ = (
        "_converted",
        "_judged",
        "_members",
        "_values",
        "across",
        "after",
        "checked",
        "keys",
        "written",
    )

    def __init__(
        self,
        *checked: Field,
        after: Callable[[dict[str, Any]], None] | None = None,
        across: Member | None = None,
    ):
        self.checked = checked
        self.written = tuple(sorted(checked, key=lambda f: f.key))
        self.keys = tuple(f.key for f in self.written)
        self.after = after
        """Checks of the shape across fields, run on the checked values (and free to replace
        them)."""
        self.across = across
        """Checks across fields the table makes when it stores the message, with the group's
        (a shuffle's halves and proof vectors all of one length): the wire's decoder leaves
        them to it, so a signed body that fails one convicts its signer."""
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
        judged = [f for f in checked if f.member is not None]
        self._members: tuple[tuple[str, Member], ...] = tuple(
            (f.key, f.member) for f in checked if f.member is not None
        )
        self._judged: Callable[[object], tuple[Any, ...]] = (
            attrgetter(*[f.attr for f in judged]) if len(judged) > 1 else _one(judged)
        )
        """The attributes the group judges, read in one call (as :attr:`_values`)."""

    def encode(self, msg: object) -> Body:
        body: Body = dict(zip(self.keys, self._values(msg), strict=True))
        for key, out in self._converted:
            body[key] = out(body[key])
        return body

    def decode(self, body: object, what: str, prefix: str = "") -> dict[str, Any]:
        """The constructor arguments, shape checked; a value is reported as ``prefix + key``."""
        raw = fields(body, self.keys, what)
        values = {f.attr: f.check(raw[f.key], prefix + f.key) for f in self.checked}
        if self.after is not None:
            self.after(values)
        return values

    def members(self, msg: object, prefix: str = "") -> None:
        """What the group must say of a decoded message's points and scalars, in field order."""
        for (key, member), value in zip(self._members, self._judged(msg), strict=True):
            member(value, prefix + key)
        if self.across is not None:
            self.across(msg, prefix)


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
        """The whole check of a body: its shape and its points' and scalars' membership."""
        msg = cls.shaped(body)
        msg.check_members()
        return msg

    @classmethod
    def shaped(cls, body: object) -> Self:
        """The message, its body's shape checked (its points and scalars not yet judged)."""
        return cls(**cls.SCHEMA.decode(body, cls.KIND))

    def check_members(self) -> None:
        """Raise :class:`MalformedMessage` if a point or a scalar is not the group's."""
        self.SCHEMA.members(self)


class Part(Schemed):
    """A body nested in an array of another, named by its place there (``batches[1]``)."""

    __slots__ = ()

    @classmethod
    def from_body(cls, body: object, where: str) -> Self:
        """The nested body's shape (its whole message's ``check_members`` judges the rest)."""
        return cls(**cls.SCHEMA.decode(body, where, f"{where}."))


ROUND = Field("round", "round_no", an_int(0, MAX_ROUND))
"""Every body names its round, so signed evidence never depends on the envelope for it."""
DLEQ = (scalar_field("e", "e"), scalar_field("s", "s"))
"""The challenge and response of a Schnorr or Chaum-Pedersen proof."""


def opening(positions: int, cards: int) -> tuple[Field, ...]:
    """A card shown by its owner (the deal's ``deck_open``, the table's ``opens``): the position,
    the card it claims, the owner's own share and its DLEQ proof."""
    return (
        Field("pos", "position", an_int(0, positions - 1)),
        Field("card", "card", an_int(0, cards - 1)),
        point_field("d", "share"),
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
PROOF_KEYS = ("b", "c", "d1", "d2", "s1", "s2", "s3", "s4", "sp", "t1", "t3", "t41", "t42")
"""The ``proof`` map of a shuffle (deck.md §7.1), in the sorted order it travels in."""


def proof_to_body(proof: ShuffleProof) -> Body:
    return {
        "b": list(proof.b_tilde),
        "c": list(proof.perm),
        "d1": proof.d1,
        "d2": proof.d2,
        "s1": proof.s1,
        "s2": proof.s2,
        "s3": proof.s3,
        "s4": proof.s4,
        "sp": list(proof.s_prime),
        "t1": proof.t1,
        "t3": proof.t3,
        "t41": proof.t41,
        "t42": proof.t42,
    }


def proof_from_body(body: object, lo: int, hi: int) -> ShuffleProof:
    """The proof's shape: its keys, every vector of it ``lo..hi`` entries and every entry and
    single value 32 bytes (:func:`proof_members` judges their values, :func:`sized` that every
    vector has one entry per ciphertext)."""
    f = fields(body, PROOF_KEYS, "proof")

    def vector(key: str) -> tuple[bytes, ...]:
        return bin32s(f[key], lo, hi, f"proof.{key}")

    def one(key: str) -> bytes:
        return bin32(f[key], f"proof.{key}")

    return ShuffleProof(
        perm=vector("c"),
        t1=one("t1"),
        t3=one("t3"),
        t41=one("t41"),
        t42=one("t42"),
        d1=one("d1"),
        d2=one("d2"),
        s1=one("s1"),
        s2=one("s2"),
        s3=one("s3"),
        s4=one("s4"),
        s_prime=vector("sp"),
        b_tilde=vector("b"),
    )


def proof_members(proof: ShuffleProof, where: str) -> None:
    """Every point of a shuffle proof a canonical non-identity element, every response a
    canonical scalar (in the order the proof's map lists them)."""
    canonicals(proof.b_tilde, f"{where}.b")
    elements(proof.perm, f"{where}.c")
    for key, value in (("d1", proof.d1), ("d2", proof.d2)):
        element(value, f"{where}.{key}")
    for key, value in (("s1", proof.s1), ("s2", proof.s2), ("s3", proof.s3), ("s4", proof.s4)):
        canonical(value, f"{where}.{key}")
    canonicals(proof.s_prime, f"{where}.sp")
    for key, value in (
        ("t1", proof.t1),
        ("t3", proof.t3),
        ("t41", proof.t41),
        ("t42", proof.t42),
    ):
        element(value, f"{where}.{key}")


CIPHERTEXTS = (
    Field("a", "a", bin32s_of(1, MAX_CARDS), as_list, elements),
    Field("c", "c", bin32s_of(1, MAX_CARDS), as_list, elements),
)
"""A deck's two ElGamal halves, one point per card, after a pass."""
PROOF = Field("proof", "proof", unchecked, proof_to_body, proof_members)
"""Read by :func:`shuffled` once the deck's size is known."""


def shuffled(values: dict[str, Any]) -> None:
    """A shuffle's ``after`` step: its proof's shape (every vector of 1..MAX_CARDS entries)."""
    values["proof"] = proof_from_body(values["proof"], 1, MAX_CARDS)


def sized(msg: Any, where: str) -> None:
    """A shuffle's check across fields when it is stored: both halves as long, and a proof of
    that many entries in every vector."""
    size = len(msg.a)
    if len(msg.c) != size:
        raise MalformedMessage("a and c must have the same length")
    proof = msg.proof
    for key, vector in (("b", proof.b_tilde), ("c", proof.perm), ("sp", proof.s_prime)):
        if len(vector) != size:
            raise MalformedMessage(f"{where}proof.{key}: expected an array of {size}..{size} items")
