"""The table's messages on the wire: each seat's signed chain (where its next message goes, read
from the transcript) and the codec that seals and opens the mental card table's bodies, which
are the deck's own statement, parsed by the deck's parser and registered here on import, since
neither the deck nor the wire may import the other.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from druids_p2p.deck import Envelope, MalformedMessage
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
from druids_p2p.wire import Identity, Message, MsgType, WireError, decode
from druids_p2p.wire.envelope import encode_message
from druids_p2p.wire.schema import register_parser

# The mental card table's eight messages (deck.md §15.3) as wire types 60–67.
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


# The deck's signing seam implemented on the wire envelope: card-table bodies travel as wire
# messages.
_TYPE_KINDS = {v: k for k, v in TABLE_KIND_TYPES.items()}


def deck_envelope(msg: Message, seat: int) -> Envelope | None:
    """The deck's view of a table message: a card-table message as the deck's envelope, its
    signed bytes the evidence; None for any other message (a move, an abort...)."""
    kind = _TYPE_KINDS.get(msg.type)
    return None if kind is None else Envelope(seat, kind, dict(msg.body), msg.raw, msg.parsed)


class Chain:
    """This peer's own message chain at a table: the sequence number and back-link of its next
    message, and the sealing.

    The position has one owner and is never copied: the table's record says how far our chain
    is recorded, by whatever route a message of ours got there (the pump, a replayed record, the
    runner's ``record_control``); ``recorded()`` is the seq and back-link it expects from us next
    (asked each time: a restarted peer swaps its record for its saved one). The chain adds the
    one thing the record cannot know: the newest message it signed, which may still wait for its
    step. The next message follows whichever is further."""

    def __init__(
        self, identity: Identity, table_id: bytes, recorded: Callable[[], tuple[int, bytes]]
    ) -> None:
        self.identity = identity
        self.table_id = table_id
        self._recorded = recorded
        self.last_signed: Message | None = None
        """The newest message this chain sealed (recorded or not yet)."""

    @property
    def seq(self) -> int:
        """The sequence number of our next message."""
        return self._position()[0]

    @property
    def prev(self) -> bytes:
        """What our next message links to: the hash of our newest message."""
        return self._position()[1]

    def _position(self) -> tuple[int, bytes]:
        seq, prev = self._recorded()
        last = self.last_signed
        if last is not None and last.seq >= seq:
            return last.seq + 1, last.hash
        return seq, prev

    def seal(self, msg_type: MsgType, body: dict[str, object], head: bytes) -> bytes:
        return self.seal_message(msg_type, body, head).raw

    def seal_message(self, msg_type: MsgType, body: dict[str, object], head: bytes) -> Message:
        seq, prev = self._position()
        msg = encode_message(
            self.identity,
            msg_type,
            table_id=self.table_id,
            seq=seq,
            prev=prev,
            head=head,
            body=body,
        )
        self.last_signed = msg
        return msg


class WireCodec:
    """Deck codec for one seat of one round (seats are play-order seats)."""

    def __init__(
        self,
        seat: int,
        chain: Chain,
        head: Callable[[], bytes],
        seat_of_key: Callable[[bytes], int | None],
        decoded: Callable[[bytes], Message | None],
        on_sealed: Callable[[Message], None],
    ) -> None:
        """``decoded``: the table's own decoded and checked copy of a message, found by its bytes
        in its one message store (the transcript), or None; the codec keeps no messages."""
        self._seat = seat
        self._on_sealed = on_sealed
        self._chain = chain
        self._head = head
        self._seat_of_key = seat_of_key
        self._decoded = decoded

    @property
    def seat(self) -> int:
        return self._seat

    def seal(self, kind: str, body: dict[str, object]) -> bytes:
        msg = self._chain.seal_message(TABLE_KIND_TYPES[kind], body, self._head())
        self._on_sealed(msg)  # queued at once, so the next seal sees it (see TableMachine)
        return msg.raw

    def open(self, raw: bytes) -> Envelope:
        msg = self._decoded(raw)  # the deck opens what the table appended: verified there once
        if msg is None:
            try:
                msg = decode(raw)
            except WireError as exc:
                raise MalformedMessage(str(exc)) from None
        seat = self._seat_of_key(msg.sender)
        env = None if seat is None else deck_envelope(msg, seat)
        if env is None:
            raise MalformedMessage("not a deck message from a seated peer")
        return env
