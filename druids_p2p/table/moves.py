"""The moves a card-table game takes: one check and one take of a move against the game's copy
(check_table_move, take_table_move, the very check every seat and the audit make), where each
signed move lies in the record, and the kinds of move a game's log records.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from druids_p2p.deck.table_messages import DEAL, DEALS, FINAL, REVEAL, SHUFFLE
from druids_p2p.games.seam import MOVE, PLAY, WORD, CardOp, CardTableSeat, TableMove

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
