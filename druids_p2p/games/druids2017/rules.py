"""One round of Druids (Amigo, 2017) as a state machine: the rules every peer runs on every move.
The round is what a deal produces and the audit replays; its state is plain integers and lists so it
copies and steps quickly, behind ``legal_moves`` / ``check`` / ``play``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import or_

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    DOMAINS,
    GAIA,
    GAIA_BARE,
    GAIA_DARK,
    GAIA_LIGHT,
    HAND_SIZE,
    MISTLETOES,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    SICKLES,
)
from druids_p2p.games.druids2017.notation import format_card, format_move
from druids_p2p.games.seam import IllegalMove, InvalidDeal

FIVE_DOMAIN_SCORE = -3
ENDED_HANDS_EMPTY = "hands_empty"
ENDED_FIVE_DOMAINS = "five_domains"

_FULL_MASK = (1 << N_VALUES) - 1
_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(v for v in range(N_VALUES) if mask >> v & 1) for mask in range(1 << N_VALUES)
)


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """A completed trick: who played what, in order, who won it and what its Sickles removed."""

    leader: int
    plays: tuple[tuple[int, int], ...]
    winner: int
    removed: tuple[int, ...]


def validate_deal(hands: list[list[int]], players: int) -> None:
    """Raise InvalidDeal unless ``hands`` is a legal deal for ``players`` seats."""
    if players not in HAND_SIZE:
        raise InvalidDeal(f"Druids is for 3 to 5 players, not {players}")
    if len(hands) != players:
        raise InvalidDeal(f"expected {players} hands, got {len(hands)}")
    size = HAND_SIZE[players]
    seen: set[int] = set()
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            raise InvalidDeal(
                f"seat {seat} holds {len(hand)} cards, a {players}-player deal is {size}"
            )
        for card in hand:
            if not isinstance(card, int) or not 0 <= card <= max(SICKLES):
                raise InvalidDeal(f"seat {seat} holds an unknown card {card!r}")
            if card in seen:
                raise InvalidDeal(f"card {format_card(card)} is dealt more than once")
            seen.add(card)
    if GAIA not in seen:
        raise InvalidDeal("Gaia is not dealt (it always is)")


class Round:
    """The state of one round; mutate it only through :meth:`play`."""

    __slots__ = (
        "ended_by",
        "gaia_holder",
        "hand_size",
        "hands",
        "hidden_seats",
        "lead_domain",
        "leader",
        "light",
        "mistletoes",
        "pending_sickles",
        "piles",
        "players",
        "plays",
        "scores",
        "sickles",
        "to_move",
        "trick",
        "tricks",
        "variant",
    )

    players: int
    variant: bool
    hand_size: list[int]
    hands: list[int]
    mistletoes: list[list[int]]
    sickles: list[list[int]]
    gaia_holder: int
    piles: list[list[int]]
    leader: int
    to_move: int | None
    trick: list[tuple[int, int]]
    lead_domain: int
    light: bool
    pending_sickles: int
    tricks: list[TrickRecord]
    plays: list[tuple[int, int]]
    ended_by: str | None
    scores: list[int] | None
    hidden_seats: frozenset[int]

    def __init__(self, hands: list[list[int]], variant: bool = False) -> None:
        players = len(hands)
        validate_deal(hands, players)
        self._setup(hands, variant, [len(h) for h in hands])
        self.hidden_seats: frozenset[int] = frozenset()

    @classmethod
    def hidden(
        cls, players: int, seat: int | None, hand: list[int], variant: bool = False
    ) -> Round:
        """A round as one seat at a table sees it (``seat`` None: an onlooker, every hand hidden).
        Others' cards enter by :meth:`reveal` as they are played, so every rule public cards decide
        is enforced now; whether a hidden hand could have followed waits for the end-of-round audit.
        """
        if players not in HAND_SIZE:
            raise InvalidDeal(f"Druids is for 3 to 5 players, not {players}")
        size = HAND_SIZE[players]
        if seat is None:
            if hand:
                raise InvalidDeal("an onlooker holds no hand")
        elif not 0 <= seat < players:
            raise InvalidDeal(f"no seat {seat} at a {players}-player table")
        elif len(hand) != size or len(set(hand)) != size:
            raise InvalidDeal(f"seat {seat} must hold {size} distinct cards")
        if any(not isinstance(c, int) or not 0 <= c <= max(SICKLES) for c in hand):
            raise InvalidDeal(f"seat {seat} holds an unknown card")
        hands = [list(hand) if s == seat else [] for s in range(players)]
        rnd = cls.__new__(cls)
        rnd._setup(hands, variant, [size] * players)
        rnd.hidden_seats = frozenset(s for s in range(players) if s != seat)
        if rnd.gaia_holder < 0:
            rnd.to_move = None  # whoever holds Gaia reveals it by leading
        return rnd

    def reveal(self, seat: int, card: int) -> None:
        """Put a hidden seat's card into its hand because the deal just proved it holds it."""
        if seat not in self.hidden_seats:
            raise ValueError(f"seat {seat}'s hand is not hidden")
        if self._held(card):
            raise ValueError(f"card {format_card(card)} is already known to be held")
        if card < N_DOMAIN_CARDS:
            self.hands[seat * N_DOMAINS + card // N_VALUES] |= 1 << (card % N_VALUES)
        elif card == GAIA:
            if self.plays or self.gaia_holder >= 0:
                raise ValueError("Gaia is only ever revealed by the round's first lead")
            self.gaia_holder = self.leader = seat
            self.to_move = seat
        elif card in MISTLETOES:
            self.mistletoes[seat].append(card)
        else:
            self.sickles[seat].append(card)

    def _setup(self, hands: list[list[int]], variant: bool, hand_size: list[int]) -> None:
        players = len(hands)
        self.players = players
        self.variant = variant
        self.hand_size = list(hand_size)
        # Domain cards as masks (bit v-1 of hands[seat*5+domain]); specials as physical ids.
        self.hands = [0] * (players * N_DOMAINS)
        self.mistletoes = [[] for _ in range(players)]
        self.sickles = [[] for _ in range(players)]
        self.gaia_holder = -1
        for seat, hand in enumerate(hands):
            for card in hand:
                if card < N_DOMAIN_CARDS:
                    self.hands[seat * N_DOMAINS + card // N_VALUES] |= 1 << (card % N_VALUES)
                elif card == GAIA:
                    self.gaia_holder = seat
                elif card in MISTLETOES:
                    self.mistletoes[seat].append(card)
                else:
                    self.sickles[seat].append(card)
        self.piles = [[] for _ in range(players * N_DOMAINS)]
        self.leader = self.gaia_holder
        self.to_move = self.gaia_holder
        self.trick = []
        self.lead_domain = -1
        self.light = False
        self.pending_sickles = 0
        self.tricks = []
        self.plays = []
        self.ended_by = None
        self.scores = None

    # ----------------------------------------------------------------- queries
    @property
    def over(self) -> bool:
        return self.ended_by is not None

    def _held(self, card: int) -> bool:
        """Whether some hand already holds ``card`` (read from the masks: a hand's list is not
        built for it)."""
        if card < N_DOMAIN_CARDS:
            d, bit = card // N_VALUES, 1 << (card % N_VALUES)
            return bool(reduce(or_, self.hands[d::N_DOMAINS], 0) & bit)  # every seat's mask
        if card == GAIA:
            return self.gaia_holder >= 0 and not self.plays
        return any(card in held for held in (*self.mistletoes, *self.sickles))

    def hand(self, seat: int) -> list[int]:
        """Card ids in ``seat``'s hand, sorted."""
        cards = [
            d * N_VALUES + v
            for d in range(N_DOMAINS)
            for v in _BITS[self.hands[seat * N_DOMAINS + d]]
        ]
        if self.gaia_holder == seat and not self.plays:
            cards.append(GAIA)
        cards.extend(self.mistletoes[seat])
        cards.extend(self.sickles[seat])
        return sorted(cards)

    def top(self, seat: int, domain: int) -> int | None:
        """Top card of a pile, None where there is no pile."""
        pile = self.piles[seat * N_DOMAINS + domain]
        return pile[-1] if pile else None

    def pile_score(self, seat: int) -> int:
        base = seat * N_DOMAINS
        return sum(p[-1] % N_VALUES + 1 for p in self.piles[base : base + N_DOMAINS] if p)

    def tied_highest_piles(self, seat: int) -> list[int]:
        """Domains of ``seat``'s piles whose top is highest: a Sickle removes one of these."""
        base = seat * N_DOMAINS
        tops = [
            (d, p[-1] % N_VALUES) for d, p in enumerate(self.piles[base : base + N_DOMAINS]) if p
        ]
        if not tops:
            return []
        best = max(v for _, v in tops)
        return [d for d, v in tops if v == best]

    def legal_moves(self) -> list[int]:
        """Every legal move for the seat to move, in ascending id order (empty once over)."""
        seat = self.to_move
        if seat is None:
            return []
        if self.pending_sickles:
            return [PILE + d for d in self.tied_highest_piles(seat)]
        if not self.plays:
            lights = [GAIA_LIGHT + d for d in range(N_DOMAINS)] if self.variant else []
            return [GAIA_DARK + d for d in range(N_DOMAINS)] + lights
        base = seat * N_DOMAINS
        led = self.lead_domain
        if led >= 0 and self.hands[base + led]:
            moves = [led * N_VALUES + v for v in _BITS[self.hands[base + led]]]
        else:
            moves = [
                d * N_VALUES + v for d in range(N_DOMAINS) for v in _BITS[self.hands[base + d]]
            ]
        if self.mistletoes[seat]:
            moves.append(PLAY_MISTLETOE)
        if self.sickles[seat]:
            moves.append(PLAY_SICKLE)
        return moves

    def check(self, move: int) -> str | None:
        """None if ``move`` is legal for the seat to move, else the precise reason it is not."""
        seat = self.to_move
        if seat is None:
            return "the round is over" if self.over else "waiting for the Gaia holder to lead"
        if not isinstance(move, int) or not 0 <= move <= GAIA_BARE:
            return f"unknown move {move!r}"
        if move < N_DOMAIN_CARDS and self.plays and not self.pending_sickles:
            return self._check_card(seat, move)  # most moves: no other rule applies
        token = format_move(move)
        if self.pending_sickles:
            tied = self.tied_highest_piles(seat)
            names = ", ".join(f"Pile:{DOMAINS[d]}" for d in tied)
            if PILE <= move < PILE + N_DOMAINS:
                if move - PILE in tied:
                    return None
                return f"{token} is not one of seat {seat}'s tied highest piles ({names})"
            return f"seat {seat} must first choose which tied pile the Sickle removes ({names})"
        if PILE <= move < PILE + N_DOMAINS:
            return "no Sickle pile choice is pending"
        if not self.plays:
            if GAIA_DARK <= move < GAIA_LIGHT:
                return None
            if GAIA_LIGHT <= move < GAIA_LIGHT + N_DOMAINS:
                return (
                    None if self.variant else f"{token}: the light side of Gaia needs the variant"
                )
            if move == GAIA_BARE:
                return "Gaia must be led naming a domain, e.g. Gaia:R"
            return f"seat {seat} holds Gaia and must lead it first, naming a domain (e.g. Gaia:R)"
        if GAIA_DARK <= move < PLAY_MISTLETOE or move == GAIA_BARE:
            return "Gaia is only ever led as the first card of the round"
        if move == PLAY_MISTLETOE:
            return None if self.mistletoes[seat] else f"seat {seat} holds no Mistletoe"
        if move == PLAY_SICKLE:
            return None if self.sickles[seat] else f"seat {seat} holds no Sickle"
        return self._check_card(seat, move)

    def _check_card(self, seat: int, move: int) -> str | None:
        """Why ``seat`` may not play domain card ``move`` now (in hand, follows the led domain)."""
        domain, value = divmod(move, N_VALUES)
        base = seat * N_DOMAINS
        if not self.hands[base + domain] >> value & 1:
            return f"{format_move(move)} is not in seat {seat}'s hand"
        led = self.lead_domain
        if led >= 0 and domain != led and self.hands[base + led]:
            token = format_move(move)
            held = " ".join(format_card(led * N_VALUES + v) for v in _BITS[self.hands[base + led]])
            return (
                f"{token} does not follow {COLOUR_NAMES[led]}: seat {seat} holds {held} "
                "(only Mistletoe or Sickle may be played instead)"
            )
        return None

    # ----------------------------------------------------------------- the move
    def play(self, move: int) -> None:
        """Apply a legal move; raise IllegalMove (state unchanged) otherwise."""
        reason = self.check(move)
        if reason is not None:
            raise IllegalMove(reason)
        seat = self.to_move
        assert seat is not None
        played = (seat, move)
        self.plays.append(played)
        if self.pending_sickles:
            self._remove_pile(seat, move - PILE)
            self._resolve_sickles(seat)
            return
        if move < N_DOMAIN_CARDS:
            domain = move // N_VALUES
            self.hands[seat * N_DOMAINS + domain] &= ~(1 << (move % N_VALUES)) & _FULL_MASK
            if self.lead_domain < 0:
                self.lead_domain = domain
        elif move < PLAY_MISTLETOE:
            self.light = move >= GAIA_LIGHT
            self.lead_domain = (move - GAIA_DARK) % N_DOMAINS
        elif move == PLAY_MISTLETOE:
            self.mistletoes[seat].pop()
        else:
            self.sickles[seat].pop()
        self.hand_size[seat] -= 1
        trick = self.trick
        trick.append(played)
        if len(trick) < self.players:
            self.to_move = (seat + 1) % self.players
            return
        self._take_trick()

    def _trick_winner(self) -> int:
        """Highest card of the led domain; Gaia counts as 0 of its named domain; else the leader."""
        led = self.lead_domain
        winner, best = self.leader, -1
        for seat, move in self.trick:
            if move < N_DOMAIN_CARDS:
                value = move % N_VALUES + 1
                if move // N_VALUES == led and value > best:
                    winner, best = seat, value
            elif move < PLAY_MISTLETOE and best < 0:
                winner, best = seat, 0
        return winner

    def _take_trick(self) -> None:
        winner = self._trick_winner()
        base = winner * N_DOMAINS
        trick = self.trick
        moves = [m for _, m in trick]
        # Lowest ends on top (light side: highest): stack each domain's cards sorted that way.
        piles = self.piles
        for move in sorted([m for m in moves if m < N_DOMAIN_CARDS], reverse=not self.light):
            piles[base + move // N_VALUES].append(move)
        self.tricks.append(TrickRecord(self.leader, tuple(trick), winner, ()))
        sickles = moves.count(PLAY_SICKLE)
        self.trick = []
        self.lead_domain = -1
        self.leader = winner
        self.to_move = winner
        if all(piles[base : base + N_DOMAINS]):
            self._end(ENDED_FIVE_DOMAINS, five_domain_seat=winner)
            return
        self.pending_sickles = sickles
        self._resolve_sickles(winner)

    def _resolve_sickles(self, winner: int) -> None:
        """Remove highest piles for the trick's Sickles until one needs the winner's choice."""
        while self.pending_sickles:
            tied = self.tied_highest_piles(winner)
            if not tied:
                self.pending_sickles = 0
                break
            if len(tied) > 1:
                return  # the winner decides with a Pile move
            self._remove_pile(winner, tied[0])
        if sum(self.hand_size) == 0:
            self._end(ENDED_HANDS_EMPTY)

    def _remove_pile(self, seat: int, domain: int) -> None:
        self.piles[seat * N_DOMAINS + domain] = []
        self.pending_sickles -= 1
        last = self.tricks[-1]
        self.tricks[-1] = TrickRecord(last.leader, last.plays, last.winner, (*last.removed, domain))

    def _end(self, ended_by: str, five_domain_seat: int = -1) -> None:
        self.ended_by = ended_by
        self.to_move = None
        self.pending_sickles = 0
        self.scores = [
            FIVE_DOMAIN_SCORE if seat == five_domain_seat else self.pile_score(seat)
            for seat in range(self.players)
        ]
