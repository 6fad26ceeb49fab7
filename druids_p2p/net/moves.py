"""One accepted move: the record every path that takes a move produces, and the one function that
makes it.

A move reaches a game three ways — the table receiving a peer's signed move, the mover making its
own, and ``druids audit`` re-checking a record — and all must accept exactly the same moves with
exactly the same reasons. So a move is checked once, here, against a seat's copy of the game at
the card table (the seam's ``CardTableSeat``, whose ``play``/``move``/``word`` check themselves;
pokerkit's ``fold`` calls ``verify_fold``): :func:`take_table_move` takes it or raises
:class:`MoveRefused`, and the record goes to the game's one log (:class:`MoveLog`);
:func:`accept_table_move` asks the same question without taking the move.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from druids_p2p.games.seam import CardOp, CardTableSeat


class MoveRefused(ValueError):
    """Why a move is not accepted, worded after its mover (``"played R3 out of turn"``); the
    caller names the mover in front (the table) or the message index and seat (the audit).
    ``rule`` is the game's own reason when the rules refuse it, which is what the mover
    itself is told (a person reads "you must follow suit", not the record's wording)."""

    def __init__(self, reason: str, rule: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


@dataclass(frozen=True)
class AcceptedMove:
    """A move the game took: who made it, what it is, which card it put on the table.

    ``token`` is the game's token for a public move or a word; a card put down is ``play ZONE``
    (:func:`play_token`) with the ``position`` of the mover's hand it left and, when it was
    shown face up (a ``table_show``), the ``card`` it showed (None while it lies face down).
    ``round`` is the card table's round (the bodies' ``round``), ``index`` the move's place in
    it (0-based), ``msg_hash`` the hash of the signed message that carries it and ``at`` that
    message's position in the transcript, so the message itself is a view of the transcript,
    not a second copy (empty and -1 when the move is not signed)."""

    round: int
    index: int
    seat: int
    token: str
    card: int | None = None
    msg_hash: bytes = b""
    at: int = -1
    position: int | None = None


PLAY = "play "
"""The token a card put down at a card table is logged with, before its zone."""


def play_token(zone: str) -> str:
    """The logged token of a card put into ``zone`` (face down or shown)."""
    return PLAY + zone


def _refusal(copy: CardTableSeat, seat: int, token: str, position: int | None) -> str | None:
    """What the table refuses before the game is asked: a card put down while the seats'
    words are due, a move out of turn, a card put down under another token."""
    if copy.words_due():
        return "played a card while the seats' words are due" if position is not None else None
    if seat != copy.to_move:
        return f"seat {seat} moved out of turn"
    if position is not None and not token.startswith(PLAY):
        return f"put position {position} down as {token!r}, not into a zone"
    return None


def accept_table_move(
    copy: CardTableSeat,
    seat: int,
    token: str,
    *,
    round_no: int,
    index: int,
    position: int | None = None,
    card: int | None = None,
    msg_hash: bytes = b"",
    at: int = -1,
) -> AcceptedMove:
    """Whether ``seat``'s move would be taken now, asked without taking it (pure): what a
    player asks before it moves. ``token``: a public move's (a ritual, a draw, a pile) or a
    word's; for a card put down, :func:`play_token` of its zone with ``position``, the position
    it leaves, and ``card``, the card a face-up play shows. Raises :class:`MoveRefused` with the
    reason :func:`take_table_move` would give."""
    reason = _refusal(copy, seat, token, position)
    if reason is not None:
        raise MoveRefused(reason)
    if copy.words_due():
        rule = copy.check_word(seat, token)
    elif position is None:
        rule = copy.check_move(seat, token)
    else:
        rule = copy.check_play(seat, position, token.removeprefix(PLAY), card)
    if rule is not None:
        raise MoveRefused(rule, rule)
    return AcceptedMove(round_no, index, seat, token, card, msg_hash, at, position)


def take_table_move(
    copy: CardTableSeat,
    seat: int,
    token: str,
    *,
    round_no: int,
    index: int,
    position: int | None = None,
    card: int | None = None,
    msg_hash: bytes = b"",
    at: int = -1,
) -> tuple[AcceptedMove, CardOp | None]:
    """Take ``seat``'s move: the copy's ``play``, ``move`` or ``word`` checks it, once, and
    applies it (pokerkit's ``fold`` calls ``verify_fold``): the accepted move and the table's
    ``play`` or ``show`` operation for a card put down. The mover itself, a receiving seat and
    ``druids audit`` take moves alike, so all three refuse the same moves with the same reasons
    (:class:`MoveRefused`; the copy unchanged)."""
    reason = _refusal(copy, seat, token, position)
    if reason is not None:
        raise MoveRefused(reason)
    op: CardOp | None = None
    try:
        if copy.words_due():
            copy.word(seat, token)
        elif position is None:
            copy.move(seat, token)
        else:
            op = copy.play(seat, position, token.removeprefix(PLAY), card)
    except ValueError as exc:  # the game's IllegalMove: its reason is the rule's
        raise MoveRefused(str(exc), str(exc)) from None
    return AcceptedMove(round_no, index, seat, token, card, msg_hash, at, position), op


class MoveLog:
    """The one log of a game's accepted moves, round after round; every other history of them
    (a round's moves, the last move, its message) is a view of it."""

    def __init__(self) -> None:
        self._moves: list[AcceptedMove] = []
        self._per_round: dict[int, list[AcceptedMove]] = {}

    def append(self, accepted: AcceptedMove) -> None:
        """Append the next move; refused unless it is the next of its round, in a round not
        before the last one's."""
        last = self.last
        in_round = self._per_round.get(accepted.round, [])
        if (last is not None and accepted.round < last.round) or accepted.index != len(in_round):
            raise ValueError(
                f"move {accepted.index} of round {accepted.round} appended as move {len(in_round)}"
            )
        self._moves.append(accepted)
        self._per_round.setdefault(accepted.round, []).append(accepted)

    def of_round(self, round_no: int) -> Sequence[AcceptedMove]:
        """A round's moves in order (a view: nothing to keep in step)."""
        return tuple(self._per_round.get(round_no, ()))

    def __len__(self) -> int:
        return len(self._moves)

    def __iter__(self) -> Iterator[AcceptedMove]:
        return iter(self._moves)

    def __getitem__(self, index: int) -> AcceptedMove:
        return self._moves[index]

    @property
    def last(self) -> AcceptedMove | None:
        return self._moves[-1] if self._moves else None
