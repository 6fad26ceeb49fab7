"""What a message body may hold: the tiny declarative schema language, the printable-text rule
every string from a peer obeys, and the body schema of every message type (the one place to read
or change it; docs/protocol/wire.md mirrors it line by line).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from druids_p2p.wire.msgtypes import HASH_SIZE, KEY_SIZE, MAX_SEQ, BadShape, MsgType

# What text from another peer may hold: printable characters only, never a bidi control.
BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e"  # LRE RLE PDF LRO RLO
    "\u2066\u2067\u2068\u2069"  # LRI RLI FSI PDI
    "\u200e\u200f\u061c"  # LRM RLM ALM
)
"""Every bidi formatting character of UAX #9 §2: embeddings, overrides, isolates and marks."""

_KINDS = {
    "Cc": "a control character",
    "Cf": "a format character",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Zs": "a space other than U+0020",
}

REPLACEMENT = "\ufffd"
"""What :func:`shown` puts in place of a refused character (U+FFFD, one character for one)."""


def refused_char(char: str) -> str | None:
    """What ``char`` is if text from a peer may not hold it (``"a bidi control"``), else None."""
    if char in BIDI_CONTROLS:
        return "a bidi control"
    if char.isprintable():
        return None
    return _KINDS.get(unicodedata.category(char), "not printable")


def unprintable(text: str) -> str | None:
    """None if every character of ``text`` may be shown, else the first one refused, named by
    code point (``U+202E (a bidi control) at character 3``), never echoed."""
    if text.isprintable() and BIDI_CONTROLS.isdisjoint(text):
        return None
    for index, char in enumerate(text, start=1):
        kind = refused_char(char)
        if kind is not None:
            return f"U+{ord(char):04X} ({kind}) at character {index}"
    return None  # pragma: no cover - isprintable and refused_char agree


def shown(text: str) -> str:
    """``text`` with every refused character replaced by U+FFFD: what a screen may show of a
    string whose origin it cannot vouch for (the same length, so styled spans stay in place)."""
    if unprintable(text) is None:
        return text
    return "".join(REPLACEMENT if refused_char(c) is not None else c for c in text)


# A tiny declarative schema language for message bodies.
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
    """Refuse control, bidi and other unprintable characters (wire/schema.py): these strings end
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
    """A body the owning layer parses (the card table's, deck.md §5), which the wire may not import.

    ``table/codec.py`` registers the parser under ``name``; the decoder keeps its result as
    ``Message.parsed``, and refuses every body whose parser is not registered.
    """

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


# The body schema of every message type: the one place to read or change what a body may hold.
MAX_SEATS = 8
"""The wire bound; the rules engine decides which player counts are actually playable."""
MAX_ROUNDS = 64
MAX_EMBEDDED = 32_000
"""Bound of one message quoted inside another, so that two fit in one 64 KiB equivocation."""
MAX_JOIN = 1024
"""Bound of one joiner's signed ``join`` quoted in the seat message (about 250 bytes)."""
MAX_CHAT_TEXT = 200
"""Bytes of UTF-8 in one chat line (as an abort's reason): a line, never a stall."""
MAX_CHAT_N = 2**53
MAX_HELLO_N = 2**53
"""A hello's ``n``: its sender's clock in milliseconds, strictly rising (protocol.md §8)."""

HASH = Bin(HASH_SIZE, HASH_SIZE)
KEY = Bin(KEY_SIZE, KEY_SIZE)
NAME = Str(1, 32, printable=True)
TOKEN = Str(1, 16, charset=TOKEN_CHARS)
MOVE_TOKEN = Str(1, 16, charset=TOKEN_CHARS | frozenset(" >@"))
"""A public move's token: a game's notation may spell one move with a space, ``>`` and ``@``
(``b3n Ca5>d3``, ``@b1``; wire.md §4)."""
ROUND = Int(0, MAX_ROUNDS - 1)
SEAT_INDEX = Int(0, MAX_SEATS - 1)

OPTIONS = Struct(
    {"players": Int(2, MAX_SEATS), "rounds": Int(1, MAX_ROUNDS), "variant": Bool()},
    optional={"ruleset": TOKEN, "coach": Bool()},
)
"""Game options bound into the table id: the rule set by name (absent in records of protocol
version 1, which were all Druids 2017) and its options. The rule set decides what is playable
(``druids_p2p.games.registry.table_options``); the wire only bounds. ``coach``: the table lets
its one person ask the coach (sent only when true; protocol.md §3, "The coach")."""

ENDPOINT = Str(9, 64, charset=TOKEN_CHARS | frozenset("/[]"))
"""A ZeroMQ endpoint such as ``tcp://10.0.0.2:45123``."""
TABLE_BODIES: dict[MsgType, Schema] = {
    msg_type: Parsed(msg_type.label)
    for msg_type in (
        MsgType.TABLE_KEY,
        MsgType.TABLE_SHUFFLE,
        MsgType.TABLE_SHARE,
        MsgType.TABLE_PLAY,
        MsgType.TABLE_OPEN,
        MsgType.TABLE_REVEAL,
        MsgType.TABLE_SHOW,
        MsgType.TABLE_SHARES,
    )
}
"""The card table's eight bodies, types 60–67: stated once, by the deck (deck.md §5,
``deck/table_messages.py``), whose parser the net layer registers here under each type's label
(``table/codec.py``). The decoder checks a body's shape with it, once, on receipt; the deck
then judges its points and scalars when it stores the message (deck.md §10)."""

MAX_CARRIED_ROUNDS = 8
"""Rounds a continued table's account may carry (a game of Druids 2017 has at most 5)."""
ROUND_SCORE = Int(-(2**15), 2**15 - 1)
CONTINUES = Struct(
    {
        "for": KEY,
        "scores": List(
            Struct({"key": KEY, "rounds": List(ROUND_SCORE, 0, MAX_CARRIED_ROUNDS)}),
            2,
            MAX_SEATS,
        ),
        "table": HASH,
    }
)
"""A table going on without a departed seat (protocol.md §4, "Going on"): the previous table's
id, the departed seat's key there (``for``) and every seat's score in each round it completed
(``scores``: one entry per key of the previous table, in increasing key order). Carried in the
``join`` of every seat that sat there and in the new ``seat`` message, which names the seat that
stands in for the departed one (``stand_in``)."""

BODIES: dict[MsgType, Schema] = {
    # A keepalive: ``n`` rises with every hello its sender signs at this table (its clock in
    # ms, so a restarted peer goes on above its last), and a receiver counts only a hello
    # fresher than the last it counted from that sender, over that sender's own link.
    MsgType.HELLO: Struct(
        {"name": NAME, "client": Str(1, 64, printable=True), "n": Int(1, MAX_HELLO_N)}
    ),
    MsgType.JOIN: Struct(
        {"name": NAME},
        optional={"endpoint": ENDPOINT, "curve": KEY, "continues": CONTINUES, "bot": Bool()},
    ),
    MsgType.SEAT: Struct(
        {
            "seats": List(KEY, 2, MAX_SEATS, unique=True),
            "names": List(NAME, 2, MAX_SEATS),
            "options": OPTIONS,
            "nonce": HASH,
        },
        optional={
            "endpoints": List(ENDPOINT, 2, MAX_SEATS),
            "curves": List(KEY, 2, MAX_SEATS),
            "joins": List(Bin(1, MAX_JOIN), 1, MAX_SEATS - 1),
            "continues": CONTINUES,
            "stand_in": SEAT_INDEX,
            "bots": List(SEAT_INDEX, 1, MAX_SEATS, unique=True),
        },
    ),
    MsgType.SEAT_CONFIRM: Struct({"commit": HASH, "curve": KEY, "endpoint": ENDPOINT}),
    MsgType.SEAT_NONCE: Struct({"nonce": HASH}),
    # A move token; never a card opening (a card shown face up is a ``table_show``).
    MsgType.MOVE: Struct({"round": ROUND, "move": MOVE_TOKEN}),
    MsgType.RESULT: Struct(
        {
            "totals": List(Int(-(2**31), 2**31 - 1), 2, MAX_SEATS),
            "winners": List(SEAT_INDEX, 1, MAX_SEATS, unique=True),
        }
    ),
    MsgType.RESEND: OneOf(
        (
            Struct({"sender": KEY, "seq": Int(0, MAX_SEQ)}),
            Struct({"head": HASH}),
        )
    ),
    MsgType.EQUIVOCATION: Struct(
        {"a": Bin(1, MAX_EMBEDDED), "b": Bin(1, MAX_EMBEDDED)},
    ),
    MsgType.ABORT: Struct(
        {"reason": Str(1, 200, printable=True)},
        optional={"seat": SEAT_INDEX, "key": KEY},
    ),
    # Table talk (lan/peer_config.py): out of chain like a hello; ``n`` rises with every line a
    # sender says at this table (its clock in ms, so a restarted peer goes on above its last line).
    MsgType.CHAT: Struct({"n": Int(1, MAX_CHAT_N), "text": Str(1, MAX_CHAT_TEXT, printable=True)}),
    **TABLE_BODIES,
}
