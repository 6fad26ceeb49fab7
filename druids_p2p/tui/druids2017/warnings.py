"""Warnings a player wants, computed from a :class:`PlayerView` alone (pure: no UI, no table).

Two dangers are easy to miss at the table and cost a round: a player holding piles of four
domains ends the round at −3 the moment it takes a trick with a card of the fifth; and a Golden
Sickle in the trick removes the taker's highest pile. Both are public knowledge (piles and the
trick are on the table), so every seat may be told; the UI shows the lines these functions give.
"""

from __future__ import annotations

from dataclasses import dataclass

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_VALUES,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    card_domain,
)
from druids_p2p.games.druids2017.view import PlayerView


@dataclass(frozen=True)
class Warning:
    """One warning: ``seat`` is whom it is about; ``urgent`` when it bears on the trick now."""

    kind: str
    """``four_domains`` or ``sickle``."""
    seat: int
    domain: int
    """The missing fifth domain (four_domains) or the pile the Sickle would remove (sickle)."""
    urgent: bool = False


def missing_domain(view: PlayerView, seat: int) -> int | None:
    """The one domain ``seat`` has no pile of, if it holds piles of exactly four."""
    tops = view.pile_tops[seat]
    missing = [d for d in range(N_DOMAINS) if tops[d] is None]
    return missing[0] if len(missing) == 1 else None


def trick_leader_now(view: PlayerView) -> int | None:
    """Who takes the trick being played if nobody else plays: the highest card of the led
    domain (Gaia counts 0 of its named domain), else its leader; None with no trick on."""
    if not view.trick:
        return None
    led = view.lead_domain
    winner, best = view.trick[0][0], -1
    for seat, move in view.trick:
        if move < N_DOMAIN_CARDS:
            value = move % N_VALUES + 1
            if move // N_VALUES == led and value > best:
                winner, best = seat, value
        elif move < PLAY_MISTLETOE and best < 0:  # Gaia: 0 of its named domain
            winner, best = seat, 0
    return winner


def sickle_victim_pile(view: PlayerView, seat: int) -> int | None:
    """The domain of the pile a Sickle in the trick would remove if ``seat`` took the trick as it
    stands: the trick's domain cards are stacked first (the lowest on top; light side the
    highest), then the highest top goes. None if there is no Sickle or no pile; on a tie, the
    first tied domain (the player would choose)."""
    if not any(move == PLAY_SICKLE for _, move in view.trick):
        return None
    tops = list(view.pile_tops[seat])
    for d in range(N_DOMAINS):
        cards = [m for _, m in view.trick if m < N_DOMAIN_CARDS and card_domain(m) == d]
        if cards:
            tops[d] = max(cards) if view.light else min(cards)
    if all(t is not None for t in tops):
        return None  # a fifth domain: the round ends at −3, the Sickle is ignored
    held = [(t % N_VALUES, d) for d, t in enumerate(tops) if t is not None]
    if not held:
        return None
    best = max(v for v, _ in held)
    return next(d for v, d in held if v == best)


def warnings(view: PlayerView) -> list[Warning]:
    """Every warning for the table as ``view.seat`` sees it, this seat's own first."""
    out: list[Warning] = []
    if view.round_over:
        return out
    trick_domains = {card_domain(m) for _, m in view.trick if m < N_DOMAIN_CARDS}
    if view.lead_domain >= 0:
        trick_domains.add(view.lead_domain)
    seats = [view.seat, *(s for s in range(view.players) if s != view.seat)]
    for seat in seats:
        missing = missing_domain(view, seat)
        if missing is not None:
            out.append(Warning("four_domains", seat, missing, urgent=missing in trick_domains))
    victim = sickle_victim_pile(view, view.seat)
    if victim is not None:
        out.append(Warning("sickle", view.seat, victim, urgent=True))
    return out


def warning_line(warning: Warning, names: tuple[str, ...], me: int) -> str:
    """One warning in words, ``you`` for this seat."""
    you = warning.seat == me
    who = "you" if you else (names[warning.seat] if warning.seat < len(names) else "?")
    colour = COLOUR_NAMES[warning.domain]
    if warning.kind == "four_domains":
        holds = "You hold" if you else f"{who} holds"
        line = (
            f"{holds} four domains: the next trick taken with a {colour} card ends the round "
            f"at −3 for {who}"
        )
        if warning.urgent:
            line += f" — this trick has {colour} in it"
        return line
    return (
        f"A Sickle is in this trick: if you take it, it removes your {colour} pile (your highest)"
    )
