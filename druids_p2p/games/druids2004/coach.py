"""The coach of Druids (2004): ``search``'s move at fixed work, seeded by the position (the same
advice for the same position), named as the person types it, with a reason read off the position,
since a search cannot say why (README, "the coach").
"""

from __future__ import annotations

import hashlib
import random

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import (
    KIND_NAMES,
    format_card,
    gem_kind,
    is_gem,
    is_servant,
    place_kind,
)
from druids_p2p.games.druids2004.policy import ritual_points, sample_world
from druids_p2p.games.druids2004.search import MS_PER_WORLD, budget_search
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.games.druids2004.view import SeatView, typed_move

COACH_BOT = "search"
"""The bot whose move the coach gives: this game's strongest (README, "Druids (2004)")."""
COACH_WORLDS = int(100 / MS_PER_WORLD)
"""Worlds its search samples per question: what its 100 ms budget buys (35), as a fixed count,
never the clock."""
RITUAL_WORLDS = 8
"""Worlds a ritual's pay is averaged over in the reason."""


def coach(view: SeatView) -> tuple[int, str]:
    """The strongest bot's move in ``view`` (which has legal moves) and one line why."""
    legal = list(view.legal)
    rng = random.Random(hashlib.sha256(repr(view).encode()).digest())
    options = Options(players=view.players)
    if len(legal) == 1:
        return legal[0], f"{typed_move(legal[0])}: forced, the only legal move"
    try:
        move = budget_search(view, options, rng, COACH_WORLDS)[0]
        who = f"{COACH_BOT}'s choice"
    except Exception:  # a failing search must not leave the person without advice
        move, who = legal[0], "the first legal move: the search failed"
    if move not in legal:
        move, who = legal[0], "the first legal move: the search chose none"
    return move, f"{_why(view, move, options, rng)} ({who})"


def _place_text(view: SeatView, slot: int) -> str:
    place = view.row[slot]
    if place is None:
        return f"place {slot + 1}"
    return f"place {slot + 1} ({format_card(place.place)}, {KIND_NAMES[place_kind(place.place)]})"


def _why(view: SeatView, move: int, options: Options, rng: random.Random) -> str:
    m = mv.decode(move)
    token = typed_move(move)
    if m.kind == mv.KIND_RITUAL:
        return _why_ritual(view, m.slot, token, options, rng)
    if m.kind == mv.KIND_PLAY:
        return _why_play(view, m.card, m.slot, token)
    if m.kind == mv.KIND_DISCARD:
        kinds = {place_kind(p.place) for p in view.row if p is not None}
        kind = KIND_NAMES[gem_kind(m.card)]
        if gem_kind(m.card) not in kinds:
            return f"{token}: no place in the row is {kind} now: it is an amulet on none of them"
        count = sum(
            1 for p in view.row if p is not None and place_kind(p.place) == gem_kind(m.card)
        )
        return f"{token}: {count} {kind} place(s) in the row; a gem less makes room to draw"
    servants = sum(1 for c in view.hand if is_servant(c))
    held = f"your hand holds {len(view.hand)} ({servants} servants)"
    if m.kind == mv.KIND_DRAW and m.source == "servant":
        return f"{token}: {held}: a servant to claim a place's amulets"
    if m.kind == mv.KIND_DRAW:
        return f"{token}: {held}; {view.pile_size} gems left in the pile"
    return f"{token}: {held}: what you hold is enough for your next plays"


def _why_ritual(view: SeatView, slot: int, token: str, options: Options, rng: random.Random) -> str:
    place = view.row[slot]
    assert place is not None
    mine = sum(1 for owner, _ in place.servants if owner == view.seat)
    worlds = [sample_world(view, options, rng) for _ in range(RITUAL_WORLDS)]
    pay = [ritual_points(w, slot, view.seat) for w in worlds]
    me = sum(p[view.seat] for p in pay) / len(pay)
    best = max(
        (sum(p[s] for p in pay) / len(pay) for s in range(view.players) if s != view.seat),
        default=0.0,
    )
    return (
        f"{token}: {_place_text(view, slot)} holds {place.size} cards, {mine} of them your "
        f"servants; over {len(pay)} worlds consistent with what you see it pays you {me:.1f} "
        f"points, the best other {best:.1f}"
    )


def _why_play(view: SeatView, card: int, slot: int, token: str) -> str:
    place = view.row[slot]
    assert place is not None
    kind = place_kind(place.place)
    mine = sum(1 for owner, _ in place.servants if owner == view.seat)
    others = len(place.servants) - mine
    where = _place_text(view, slot)
    if is_gem(card) and gem_kind(card) == kind:
        return (
            f"{token}: an amulet for {where} at its ritual; servants there: {mine} yours, "
            f"{others} the others'"
        )
    if is_gem(card):
        return (
            f"{token}: a {KIND_NAMES[gem_kind(card)]} gem is no amulet on {where}, but face down "
            f"it looks like one to the others ({others} of their servants there)"
        )
    gems = len(place.gems)
    return (
        f"{token}: a servant of yours claims amulets on {where}: {gems} gems lie there and "
        f"{len(place.servants)} servants before it (the lowest value takes first)"
    )


__all__ = ["COACH_BOT", "COACH_WORLDS", "coach"]
