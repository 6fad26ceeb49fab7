"""The owners' word: the one verdict of Druids (2004) that hidden cards decide at a card table.

The game ends "nothing left" when the pile is empty, no hand holds a gem and no place holds a
face-down gem of its own kind. The first two are public (the backs show gems), the last is
not: only each gem's owner knows it. So when a move leaves the pile empty and no gem in any hand
while gems lie face down on the places (:func:`asks`), every seat with such a gem gives its word
(``Word:yes``: one of its face-down gems lies on a place of its kind; ``Word:no``: none does).
Each seat then arranges the gems hidden from it to fit the words (:func:`fit_words`, exactly:
it finds an arrangement whenever one exists), so that its copy of the game decides as the truth
does. The words are signed; the final reveal shows every card, and a false word shows there.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product

from druids_p2p.games.druids2004.cards import N_KINDS, gem_kind, is_gem, place_kind
from druids_p2p.games.druids2004.records import ENDED_NOTHING_LEFT
from druids_p2p.games.druids2004.state import Game2004

YES, NO = "Word:yes", "Word:no"


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


def word_true(said: bool, gems: Iterable[tuple[int, int]]) -> bool:
    """Whether a word is true of the cards: ``said`` yes (one of the owner's face-down gems
    lies on a place of its own kind) or no (none does), against ``gems``, each (the gem's
    card, the kind of the place it lies on).

    The one judge of a word, so that the two who judge words agree: the table's final audit
    holds each word against the revealed cards, and ``druids audit`` holds it against its
    replay's (every card known) at the word's message (``TableSeat2004.word_of``)."""
    return any(gem_kind(g) == kind for g, kind in gems) == said


def holds_match(game: Game2004, seat: int) -> bool:
    """``seat``'s word, from its own cards: one of its face-down gems is of its place's kind."""
    gems = (
        (g, place_kind(p.place)) for p in game.row if p is not None for s, g in p.gems if s == seat
    )
    return word_true(True, gems)


def fit_words(
    game: Game2004, known: Iterable[int], me: int, words: dict[int, bool]
) -> dict[int, int] | None:
    """A relabelling of the gems hidden from ``me`` (a permutation of them: old card -> the card
    that takes its place) after which every other seat's face-down gems agree with its word;
    None exactly when no arrangement of those gems does (then some word is false).

    Hidden are the other seats' face-down gems on the places and their discards that ``me`` has
    not seen: all share one back, so any permutation of them leaves every card ``me`` saw alone.
    ``me``'s own word is not judged here: its gems are its own, known to it. A "no" seat's
    hidden slots must each take a gem not of their place's kind; a "yes" seat (not already
    shown true by a gem ``me`` knows) needs one slot that takes a gem of its place's kind.
    Which slot carries that match matters only by the place's kind (slots of one seat on
    places of one kind are interchangeable), so the search enumerates, per "yes" seat, the
    kind its match is of: at most ``N_KINDS`` (6) kinds for each of at most three other seats,
    216 cases, each one small flow of gem kinds into slot classes (:func:`_deal_kinds`).
    """
    seen = set(known)
    slots: list[tuple[int, int, int]] = []
    """(seat, the place's kind, the gem there now) of every hidden face-down gem of another."""
    shown: set[int] = set()
    for p in game.row:
        if p is None:
            continue
        kind = place_kind(p.place)
        for seat, g in p.gems:
            if seat == me:
                continue
            if g not in seen:
                slots.append((seat, kind, g))
            elif gem_kind(g) == kind:
                if not words.get(seat, True):
                    return None  # a gem ``me`` knows shows this "no" false
                shown.add(seat)
    elsewhere = [g for s, g in game.discards if s != me and g not in seen]
    yes = sorted(s for s, w in words.items() if w and s != me and s not in shown)
    choices = [sorted({k for s, k, _ in slots if s == seat}) for seat in yes]
    if any(not kinds for kinds in choices):
        return None  # a "yes" seat with no hidden gem on a place and none shown to match
    hidden = [g for _, _, g in slots] + elsewhere
    for matches in product(*choices):
        fit = _arrange(slots, len(elsewhere), hidden, dict(zip(yes, matches, strict=True)), words)
        if fit is not None:
            return dict(zip(hidden, fit, strict=True))
    return None


_ANY = -1
"""A slot class that takes a gem of any kind."""


def _arrange(
    slots: list[tuple[int, int, int]],
    elsewhere: int,
    hidden: list[int],
    matches: dict[int, int],
    words: dict[int, bool],
) -> list[int] | None:
    """The hidden gems in slot order (then the ``elsewhere`` discards) such that the slot of
    each "yes" seat ``s`` chosen to match (its first on a place of kind ``matches[s]``) takes a
    gem of that kind and every "no" slot a gem of another kind; None if the gems cannot.

    Each slot falls in a class: ``(k, True)`` needs kind ``k``, ``(k, False)`` any kind but
    ``k``, ``(_ANY, False)`` any kind; the gems' kinds are dealt to the classes by
    :func:`_deal_kinds`, and each class then takes its kinds' gems in increasing id order."""
    classes: list[tuple[int, bool]] = []
    for seat, kind, _ in slots:
        if matches.get(seat) == kind:
            classes.append((kind, True))
            del matches[seat]  # the first such slot carries the match, the rest are free
        elif not words.get(seat, True):
            classes.append((kind, False))
        else:
            classes.append((_ANY, False))
    classes += [(_ANY, False)] * elsewhere
    need: dict[tuple[int, bool], int] = {}
    for c in classes:
        need[c] = need.get(c, 0) + 1
    by_kind: list[list[int]] = [[] for _ in range(N_KINDS)]
    for g in sorted(hidden):
        by_kind[gem_kind(g)].append(g)
    dealt = _deal_kinds([len(gems) for gems in by_kind], need)
    if dealt is None:
        return None
    pools: dict[tuple[int, bool], list[int]] = {c: [] for c in need}
    for (kind, c), n in sorted(dealt.items()):
        pools[c] += by_kind[kind][:n]
        del by_kind[kind][:n]
    return [pools[c].pop() for c in classes]


def _deal_kinds(
    have: list[int], need: dict[tuple[int, bool], int]
) -> dict[tuple[int, tuple[int, bool]], int] | None:
    """How many gems of each kind go to each slot class (``have[k]`` gems of kind ``k``, ``need``
    slots per class, as many slots as gems), or None if no deal fills every class: a maximum
    flow source -> kind -> class -> sink (:func:`_max_flow`) over 6 kinds and at most 13
    classes (each kind needed, refused, or any)."""
    classes = sorted(need)
    first = 1 + N_KINDS  # node 0 the source, 1..6 the kinds, then the classes, then the sink
    sink = first + len(classes)
    cap = [[0] * (sink + 1) for _ in range(sink + 1)]
    for k in range(N_KINDS):
        cap[0][1 + k] = have[k]
        for j, (kind, needed) in enumerate(classes):
            if kind == _ANY or (kind == k) == needed:
                cap[1 + k][first + j] = have[k]
    for j, c in enumerate(classes):
        cap[first + j][sink] = need[c]
    flow = _max_flow(cap)
    if sum(flow[first + j][sink] for j in range(len(classes))) < sum(need.values()):
        return None
    return {
        (k, c): flow[1 + k][first + j]
        for k in range(N_KINDS)
        for j, c in enumerate(classes)
        if flow[1 + k][first + j] > 0
    }


def _max_flow(cap: list[list[int]]) -> list[list[int]]:
    """A maximum flow from node 0 to the last node (Edmonds-Karp: shortest augmenting paths;
    at most as many paths as the source's capacity, each a breadth-first search of a graph of
    at most 21 nodes). ``flow[u][v]`` is what runs from ``u`` to ``v``."""
    n = len(cap)
    sink = n - 1
    flow = [[0] * n for _ in range(n)]
    for _ in range(sum(cap[0]) + 1):
        back: list[int | None] = [None] * n
        back[0] = 0
        queue = [0]
        for u in queue:
            for v in range(n):
                if back[v] is None and cap[u][v] - flow[u][v] + flow[v][u] > 0:
                    back[v] = u
                    queue.append(v)
        if back[sink] is None:
            break
        path: list[tuple[int, int]] = []
        v = sink
        while v != 0:
            prev = back[v]
            assert prev is not None
            path.append((prev, v))
            v = prev
        step = min(cap[u][v] - flow[u][v] + flow[v][u] for u, v in path)
        for u, v in path:
            undo = min(step, flow[v][u])  # first cancel what runs the other way
            flow[v][u] -= undo
            flow[u][v] += step - undo
    return flow
