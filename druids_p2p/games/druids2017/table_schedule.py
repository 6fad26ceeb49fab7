"""Druids 2017's part of the mental card table as data: a round's operations, the zones a card is
shown into, and the claims that only the final reveal can judge.

Kept apart from :mod:`.table_seat` (which follows one seat's copy of the game) because these are
the fixed facts every copy and every auditor must spell alike: the deal that gives each seat a
uniform hand with Gaia at a uniform seat (V2_SPEC.md, RULINGS.md "Deal"), the zone names of the
wire, and the reasons a breach is blamed with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    DOMAINS,
    GAIA,
    GAIA_DARK,
    GAIA_LIGHT,
    HAND_SIZE,
    MISTLETOES,
    N_CARDS,
    N_DOMAINS,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    SICKLES,
    card_domain,
)
from druids_p2p.games.druids2017.notation import format_card
from druids_p2p.games.seam import IllegalMove

DECK, LEAD, TRICK = "deck", "lead", "trick"
"""The two decks of a round (Gaia's holder is dealt from ``lead``) and the zone of a trick."""
YES, NO = "Word:yes", "Word:no"
"""A seat's word about its ``lead`` card: it is Gaia, or it is not."""
OTHERS = tuple(c for c in range(N_CARDS) if c != GAIA)


@dataclass(frozen=True, slots=True)
class SeatOp:
    """One card-table operation (the seam's ``CardOp``; the games import no deck): the fields of
    the deck's ``TableOp``. Kinds used: shuffle, create (a new deck of public cards, no
    message), transfer (``source`` to the bottom of ``deck``), deals (the top ``len(seats)``
    cards of ``deck``, the i-th to ``seats[i]``), show (``seat`` lays a position of its hand
    face up into ``zone``), final."""

    kind: str
    deck: str = ""
    zone: str = ""
    seat: int | None = None
    cards: tuple[int, ...] = ()
    position: int | None = None
    source: str = ""
    seats: tuple[int, ...] = ()


def round_ops(players: int) -> list[SeatOp]:
    """A round's deal, at its own card table: Gaia and ``players - 1`` other cards, shuffled in
    the ``lead`` deck, go one to each seat; the rest of each hand is dealt round-robin from
    ``deck``. So each seat's hand is uniform and Gaia lies at a uniform seat, and nobody learns
    where. Each of the two is one ``deals`` (every seat's shares of the cards in one message),
    so position ``p`` goes to seat ``p % players`` as ``h * players`` single deals would.

    ``lead`` starts as Gaia alone, made by every seat alike (``create``: no message, no pass):
    a shuffle of one card would hide nothing, as ``lead`` is shuffled once the transfers are on
    it and before anything leaves it (deck.md §14.2). So a round makes two shuffles, ``2 *
    players`` passes one after another, not three."""
    h = HAND_SIZE[players]
    ops = [SeatOp("shuffle", deck=DECK, cards=OTHERS), SeatOp("create", deck=LEAD, cards=(GAIA,))]
    ops += [SeatOp("transfer", deck=LEAD, source=DECK) for _ in range(players - 1)]
    ops.append(SeatOp("shuffle", deck=LEAD))
    seats = tuple(range(players))
    ops.append(SeatOp("deals", deck=LEAD, seats=seats))
    ops.append(SeatOp("deals", deck=DECK, seats=seats * (h - 1)))
    return ops


def gaia_zone(move: int) -> str:
    """The zone Gaia's lead ``move`` shows it into: ``gaia:D`` (dark side), ``gaia:D:light``."""
    light = ":light" if move >= GAIA_LIGHT else ""
    return f"gaia:{DOMAINS[(move - GAIA_DARK) % N_DOMAINS]}{light}"


_GAIA_ZONES = {gaia_zone(m): m for m in range(GAIA_DARK, GAIA_LIGHT + N_DOMAINS)}


def zone_move(card: int, zone: str) -> int:
    """The move that shows ``card`` into ``zone``; IllegalMove (its reason) if none does."""
    if zone in _GAIA_ZONES:
        if card != GAIA:
            return _refuse(f"only Gaia is led into {zone}, not {format_card(card)}")
        return _GAIA_ZONES[zone]
    if zone != TRICK:
        return _refuse(f"{zone!r} is no zone of the table ({TRICK}, gaia:D or gaia:D:light)")
    if card == GAIA:
        return _refuse("Gaia is led into gaia:D naming its domain (e.g. gaia:R), not into trick")
    if card in MISTLETOES:
        return PLAY_MISTLETOE
    return PLAY_SICKLE if card in SICKLES else card


def _refuse(reason: str) -> int:
    raise IllegalMove(reason)


@dataclass(frozen=True, slots=True)
class GaiaWord:
    """``seat``'s word in round ``round`` (0-based) that its ``lead`` card, at ``position``, is
    Gaia (``said`` True) or is not. Positions never change their card: the reveal judges it."""

    round: int
    seat: int
    said: bool
    position: int
    taken: int
    """Where the word lies among the moves and words the copy took this round."""

    def reason(self, cards: Mapping[int, int]) -> str | None:
        """Why ``cards`` (each position's card) show the word false, or None if it is true
        (or the card is not among them)."""
        card = cards.get(self.position)
        if card is None or (card == GAIA) == self.said:
            return None
        word = YES if self.said else NO
        return (
            f"P{self.seat} said {word} of its lead card in round {self.round + 1}, "
            f"which is {format_card(card)}"
        )


@dataclass(frozen=True, slots=True)
class Revoke:
    """``seat`` showed ``card`` in round ``round``, trick ``trick`` (0-based), not of the led
    domain ``led``, while it held the hidden positions ``held``: a revoke if one is of ``led``."""

    round: int
    trick: int
    seat: int
    card: int
    led: int
    held: tuple[int, ...]
    taken: int
    """Where the play lies among the moves and words the copy took this round."""

    def reason(self, cards: Mapping[int, int]) -> str | None:
        """Why ``cards`` show the play broke follow-suit, or None if it did not."""
        owed = [cards[p] for p in self.held if p in cards and card_domain(cards[p]) == self.led]
        if not owed:
            return None
        return (
            f"P{self.seat} played {format_card(self.card)} on a {COLOUR_NAMES[self.led]} lead "
            f"(round {self.round + 1}, trick {self.trick + 1}) while holding "
            f"{' '.join(format_card(c) for c in sorted(owed))}"
        )


Claim = GaiaWord | Revoke


__all__ = [
    "DECK",
    "LEAD",
    "NO",
    "TRICK",
    "YES",
    "Claim",
    "GaiaWord",
    "Revoke",
    "SeatOp",
    "gaia_zone",
    "round_ops",
    "zone_move",
]
