"""A game at the mental card table read back from its record for ``druids replay``: a game of
one round (Druids 2004) move by move (who played what, the card a face-down play put down, each
seat's view after every move, and how the game ended); a game dealt round by round (Druids 2017)
as its rounds (each round's hands as dealt and its moves, the game's JSON notation).

It is the audit's own replay (:class:`~druids_p2p.audit.audit_card_table.CardTableReplay`, every
message checked as the table checked it), watched: whenever the game waits for a seat, the copy
it replays knows every card opened so far, and each seat's view is taken from it (through the
seam: ``view(seat)``, whatever the game). The copy knows the truth only when the record holds
every seat's secret (its final reveal): without them it fills hidden places with guesses, so no
view is taken and only the moves are shown. A record that breaks the rules somewhere is read up
to there; the audit's verdict, which travels with the replayed game, says why.

A round's hands are the cards of the positions dealt to each seat, known once the round's secrets
(its final reveal) are in the record; its moves are the game's (not the owners' words), each the
game's move value, read from the copy's log (the seam's ``log``): a public move as the table took
it, a card shown face up as the copy's ``shown_move`` of its card and zone. A round cut short of
its final reveal has moves but no hands.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from druids_p2p.audit.audit_card_table import CardTableReplay
from druids_p2p.audit.schedule import ScheduleWalk
from druids_p2p.games.seam import MOVE, WORD, CardTableRuleset, GameMove, TableMove
from druids_p2p.rulesets import table_options
from druids_p2p.table.moves import all_moves, moves_of, signed_token
from druids_p2p.wire import Transcript
from druids_p2p.wire.transcript import AuditProblem


@dataclass(frozen=True)
class ReplayedPlay:
    """One move of the record, as signed."""

    seat: int
    """The play seat that made it."""
    token: str
    """The move as signed (a face-down play names only its zone: ``play slot:4``)."""
    card: int | None
    """The card a face-down play put down, known once every secret is in the record."""


@dataclass(frozen=True)
class ReplayedRound:
    number: int
    """0-based."""
    hands: tuple[tuple[int, ...], ...] | None
    """Each play seat's hand as dealt (card ids), known once the round's reveal is recorded."""
    moves: tuple[tuple[int, GameMove], ...]
    """(play seat, the game's move value) in the order the record holds them."""


@dataclass(frozen=True)
class CardTableGame:
    """The moves of a card table's record and each seat's view after each of them."""

    plays: tuple[ReplayedPlay, ...]
    views: tuple[tuple[Any, ...], ...] = field(repr=False)
    """``views[k][seat]``: the seat's view once the first ``k`` moves and everything they
    opened had settled (``views[0]``: before the first move); empty without the secrets."""
    totals: list[int] | None
    winners: list[int] | None
    ended_by: str | None
    complete: bool
    """The record holds the whole game, up to its result."""
    rounds: tuple[ReplayedRound, ...] = ()
    """A game read by rounds: each round's hands and moves (no ``views`` then)."""


def replay_card_table(
    transcript: Transcript, rules: CardTableRuleset, players: int, by_rounds: bool = False
) -> CardTableGame:
    """Replay a verified card table's record (see the module); never raises the audit's
    problems: the game is read up to the first one. ``by_rounds``: read it as its rounds."""
    seen: dict[int, tuple[Any, ...]] = {}

    def settled(replay: CardTableReplay) -> None:
        if replay.cards_known:  # the view of the last settling at a move count is kept
            seen[sum(map(len, replay.copy.log))] = tuple(
                replay.copy.view(s) for s in range(players)
            )

    walk = ScheduleWalk(transcript)
    with contextlib.suppress(AuditProblem):  # the audit names it; what is in place is read
        walk.run()
    if walk.seated_at is None:
        return CardTableGame((), (), None, None, None, False)
    _, options = table_options(transcript.messages[0].body["options"])
    watch = None if by_rounds else settled
    replay = CardTableReplay(transcript.messages, walk, rules, options, watch)
    with contextlib.suppress(AuditProblem):
        replay.run()
    plays = tuple(
        ReplayedPlay(
            m.seat, signed_token(m), None if m.position is None else replay.card_at(m.position, r)
        )
        for r, m in all_moves(replay.copy)
    )
    views: list[tuple[Any, ...]] = []
    for k in range(len(plays) + 1):  # a step of several words settles once, after the last
        later = [c for c in seen if c >= k]
        if not later:
            break
        views.append(seen[min(later)])
    copy = replay.copy
    return CardTableGame(
        plays=plays,
        views=tuple(views),
        totals=list(copy.totals),
        winners=None if copy.winners is None else list(copy.winners),
        ended_by=copy.ended_by,
        complete=replay.complete,
        rounds=_rounds(replay) if by_rounds else (),
    )


def _rounds(replay: CardTableReplay) -> tuple[ReplayedRound, ...]:
    """Every round the record reached (see the module), up to the first move that cannot be
    named (the audit names what is wrong there)."""
    out: list[ReplayedRound] = []
    for r, (state, _) in enumerate(replay.tables):
        moves: list[tuple[int, GameMove]] = []
        for m in moves_of(replay.copy, r):
            if m.kind == WORD:
                continue
            move = _named(replay, r, m)
            if move is None:
                break
            moves.append((m.seat, move))
        if not state.keys and not moves:
            break  # the record stops before this round's first message
        out.append(ReplayedRound(r, replay.dealt.get(r), tuple(moves)))
    return tuple(out)


def _named(replay: CardTableReplay, round_no: int, m: TableMove) -> GameMove | None:
    """The game's move a taken move is: its value, or the show of its card into its zone."""
    if m.kind == MOVE:
        return m.move
    assert m.position is not None
    card = m.card if m.card is not None else replay.card_at(m.position, round_no)
    if card is None:
        return None
    try:
        return replay.copy.shown_move(card, m.zone)
    except ValueError:
        return None
