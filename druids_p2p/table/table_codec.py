"""The mental card table's eight messages (deck.md §15.3) as wire types 60–67.

The card table seals and opens its bodies through :class:`~druids_p2p.table.codec.WireCodec` (its
messages sit in the sender's chain on the table's head like every other), so this module is
only the mapping from the deck's kinds to the wire's types that the codec uses, plus the set of
types a card-table game's schedule accepts, and the one join of the deck's statement of the
bodies to the wire's decoder: each type's body is parsed on receipt by the deck's own parser
(``shape_table_body``), registered here, since neither layer may import the other. Nothing of a
card table rides inside another message (a card played face up is a ``table_show``, one opened a
``table_open``), so there is no carrier here.
"""

from __future__ import annotations

import functools

from druids_p2p.deck.table_messages import (
    KIND_TABLE_KEY,
    KIND_TABLE_OPEN,
    KIND_TABLE_PLAY,
    KIND_TABLE_REVEAL,
    KIND_TABLE_SHARE,
    KIND_TABLE_SHARES,
    KIND_TABLE_SHOW,
    KIND_TABLE_SHUFFLE,
    shape_table_body,
)
from druids_p2p.wire import MsgType
from druids_p2p.wire.schema import register_parser

TABLE_KIND_TYPES: dict[str, MsgType] = {
    KIND_TABLE_KEY: MsgType.TABLE_KEY,
    KIND_TABLE_SHUFFLE: MsgType.TABLE_SHUFFLE,
    KIND_TABLE_SHARE: MsgType.TABLE_SHARE,
    KIND_TABLE_PLAY: MsgType.TABLE_PLAY,
    KIND_TABLE_OPEN: MsgType.TABLE_OPEN,
    KIND_TABLE_REVEAL: MsgType.TABLE_REVEAL,
    KIND_TABLE_SHOW: MsgType.TABLE_SHOW,
    KIND_TABLE_SHARES: MsgType.TABLE_SHARES,
}
"""Each card-table kind's wire type; the wire label is the kind (``table_key`` is type 60)."""
TABLE_TYPES = frozenset(TABLE_KIND_TYPES.values())

_PARSE = {kind: functools.partial(shape_table_body, kind) for kind in TABLE_KIND_TYPES}
for _kind, _parse in _PARSE.items():
    register_parser(_kind, _parse)  # the wire checks each body's shape by the deck's statement
