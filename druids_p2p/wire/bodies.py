"""The body schema of every message type: the one place to read or change what a body may hold.

A plain dict from :class:`MsgType` to a schema value, on purpose: a new message type or field is
one edit of this table (the ``table_*`` entries are the card table's exact shapes), and
``docs/protocol/wire.md`` mirrors it line by line. Every body is a map with sorted string keys.
"""

from __future__ import annotations

from druids_p2p.wire.msgtypes import HASH_SIZE, KEY_SIZE, MAX_SEQ, MsgType
from druids_p2p.wire.schema import (
    TOKEN_CHARS,
    Bin,
    Bool,
    Int,
    List,
    OneOf,
    Schema,
    Str,
    Struct,
)

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
ROUND = Int(0, MAX_ROUNDS - 1)
SEAT_INDEX = Int(0, MAX_SEATS - 1)

OPTIONS = Struct(
    {"players": Int(2, MAX_SEATS), "rounds": Int(1, MAX_ROUNDS), "variant": Bool()},
    optional={"ruleset": TOKEN},
)
"""Game options bound into the table id: the rule set by name (absent in records of protocol
version 1, which were all Druids 2017) and its options. The rule set decides what is playable
(``druids_p2p.rulesets.seat_options``); the wire only bounds."""

ENDPOINT = Str(9, 64, charset=TOKEN_CHARS | frozenset("/[]"))
"""A ZeroMQ endpoint such as ``tcp://10.0.0.2:45123``."""
POINT = Bin(32, 32)
"""A ristretto255 element (the deck layer checks it is canonical and not the identity)."""
SCALAR = Bin(32, 32)
"""A ristretto255 scalar (the deck layer checks it is canonical)."""
DECK_ROUND = Int(0, 2**32 - 1)


def _shuffle_proof(max_len: int) -> Struct:
    """Section 7.1's proof map with every vector bounded by ``max_len`` entries."""
    points, scalars = List(POINT, 1, max_len), List(SCALAR, 1, max_len)
    fields: dict[str, Schema] = {"c": points, "ch": points, "sh": scalars, "sp": scalars}
    fields |= {"th": points} | {k: SCALAR for k in ("s1", "s2", "s3", "s4")}
    fields |= {k: POINT for k in ("t1", "t2", "t3", "t41", "t42")}
    return Struct(fields)


# The mental card table (deck.md §15.3): the same bounds as deck/table_messages.py, which the wire
# may not import (tests/test_table_wire.py checks that they agree).
MAX_TABLE_DECK = 128
"""Ciphertexts in one deck (the deck's ``MAX_CARDS``): one shuffle with its proof fits a message."""
MAX_TABLE_POSITIONS = 4096
MAX_TABLE_CARDS = 256
TABLE_OP = Int(0, 2**32 - 1)
TABLE_POS = Int(0, MAX_TABLE_POSITIONS - 1)
TABLE_NAME = Str(1, 32, charset=TOKEN_CHARS)
"""A deck or zone name (``gems``, ``reserve:2``, ``place:3``)."""
TABLE_OPENING = Struct(
    {"card": Int(0, MAX_TABLE_CARDS - 1), "d": POINT, "e": SCALAR, "pos": TABLE_POS, "s": SCALAR}
)
TABLE_SHARE_PART = Struct({"d": POINT, "pos": TABLE_POS})
"""One position's share in a ``table_shares`` (the message's one proof covers them all)."""
TABLE_BODIES: dict[MsgType, Schema] = {
    MsgType.TABLE_KEY: Struct({"e": SCALAR, "key": POINT, "round": DECK_ROUND, "s": SCALAR}),
    MsgType.TABLE_SHUFFLE: Struct(
        {
            "a": List(POINT, 1, MAX_TABLE_DECK),
            "c": List(POINT, 1, MAX_TABLE_DECK),
            "deck": TABLE_NAME,
            "op": TABLE_OP,
            "proof": _shuffle_proof(MAX_TABLE_DECK),
            "round": DECK_ROUND,
        }
    ),
    MsgType.TABLE_SHARE: Struct(
        {
            "d": POINT,
            "e": SCALAR,
            "op": TABLE_OP,
            "pos": TABLE_POS,
            "round": DECK_ROUND,
            "s": SCALAR,
        }
    ),
    MsgType.TABLE_PLAY: Struct(
        {"op": TABLE_OP, "pos": TABLE_POS, "round": DECK_ROUND, "zone": TABLE_NAME}
    ),
    MsgType.TABLE_OPEN: Struct(
        {
            "op": TABLE_OP,
            "opens": List(TABLE_OPENING, 1, MAX_TABLE_DECK),
            "round": DECK_ROUND,
        }
    ),
    MsgType.TABLE_REVEAL: Struct({"op": TABLE_OP, "round": DECK_ROUND, "x": SCALAR}),
    MsgType.TABLE_SHOW: Struct(
        {
            "card": Int(0, MAX_TABLE_CARDS - 1),
            "d": POINT,
            "e": SCALAR,
            "op": TABLE_OP,
            "pos": TABLE_POS,
            "round": DECK_ROUND,
            "s": SCALAR,
            "zone": TABLE_NAME,
        }
    ),
    MsgType.TABLE_SHARES: Struct(
        {
            "e": SCALAR,
            "op": TABLE_OP,
            "round": DECK_ROUND,
            "s": SCALAR,
            "shares": List(TABLE_SHARE_PART, 1, MAX_TABLE_DECK),
        }
    ),
}
"""The card table's eight bodies, types 60–67; the deck layer re-checks every point, scalar and
length against the table's state (deck.md §15.4)."""

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
        {"name": NAME}, optional={"endpoint": ENDPOINT, "curve": KEY, "continues": CONTINUES}
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
        },
    ),
    MsgType.SEAT_CONFIRM: Struct({"commit": HASH, "curve": KEY, "endpoint": ENDPOINT}),
    MsgType.SEAT_NONCE: Struct({"nonce": HASH}),
    # A move token; never a card opening (a card shown face up is a ``table_show``).
    MsgType.MOVE: Struct({"round": ROUND, "move": TOKEN}),
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
    # Table talk (net/chat.py): out of chain like a hello; ``n`` rises with every line a sender
    # says at this table (its clock in ms, so a restarted peer goes on above its last line).
    MsgType.CHAT: Struct({"n": Int(1, MAX_CHAT_N), "text": Str(1, MAX_CHAT_TEXT, printable=True)}),
    **TABLE_BODIES,
}
