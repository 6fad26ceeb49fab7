"""High card's rules as a pure engine: no I/O, no clock, chance only from a passed ``Random``.

Each seat holds three cards; the leader plays any card, the others must follow its suit if they
can, the highest card of the led suit takes the trick and leads the next, a trick is a point,
and after three tricks the most points win (ties share the win). The engine may not know a
seat's hand (``None``): a seat's copy at a card table knows only its own, so for another seat it
checks what the public play shows (whose turn, a card not yet seen) and leaves follow-suit to the
final reveal (``table_seat.Revoke``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from druids_p2p.games.seam import IllegalMove, InvalidDeal
from highcard.cards import HAND, MAX_PLAYERS, MIN_PLAYERS, N_CARDS, SUITS, format_card, rank, suit

ENDED_BY = "tricks"
"""How every game ends: its three tricks are played."""


@dataclass(frozen=True)
class Options:
    """The seats; ``variant`` and ``rounds`` are the seat message's other fields (the seam's
    ``TableOptions``), which this game does not use: always False and 1."""

    players: int = 3
    variant: bool = False
    rounds: int = 1

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"highcard seats {MIN_PLAYERS} to {MAX_PLAYERS}, not {self.players}")


@dataclass(frozen=True, slots=True)
class View:
    """What ``seat`` may know: its own hand and the public play; cards and moves are ids."""

    seat: int
    players: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    to_move: int | None
    legal: tuple[int, ...]
    """The legal moves if this seat is to move, else empty."""
    leader: int
    trick: tuple[tuple[int, int], ...]
    """(seat, card) of the trick under way, in play order."""
    led: int
    """The suit to follow, -1 while none is led."""
    tricks: tuple[tuple[int, tuple[tuple[int, int], ...], int], ...]
    """The finished tricks: (leader, plays, winner)."""
    totals: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]
    """The one round's scores once the game is over (the seam's round view), else empty."""
    game_over: bool


def deal(rng: random.Random, players: int) -> list[list[int]]:
    """A uniform deal of three cards a seat (the rest stay in the deck, unseen)."""
    cards = list(range(N_CARDS))
    rng.shuffle(cards)
    return [sorted(cards[HAND * s : HAND * (s + 1)]) for s in range(players)]


def follows(card: int, led: int, hand: Sequence[int]) -> bool:
    """Whether playing ``card`` from ``hand`` keeps follow-suit when ``led`` is led (-1: none)."""
    return led < 0 or suit(card) == led or all(suit(c) != led for c in hand)


class HighCard:
    """One game; ``hands[s]`` None where this copy does not know seat ``s``'s cards."""

    def __init__(self, options: Options, hands: Sequence[Sequence[int] | None]) -> None:
        n = options.players
        if len(hands) != n:
            raise InvalidDeal(f"{len(hands)} hands for {n} players")
        self.options = options
        self.hands: list[list[int] | None] = [None] * n
        for s, hand in enumerate(hands):
            if hand is not None:
                self.know_hand(s, hand)
        self.sizes = [HAND] * n
        self.played: set[int] = set()
        self.leader = 0
        self.trick: list[tuple[int, int]] = []
        self.tricks: list[tuple[int, tuple[tuple[int, int], ...], int]] = []
        self.points = [0] * n

    def know_hand(self, seat: int, hand: Sequence[int]) -> None:
        """Seat ``seat``'s three cards (InvalidDeal if they cannot be: a duplicate, a card of
        another hand, a wrong count); only before that seat has played."""
        cards = list(hand)
        others = {c for s, h in enumerate(self.hands) if h is not None and s != seat for c in h}
        if len(cards) != HAND or len(set(cards)) != HAND:
            raise InvalidDeal(f"P{seat}'s hand must be {HAND} different cards, not {cards}")
        if any(not 0 <= c < N_CARDS for c in cards) or others & set(cards):
            raise InvalidDeal(f"P{seat}'s hand {cards} holds a card that cannot be there")
        self.hands[seat] = sorted(cards)

    # ------------------------------------------------------------------ progress
    @property
    def players(self) -> int:
        return self.options.players

    @property
    def game_over(self) -> bool:
        return len(self.tricks) == HAND

    @property
    def to_move(self) -> int | None:
        return None if self.game_over else (self.leader + len(self.trick)) % self.players

    @property
    def led(self) -> int:
        return suit(self.trick[0][1]) if self.trick else -1

    @property
    def totals(self) -> list[int]:
        return list(self.points)

    @property
    def winners(self) -> list[int] | None:
        if not self.game_over:
            return None
        best = max(self.points)
        return [s for s, p in enumerate(self.points) if p == best]

    @property
    def ended_by(self) -> str | None:
        return ENDED_BY if self.game_over else None

    # ------------------------------------------------------------------ moves
    def legal_moves(self) -> list[int]:
        """The cards the seat to move may play, if this copy knows its hand (else none)."""
        seat = self.to_move
        hand = None if seat is None else self.hands[seat]
        if hand is None:
            return []
        return [c for c in hand if follows(c, self.led, hand)]

    def check(self, move: int) -> str | None:
        """Why the seat to move may not play card ``move`` now, or None (pure)."""
        seat = self.to_move
        if seat is None:
            return "the game is over"
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < N_CARDS:
            return f"no card has id {move!r}"
        name = format_card(move)
        if move in self.played:
            return f"{name} has been played already"
        hand = self.hands[seat]
        if hand is None:
            holder = next((s for s, h in enumerate(self.hands) if h and move in h), None)
            return None if holder is None else f"{name} is in P{holder}'s hand, not P{seat}'s"
        if move not in hand:
            return f"P{seat} does not hold {name}"
        if not follows(move, self.led, hand):
            return f"P{seat} must follow suit ({SUITS[self.led]}) and holds one"
        return None

    def play(self, move: int) -> None:
        """The seat to move plays card ``move`` (IllegalMove, the game unchanged, if it may not)."""
        reason = self.check(move)
        if reason is not None:
            raise IllegalMove(reason)
        seat = self.to_move
        assert seat is not None
        hand = self.hands[seat]
        if hand is not None:
            hand.remove(move)
        self.sizes[seat] -= 1
        self.played.add(move)
        self.trick.append((seat, move))
        if len(self.trick) == self.players:
            led = self.led
            winner = max((rank(c), s) for s, c in self.trick if suit(c) == led)[1]
            self.tricks.append((self.leader, tuple(self.trick), winner))
            self.points[winner] += 1
            self.leader, self.trick = winner, []

    # ------------------------------------------------------------------ what a seat sees
    def view(self, seat: int, hand: Sequence[int] | None = None) -> View:
        """``seat``'s view; ``hand`` its cards where this copy knows them otherwise (an
        auditor's copy, told every card, gives each seat's)."""
        own = self.hands[seat] if hand is None else sorted(hand)
        to_move = self.to_move
        legal = () if own is None or to_move != seat else tuple(
            c for c in own if follows(c, self.led, own)
        )  # fmt: skip
        over = self.game_over
        return View(
            seat=seat,
            players=self.players,
            hand=tuple(own or ()),
            hand_sizes=tuple(self.sizes),
            to_move=to_move,
            legal=legal,
            leader=self.leader,
            trick=tuple(self.trick),
            led=self.led,
            tricks=tuple(self.tricks),
            totals=tuple(self.points),
            round_scores=(tuple(self.points),) if over else (),
            game_over=over,
        )


def playout(rng: random.Random, options: Options) -> int:
    """One whole game of uniformly random legal moves: its number of moves (a bench's unit)."""
    game = HighCard(options, deal(rng, options.players))
    moves = 0
    while not game.game_over:
        legal = game.legal_moves()
        game.play(legal[rng.randrange(len(legal))])
        moves += 1
    return moves
