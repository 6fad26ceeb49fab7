"""What each seat of Druids (2004) may know: a frozen view per seat, and its text for a terminal.

The text reads only the view, so a person typing moves never sees what the seat may not know."""

from __future__ import annotations

from dataclasses import dataclass

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import KIND_NAMES, ROW_SLOTS, format_card, place_kind
from druids_p2p.games.druids2004.setup import RitualDone

# What each seat may know: a frozen view per seat, never another seat's hidden cards.
#
# A seat sees its own hand, every hand's size and how many of its cards are gems (the backs differ),
# every reserve's size (not its order, not even its own), the face-down cards it put on places and
# others' only as "a gem" / "a servant of P", its own discards, the place row, the public history of
# rituals and the scores. Hidden cards show as ``-1``.
#
# These are the view's value types; :meth:`.state.Game2004.view` builds them from the game, so the
# view stands below the state it shows and imports nothing of it.


HIDDEN = -1


@dataclass(frozen=True, slots=True)
class PlaceView:
    """A place in the row as one seat sees it."""

    place: int
    gems: tuple[tuple[int, int], ...]
    """(seat that played it, the gem or HIDDEN)."""
    servants: tuple[tuple[int, int], ...]
    """(owner, the servant or HIDDEN)."""

    @property
    def size(self) -> int:
        return len(self.gems) + len(self.servants)


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    players: int
    start: int
    turn_seat: int
    to_move: int | None
    legal: tuple[int, ...]
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    hand_gems: tuple[int, ...]
    reserve_sizes: tuple[int, ...]
    pile_size: int
    supply_size: int
    row: tuple[PlaceView | None, ...]
    scores: tuple[int, ...]
    base: int
    my_discards: tuple[int, ...]
    discard_counts: tuple[int, ...]
    rituals: tuple[RitualDone, ...]
    plays_left: int
    plays_made: int
    turn_active: bool
    """A card was played or drawn or a ritual announced this turn (public; the stall counts)."""
    ritual_done: bool
    servant_played: bool
    discarded: bool
    drawn: bool
    idle_turns: int
    pending_reshuffle: int | None
    game_over: bool
    ended_by: str | None
    winners: tuple[int, ...] | None


# One seat's view of Druids (2004) as a few lines of text, for a person at a plain terminal.
#
# The terminal UI draws the table (``tui/druids2004``); a seat played by typing moves
# (``druids host --game druids2004`` without ``--bot``) sees this instead: the place row with
# what lies on each place (its own cards face up, others' as ``gem`` / ``S<owner>`` backs), its
# hand, the sizes of every hand and source, the scores and what this turn has used. It reads
# only the seat's :class:`~.view.SeatView`, so it never shows what the seat may not know.
#
# Places are numbered 1–6 here, as the terminal UI numbers them (its keys 1–6), and so are the
# moves the person types (``K7>3``, ``Ritual:3``: place 3); the notation's tokens, in records and
# on the wire, keep the slots 0–5 (:mod:`.cards`).


def _place_line(slot: int, place: PlaceView | None) -> str:
    if place is None:
        return f"  place {slot + 1}: (empty)"
    gems = [format_card(g) if g != HIDDEN else "gem" for _, g in place.gems]
    servants = [format_card(c) if c != HIDDEN else f"S{owner}" for owner, c in place.servants]
    kind = KIND_NAMES[place_kind(place.place)]
    return (
        f"  place {slot + 1}: {format_card(place.place)} ({kind})  "
        f"gems {' '.join(gems) or '-'}  servants {' '.join(servants) or '-'}"
    )


def seat_lines(view: SeatView) -> list[str]:
    """The row, this seat's hand and the public counts, one fact a line."""
    seat = view.seat
    lines = [f"you are P{seat} (your servants S{seat}:1-6); P{view.turn_seat}'s turn"]
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


def typed_move(move: int) -> str:
    """The move as the person types it: the notation's token with the place numbered 1–6."""
    m = mv.decode(move)
    if m.kind == mv.KIND_PLAY:
        return f"{format_card(m.card)}>{m.slot + 1}"
    if m.kind == mv.KIND_RITUAL:
        return f"Ritual:{m.slot + 1}"
    return mv.format_move(move)


def parse_typed_move(token: str) -> int:
    """A typed move (places 1–6); ValueError naming the token if it is not one."""
    head, sep, place = token.rpartition(">") if ">" in token else token.partition(":")
    numbered = sep == ">" or head == "Ritual"
    if not numbered:
        return mv.parse_move(token)
    if len(place) != 1 or not "1" <= place <= str(ROW_SLOTS):
        raise ValueError(f"unknown move token {token!r} (places are 1..{ROW_SLOTS})")
    try:
        return mv.parse_move(f"{head}{sep}{int(place) - 1}")
    except ValueError as exc:  # named as typed, not as the notation's slot
        detail = str(exc).partition(" (")[2]
        raise ValueError(
            f"unknown move token {token!r}" + (f" ({detail}" if detail else "")
        ) from None
