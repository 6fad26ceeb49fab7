"""What the mental card table needs from Druids (2004): who knows each card when, the operations.

Also the owners' word, the one verdict hidden cards decide: all three are the game's
hidden-information split, which the table follows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product
from typing import Final

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import (
    N_CARDS,
    N_KINDS,
    ROW_SLOTS,
    START_GEMS,
    START_SERVANTS,
    gem_kind,
    is_gem,
    place_kind,
    servant_owner,
)
from druids_p2p.games.druids2004.setup import (
    ENDED_NOTHING_LEFT,
    Discarded,
    Drew,
    GameEnded,
    Played,
    Reshuffled,
    RitualDone,
)
from druids_p2p.games.druids2004.state import Game2004

# The hidden-information split the mental-card table needs (issue 18), as data and queries.
#
# ``ZONES`` says for every place a card can be who knows it there and when that changes;
# ``REVEALS`` says what each operation opens to whom. :func:`known_to` answers for one card now.
# Everything is revealed to everyone after the game, when the audit re-checks every turn.


ZONES: Final = (
    ("gem pile", "nobody", "the drawer learns a card as it draws it"),
    ("place supply", "nobody", "everyone when a ritual turns it face up into the row"),
    ("reserve of P", "nobody, its owner included", "its owner as it draws the card"),
    ("hand of P", "P", "on a place only to P; at the ritual to everyone"),
    ("gem on a place", "the seat that played it", "everyone at the place's ritual"),
    ("servant on a place", "its owner (the back names it)", "everyone at the place's ritual"),
    ("discards", "the seat that discarded it", "everyone at the final audit"),
    ("place row, out of the game, amulets won, the box", "everyone", "always public"),
)

REVEALS: Final = (
    ("Draw:gem", "the top gem of the pile, to the drawer"),
    ("Draw:servant", "the top servant of the drawer's reserve, to the drawer"),
    ("K7>2 / S0:3>2", "nothing: public is 'a gem' or 'a servant of P0' onto slot 2"),
    ("Discard:K7", "nothing: public is 'a gem discarded'"),
    ("Ritual:2", "every card on the place in slot 2, to everyone; then the supply's top"),
    ("reshuffle", "nothing: the new order of a reserve is known to nobody"),
    ("end of game", "every card, to everyone (the audit replays every turn)"),
    (
        "nothing-left check",
        "whether any place holds a gem of its own kind is hidden while the pile is empty and no"
        " hand holds a gem: the table must open it then (or take the owners' word, audited)",
    ),
)


def known_to(game: Game2004, card: int) -> frozenset[int]:
    """The seats that know which card ``card`` is and where it lies, now."""
    if not 0 <= card < N_CARDS:
        raise ValueError(f"no card has id {card!r}")
    everyone = frozenset(range(game.players))
    if game.game_over:
        return everyone
    for seat, hand in enumerate(game.hands):
        if card in hand:
            return frozenset({seat})
    if card in game.pile or card in game.supply or any(card in r for r in game.reserves):
        return frozenset()
    for seat, gem in game.discards:
        if gem == card:
            return frozenset({seat})
    for slot in game.row:
        if slot is None:
            continue
        for seat, gem in slot.gems:
            if gem == card:
                return frozenset({seat})
        if card in slot.servants:
            return frozenset({servant_owner(card)})
    return everyone


def public_token(move: int) -> str:
    """What every other seat learns of ``move``: a play shows the slot and "a gem" or "a servant
    of P" (``gem>2``, ``S0:?>2``), a discard shows ``Discard:gem``; other moves are public."""
    m = mv.decode(move)
    if m.kind == mv.KIND_PLAY:
        what = "gem" if is_gem(m.card) else f"S{servant_owner(m.card)}:?"
        return f"{what}>{m.slot}"
    if m.kind == mv.KIND_DISCARD:
        return "Discard:gem"
    return mv.format_move(move)


# The mental-card operations a game needs, as data (what issue 18's table schedule follows).
#
# Druids (2004) needs the general set of hidden operations: several decks with public backs (the gem
# pile, the place supply, one servant reserve per seat), draws one card at a time to one seat,
# face-down plays bound to the card that was dealt, reveals by several owners at once, public turns
# from the supply, cards returned into a deck and reshuffled, face-down discards opened only at the
# final audit. :func:`schedule` turns a game's setup and log into that list, in order; the cards are
# named (the engine knows them all), so an audit can check each operation against them.
#
# Decks: ``gems``, ``supply``, ``reserve:S``. Places a card can be: ``hand:S``, ``slot:K`` (face
# down on the place in slot K), ``row:K`` (the place card itself, face up), ``discards``, ``out``.
# ``seen_by`` is ``"owner"`` (only the seat the card goes to, or that played it), ``"nobody"`` or
# ``"all"``.


SHUFFLE = "shuffle"
DEAL = "deal"
"""The top card of a deck to one seat's hand, seen by that seat only."""
TURN = "turn"
"""The top card of a deck face up (the place row)."""
PLAY = "play"
"""A card from a hand face down onto a place or the discards: still seen by its owner only."""
REVEAL = "reveal"
"""Face-down cards opened to everyone (a ritual: each card by its owner)."""
RETURN = "return"
"""A revealed card back into a deck, face down (a servant into its owner's reserve)."""
FINAL = "final_reveal"
"""After the game: every card still hidden is opened and the audit replays every turn."""


@dataclass(frozen=True, slots=True)
class DeckOp:
    kind: str
    source: str
    target: str
    cards: tuple[int, ...]
    seen_by: str
    seat: int | None = None
    """The seat that receives, plays or owns the cards (None for public operations)."""


def setup_ops(game: Game2004) -> list[DeckOp]:
    s, n = game.setup, game.players
    ops = [
        DeckOp(SHUFFLE, "places", "supply", s.places, "nobody"),
        DeckOp(SHUFFLE, "gems", "gems", s.gems, "nobody"),
    ]
    ops += [DeckOp(SHUFFLE, f"reserve:{q}", f"reserve:{q}", s.reserves[q], "nobody", q)
            for q in range(n)]  # fmt: skip
    ops += [DeckOp(TURN, "supply", f"row:{k}", (s.places[k],), "all") for k in range(ROW_SLOTS)]
    for q in range(n):
        for card in s.gems[START_GEMS * q : START_GEMS * (q + 1)]:
            ops.append(DeckOp(DEAL, "gems", f"hand:{q}", (card,), "owner", q))
    for q in range(n):
        for card in s.reserves[q][:START_SERVANTS]:
            ops.append(DeckOp(DEAL, f"reserve:{q}", f"hand:{q}", (card,), "owner", q))
    return ops


def schedule(game: Game2004) -> list[DeckOp]:
    """Every deck operation of the game so far, in order (the final reveal once it is over)."""
    ops = setup_ops(game)
    for record in game.log:
        if isinstance(record, Drew):
            deck = "gems" if record.source == "gem" else f"reserve:{record.seat}"
            ops.append(DeckOp(DEAL, deck, f"hand:{record.seat}", (record.card,), "owner",
                              record.seat))  # fmt: skip
        elif isinstance(record, Played):
            ops.append(DeckOp(PLAY, f"hand:{record.seat}", f"slot:{record.slot}", (record.card,),
                              "owner", record.seat))  # fmt: skip
        elif isinstance(record, Discarded):
            ops.append(DeckOp(PLAY, f"hand:{record.seat}", "discards", (record.card,), "owner",
                              record.seat))  # fmt: skip
        elif isinstance(record, RitualDone):
            opened = tuple(g for _, g in record.gems) + record.servants
            ops.append(DeckOp(REVEAL, f"slot:{record.slot}", f"slot:{record.slot}", opened, "all"))
            for servant in record.returned:
                owner = servant_owner(servant)
                ops.append(DeckOp(RETURN, f"slot:{record.slot}", f"reserve:{owner}", (servant,),
                                  "nobody", owner))  # fmt: skip
            if record.turned is not None:
                ops.append(DeckOp(TURN, "supply", f"row:{record.slot}", (record.turned,), "all"))
        elif isinstance(record, Reshuffled):
            ops.append(DeckOp(SHUFFLE, f"reserve:{record.seat}", f"reserve:{record.seat}",
                              record.order, "nobody", record.seat))  # fmt: skip
        elif isinstance(record, GameEnded):
            hidden = tuple(c for _, c in game.discards) + tuple(game.pile) + tuple(game.supply)
            hidden += tuple(c for r in game.reserves for c in r)
            hidden += tuple(c for h in game.hands for c in h)
            for slot in game.row:
                if slot is not None:
                    hidden += tuple(g for _, g in slot.gems) + tuple(slot.servants)
            ops.append(DeckOp(FINAL, "all", "all", hidden, "all"))
    return ops


# The owners' word: the one verdict of Druids (2004) that hidden cards decide at a card table.
#
# The game ends "nothing left" when the pile is empty, no hand holds a gem and no place holds a
# face-down gem of its own kind. The first two are public (the backs show gems), the last is
# not: only each gem's owner knows it. So when a move leaves the pile empty and no gem in any hand
# while gems lie face down on the places (:func:`asks`), every seat with such a gem gives its word
# (``Word:yes``: one of its face-down gems lies on a place of its kind; ``Word:no``: none does).
# Each seat then arranges the gems hidden from it to fit the words (:func:`fit_words`, exactly:
# it finds an arrangement whenever one exists), so that its copy of the game decides as the truth
# does. The words are signed; the final reveal shows every card, and a false word shows there.


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
    """Whether a word is true of ``gems`` (each the gem's card and the kind of the place it lies
    on): ``said`` yes, one lies on a place of its own kind; no, none does. The one judge of a word,
    so the table's final audit and ``druids audit`` agree.
    """
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
    """A permutation of the gems hidden from ``me`` after which every other seat's face-down gems
    agree with its word, or None when none does (then some word is false). A search over the kind
    each "yes" seat's match is of (at most 6³ cases), each a small flow of gem kinds into slot
    classes.
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
    """The hidden gems in slot order (then the ``elsewhere`` discards) such that each "yes" seat's
    matching slot (its first on a place of kind ``matches[s]``) takes a gem of that kind and every
    "no" slot one of another kind; None if they cannot.
    """
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
