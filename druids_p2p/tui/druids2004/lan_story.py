"""The log lines of a Druids (2004) table of peers: what each seat's move was, in words.

A peer tells its UI each move by the token its message carried (``Draw:gem``, ``Ritual:2``,
``Stop``, ``Word:yes``; a card put down is ``play slot:K`` or ``play discards``, its card hidden
in the message). So another seat's card is named by its back only (a gem or a servant: the
place it went to shows which pile grew), this seat's by the move the person chose, and a card
this seat drew by what its hand gained once the draw's shares were in.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from druids_p2p.games.druids2004 import moves as mv
from druids_p2p.games.druids2004.cards import format_card, is_gem
from druids_p2p.games.druids2004.owners_word import YES
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.tui.druids2004.session import place_name

_PLAY = re.compile(r"play slot:(\d)$")


def _back(slot: int, before: SeatView | None, after: SeatView | None) -> str:
    """Which back went onto place ``slot``: the pile that grew between the two views."""
    if before is None or after is None:
        return "a card"
    old, new = before.row[slot], after.row[slot]
    if new is None:
        return "a card"
    if old is None or old.place != new.place:  # a ritual turned a new place there meanwhile
        gems, servants = 0, 0
    else:
        gems, servants = len(old.gems), len(old.servants)
    if len(new.gems) > gems:
        return "a gem"
    return "a servant" if len(new.servants) > servants else "a card"


def move_line(
    seat: int,
    token: str,
    name: Callable[[int], str],
    *,
    me: int | None,
    before: SeatView | None,
    after: SeatView | None,
    sent: int | None,
) -> str | None:
    """The line for ``seat``'s move ``token``; ``before``/``after``: this seat's views around
    it (None if not known), ``sent``: the move this seat's person chose last. None for this
    seat's draw, which is told once its card is in the hand (:func:`drawn_lines`)."""
    mine = seat == me
    who = name(seat)

    def says(you: str, they: str) -> str:
        return f"{who} {you if mine else they}"

    own = mv.decode(sent) if mine and sent is not None else None
    play = _PLAY.match(token)
    if play is not None:
        slot = int(play[1])
        what = (
            format_card(own.card)
            if own is not None and own.kind == mv.KIND_PLAY
            else _back(slot, before, after)
        )
        return says(f"play {what} onto place {slot + 1}", f"plays {what} onto place {slot + 1}")
    if token == "play discards":
        what = format_card(own.card) if own is not None and own.kind == mv.KIND_DISCARD else "a gem"
        return says(f"discard {what} face down", f"discards {what} face down")
    if token.startswith("Word:"):
        word = "yes" if token == YES else "no"
        return says(
            f"give your word on your face-down gems: {word}",
            f"gives its word on its face-down gems: {word}",
        )
    try:
        move = mv.Move.from_token(token)  # the token is read once, here, where it enters
    except ValueError:
        return f"{who}: {token}"
    if move.kind == mv.KIND_DRAW:
        if mine:
            return None
        source = "the gem pile" if move.source == "gem" else "its reserve"
        return f"{who} draws from {source}"
    if move.kind == mv.KIND_RITUAL:
        place = before.row[move.slot] if before is not None else None
        where = f"place {move.slot + 1}" + (f", {place_name(place.place)}" if place else "")
        return says(f"announce a ritual on {where}", f"announces a ritual on {where}")
    if move.kind == mv.KIND_STOP:
        return says("end the turn", "ends the turn")
    return f"{who}: {token}"


def drawn_lines(before: SeatView | None, after: SeatView) -> list[str]:
    """This seat's hand as first dealt, or each card it gained since ``before`` (a draw: a gem
    from the gem pile, a servant from its reserve; a hand gains cards no other way)."""
    if before is None:
        hand = " ".join(format_card(c) for c in after.hand) or "empty"
        return [f"your hand: {hand}"]
    gained = [c for c in after.hand if c not in before.hand]
    return [
        f"you draw {format_card(c)} from {'the gem pile' if is_gem(c) else 'your reserve'}"
        for c in gained
    ]
