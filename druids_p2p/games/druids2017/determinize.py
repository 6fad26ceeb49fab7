"""Sampling the hidden cards a seat cannot see, consistent with everything its view knows: the
"worlds" search bots plan in. :func:`rebuild_round` replays the public play on a sampled deal,
so a sample that breaks any rule is caught rather than silently searched. The worlds the search
bots sample with what play has shown (voids, cards seen) are drawn here too.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from druids_p2p.games.druids2017.cards import (
    GAIA,
    MISTLETOES,
    N_CARDS,
    N_DOMAIN_CARDS,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    cards_for_move,
)
from druids_p2p.games.druids2017.rollout import FastRound, ModelRound
from druids_p2p.games.druids2017.rule_model import Evidence, RuleRound
from druids_p2p.games.druids2017.rules import Round
from druids_p2p.games.druids2017.view import PlayerView

__all__ = [
    "TRUST",
    "World",
    "WorldSampler",
    "public_plays",
    "rebuild_round",
    "revealed_voids",
    "sample_deal",
    "sample_round",
]


_ATTEMPTS = 20


def _hall_holds(counts: dict[int, int], left: list[int]) -> bool:
    """Whether the cards still to place (``counts`` per mask of the seats they may go to) can fill
    every seat's ``left`` open slots: Hall's condition on every set of seats."""
    return all(
        sum(c for m, c in counts.items() if m & group)
        >= sum(k for s, k in enumerate(left) if group >> s & 1)
        for group in range(1, 1 << len(left))
    )


def fill_hands(
    classes: list[tuple[int, list[int]]], needs: list[int], spare: int, rng: random.Random
) -> list[list[int]] | None:
    """Hands of ``needs`` cards each from ``classes`` (a mask of the seats a card may go to, and
    those cards), the other ``spare`` cards left out of the round: drawn card by card as the quick
    draw does (a seat by its open slots, out of the round by the spare's), but only among the
    choices after which Hall's condition still holds, so it never dead-ends (None: no deal fits).
    The quick draw's fallback, where tight voids make it fail."""
    n = len(needs)
    left = needs[:]
    counts: dict[int, int] = {}
    for mask, cards in classes:
        counts[mask] = counts.get(mask, 0) + len(cards)
    if not _hall_holds(counts, left):
        return None
    hands: list[list[int]] = [[] for _ in range(n)]
    for mask, cards in classes:
        pool = cards[:]
        rng.shuffle(pool)
        for card in pool:
            counts[mask] -= 1
            options: list[tuple[int, int]] = []
            for s in range(n):
                if mask >> s & 1 and left[s]:
                    left[s] -= 1
                    if _hall_holds(counts, left):
                        options.append((s, left[s] + 1))
                    left[s] += 1
            if spare and _hall_holds(counts, left):
                options.append((-1, spare))
            if not options:  # pragma: no cover - Hall's condition held before this card
                return None
            pick = rng.randrange(sum(w for _, w in options))
            at = 0
            while pick >= options[at][1]:
                pick -= options[at][1]
                at += 1
            seat = options[at][0]
            if seat < 0:
                spare -= 1
            else:
                hands[seat].append(card)
                left[seat] -= 1
    return None if any(left) else hands


def _classes(unseen: list[int], needs: list[int], voids: list[int]) -> list[tuple[int, list[int]]]:
    """The unseen cards grouped by the seats that may hold them (a bit per seat still owed cards
    and not void in the card's domain), most constrained first."""
    classes: dict[int, list[int]] = {}
    for card in unseen:
        dom = card // N_VALUES if card < N_DOMAIN_CARDS else -1
        mask = 0
        for s, need in enumerate(needs):
            if need > 0 and (dom < 0 or not voids[s] >> dom & 1):
                mask |= 1 << s
        classes.setdefault(mask, []).append(card)
    return sorted(classes.items(), key=lambda kv: kv[0].bit_count())


def public_plays(view: PlayerView) -> list[tuple[int, int]]:
    """Every (seat, move) of the round so far except Sickle pile choices, in order."""
    plays = [play for trick in view.tricks for play in trick[1]]
    plays.extend(view.trick)
    return plays


def revealed_voids(view: PlayerView) -> list[int]:
    """Per seat, a 5-bit mask of the domains it is known to hold no card of."""
    voids = [0] * view.players
    for leader_plays in [t[1] for t in view.tricks] + [view.trick]:
        led = -1
        for seat, move in leader_plays:
            if move < N_DOMAIN_CARDS:
                domain = move // N_VALUES
                if led < 0:
                    led = domain
                elif domain != led:
                    voids[seat] |= 1 << led
            elif move < PLAY_MISTLETOE:
                led = (move - 60) % 5
    return voids


def _played_cards(view: PlayerView) -> tuple[list[list[int]], set[int]]:
    """Cards each seat has played this round (copies of specials assigned in order), and all."""
    by_seat: list[list[int]] = [[] for _ in range(view.players)]
    used: set[int] = set(view.hand)
    for seat, move in public_plays(view):
        options = cards_for_move(move)
        card = next((c for c in options if c not in used), options[0])
        used.add(card)
        by_seat[seat].append(card)
    return by_seat, used


def sample_deal(view: PlayerView, rng: random.Random) -> list[list[int]]:
    """A deal for this round consistent with ``view``: the seat's own cards, the others drawn from
    the unseen cards within hand sizes and revealed voids (after a few dead ends of the quick draw,
    by :func:`fill_hands`; a view no deal fits gives one the rebuild rejects)."""
    n = view.players
    played, seen = _played_cards(view)
    unseen = [c for c in range(N_CARDS) if c not in seen]
    needs = list(view.hand_sizes)
    needs[view.seat] = 0
    gaia_seat = -1
    if not view.tricks and not view.trick and GAIA not in view.hand and view.to_move is not None:
        gaia_seat = view.to_move  # the Gaia holder must lead it
        unseen.remove(GAIA)
        needs[gaia_seat] -= 1
    elif GAIA in unseen:
        unseen.remove(GAIA)  # led already, or not dealt to an unseen hand: it is out of play
    voids = revealed_voids(view)

    def allowed(card: int) -> list[int]:
        dom = card // N_VALUES if card < N_DOMAIN_CARDS else -1
        return [s for s in range(n) if needs[s] and (dom < 0 or not voids[s] >> dom & 1)]

    hidden: list[list[int]] = [[] for _ in range(n)]
    for _ in range(_ATTEMPTS):
        pool = unseen[:]
        rng.shuffle(pool)
        pool.sort(key=lambda c: len(allowed(c)))  # most constrained cards first
        left = needs[:]
        hidden = [[] for _ in range(n)]
        undealt = len(pool) - sum(left)
        for card in pool:
            seats = [s for s in allowed(card) if left[s]]
            weights = [left[s] for s in seats]
            pick = rng.randrange(sum(weights) + undealt) if sum(weights) + undealt else -1
            if pick < 0:
                break
            for s, w in zip(seats, weights, strict=True):
                if pick < w:
                    hidden[s].append(card)
                    left[s] -= 1
                    break
                pick -= w
            else:
                undealt -= 1
        if not any(left):
            break
    else:  # the quick draw dead-ended each time: the draw that cannot
        order = _classes(unseen, needs, voids)
        hidden = fill_hands(order, needs, len(unseen) - sum(needs), rng) or hidden
    deal: list[list[int]] = []
    for seat in range(n):
        cards = list(view.hand) if seat == view.seat else hidden[seat]
        start = cards + played[seat]
        if seat == gaia_seat:
            start.append(GAIA)
        deal.append(sorted(start))
    return deal


def rebuild_round(view: PlayerView, deal: list[list[int]]) -> Round:
    """The engine's round at the view's position, from a start-of-round deal (e.g. a sample).

    Replays the public play, including Sickle pile choices; raises IllegalMove if the deal cannot
    have produced it (a broken sample).
    """
    rnd = Round(deal, variant=view.variant)
    removed = [list(t[3]) for t in view.tricks]
    for _, move in public_plays(view):
        rnd.play(move)
        _replay_pile_choices(rnd, removed)
    return rnd


def _replay_pile_choices(rnd: Round, removed: list[list[int]]) -> None:
    while rnd.pending_sickles and rnd.to_move is not None and rnd.tricks:
        index = len(rnd.tricks) - 1
        already = len(rnd.tricks[-1].removed)
        if index >= len(removed) or already >= len(removed[index]):
            return  # the choice is the viewing seat's own, still to be made
        rnd.play(PILE + removed[index][already])


def sample_round(view: PlayerView, rng: random.Random, attempts: int = 10) -> Round:
    """A world consistent with the view, as an engine round at the view's position."""
    last: Exception | None = None
    for _ in range(attempts):
        try:
            return rebuild_round(view, sample_deal(view, rng))
        except ValueError as exc:  # IllegalMove / InvalidDeal from an inconsistent sample
            last = exc
    raise RuntimeError(f"could not sample a world consistent with the view: {last}")


# Worlds for search with inference from play: what the unseen hands probably are.
TRUST = 0.5
"""Weight of the model's own choice in an observed play's likelihood (the rest is uniform)."""
_WORLD_ATTEMPTS = 30


@dataclass(slots=True)
class World:
    """One sampled world at the view's position, with its likelihood weight."""

    deal: list[list[int]]
    """Every seat's hand at the start of the round."""
    state: FastRound
    weight: float


class WorldSampler:
    """Samples deals consistent with one view (hard evidence) and weighs them (soft evidence)."""

    def __init__(
        self, view: PlayerView, trust: float = TRUST, model: type[FastRound] = ModelRound
    ) -> None:
        self.view = view
        self.model = model
        """The round type worlds are rebuilt as: its policy is the rollouts' and the model's."""
        self.trust = trust
        n = self.n = view.players
        self.seat = view.seat
        plays = public_plays(view)
        self.played: list[list[int]] = [[] for _ in range(n)]
        used: set[int] = set(view.hand)
        for seat, move in plays:
            options = cards_for_move(move)
            card = next((c for c in options if c not in used), options[0])
            used.add(card)
            self.played[seat].append(card)
        needs = list(view.hand_sizes)
        needs[view.seat] = 0
        self.gaia_seat = -1
        unseen = [c for c in range(N_CARDS) if c not in used and c != GAIA]
        if not plays and GAIA not in view.hand and view.to_move is not None:
            self.gaia_seat = view.to_move  # the Gaia holder must lead it
            needs[self.gaia_seat] -= 1
        self.needs = needs
        self.classes = _classes(unseen, needs, revealed_voids(view))
        self.spare = len(unseen) - sum(needs)
        """Unseen cards that are out of the round (not dealt)."""
        self.plays = plays
        self.checked_from = 0
        """Index of the first public play the likelihood counts (a search with a costly model may
        count only the latest)."""
        self.removed = [list(t[3]) for t in view.tricks]
        self.sickles_in = [sum(1 for _, m in t[1] if m == PLAY_SICKLE) for t in view.tricks]
        self._evidence: Evidence | None = None
        self._template: FastRound | None = None
        """The view's position replayed once, for :meth:`state_of`."""

    def hidden_hands(self, rng: random.Random) -> list[list[int]] | None:
        """The unseen seats' current hands (never a deal that breaks a revealed void): the quick
        draw, and after its repeated dead ends :func:`fill_hands`; None only for a view no deal
        fits."""
        n = self.n
        for _ in range(_WORLD_ATTEMPTS):
            left = self.needs[:]
            spare = self.spare
            hands: list[list[int]] = [[] for _ in range(n)]
            ok = True
            for mask, cards in self.classes:
                seats = [s for s in range(n) if mask >> s & 1]
                pool = cards[:]
                rng.shuffle(pool)
                for card in pool:
                    total = spare
                    for s in seats:
                        total += left[s]
                    if total <= 0:
                        ok = False
                        break
                    pick = rng.randrange(total)
                    for s in seats:
                        if pick < left[s]:
                            hands[s].append(card)
                            left[s] -= 1
                            break
                        pick -= left[s]
                    else:
                        spare -= 1
                if not ok:
                    break
            if ok and not any(left):
                return hands
        return fill_hands(self.classes, self.needs, self.spare, rng)

    def deal(self, rng: random.Random) -> list[list[int]] | None:
        """A start-of-round deal consistent with the view, or None if none was found."""
        hidden = self.hidden_hands(rng)
        return None if hidden is None else self.deal_of(hidden)

    def deal_of(self, hidden: list[list[int]]) -> list[list[int]]:
        """The start-of-round deal of these current hidden hands (the view's own, the plays)."""
        deal = []
        for s in range(self.n):
            start = list(self.view.hand) if s == self.seat else hidden[s]
            start = start + self.played[s]
            if s == self.gaia_seat:
                start.append(GAIA)
            deal.append(start)
        return deal

    def state_of(self, hidden: list[list[int]]) -> ModelRound:
        """The world of these current hidden hands at the view's position, as :meth:`replay` of
        its deal would build it but without replaying: the public play is replayed once (on any
        consistent deal, as it does not depend on the hidden cards) and each world patches the
        unseen seats' hands into a copy (a test checks it against the replay)."""
        if self._template is None:
            first = self.hidden_hands(random.Random(0))
            if first is None:
                raise ValueError("no deal is consistent with the view")
            model, checked = self.model, self.checked_from
            self.model, self.checked_from = ModelRound, len(self.plays)
            try:
                self._template = self.replay(self.deal_of(first))[0]
            finally:
                self.model, self.checked_from = model, checked
        state = self._template.copy()
        assert isinstance(state, ModelRound)
        hands, dcount, mist, sick = state.hands, state.dcount, state.mist, state.sick
        for s, cards in enumerate(hidden):
            if s == self.seat:
                continue
            base = s * 5
            hands[base : base + 5] = [0] * 5
            dcount[s] = mist[s] = sick[s] = 0
            for card in cards:
                if card < N_DOMAIN_CARDS:
                    hands[base + card // N_VALUES] |= 1 << card % N_VALUES
                    dcount[s] += 1
                elif card in MISTLETOES:
                    mist[s] += 1
                else:
                    sick[s] += 1
        return state

    def replay(self, deal: list[list[int]]) -> tuple[FastRound, float]:
        """The deal's round at the view's position, and the log-free likelihood of the other
        seats' observed card plays under the model (Gaia's naming and pile choices not counted)."""
        state = self.model.from_deal(deal, self.view.variant)
        trust = self.trust
        weight = 1.0
        for index, seat, move in self._walk(state):
            if trust > 0.0 and self._counted(index, seat, move):
                legal = state.legal()
                if len(legal) > 1:
                    hit = trust if state.greedy_move() == move else 0.0
                    weight *= hit + (1.0 - trust) / len(legal)
        return state, weight

    def _walk(self, state: FastRound) -> Iterator[tuple[int, int, int]]:
        """Each public play (its index, seat and move), yielded before ``state`` plays it; the
        pile choices the tricks' Sickles made are played after each trick."""
        trick = pos = 0
        for index, (seat, move) in enumerate(self.plays):
            yield index, seat, move
            state.play(move)
            pos += 1
            if pos == self.n:
                pos = 0
                while state.pending and trick < len(self.removed):
                    done = self.sickles_in[trick] - state.pending
                    if done >= len(self.removed[trick]):
                        break  # the viewer's own choice, still to make
                    state.play(PILE + self.removed[trick][done])
                trick += 1

    def _counted(self, index: int, seat: int, move: int) -> bool:
        """Whether the likelihood counts this play: another seat's card play (not Gaia's naming
        nor a pile choice) from ``checked_from`` on."""
        return (
            seat != self.seat
            and index >= self.checked_from
            and (move < N_DOMAIN_CARDS or move >= PLAY_MISTLETOE)
        )

    def evidence(self) -> Evidence:
        """The other seats' plays this likelihood counts, each at its public position (built
        once, on one consistent world, as the positions do not depend on the hidden cards)."""
        if self._evidence is None:
            first = self.hidden_hands(random.Random(0))
            if first is None:
                raise ValueError("no deal is consistent with the view")
            evidence = Evidence(self.trust)
            counted = [0] * self.n
            state = RuleRound.from_deal(self.deal_of(first), self.view.variant)
            for index, seat, move in self._walk(state):
                if self._counted(index, seat, move):
                    evidence.observe(state, move, self.played[seat][counted[seat] :])
                counted[seat] += 1
            self._evidence = evidence
        return self._evidence

    def weight_of(self, hidden: list[list[int]]) -> float:
        """:meth:`replay`'s likelihood of the world of these current hidden hands, without
        replaying it (:class:`~.rule_model.Evidence`: the rule model, whatever ``model`` is)."""
        if self.trust <= 0.0 or self.checked_from >= len(self.plays):
            return 1.0
        return self.evidence().weight(hidden)

    def chain(self, rng: random.Random, burn: int, thin: int) -> Iterator[list[list[int]]]:
        """Hidden hands drawn by a Metropolis chain whose target is the rule model's posterior
        (the consistent deals, each weighed by :meth:`weight_of`): from one sampled world, a
        step swaps two cards between two holders (the unseen seats and the undealt cards; a
        symmetric proposal, within the revealed voids) and is kept with the ratio of the two
        seats' likelihoods; a world every ``thin`` steps after ``burn``."""
        hidden = self.hidden_hands(rng)
        if hidden is None:
            return
        evidence = self.evidence()
        n = self.n
        held = {c for hand in hidden for c in hand}
        allowed = {c: mask | 1 << n for mask, cards in self.classes for c in cards}
        hands = [hand[:] for hand in hidden] + [[c for c in allowed if c not in held]]
        holders = [s for s in range(n + 1) if hands[s]]
        seats = [s for s in holders if s < n]
        if len(holders) < 2 or not seats:
            while True:
                yield [hand[:] for hand in hidden]
        like = [evidence.seat_factor(s, hands[s]) if s < n else 1.0 for s in range(n + 1)]
        step = 0
        while True:
            step += 1
            a = seats[rng.randrange(len(seats))]
            b = holders[rng.randrange(len(holders) - 1)]
            if b == a:
                b = holders[-1]
            i, j = rng.randrange(len(hands[a])), rng.randrange(len(hands[b]))
            x, y = hands[a][i], hands[b][j]
            if allowed[x] >> b & 1 and allowed[y] >> a & 1:
                hand_a = hands[a][:]
                hand_a[i] = y
                hand_b = hands[b][:]
                hand_b[j] = x
                new_a = evidence.seat_factor(a, hand_a)
                new_b = evidence.seat_factor(b, hand_b) if b < n else 1.0
                if rng.random() * like[a] * like[b] < new_a * new_b:
                    hands[a], hands[b], like[a], like[b] = hand_a, hand_b, new_a, new_b
            if step > burn and (step - burn) % thin == 0:
                yield [hand[:] for hand in hands[:n]]

    def worlds(self, rng: random.Random, count: int) -> list[World]:
        """Up to ``count`` weighted worlds (fewer only if sampling keeps failing)."""
        out: list[World] = []
        for _ in range(count):
            deal = self.deal(rng)
            if deal is None:
                continue
            state, weight = self.replay(deal)
            out.append(World(deal, state, weight))
        return out
