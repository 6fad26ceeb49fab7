"""One seat's copy of a high card game at the mental card table: its own hand, no more.

The schedule is two operations and an end: ``shuffle`` the twelve cards into ``deck``, one
``deals`` of three cards a seat round-robin (position ``p`` goes to seat ``p % players``), and
once the third trick is over, ``final`` (every secret revealed, the deck audited). A card is
played by a ``show`` of a position of the mover's hand into ``trick``: every copy checks it
against the public play (whose turn, a card not seen elsewhere), and the mover's own copy against
its hand too. Whether another seat could have followed suit only its hidden cards tell, so an
off-suit play is accepted and kept as a :class:`Revoke`, which :meth:`HighCardSeat.breaches`
judges at the final reveal, where the table blames it with that play's signed message.

An *onlooker* (:data:`ONLOOKER`) holds no hand: every card is shown as it is played, so it follows
the whole game by what is public; ``druids audit`` replays a record with one.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from druids_p2p.games.seam import PLAY, GameMove, IllegalMove, TableMove
from highcard.cards import HAND, N_CARDS, SUITS, Move, format_card, suit
from highcard.engine import HighCard, Options, View

ONLOOKER = -1
DECK, TRICK = "deck", "trick"


@dataclass(frozen=True, slots=True)
class Op:
    """One card-table operation (the seam's ``CardOp``: the deck's ``TableOp``'s fields)."""

    kind: str
    deck: str = ""
    zone: str = ""
    seat: int | None = None
    cards: tuple[int, ...] = ()
    position: int | None = None
    source: str = ""
    seats: tuple[int, ...] = ()


def deal_ops(players: int) -> list[Op]:
    """The whole deal: the twelve cards shuffled, then three a seat in one ``deals``."""
    return [
        Op("shuffle", deck=DECK, cards=tuple(range(N_CARDS))),
        Op("deals", deck=DECK, seats=tuple(range(players)) * HAND),
    ]


@dataclass(frozen=True, slots=True)
class Revoke:
    """``seat`` showed ``card`` off the led suit ``led`` in trick ``trick`` while it still held
    the positions ``held``: a breach if one of them is of ``led``."""

    seat: int
    card: int
    led: int
    trick: int
    held: tuple[int, ...]
    taken: int
    """Where the play lies among the moves this copy took (from 0)."""

    def reason(self, cards: Mapping[int, int]) -> str | None:
        owed = sorted(cards[p] for p in self.held if p in cards and suit(cards[p]) == self.led)
        if not owed:
            return None
        return (
            f"P{self.seat} played {format_card(self.card)} on a {SUITS[self.led]} lead in trick "
            f"{self.trick + 1} while holding {' '.join(format_card(c) for c in owed)}"
        )


class HighCardSeat:
    """``seat``'s copy of a game with ``options`` (the seam's ``CardTableSeat``)."""

    def __init__(self, options: Options, seat: int, rng: random.Random | None = None) -> None:
        """``rng`` is the seam's, unused: this copy never guesses a hidden card."""
        n = options.players
        if seat != ONLOOKER and not 0 <= seat < n:
            raise ValueError(f"no seat {seat} at a {n}-player table")
        self.seat, self._n = seat, n
        self.game = HighCard(options, [None] * n)
        self._due: list[Op] = deal_ops(n)
        self._final = False
        self._cards: dict[int, int] = {}
        """Each position with its card as this copy knows it (its own deals, every show)."""
        self._where: dict[int, int] = {}
        self._hands = [[s + k * n for k in range(HAND)] for s in range(n)]
        """Each seat's positions not yet shown."""
        self.claims: list[Revoke] = []
        self.log: list[list[TableMove]] = [[]]
        self.words_contradicted = False

    # ------------------------------------------------------------------ progress
    @property
    def to_move(self) -> int | None:
        if self._due:
            return None
        if self.seat != ONLOOKER and self.game.hands[self.seat] is None:
            return None  # its own cards are still on their way
        return self.game.to_move

    @property
    def game_over(self) -> bool:
        return self.game.game_over

    @property
    def totals(self) -> list[int]:
        return self.game.totals

    @property
    def winners(self) -> list[int] | None:
        return self.game.winners

    @property
    def ended_by(self) -> str | None:
        return self.game.ended_by

    @property
    def round_scores(self) -> list[list[int]]:
        return []  # one round: its scores are the totals

    def view(self, seat: int) -> View:
        """``seat``'s view as this copy knows it: its hand's known cards (an auditor's copy,
        told every card, knows every hand)."""
        known = [self._cards[p] for p in self._hands[seat] if p in self._cards]
        return self.game.view(seat, known if len(known) == len(self._hands[seat]) else None)

    def legal_moves(self) -> list[int]:
        return self.game.legal_moves() if self.to_move == self.seat else []

    # ------------------------------------------------------------------ the schedule
    def ops(self) -> list[Op]:
        if not self._due and self.game.game_over and not self._final:
            self._final = True
            self._due.append(Op("final"))
        due, self._due = self._due, []
        return due

    def learn(self, position: int, card: int) -> None:
        if not 0 <= position < HAND * self._n:
            raise ValueError(f"no position {position} has been dealt")
        if not 0 <= card < N_CARDS:
            raise ValueError(f"no card has id {card}")
        known = self._cards.get(position)
        if known is not None:
            if known != card:
                raise ValueError(f"position {position} holds {format_card(known)}, not {card}")
            return
        if card in self._where:
            raise ValueError(f"{format_card(card)} lies at position {self._where[card]}")
        self._cards[position], self._where[card] = card, position
        own = self._hands[self.seat] if self.seat != ONLOOKER else []
        if own and self.game.hands[self.seat] is None and all(p in self._cards for p in own):
            self.game.know_hand(self.seat, [self._cards[p] for p in own])

    # ------------------------------------------------------------------ no words
    def words_asked(self) -> tuple[int, ...]:
        return ()

    def words_due(self) -> tuple[int, ...]:
        return ()

    def own_word(self) -> str | None:
        return None

    def word_of(self, seat: int) -> str | None:
        return None

    def check_word(self, seat: int, token: str) -> str | None:
        return f"P{seat} owes no word: high card has none"

    def word(self, seat: int, token: str) -> None:
        raise IllegalMove(self.check_word(seat, token) or "")

    # ------------------------------------------------------------------ moves
    def check_move(self, seat: int, move: GameMove) -> str | None:
        return f"{move.token()}: a card is played by a show of its position into {TRICK}"

    def move(self, seat: int, move: GameMove) -> None:
        raise IllegalMove(self.check_move(seat, move) or "")

    def check_play(
        self, seat: int, position: int, zone: str, card: int | None = None
    ) -> str | None:
        try:
            self._judge(seat, position, zone, card)
        except IllegalMove as exc:
            return exc.reason
        return None

    def play(self, seat: int, position: int, zone: str, card: int | None = None) -> Op:
        shown = self._judge(seat, position, zone, card)
        game = self.game
        held = tuple(p for p in self._hands[seat] if p != position)
        if game.hands[seat] is None and game.led >= 0 and suit(shown) != game.led:
            taken = len(self.log[0])
            self.claims.append(Revoke(seat, shown, game.led, len(game.tricks), held, taken))
        game.play(shown)
        self._hands[seat].remove(position)
        self._cards[position], self._where[shown] = shown, position
        self.log[0].append(TableMove(PLAY, seat, zone=zone, position=position, card=shown))
        return Op("show", seat=seat, zone=zone)

    def breaches(self, cards: Mapping[int, int]) -> list[tuple[int, int, str]]:
        found = ((c.seat, c.taken, c.reason(cards)) for c in self.claims)
        return [(seat, taken, why) for seat, taken, why in found if why is not None]

    def shown_move(self, card: int, zone: str) -> Move:
        if zone != TRICK:
            raise ValueError(f"{zone!r} is no zone of the table ({TRICK})")
        return Move.of(card)

    def table_move(self, move: GameMove) -> tuple[int, str] | None:
        if not isinstance(move, Move):
            raise TypeError(f"highcard plays its own Move, not {type(move).__name__}")
        if self.seat == ONLOOKER or move.id not in (self.game.hands[self.seat] or ()):
            why = self.game.check(move.id)
            raise IllegalMove(why or f"P{self.seat} does not hold {move.token()}")
        return move.id, TRICK

    def position_of(self, card: int) -> int:
        for p in self._hands[self.seat] if self.seat != ONLOOKER else ():
            if self._cards.get(p) == card:
                return p
        raise ValueError(f"card {card} is not in this seat's hand")

    # ------------------------------------------------------------------ inside
    def _judge(self, seat: int, position: int, zone: str, claimed: int | None) -> int:
        """The card ``seat`` shows at ``position``; IllegalMove if the show is refused."""
        if self.to_move != seat:
            raise IllegalMove(f"it is not P{seat}'s move")
        if zone != TRICK:
            raise IllegalMove(f"P{seat} played into {zone!r}: cards go into {TRICK}")
        if position not in self._hands[seat]:
            raise IllegalMove(f"P{seat} played position {position}, which is not in its hand")
        card = self._cards.get(position)
        if card is None:
            if claimed is None:
                raise IllegalMove(f"P{seat}'s card at position {position} must be shown face up")
            if not 0 <= claimed < N_CARDS:
                raise IllegalMove(f"P{seat} shows card {claimed}, which does not exist")
            if claimed in self._where:
                where = self._where[claimed]
                raise IllegalMove(f"P{seat} shows {format_card(claimed)}, which lies at {where}")
            card = claimed
        elif claimed is not None and claimed != card:
            raise IllegalMove(f"P{seat} shows card {claimed} at {position}, which holds {card}")
        reason = self.game.check(card)
        if reason is not None:
            raise IllegalMove(reason)
        return card
