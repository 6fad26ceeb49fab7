"""The owners' word: the one verdict of Druids (2004) that hidden cards decide at a card table.

The game ends "nothing left" when the pile is empty, no hand holds a gem and no place holds a
face-down gem of its own kind. The first two are public (the backs show gems), the last is
not: only each gem's owner knows it. So when a move leaves the pile empty and no gem in any hand
while gems lie face down on the places (:func:`asks`), every seat with such a gem gives its word
(``Word:yes``: one of its face-down gems lies on a place of its kind; ``Word:no``: none does).
Each seat then arranges the gems hidden from it to fit the words (:func:`fit_words`), so that its
copy of the game decides as the truth does. The words are signed; the final reveal shows every
card, and a false word shows there.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from druids_p2p.games.druids2004.cards import gem_kind, is_gem, place_kind
from druids_p2p.games.druids2004.records import ENDED_NOTHING_LEFT
from druids_p2p.games.druids2004.state import Game2004

YES, NO = "Word:yes", "Word:no"
TRIES = 200
"""Random arrangements tried before the words are found to fit none (then someone lied)."""


def asks(game: Game2004) -> bool:
    """The position leaves the "nothing left" end to the gems face down on the places."""
    if game.game_over and game.ended_by != ENDED_NOTHING_LEFT:
        return False
    if game.pile or any(is_gem(c) for hand in game.hands for c in hand):
        return False
    return any(p is not None and p.gems for p in game.row)


def owners(game: Game2004) -> tuple[int, ...]:
    """The seats with a gem face down on a place (public: the backs show who played what)."""
    return tuple(sorted({s for p in game.row if p is not None for s, _ in p.gems}))


def holds_match(game: Game2004, seat: int) -> bool:
    """``seat``'s word, from its own cards: one of its face-down gems is of its place's kind."""
    return any(
        s == seat and gem_kind(g) == place_kind(p.place)
        for p in game.row
        if p is not None
        for s, g in p.gems
    )


def fit_words(
    game: Game2004, known: Iterable[int], me: int, words: dict[int, bool], rng: random.Random
) -> dict[int, int] | None:
    """A relabelling of the gems hidden from ``me`` (a permutation) after which every other
    seat's face-down gems agree with its word; None if no arrangement tried fits."""
    seen = set(known)
    slots = [
        (s, k, i)
        for k, p in enumerate(game.row)
        if p is not None
        for i, (s, g) in enumerate(p.gems)
        if s != me and g not in seen
    ]
    elsewhere = [g for s, g in game.discards if s != me and g not in seen]
    hidden = [game.row[k].gems[i][1] for _, k, i in slots] + elsewhere  # type: ignore[union-attr]
    kinds = [place_kind(game.row[k].place) for _, k, _ in slots]  # type: ignore[union-attr]
    for _ in range(TRIES):
        pool = list(hidden)
        rng.shuffle(pool)
        if _fits(slots, kinds, pool, words):
            return dict(zip(hidden, pool, strict=True))
    return None


def _fits(
    slots: list[tuple[int, int, int]], kinds: list[int], pool: list[int], words: dict[int, bool]
) -> bool:
    """Whether ``pool`` (slots first, then the discards) agrees with every word; a failing
    "no" slot first tries a swap with a later non-matching gem, so a few shuffles suffice."""
    for j, (seat, _, _) in enumerate(slots):
        if not words.get(seat, True) and gem_kind(pool[j]) == kinds[j]:
            swap = next((x for x in range(j + 1, len(pool)) if gem_kind(pool[x]) != kinds[j]), None)
            if swap is None:
                return False
            pool[j], pool[swap] = pool[swap], pool[j]
    for seat, word in words.items():
        mine = [j for j, (s, _, _) in enumerate(slots) if s == seat]
        if mine and any(gem_kind(pool[j]) == kinds[j] for j in mine) != word:
            return False
    return True
