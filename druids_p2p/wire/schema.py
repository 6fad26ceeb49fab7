"""A tiny declarative schema language for message bodies.

Schemas are plain frozen values (not code), so that the body registry in
:mod:`druids_p2p.wire.bodies` reads like the protocol document and the deck layer can add entries
without touching the decoder. Every check names the failing field by its path, and every length is
bounded, so an accepted body is both exactly shaped and small.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from druids_p2p.wire.errors import BadShape
from druids_p2p.wire.text import unprintable

TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_-+.")


@dataclass(frozen=True)
class Int:
    lo: int
    hi: int


@dataclass(frozen=True)
class Bool:
    pass


@dataclass(frozen=True)
class Str:
    """Lengths are in UTF-8 bytes, which every implementation can count the same way."""

    min_len: int
    max_len: int
    printable: bool = False
    """Refuse control, bidi and other unprintable characters (wire/text.py): these strings end
    up on other players' terminals."""
    charset: frozenset[str] | None = None


@dataclass(frozen=True)
class Bin:
    min_len: int
    max_len: int


@dataclass(frozen=True)
class List:
    item: Schema
    min_len: int
    max_len: int
    unique: bool = False
    """Only for hashable items (str, bin, int)."""


@dataclass(frozen=True)
class Tuple:
    """A fixed-length array whose positions have their own schemas."""

    items: tuple[Schema, ...]


@dataclass(frozen=True)
class Struct:
    """A map with fixed string keys. Unknown keys are refused; keys must appear sorted."""

    required: Mapping[str, Schema]
    optional: Mapping[str, Schema] = field(default_factory=dict)


@dataclass(frozen=True)
class MapOf:
    """A map from bounded strings to values of one schema (a dictionary, not a record)."""

    key: Str
    value: Schema
    max_len: int


@dataclass(frozen=True)
class OneOf:
    """The value must match at least one alternative, tried in order."""

    options: tuple[Schema, ...]


@dataclass(frozen=True)
class Parsed:
    """A body stated, and parsed, by the layer that owns it: the card table's eight bodies are
    the deck's (``deck/table_messages.py``, deck.md §5), which the wire may not import. The
    layer that joins the two (``table/table_codec.py``) registers the deck's parser under
    ``name`` (:func:`register_parser`); the decoder runs it once, refuses what it refuses as
    :class:`BadShape`, and keeps what it returns (``Message.parsed``) so the body is not
    parsed a second time. Unregistered, every such body is refused."""

    name: str


Schema: TypeAlias = Int | Bool | Str | Bin | List | Tuple | Struct | MapOf | OneOf | Parsed

Parser: TypeAlias = Callable[[Any], Any]
"""Takes a body; returns its parsed value or raises ``ValueError`` naming the field."""
_PARSERS: dict[str, Parser] = {}


def register_parser(name: str, parser: Parser) -> None:
    """The parser of the :class:`Parsed` bodies named ``name`` (the same one, if again)."""
    known = _PARSERS.setdefault(name, parser)
    if known is not parser:
        raise ValueError(f"a parser for {name} bodies is registered already")


def parse(schema: Parsed, value: Any, path: str) -> Any:
    """Run the registered parser of ``schema`` on ``value``; its refusal is :class:`BadShape`."""
    parser = _PARSERS.get(schema.name)
    if parser is None:
        raise BadShape(f"{path}: no parser for {schema.name} bodies is loaded")
    try:
        return parser(value)
    except ValueError as exc:
        raise BadShape(f"{path}: {exc}") from None


def _kind(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, bytes):
        return "bin"
    if isinstance(value, tuple | list):
        return "array"
    if isinstance(value, dict):
        return "map"
    return type(value).__name__


def _describe(schema: Schema) -> str:
    if isinstance(schema, Int):
        return f"int in [{schema.lo}, {schema.hi}]"
    if isinstance(schema, Bool):
        return "bool"
    if isinstance(schema, Str):
        return f"str of {schema.min_len}..{schema.max_len} bytes"
    if isinstance(schema, Bin):
        if schema.min_len == schema.max_len:
            return f"bin of {schema.min_len} bytes"
        return f"bin of {schema.min_len}..{schema.max_len} bytes"
    if isinstance(schema, List | Tuple):
        return "array"
    if isinstance(schema, Struct):
        return "map {" + ", ".join(sorted([*schema.required, *schema.optional])) + "}"
    if isinstance(schema, MapOf):
        return "map"
    if isinstance(schema, Parsed):
        return f"{schema.name} body"
    return " or ".join(_describe(o) for o in schema.options)


def _check_str(schema: Str, value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise BadShape(f"{path}: expected {_describe(schema)}, got {_kind(value)}")
    size = len(value.encode("utf-8"))
    if not schema.min_len <= size <= schema.max_len:
        raise BadShape(f"{path}: expected {_describe(schema)}, got {size} bytes")
    if schema.printable:
        bad = unprintable(value)
        if bad is not None:
            raise BadShape(f"{path}: control characters not allowed: {bad}")
    if schema.charset is not None:
        bad = next((c for c in value if c not in schema.charset), None)
        if bad is not None:
            raise BadShape(f"{path}: character {bad!r} not allowed")


def _check_keys_sorted(value: dict[Any, Any], path: str) -> None:
    prev: bytes | None = None
    for key in value:
        if not isinstance(key, str):
            raise BadShape(f"{path}: map key must be str, got {_kind(key)}")
        enc = key.encode("utf-8")
        if prev is not None and enc <= prev:
            raise BadShape(f"{path}: map keys must be sorted (key {key!r} out of order)")
        prev = enc


def check(schema: Schema, value: Any, path: str = "body") -> None:
    """Raise :class:`BadShape` naming the first field of ``value`` that ``schema`` refuses.

    Recursion follows the schema, never the data, so its depth is fixed by the protocol.
    """
    if isinstance(schema, Int):
        if not isinstance(value, int) or isinstance(value, bool):
            raise BadShape(f"{path}: expected {_describe(schema)}, got {_kind(value)}")
        if not schema.lo <= value <= schema.hi:
            raise BadShape(f"{path}: expected {_describe(schema)}, got {value}")
    elif isinstance(schema, Bool):
        if not isinstance(value, bool):
            raise BadShape(f"{path}: expected bool, got {_kind(value)}")
    elif isinstance(schema, Str):
        _check_str(schema, value, path)
    elif isinstance(schema, Bin):
        if not isinstance(value, bytes):
            raise BadShape(f"{path}: expected {_describe(schema)}, got {_kind(value)}")
        if not schema.min_len <= len(value) <= schema.max_len:
            raise BadShape(f"{path}: expected {_describe(schema)}, got {len(value)} bytes")
    elif isinstance(schema, List):
        if not isinstance(value, tuple | list):
            raise BadShape(f"{path}: expected array, got {_kind(value)}")
        if not schema.min_len <= len(value) <= schema.max_len:
            raise BadShape(
                f"{path}: expected {schema.min_len}..{schema.max_len} items, got {len(value)}"
            )
        item_schema = schema.item
        if isinstance(item_schema, Bin):
            # The deck's long point lists: one pass without a call per item; only if some item
            # fails is each checked again on the general path, for its error message.
            lo, hi = item_schema.min_len, item_schema.max_len
            sizes = set(map(len, value)) if set(map(type, value)) == {bytes} else None
            if not sizes or not lo <= min(sizes) <= max(sizes) <= hi:
                for i, item in enumerate(value):
                    check(item_schema, item, f"{path}[{i}]")
        else:
            for i, item in enumerate(value):
                check(item_schema, item, f"{path}[{i}]")
        if schema.unique and len(set(value)) != len(value):
            raise BadShape(f"{path}: items must be unique")
    elif isinstance(schema, Tuple):
        if not isinstance(value, tuple | list):
            raise BadShape(f"{path}: expected array, got {_kind(value)}")
        if len(value) != len(schema.items):
            raise BadShape(f"{path}: expected {len(schema.items)} items, got {len(value)}")
        for i, (sub, item) in enumerate(zip(schema.items, value, strict=True)):
            check(sub, item, f"{path}[{i}]")
    elif isinstance(schema, Struct):
        if not isinstance(value, dict):
            raise BadShape(f"{path}: expected {_describe(schema)}, got {_kind(value)}")
        _check_keys_sorted(value, path)
        for key in value:
            if key not in schema.required and key not in schema.optional:
                raise BadShape(f"{path}: unknown key {key!r}")
        for key, sub in schema.required.items():
            if key not in value:
                raise BadShape(f"{path}: missing key {key!r}")
            check(sub, value[key], f"{path}.{key}")
        for key, sub in schema.optional.items():
            if key in value:
                check(sub, value[key], f"{path}.{key}")
    elif isinstance(schema, MapOf):
        if not isinstance(value, dict):
            raise BadShape(f"{path}: expected map, got {_kind(value)}")
        if len(value) > schema.max_len:
            raise BadShape(f"{path}: expected at most {schema.max_len} entries, got {len(value)}")
        _check_keys_sorted(value, path)
        for key, item in value.items():
            _check_str(schema.key, key, f"{path} key")
            check(schema.value, item, f"{path}.{key}")
    elif isinstance(schema, Parsed):
        parse(schema, value, path)
    elif isinstance(schema, OneOf):
        problems = []
        for option in schema.options:
            try:
                check(option, value, path)
                return
            except BadShape as exc:
                problems.append(str(exc))
        raise BadShape(" | ".join(problems) if problems else f"{path}: no alternative")
    else:  # pragma: no cover - the Schema union is closed
        raise TypeError(f"unknown schema {schema!r}")
