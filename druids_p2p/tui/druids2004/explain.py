"""Druids (2004) in words a newcomer can learn from: every sign of the board, why each servant of
a ritual took what it took (every +0 and every tie among equal servants), and why the game ended
with the winners it has.

The reasons are the engine's data (``records.Share.why``, ``tied``, ``blocked_by``; the ritual's
``tie_order`` and ``tie_first``): this module only puts them into words, so a screen never
redoes the rules to explain them. The words follow docs/rules-2004.md (RULINGS-2004.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from druids_p2p.games.druids2004.cards import (
    KIND_NAMES,
    KINDS,
    format_card,
    place_kind,
    servant_value,
)
from druids_p2p.games.druids2004.options import TIE_AFTER_ANNOUNCER, TIE_STARTING_PLAYER
from druids_p2p.games.druids2004.records import (
    ENDED_COLUMN,
    TAKE_LAST,
    TAKE_NO_AMULETS,
    TAKE_NONE_LEFT,
    TAKE_SHORT,
    RitualDone,
    Share,
)
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.tui.druids2004.places import GEM_BACK, RITUAL_MARK, SERVANT_BACK, TURN_MARK

Name = Callable[[int], str]
"""Names a seat (``you`` for this one)."""


def whose(name: str) -> str:
    """``your`` for ``you``, else ``rule-1's``."""
    return "your" if name == "you" else f"{name}'s"


def verb(name: str, third: str, plain_form: str) -> str:
    """The verb for ``name``: ``you win``, ``rule-1 wins``."""
    return f"{name} {plain_form if name == 'you' else third}"


KIND_LETTERS = ", ".join(f"{k} {n}" for k, n in zip(KINDS, KIND_NAMES, strict=True))


def signs(seat: int | None) -> tuple[tuple[str, str], ...]:
    """Every sign the 2004 board shows, with what it means (``seat``: this seat, if known)."""
    yours = (
        f"your servants are S{seat}:1 to S{seat}:6, and your seat is marked “you”"
        if seat is not None
        else "your own seat is marked “you”"
    )
    return (
        ("@K2", f"a mystic place: its kind ({KIND_LETTERS}) and its series, 1 or 2"),
        ("K7", "a gem: its kind and a number; only the kind scores, the number plays no part"),
        ("S3:6", f"a servant: S, the seat it belongs to (S0–S3), then its value 1–6; {yours}"),
        ("S0 … S3", "the seats, in play order: each has its colour and its servant series"),
        (GEM_BACK, "a face-down gem, in the colour of the player who played it"),
        (SERVANT_BACK, "a face-down servant, in its owner's colour (its value is hidden)"),
        (RITUAL_MARK, "a ritual may be announced on this place (3 cards or more, one a servant)"),
        (TURN_MARK, "whose turn it is"),
        ("[K7]", "the card chosen in your hand (← → choose)"),
        ("gems / servants", "the cards on a place: gems above it, servants below it"),
        ("score", "points so far: each amulet is 1 point"),
        ("hand 5 (3g 2s)", "cards in that hand: how many are gems (g) and servants (s)"),
        ("reserve", "servants still in that player's reserve (a draw takes one at random)"),
        ("out", "gems that player discarded face down: out of the game"),
        ("column 0–11", "the scores the score column shows now; it moves up as pawns pass it"),
        ("gem pile", "gems left to draw"),
        ("supply", "places left to turn face up when a ritual ends a place"),
    )


def tie_words(ritual: RitualDone, name: Name) -> str:
    """Where equal servants start taking, and why there (the ritual's tie-order option)."""
    first = ritual.tie_first if ritual.tie_first is not None else ritual.seat
    if ritual.tie_order == TIE_AFTER_ANNOUNCER:
        why = "the player after the one who announced the ritual"
    elif ritual.tie_order == TIE_STARTING_PLAYER:
        why = "the player who started the game"
    else:
        why = "who announced the ritual"
    return f"equal servants take in turn order, starting with {name(first)} ({why})"


def share_line(
    index: int, share: Share, ritual: RitualDone, name: Name, earlier: Sequence[Share]
) -> str:
    """Step ``index`` of the ritual: one servant, what it took and why; ``earlier``: the shares
    taken before it (a tie is explained at its first servant)."""
    who = name(share.owner)
    value = servant_value(share.servant)
    head = f"{index + 1}. {format_card(share.servant)} ({who}, value {value})"
    if share.tied:
        others = " ".join(format_card(c) for c in share.tied)
        if any(s.servant in share.tied for s in earlier):
            head += f" — tied with {others}: it takes after them in turn order"
        else:
            head += f" — tied with {others}: {tie_words(ritual, name)}"
    cards = " ".join(format_card(a) for a in share.amulets)
    n = len(share.amulets)
    if share.why == TAKE_NO_AMULETS:
        kind = KIND_NAMES[place_kind(ritual.place)]
        line = f"{head} takes none: {who} +0 — no gem here was {kind}, so there is no amulet"
    elif share.why == TAKE_NONE_LEFT:
        line = f"{head} finds no amulet left: takes none, {who} +0 (those before it took all)"
    elif share.why == TAKE_LAST:
        rule = (
            "the only servant takes every amulet"
            if len(ritual.shares) == 1 and not ritual.ended
            else "the last servant takes all that remain"
        )
        line = f"{head} takes {n} amulet(s) {cards} — {rule}: {who} +{share.points}"
    elif share.why == TAKE_SHORT:
        line = (
            f"{head} takes {n} amulet(s) {cards}, all that were left (fewer than its "
            f"value): {who} +{share.points}"
        )
    else:
        line = f"{head} takes {n} amulet(s) {cards}, as many as its value: {who} +{share.points}"
    if share.blocked_by:
        line += (
            f" only — the score column could not move on ({column_words(share, name)}): "
            f"{whose(who)} pawn stops at its top and the game ends: {verb(who, 'wins', 'win')} "
            "alone"
        )
    return line


def column_words(share: Share, name: Name) -> str:
    """Why the column could not move on: whose pawns stood on its bottom card."""
    blockers = " and ".join(name(q) for q in share.blocked_by)
    stood = {1: "stood", 2: "both stood"}.get(len(share.blocked_by), "all stood")
    return f"{blockers} {stood} on its bottom card, which moves to the top only when it is free"


def end_lines(view: SeatView, name: Name) -> list[str]:
    """Why the winners are the winners: the score column's sole winner (even on a tie) or a
    tie sharing the win. Empty while the game is on."""
    winners = tuple(view.winners or ())
    if not view.game_over or not winners:
        return []
    if view.ended_by == ENDED_COLUMN and view.rituals and view.rituals[-1].shares:
        last = view.rituals[-1].shares[-1]
        mover = name(last.owner)
        lines = [
            f"The score column could not move on: {whose(mover)} pawn had to pass its top while "
            f"{column_words(last, name)}. The game ends at once and "
            f"{verb(mover, 'wins', 'win')} alone."
        ]
        best = view.scores[last.owner]
        level = [q for q in range(view.players) if q != last.owner and view.scores[q] == best]
        if level:
            others = " and ".join(name(q) for q in level)
            share = "does not" if len(level) == 1 and others != "you" else "do not"
            lines.append(
                f"{others} also scored {best} but {share} share the win: the pawn that ends "
                "the game at the top of the column wins alone (a ruling)."
            )
        return lines
    if len(winners) > 1:
        return [f"A tie shares the win: {' and '.join(name(w) for w in winners)} won together."]
    return []
