"""The coach of Druids (2017): ``search``'s move at fixed work, seeded by the position (the same
advice for the same position), and a reason read off the seat's own view that holds whatever the
others play next, since a search cannot say why (README, "the coach").
"""

from __future__ import annotations

import hashlib
import random

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    GAIA_DARK,
    GAIA_LIGHT,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    card_domain,
    card_value,
    domain_card,
)
from druids_p2p.games.druids2017.game import GameOptions
from druids_p2p.games.druids2017.notation import format_card, format_move
from druids_p2p.games.druids2017.rule_bot import rule_move
from druids_p2p.games.druids2017.search import WORLDS_PER_MS, SearchBot
from druids_p2p.games.druids2017.view import PlayerView

COACH_BOT = "search"
"""The bot whose move the coach gives: the strongest of this game's (README's bots section)."""
COACH_WORLDS = int(100 * WORLDS_PER_MS)
"""Worlds its search samples per question: what its 100 ms budget buys (400), as a fixed count,
never the clock, so the same position always gets the same move (about 0.05-0.15 s of CPU)."""


def coach(view: PlayerView) -> tuple[int, str]:
    """The strongest bot's move in ``view`` (which has legal moves) and one line why."""
    move, who = _choice(view)
    why = _why(view, move)
    return move, why if len(view.legal) == 1 else f"{why} ({who})"


def _choice(view: PlayerView) -> tuple[int, str]:
    """The search bot's move; the rule bot's if the search fails (it says so)."""
    legal = list(view.legal)
    if len(legal) == 1:
        return legal[0], "the only legal move"
    seed = hashlib.sha256(repr(view).encode()).digest()
    bot = SearchBot(worlds=COACH_WORLDS)
    options = GameOptions(players=view.players, variant=view.variant)
    bot.start_game(view.seat, options, random.Random(seed), 100.0)
    try:
        move = int(bot.choose(view))
    except Exception:  # a failing search must not leave the person without advice
        move = -1
    if move in legal:
        return move, f"{COACH_BOT}'s choice"
    return rule_move(view), "the rule bot's choice: the search failed"


def _seen(view: PlayerView) -> set[int]:
    """Cards this seat knows are not in another hand: its own and every card played."""
    seen = set(view.hand)
    plays = [m for _, trick, _, _ in view.tricks for _, m in trick] + [m for _, m in view.trick]
    for move in plays:
        if move < N_DOMAIN_CARDS:
            seen.add(move)
    return seen


def _count(n: int, what: str) -> str:
    return f"1 {what} is" if n == 1 else f"{n} {what} are"


def _colour(domain: int) -> str:
    return COLOUR_NAMES[domain]


def _winner(view: PlayerView) -> tuple[int, int] | None:
    """(seat, value) of the trick's best card of the led domain so far (Gaia counts 0)."""
    best: tuple[int, int] | None = None
    for seat, move in view.trick:
        if move < N_DOMAIN_CARDS and card_domain(move) == view.lead_domain:
            value = card_value(move)
        elif GAIA_DARK <= move < PLAY_MISTLETOE and (move - GAIA_DARK) % N_DOMAINS == (
            view.lead_domain
        ):
            value = 0
        else:
            continue
        if best is None or value > best[1]:
            best = (seat, value)
    return best


def _who(view: PlayerView, seat: int) -> str:
    return "you" if seat == view.seat else f"P{seat}"


def _top_after(view: PlayerView, card: int) -> int:
    """The card a won trick leaves on top of its winner's pile of ``card``'s domain, counting
    the trick so far and ``card`` (lowest; the light side's highest)."""
    domain = card_domain(card)
    values = [
        card_value(m) for _, m in view.trick if m < N_DOMAIN_CARDS and card_domain(m) == domain
    ]
    values.append(card_value(card))
    return domain_card(domain, max(values) if view.light else min(values))


def _higher_out(view: PlayerView, card: int) -> tuple[int, int]:
    """(cards of ``card``'s domain above it still out, those of them in this hand)."""
    domain, value = card_domain(card), card_value(card)
    seen = _seen(view)
    above = [domain_card(domain, v) for v in range(value + 1, N_VALUES + 1)]
    mine = sum(1 for c in above if c in view.hand)
    return sum(1 for c in above if c not in seen), mine


def _why(view: PlayerView, move: int) -> str:
    """One line: the move's token and what in the position speaks for it."""
    token = format_move(move)
    if len(view.legal) == 1:
        return f"{token}: forced, the only legal move"
    if PILE <= move < PILE + N_DOMAINS:
        return _why_pile(view, move, token)
    if GAIA_DARK <= move < PLAY_MISTLETOE:
        return _why_gaia(view, move, token)
    if move == PLAY_MISTLETOE:
        return _why_mistletoe(view, token)
    if move == PLAY_SICKLE:
        return _why_sickle(view, token)
    if view.lead_domain < 0 or not view.trick:
        return _why_lead(view, move, token)
    if card_domain(move) == view.lead_domain:
        return _why_follow(view, move, token)
    return _why_discard(view, move, token)


def _why_pile(view: PlayerView, move: int, token: str) -> str:
    tops = view.pile_tops[view.seat]
    top = tops[move - PILE]
    value = card_value(top) if top is not None else 0
    tied = [format_card(t) for t in tops if t is not None and card_value(t) == value]
    kept = [format_card(t) for d, t in enumerate(tops) if t is not None and d != move - PILE]
    keep = f"; you keep {' '.join(kept)}" if kept else ""
    return f"{token}: the Sickle takes one of your piles tied at {value} ({' '.join(tied)}){keep}"


def _why_gaia(view: PlayerView, move: int, token: str) -> str:
    light = move >= GAIA_LIGHT
    domain = (move - GAIA_DARK) % N_DOMAINS
    colour = _colour(domain)
    mine = [c for c in view.hand if c < N_DOMAIN_CARDS and card_domain(c) == domain]
    side = "; light side: each trick's highest card goes on top" if light else ""
    if not mine:
        return (
            f"lead {token}: you hold no {colour}, so any {colour} another seat plays takes this "
            f"trick from Gaia{side}"
        )
    held = " ".join(format_card(c) for c in sorted(mine))
    return f"lead {token}: Gaia counts {colour} 0; you hold {len(mine)} {colour} ({held}){side}"


def _why_mistletoe(view: PlayerView, token: str) -> str:
    domain = view.lead_domain
    if domain < 0 or not view.trick:
        return f"{token}: leads no domain and lands on no pile; the next domain card decides"
    mine = sorted(c for c in view.hand if c < N_DOMAIN_CARDS and card_domain(c) == domain)
    if not mine:
        return f"{token}: you hold no {_colour(domain)}; it lands on no pile"
    best = _winner(view)
    if best is not None and card_value(mine[0]) > best[1]:
        return (
            f"{token}: you need not follow {_colour(domain)}: even your lowest, "
            f"{format_card(mine[0])}, would top the trick so far"
        )
    return f"{token}: you need not follow {_colour(domain)} ({' '.join(map(format_card, mine))})"


def _why_sickle(view: PlayerView, token: str) -> str:
    rule = "whoever takes this trick loses its pile with the highest top once the trick is on"
    best = _winner(view) if view.lead_domain >= 0 else None
    if best is None:
        return f"{token}: {rule}"
    who = _who(view, best[0])
    tops = [t for t in view.pile_tops[best[0]] if t is not None]
    whose = "your" if best[0] == view.seat else f"{who}'s"
    now = (
        f"{whose} highest now: {format_card(max(tops, key=card_value))}" if tops else "no pile yet"
    )
    return f"{token}: {who} takes the trick so far; {rule} ({now})"


def _why_lead(view: PlayerView, card: int, token: str) -> str:
    colour = _colour(card_domain(card))
    out, mine = _higher_out(view, card)
    if out == 0:
        gone = "gone" if not mine else "gone or yours"
        return f"lead {token}: every {colour} above it is {gone}: it takes the trick"
    end = "highest" if view.light else "lowest"
    return (
        f"lead {token}: {_count(out, 'higher ' + colour)} still out, so it may not take the "
        f"trick; the {end} {colour} of a trick goes on top of its taker's {colour} pile"
    )


def _top_note(view: PlayerView, card: int, seat: int) -> str:
    """What ends on top of ``seat``'s pile when ``card`` is the trick's last: only where nothing
    can take that pile away (no Sickle in the trick, not the taker's fifth domain)."""
    domain = card_domain(card)
    piles = view.pile_tops[seat]
    fifth = piles[domain] is None and sum(t is not None for t in piles) == N_DOMAINS - 1
    if fifth or any(m == PLAY_SICKLE for _, m in view.trick):
        return ""
    whose = "your" if seat == view.seat else f"P{seat}'s"
    return f"; {format_card(_top_after(view, card))} ends on top of {whose} {_colour(domain)} pile"


def _why_follow(view: PlayerView, card: int, token: str) -> str:
    colour = _colour(card_domain(card))
    mine = [c for c in view.hand if c < N_DOMAIN_CARDS and card_domain(c) == card_domain(card)]
    only = f"your only {colour}; " if len(mine) == 1 else ""
    best = _winner(view)
    last = len(view.trick) == view.players - 1
    if best is not None and card_value(card) < best[1]:
        seat = best[0]
        under = f"{token}: {only}it stays under {_who(view, seat)}'s {colour} {best[1]}"
        if last:
            return f"{under}: {_who(view, seat)} takes the trick{_top_note(view, card, seat)}"
        return f"{under}: it cannot take the trick"
    if last:
        return (
            f"{token}: {only}you play last and top the trick: you take the trick"
            f"{_top_note(view, card, view.seat)}"
        )
    out, _ = _higher_out(view, card)
    if out == 0:
        return f"{token}: {only}every {colour} above it is gone: you take the trick"
    more = _count(out, "higher " + colour)
    return f"{token}: {only}it leads the trick for now ({more} still out)"


def _why_discard(view: PlayerView, card: int, token: str) -> str:
    led = _colour(view.lead_domain)
    colour = _colour(card_domain(card))
    best = _winner(view)
    if best is None:
        return f"{token}: you hold no {led}, so {token} cannot take the trick"
    seat = best[0]
    piles = view.pile_tops[seat]
    where = f"{_who(view, seat)}'s {colour} pile"
    have = sum(1 for t in piles if t is not None)
    if piles[card_domain(card)] is None and have == N_DOMAINS - 1:
        return (
            f"{token}: you hold no {led}; if the trick stays {_who(view, seat)}'s, it is its "
            "fifth domain, ending the round at -3 for it"
        )
    if piles[card_domain(card)] is None:
        where = f"a new {colour} pile for {_who(view, seat)}"
    return (
        f"{token}: you hold no {led}, so it cannot win; it goes onto {where} if the trick "
        f"stays {_who(view, seat)}'s"
    )


__all__ = ["COACH_BOT", "COACH_WORLDS", "coach"]
