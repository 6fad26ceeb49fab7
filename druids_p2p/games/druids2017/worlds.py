"""Worlds for search with inference from play: what the unseen hands probably are.

Two kinds of evidence, as in the trick-taking literature (Buro et al. on Skat; Cowling, Powley &
Whitehouse 2012 on determinization): *hard* — a seat that did not follow holds no card of the led
domain, the Gaia holder led Gaia, hand sizes — which every sampled deal obeys by construction;
and *soft* — the cards a seat chose to play rather than others it held. A world is weighted by how
likely the seat's observed plays are under a model of play (the rollout policy, with a share
``1 - trust`` of uniform play for everything it does not capture), so worlds where the opponents
would have played as they did count more.

A world is rebuilt as a :class:`~druids_p2p.games.druids2017.rollout.FastRound` by replaying the
public play from the sampled deal (no engine round is built: the deal is consistent by
construction), which is what makes hundreds of worlds a move affordable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from druids_p2p.games.druids2017.cards import (
    GAIA,
    N_CARDS,
    N_DOMAIN_CARDS,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    cards_for_move,
)
from druids_p2p.games.druids2017.determinize import public_plays, revealed_voids
from druids_p2p.games.druids2017.rollout import FastRound, ModelRound
from druids_p2p.games.druids2017.view import PlayerView

TRUST = 0.5
"""Weight of the model's own choice in an observed play's likelihood (the rest is uniform)."""
_ATTEMPTS = 30


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
        voids = revealed_voids(view)
        # Cards grouped by the seats they may go to (a bit per seat), most constrained first.
        classes: dict[int, list[int]] = {}
        for card in unseen:
            dom = card // N_VALUES if card < N_DOMAIN_CARDS else -1
            mask = 0
            for s in range(n):
                if needs[s] > 0 and (dom < 0 or not voids[s] >> dom & 1):
                    mask |= 1 << s
            classes.setdefault(mask, []).append(card)
        self.classes = sorted(classes.items(), key=lambda kv: bin(kv[0]).count("1"))
        self.spare = len(unseen) - sum(needs)
        """Unseen cards that are out of the round (not dealt)."""
        self.plays = plays
        self.checked_from = 0
        """Index of the first public play the likelihood counts (a search with a costly model may
        count only the latest)."""
        self.removed = [list(t[3]) for t in view.tricks]
        self.sickles_in = [sum(1 for _, m in t[1] if m == PLAY_SICKLE) for t in view.tricks]

    def hidden_hands(self, rng: random.Random) -> list[list[int]] | None:
        """The unseen seats' current hands, or None after repeated dead ends (never a deal that
        breaks a revealed void)."""
        n = self.n
        for _ in range(_ATTEMPTS):
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
        return None

    def deal(self, rng: random.Random) -> list[list[int]] | None:
        """A start-of-round deal consistent with the view, or None if none was found."""
        hidden = self.hidden_hands(rng)
        if hidden is None:
            return None
        deal = []
        for s in range(self.n):
            start = list(self.view.hand) if s == self.seat else hidden[s]
            start = start + self.played[s]
            if s == self.gaia_seat:
                start.append(GAIA)
            deal.append(start)
        return deal

    def replay(self, deal: list[list[int]]) -> tuple[FastRound, float]:
        """The deal's round at the view's position, and the log-free likelihood of the other
        seats' observed card plays under the model (Gaia's naming and pile choices not counted)."""
        state = self.model.from_deal(deal, self.view.variant)
        trust = self.trust
        weight = 1.0
        me = self.seat
        trick = 0
        pos = 0
        n = self.n
        checked = self.checked_from
        for index, (seat, move) in enumerate(self.plays):
            if (
                seat != me
                and index >= checked
                and trust > 0.0
                and (move < N_DOMAIN_CARDS or move >= PLAY_MISTLETOE)
            ):
                legal = state.legal()
                if len(legal) > 1:
                    hit = trust if state.greedy_move() == move else 0.0
                    weight *= hit + (1.0 - trust) / len(legal)
            state.play(move)
            pos += 1
            if pos == n:
                pos = 0
                while state.pending and trick < len(self.removed):
                    done = self.sickles_in[trick] - state.pending
                    if done >= len(self.removed[trick]):
                        break  # the viewer's own choice, still to make
                    state.play(PILE + self.removed[trick][done])
                trick += 1
        return state, weight

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


__all__ = ["TRUST", "World", "WorldSampler"]
