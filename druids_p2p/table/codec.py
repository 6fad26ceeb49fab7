"""The table's messages and moves on the wire: each seat's signed chain, the codec, check and take.

A move is checked and taken exactly as every seat checks it, from the signed message the codec
opens, so the two sit together."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

from druids_p2p.deck import Envelope, MalformedMessage
from druids_p2p.deck.table_messages import (
    DEAL,
    DEALS,
    FINAL,
    KIND_TABLE_KEY,
    KIND_TABLE_OPEN,
    KIND_TABLE_PLAY,
    KIND_TABLE_REVEAL,
    KIND_TABLE_SHARE,
    KIND_TABLE_SHARES,
    KIND_TABLE_SHOW,
    KIND_TABLE_SHUFFLE,
    REVEAL,
    SHUFFLE,
    shape_table_body,
)
from druids_p2p.games.seam import MOVE, PLAY, WORD, CardOp, CardTableSeat, TableMove
from druids_p2p.wire import Identity, Message, MsgType, WireError, decode
from druids_p2p.wire.envelope import encode_message
from druids_p2p.wire.schema import register_parser

# The table's messages on the wire: each seat's signed chain (where its next message goes, read
# from the transcript) and the codec that seals and opens the mental card table's bodies, which
# are the deck's own statement, parsed by the deck's parser and registered here on import, since
# neither the deck nor the wire may import the other.


# The mental card table's eight messages (deck.md §5) as wire types 60–67.
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
    """This peer's own message chain at a table: its next message's seq and back-link, and sealing.

    The record owns the position (never copied: a restarted peer swaps in its saved record); the
    chain adds only the newest message it signed, which may still wait for its step.
    """

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


# The moves a card-table game takes: one check and one take of a move against the game's copy
# (check_table_move, take_table_move, the very check every seat and the audit make), where each
# signed move lies in the record, and the kinds of move a game's log records.


__all__ = ["MOVE_KINDS", "move_kind"]


# What a move at a card table cost the table, by what followed it: the bench's latency classes.
MOVE_KINDS = ("draw", "play", "ritual", "reshuffle", "end")
"""The latency classes, cheapest first: ``draw`` (a deal to the drawer, or a deals: one
round of shares), ``play`` (a card put down, a discard or a stop that opened nothing),
``ritual`` (a reveal by the owners, no reshuffle), ``reshuffle`` (a proven shuffle by every
seat followed), ``end`` (a round's or the game's last move: the final reveal and the audit)."""


def move_kind(op_kinds: Iterable[str], game_over: bool) -> str:
    """The class of a move whose consequences were the deck operations ``op_kinds`` (the
    deck's kinds: shuffle, deal, deals, turn, reveal, return, play, show, transfer, final);
    ``game_over``: the move ended the game or its round."""
    kinds = set(op_kinds)
    if game_over or FINAL in kinds:
        return "end"
    if SHUFFLE in kinds:
        return "reshuffle"
    if REVEAL in kinds:
        return "ritual"
    if DEAL in kinds or DEALS in kinds:
        return "draw"
    return "play"


# One move at the card table: one value, checked once, recorded once (by the game).
class MoveRefused(ValueError):
    """Why a move is not accepted, worded after its mover (``"played R3 out of turn"``); the
    caller names the mover in front (the table) or the message index and seat (the audit).
    ``rule`` is the game's own reason when the rules refuse it, which is what the mover
    itself is told (a person reads "you must follow suit", not the record's wording)."""

    def __init__(self, reason: str, rule: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


def table_refusal(copy: CardTableSeat, seat: int, kind: str) -> str | None:
    """What the table refuses before the game is asked: a card put down while the seats'
    words are due, a move out of turn."""
    if copy.words_due():
        return "played a card while the seats' words are due" if kind == PLAY else None
    if seat != copy.to_move:
        return f"seat {seat} moved out of turn"
    return None


def _run(copy: CardTableSeat, m: TableMove, take: bool) -> CardOp | None:
    """The one dispatch of a move to its copy: its check (pure), or its take (which checks
    itself, once). Raises :class:`MoveRefused`."""
    reason = table_refusal(copy, m.seat, m.kind)
    if reason is not None:
        raise MoveRefused(reason)
    rule: str | None = None
    try:
        if m.kind == WORD:
            if not take:
                rule = copy.check_word(m.seat, m.token)
            else:
                copy.word(m.seat, m.token)
        elif m.kind == MOVE:
            assert m.move is not None
            if not take:
                rule = copy.check_move(m.seat, m.move)
            else:
                copy.move(m.seat, m.move)
        else:
            assert m.position is not None
            if not take:
                rule = copy.check_play(m.seat, m.position, m.zone, m.card)
            else:
                return copy.play(m.seat, m.position, m.zone, m.card)
    except ValueError as exc:  # the game's IllegalMove: its reason is the rule's
        raise MoveRefused(str(exc), str(exc)) from None
    if rule is not None:
        raise MoveRefused(rule, rule)
    return None


def check_table_move(copy: CardTableSeat, m: TableMove) -> None:
    """Whether ``m`` would be taken now, asked without taking it (pure): what a player asks
    before it moves. Raises :class:`MoveRefused` with the reason :func:`take_table_move` would
    give."""
    _run(copy, m, take=False)


def take_table_move(copy: CardTableSeat, m: TableMove) -> CardOp | None:
    """Take ``m``: the copy's ``play``, ``move`` or ``word`` checks it, once, applies it and
    logs it (its ``log``); the table's ``play`` or ``show`` operation for a card put down. The
    mover itself, a receiving seat and ``druids audit`` take moves alike, so all three refuse
    the same moves with the same reasons (:class:`MoveRefused`; the copy unchanged)."""
    return _run(copy, m, take=True)


class SignedMoves:
    """Where each move of the copy's log lies as a signed message: (its hash, its position in
    the transcript; -1 until placed), by round and by its index in that round's log. A view of
    the transcript and of the game's log, never a copy of either."""

    def __init__(self) -> None:
        self._refs: dict[tuple[int, int], tuple[bytes, int]] = {}

    def note(self, round_no: int, index: int, msg_hash: bytes, at: int) -> None:
        self._refs[(round_no, index)] = (msg_hash, at)

    def of(self, round_no: int, index: int) -> tuple[bytes, int]:
        """(message hash, transcript position) of move ``index`` of round ``round_no``
        (``(b"", -1)`` for a move not signed)."""
        return self._refs.get((round_no, index), (b"", -1))

    def at(self, round_no: int, index: int) -> int:
        return self.of(round_no, index)[1]


def moves_of(copy: CardTableSeat, round_no: int) -> Sequence[TableMove]:
    """Round ``round_no``'s moves and words as the copy took them (its log; empty past it)."""
    log = copy.log
    return log[round_no] if 0 <= round_no < len(log) else ()


def all_moves(copy: CardTableSeat) -> list[tuple[int, TableMove]]:
    """Every move and word of the copy's log, with its round, in order."""
    return [(r, m) for r, moves in enumerate(copy.log) for m in moves]


def signed_token(m: TableMove) -> str:
    """A move as its message names it: its token, or a card put down by its zone
    (``play slot:4``: what ``druids replay`` lists)."""
    return f"{PLAY} {m.zone}" if m.kind == PLAY else m.token
