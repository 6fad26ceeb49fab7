"""One seat's view of Druids (2004) as a few lines of text, for a person at a plain terminal.

The terminal UI draws the table (``tui/druids2004``); a seat played by typing moves
(``druids host --game druids2004`` without ``--bot``) sees this instead: the place row with
what lies on each place (its own cards face up, others' as ``gem`` / ``S<owner>`` backs), its
hand, the sizes of every hand and source, the scores and what this turn has used. It reads
only the seat's :class:`~.view.SeatView`, so it never shows what the seat may not know.
"""

from __future__ import annotations

from druids_p2p.games.druids2004.cards import KIND_NAMES, format_card, place_kind
from druids_p2p.games.druids2004.view import HIDDEN, PlaceView, SeatView


def _place_line(slot: int, place: PlaceView | None) -> str:
    if place is None:
        return f"  slot {slot}: (empty)"
    gems = [format_card(g) if g != HIDDEN else "gem" for _, g in place.gems]
    servants = [format_card(c) if c != HIDDEN else f"S{owner}" for owner, c in place.servants]
    kind = KIND_NAMES[place_kind(place.place)]
    return (
        f"  slot {slot}: {format_card(place.place)} ({kind})  "
        f"gems {' '.join(gems) or '-'}  servants {' '.join(servants) or '-'}"
    )


def seat_lines(view: SeatView) -> list[str]:
    """The row, this seat's hand and the public counts, one fact a line."""
    seat = view.seat
    lines = [f"you are P{seat}; P{view.turn_seat}'s turn"]
    lines += [_place_line(i, p) for i, p in enumerate(view.row)]
    lines.append(f"your hand: {' '.join(format_card(c) for c in view.hand) or '-'}")
    sizes = zip(view.hand_sizes, view.hand_gems, strict=True)
    hands = " ".join(f"P{p}:{n}({g} gem)" for p, (n, g) in enumerate(sizes))
    lines.append(f"hands: {hands}")
    reserves = " ".join(f"P{p}:{n}" for p, n in enumerate(view.reserve_sizes))
    lines.append(f"gem pile: {view.pile_size}  reserves: {reserves}  supply: {view.supply_size}")
    scores = " ".join(f"P{p}:{s}" for p, s in enumerate(view.scores))
    lines.append(f"scores: {scores}")
    used = [
        w
        for w, done in (
            ("ritual", view.ritual_done),
            ("servant", view.servant_played),
            ("discard", view.discarded),
            ("draw", view.drawn),
        )
        if done
    ]
    lines.append(f"this turn: {view.plays_made} played, used {' '.join(used) or 'nothing'}")
    return lines
