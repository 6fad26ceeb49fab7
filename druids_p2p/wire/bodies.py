"""The body schema of every message type: the one place to read or change what a body may hold.

A plain dict from :class:`MsgType` to a schema value, on purpose: a new message type or field is
one edit of this table, and ``docs/protocol/wire.md`` mirrors it line by line. The card table's
bodies (the ``table_*`` types) are the deck's own statement, named here and parsed by it. Every
body is a map with sorted string keys.
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
    Parsed,
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
MOVE_TOKEN = Str(1, 16, charset=TOKEN_CHARS | frozenset(" >@"))
"""A public move's token: a token, or Druids 2016's notation (``b3n Ca5>d3``, ``@b1``), whose
one canonical spelling has a space, ``>`` and ``@`` (wire.md §4)."""
ROUND = Int(0, MAX_ROUNDS - 1)
SEAT_INDEX = Int(0, MAX_SEATS - 1)

OPTIONS = Struct(
    {"players": Int(2, MAX_SEATS), "rounds": Int(1, MAX_ROUNDS), "variant": Bool()},
    optional={"ruleset": TOKEN},
)
"""Game options bound into the table id: the rule set by name (absent in records of protocol
version 1, which were all Druids 2017) and its options. The rule set decides what is playable
(``druids_p2p.games.registry.table_options``); the wire only bounds."""

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
(``table/table_codec.py``). The decoder checks a body's shape with it, once, on receipt; the deck
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
    # Table talk (lan/chat.py): out of chain like a hello; ``n`` rises with every line a sender
    # says at this table (its clock in ms, so a restarted peer goes on above its last line).
    MsgType.CHAT: Struct({"n": Int(1, MAX_CHAT_N), "text": Str(1, MAX_CHAT_TEXT, printable=True)}),
    **TABLE_BODIES,
}
