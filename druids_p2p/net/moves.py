"""One accepted move: the record every path that takes a move produces, and the one function that
makes it.

A move reaches a game four ways — the table receiving a peer's signed move, the mover making its
own, the end-of-round replay with every hand known, and ``druids audit`` re-checking a record —
and all four must accept exactly the same moves with exactly the same reasons. So a move is
checked once, here, against the game state (python-chess's ``is_legal`` then ``push``, pokerkit's
``verify_x`` then ``x``): :func:`accept_move` is pure (it reads the state, never changes it) and
returns an :class:`AcceptedMove` or raises :class:`MoveRefused`; the caller then plays it
(:func:`play_accepted`) and appends the record to its round's one log (:class:`MoveLog`). Every
history of a round's moves (who moved, the last move, the moves to replay) is a view of that log.

A game at a mental card table (Druids 2004) is checked the same way by :func:`accept_table_move`
against a seat's copy of the game (the seam's ``CardTableSeat``, whose ``check_*`` are pure) and
applied by :func:`play_table_accepted`; its records go to the same kind of log.

The game is reached only through the Ruleset seam (``druids_p2p.rulesets``): this module knows no
game and no network, only a rule set, a game state and what the signed move said.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from druids_p2p.games.seam import CardOp, CardTableSeat, GameState, Ruleset


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

    ``card`` is the physical card the move's opening showed (or the lead card, shown at
    ``ready``), None for a move that puts no card down (a pile pick). ``index`` is the move's
    place in its round (0-based), ``msg_hash`` the hash of the signed message that carries it
    and ``at`` that message's position in the transcript (the record), so the message itself
    is a view of the transcript, not a second copy (empty and -1 when the move is not signed).

    At a card table (:func:`accept_table_move`) ``move`` is None (the token is the move, and a
    card put face down is hidden from all but its owner: ``play ZONE`` with the ``position``
    of the mover's hand it left); ``card`` is None too, as its cards open in later operations."""

    round: int
    index: int
    seat: int
    move: int | None
    token: str
    card: int | None
    msg_hash: bytes = b""
    at: int = -1
    position: int | None = None


def accept_move(
    rules: Ruleset,
    game: GameState,
    seat: int,
    token: str,
    *,
    index: int,
    opens: bool = False,
    card: int | None = None,
    lead_shown: bool = False,
    msg_hash: bytes = b"",
    at: int = -1,
) -> AcceptedMove:
    """Check ``seat``'s move ``token`` once against ``game`` (pure: the state is unchanged).

    ``opens``: the signed move carries a card opening, ``card`` the card that opening showed
    (None if it showed none this caller accepts). ``lead_shown``: ``seat`` showed the rule set's
    lead card at ``ready`` (so it may lead it without an opening). Raises :class:`MoveRefused`.
    """
    try:
        move = rules.parse_move_token(token)
    except ValueError as exc:
        raise MoveRefused(str(exc)) from None
    shown = rules.format_move(move)
    if game.to_move != seat:
        raise MoveRefused(f"played {shown} out of turn")
    cards = rules.cards_for_move(move)
    if rules.lead_card in cards:
        if opens:
            raise MoveRefused(
                f"led {shown} with an opening (the lead card is shown at ready, the lead "
                "carries none)"
            )
        if not lead_shown:
            raise MoveRefused(f"led {shown} without the lead card shown at ready")
        card = rules.lead_card
    elif cards:
        if not opens or card not in cards:
            raise MoveRefused(f"played {shown} without opening that card")
    elif opens:
        raise MoveRefused(f"opened a card for {shown}")
    reason = game.check(move)
    if reason is not None:
        raise MoveRefused(f"played an illegal move {shown}: {reason}", reason)
    return AcceptedMove(
        round=game.round_index,
        index=index,
        seat=seat,
        move=move,
        token=token,
        card=card if cards else None,
        msg_hash=msg_hash,
        at=at,
    )


def play_accepted(game: GameState, accepted: AcceptedMove) -> None:
    """Apply a move :func:`accept_move` accepted against this same state."""
    assert accepted.move is not None, "a card table's move is played by play_table_accepted"
    game.play(accepted.move)


PLAY = "play "
"""The token a card put face down at a card table is logged with, before its zone."""
TABLE_ROUND = 0
"""A card table's one game is its one round (the bodies' ``round``)."""


def play_token(zone: str) -> str:
    """The logged token of a card put face down into ``zone`` (its card is hidden)."""
    return PLAY + zone


def accept_table_move(
    copy: CardTableSeat,
    seat: int,
    token: str,
    *,
    index: int,
    position: int | None = None,
    msg_hash: bytes = b"",
    at: int = -1,
) -> AcceptedMove:
    """Check ``seat``'s move at a card table once against a seat's ``copy`` of the game (pure).

    ``token``: a public move's (a ritual, a draw, a stop) or a word's; for a card put face down,
    :func:`play_token` of its zone with ``position``, the position it leaves. While the seats'
    words are due only a word is taken, else only the move of the seat to move. The mover
    itself, a receiving seat and ``druids audit`` call this alike, so all three refuse the
    same moves with the same reasons. Raises :class:`MoveRefused`."""
    if copy.words_due():
        if position is not None:
            raise MoveRefused("played a card while the seats' words are due")
        reason = copy.check_word(seat, token)
    elif seat != copy.to_move:
        raise MoveRefused(f"seat {seat} moved out of turn")
    elif position is None:
        reason = copy.check_move(seat, token)
    elif not token.startswith(PLAY):
        raise MoveRefused(f"put position {position} down as {token!r}, not into a zone")
    else:
        reason = copy.check_play(seat, position, token.removeprefix(PLAY))
    if reason is not None:
        raise MoveRefused(reason, reason)
    return AcceptedMove(
        round=TABLE_ROUND,
        index=index,
        seat=seat,
        move=None,
        token=token,
        card=None,
        msg_hash=msg_hash,
        at=at,
        position=position,
    )


def play_table_accepted(copy: CardTableSeat, accepted: AcceptedMove) -> CardOp | None:
    """Apply a move :func:`accept_table_move` accepted against this same copy: the table's
    ``play`` operation for a card put face down, else None."""
    if accepted.position is not None:
        zone = accepted.token.removeprefix(PLAY)
        return copy.play(accepted.seat, accepted.position, zone)
    if copy.words_due():
        copy.word(accepted.seat, accepted.token)
    else:
        copy.move(accepted.seat, accepted.token)
    return None


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


def replay_accepted(
    rules: Ruleset, game: GameState, moves: Sequence[AcceptedMove]
) -> tuple[int, int, str] | None:
    """Accept a round's moves again, on the round dealt with every hand known (end of round: a
    hidden hand could not be checked against the rules before): the first breach as (seat, move
    index, reason), or None. Each move keeps the opening it was accepted with."""
    for accepted in moves:
        lead = accepted.card == rules.lead_card
        try:
            again = accept_move(
                rules,
                game,
                accepted.seat,
                accepted.token,
                index=accepted.index,
                opens=accepted.card is not None and not lead,
                card=accepted.card,
                lead_shown=lead,
                msg_hash=accepted.msg_hash,
                at=accepted.at,
            )
        except MoveRefused as refused:
            return (accepted.seat, accepted.index, refused.reason)
        play_accepted(game, again)
    return None
