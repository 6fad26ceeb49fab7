"""A game at a mental card table (Druids 2004) read back from its record, move by move, for
``druids replay``: who played what, the card a face-down play put down, each seat's view after
every move, and how the game ended.

It is the audit's own replay (:class:`~druids_p2p.net.audit_card_table.CardTableReplay`, every
message checked as the table checked it), watched: whenever the game waits for a seat, the copy
it replays knows every card opened so far, and each seat's view is taken from it (through the
seam: ``view(seat)``, whatever the game). The copy knows the truth only when the record holds
every seat's secret (its final reveal): without them it fills hidden places with guesses, so no
view is taken and only the moves are shown. A record that breaks the rules somewhere is read up
to there; the audit's verdict, which travels with the replayed game, says why.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from druids_p2p.games.seam import CardTableRuleset
from druids_p2p.net.audit_card_table import CardTableReplay
from druids_p2p.net.audit_schedule import ScheduleWalk
from druids_p2p.rulesets import table_options
from druids_p2p.wire import Transcript
from druids_p2p.wire.audit import AuditProblem


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


def replay_card_table(
    transcript: Transcript, rules: CardTableRuleset, players: int
) -> CardTableGame:
    """Replay a verified card table's record (see the module); never raises the audit's
    problems: the game is read up to the first one."""
    seen: dict[int, tuple[Any, ...]] = {}

    def settled(replay: CardTableReplay) -> None:
        if replay.cards_known:  # the view of the last settling at a move count is kept
            seen[len(replay.moves)] = tuple(replay.copy.view(s) for s in range(players))

    walk = ScheduleWalk(transcript)
    with contextlib.suppress(AuditProblem):  # the audit names it; what is in place is read
        walk.run()
    if walk.seated_at is None:
        return CardTableGame((), (), None, None, None, False)
    _, options = table_options(transcript.messages[0].body["options"])
    replay = CardTableReplay(transcript.messages, walk, rules, options, settled)
    with contextlib.suppress(AuditProblem):
        replay.run()
    plays = tuple(
        ReplayedPlay(m.seat, m.token, None if m.position is None else replay.card_at(m.position))
        for m in replay.moves
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
    )
