"""One seat's copy of a Druids (2004) game at a mental card table: what it may know, no more. It
runs the engine on a *world* that agrees with every card it saw and fills hidden places with cards
of the right back, which is all the engine's public verdicts depend on. The schedule, the owners'
words and their judgement are protocol.md §11.1's.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004 import hidden as ow
from druids_p2p.games.druids2004.cards import (
    GEMS,
    PLACES,
    ROW_SLOTS,
    START_GEMS,
    START_SERVANTS,
    is_gem,
    is_place,
    place_kind,
    servant_owner,
    servants_of,
)
from druids_p2p.games.druids2004.policy import clone
from druids_p2p.games.druids2004.setup import Options, RitualDone, random_setup
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.games.seam import MOVE, PLAY, WORD, GameMove, IllegalMove, TableMove

SUPPLY, GEMS_DECK, DISCARDS = "supply", "gems", "discards"


def reserve(seat: int) -> str:
    return f"reserve:{seat}"


def slot_zone(slot: int) -> str:
    return f"slot:{slot}"


_SLOTS = {slot_zone(k): k for k in range(ROW_SLOTS)}
"""The zones a card is played into face down: the row's places."""


def _word_order(claim: WordClaim) -> tuple[int, int]:
    return claim.round, claim.seat


def _back(card: int) -> str:
    """What the table shows of a hidden card: its deck."""
    if is_gem(card):
        return GEMS_DECK
    return SUPPLY if is_place(card) else reserve(servant_owner(card))


@dataclass(frozen=True, slots=True)
class SeatOp:
    """One card-table operation (``druids_p2p.games.seam.CardOp``; a game imports no deck): the
    fields of the deck's ``TableOp``."""

    kind: str
    deck: str = ""
    zone: str = ""
    seat: int | None = None
    cards: tuple[int, ...] = ()
    position: int | None = None
    source: str = ""
    seats: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class WordClaim:
    """``seat``'s word in word round ``round`` (counted from 0, as the table asks them): it
    ``said`` yes or no about its face-down gems then, at ``gems`` (position, kind of the place
    it lay on). Positions never change their card, so the final reveal can judge the word."""

    round: int
    seat: int
    said: bool
    gems: tuple[tuple[int, int], ...]
    taken: int = -1
    """Where the word lies among the moves and words the copy took (``TableSeat2004.taken``)."""

    def true_of(self, cards: Mapping[int, int]) -> bool:
        """Whether the word agrees with ``cards`` (each position's card: the final reveal's,
        or a copy's own where it knows them), by the one judge of a word."""
        return ow.word_true(self.said, ((cards[p], kind) for p, kind in self.gems))


class TableSeat2004:
    """``seat``'s copy of a game whose first turn is seat 0's (the table's seat order is already
    a fair draw, so the start needs no chance of its own)."""

    def __init__(self, options: Options, seat: int, rng: random.Random) -> None:
        if not 0 <= seat < options.players:
            raise ValueError(f"no seat {seat} at a {options.players}-player table")
        self.seat = seat
        self.world = Game2004(random_setup(rng, options.players, start=0), options)
        self._labels: list[int] = []
        """The world's card at each position."""
        self._known: set[int] = set()
        self._due: list[SeatOp] = self._setup_ops()
        self._ritual: int | None = None
        self._turned: int | None = None
        self._returned: tuple[int, ...] = ()
        self._resume: tuple[Callable[[], int], Callable[[], None]] | None = None
        """The move waiting for the owners' word, and what follows it."""
        self._trial: Game2004 | None = None
        """The position the words are asked at (the move waiting for them played)."""
        self._askers: tuple[int, ...] = ()
        self._words: dict[int, bool] = {}
        self._asked_gems: dict[int, tuple[tuple[int, int], ...]] = {}
        self._word_round = -1
        self.claims: list[WordClaim] = []
        """Every word given so far, for :meth:`breaches`."""
        self.log: list[list[TableMove]] = [[]]
        """The moves and words this copy took (the seam's ``log``: a game of one round)."""
        self._gone: set[int] = set()
        """Positions returned into a deck: their card is dealt again under a new position."""
        self._final = False
        self.words_contradicted = False
        """The last words fit no arrangement of the gems hidden from this seat: one is false,
        and the copy goes on no further (the table reveals everything and judges the words)."""

    # ------------------------------------------------------------------ the seam
    @property
    def to_move(self) -> int | None:
        busy = self._due or self._ritual is not None or self._resume is not None
        busy = busy or self.words_contradicted
        return None if busy else self.world.to_move

    @property
    def game_over(self) -> bool:
        return self.world.game_over

    @property
    def totals(self) -> list[int]:
        return self.world.totals

    @property
    def winners(self) -> list[int] | None:
        return self.world.winners

    @property
    def taken(self) -> int:
        """The moves and words this copy has taken (each play, move and word counts one)."""
        return len(self.log[0])

    @property
    def ended_by(self) -> str | None:
        return self.world.ended_by

    def view(self, seat: int) -> SeatView:
        return self.world.view(seat)

    @property
    def round_scores(self) -> list[list[int]]:
        """A game of one round: its scores are the totals."""
        return []

    def shown_move(self, card: int, zone: str) -> mv.Move:
        """No card of this game is shown face up: its cards open by reveals."""
        raise ValueError(f"{self.world.options.players}-seat Druids 2004 shows no card into {zone}")

    def legal_moves(self) -> list[int]:
        return self.world.legal_moves() if self.to_move == self.seat else []

    def table_move(self, move: GameMove) -> tuple[int, str] | None:
        m = _own(move)
        if m.kind == mv.KIND_PLAY:
            return m.card, slot_zone(m.slot)
        return (m.card, DISCARDS) if m.kind == mv.KIND_DISCARD else None

    def position_of(self, card: int) -> int:
        if card not in self.world.hands[self.seat]:
            raise ValueError(f"card {card} is not in this seat's hand")
        return self._where(card)

    def ops(self) -> list[SeatOp]:
        if self._due:  # handed out first: what comes next waits for what they open
            due, self._due = self._due, []
            return due
        if self._ritual is not None:
            self._go_on_with_ritual()
        if self.world.game_over and not self._final and self._ritual is None:
            self._final = True
            self._due.append(SeatOp("final"))
        due, self._due = self._due, []
        return due

    def learn(self, position: int, card: int) -> None:
        if not 0 <= position < len(self._labels):
            raise ValueError(f"no position {position} has been taken")
        label = self._labels[position]
        if position in self._gone:
            raise ValueError(f"position {position} went back into a deck")
        if label != card:
            if card in self._known:
                raise ValueError(f"card {card} is known to lie elsewhere, not at {position}")
            if _back(card) != _back(label):
                raise ValueError(f"position {position} is a {_back(label)} card, not {card}")
            self._swap(label, card)
        self._known.add(card)

    def check_play(
        self, seat: int, position: int, zone: str, card: int | None = None
    ) -> str | None:
        """Why ``seat`` may not put ``position`` face down into ``zone`` now, or None (pure).
        Every card of this game goes down face down: a shown ``card`` is refused."""
        if card is not None:
            return f"P{seat}'s card goes down face down: no card is shown"
        if self.to_move != seat:
            return f"it is not P{seat}'s move"
        if not 0 <= position < len(self._labels):
            return f"P{seat} played position {position}, which was never dealt"
        card = self._labels[position]
        if card not in self.world.hands[seat]:
            return f"P{seat} played position {position}, which is not in its hand"
        if zone == DISCARDS:
            if not is_gem(card):
                return "only a gem is discarded"
            return self.world.check(mv.discard_move(card))
        if zone not in _SLOTS:
            return f"{zone!r} is no place of the row"
        return self.world.check(mv.play_move(card, _SLOTS[zone]))

    def check_move(self, seat: int, move: GameMove) -> str | None:
        """Why ``seat``'s public ``move`` is refused now, or None (pure)."""
        if self.to_move != seat:
            return f"it is not P{seat}'s move"
        if _own(move).kind in (mv.KIND_PLAY, mv.KIND_DISCARD):
            return f"{move.token()}: a card leaves a hand only by a table play of its position"
        return self.world.check(move.id)

    def check_word(self, seat: int, token: str) -> str | None:
        """Why ``seat``'s word ``token`` is refused now, or None (pure)."""
        if seat not in self.words_due():
            return f"P{seat} owes no word now"
        if token not in (ow.YES, ow.NO):
            return f"{token!r} is no word (Word:yes or Word:no)"
        return None

    def play(self, seat: int, position: int, zone: str, card: int | None = None) -> SeatOp:
        reason = self.check_play(seat, position, zone, card)
        if reason is not None:
            raise IllegalMove(reason)
        slot = -1 if zone == DISCARDS else _SLOTS[zone]

        def make() -> int:  # from the position: the words may relabel its card meanwhile
            label = self._labels[position]
            return mv.discard_move(label) if slot < 0 else mv.play_move(label, slot)

        self._apply(make)
        self.log[0].append(TableMove(PLAY, seat, zone=zone, position=position))
        return SeatOp("play", seat=seat, zone=zone)

    def move(self, seat: int, value: GameMove) -> None:
        reason = self.check_move(seat, value)
        if reason is not None:
            raise IllegalMove(reason)
        kind = _own(value)
        move = kind.id
        self.log[0].append(TableMove(MOVE, seat, value, value.token()))
        if kind.kind == mv.KIND_RITUAL:
            self._ritual = kind.slot
            self._due.append(SeatOp("reveal", zone=slot_zone(kind.slot)))
        elif kind.kind == mv.KIND_DRAW:
            self._apply(lambda: move)
            drew = self.world.hands[seat][-1]
            deck = GEMS_DECK if kind.source == "gem" else reserve(seat)
            self._take(drew, SeatOp("deal", deck=deck, seat=seat))
        else:
            self._apply(lambda: move)

    # ------------------------------------------------------------------ the owners' word
    def words_due(self) -> tuple[int, ...]:
        """The seats whose word the game waits for (:mod:`.hidden`), in seat order."""
        if self._resume is None:
            return ()
        return tuple(q for q in self._askers if q not in self._words)

    def words_asked(self) -> tuple[int, ...]:
        """Every seat asked for its word while any word is still due (the table's step)."""
        return self._askers if self._resume is not None else ()

    def own_word(self) -> str | None:
        """This seat's word if it owes one (from its own face-down gems)."""
        return self.word_of(self.seat)

    def word_of(self, seat: int) -> str | None:
        """The word ``seat`` owes, as this copy's world says (true for its own face-down gems,
        and for anyone's once every card is known, as to an auditor)."""
        if seat not in self.words_due():
            return None
        yes = self._claim(seat, True)  # judged as the final reveal will judge it
        return ow.YES if yes.true_of(dict(enumerate(self._labels))) else ow.NO

    def _claim(self, seat: int, said: bool) -> WordClaim:
        """``seat``'s word ``said`` in this word round, about the gems it was asked for."""
        return WordClaim(self._word_round, seat, said, self._asked_gems[seat])

    def word(self, seat: int, token: str) -> None:
        """``seat``'s signed word; the move waiting for the words goes on once all are in, or,
        if they fit no arrangement of the gems hidden from this seat, the copy stops there."""
        reason = self.check_word(seat, token)
        if reason is not None:
            raise IllegalMove(reason)
        claim = dataclasses.replace(self._claim(seat, token == ow.YES), taken=self.taken)
        self._words[seat] = token == ow.YES
        if not self.words_due():
            try:
                self._words_in()
            except BaseException:
                del self._words[seat]  # not taken: the copy as it was (up to the words' fit)
                raise
        # Recorded only once taken: the log holds no word the copy could not go on from.
        self.claims.append(claim)
        self.log[0].append(TableMove(WORD, seat, token=token))

    def _words_in(self) -> None:
        """Every word is in: the move waiting for them goes on, or (they fit no arrangement of
        the gems hidden from this seat) the copy stops there."""
        make, then = self._resume or (lambda: 0, lambda: None)
        trial = clone(self.world)
        trial.play(make())
        fit = ow.fit_words(trial, self._known, self.seat, self._words)
        self._resume, self._trial = None, None
        if fit is None:
            self.words_contradicted = True
            return
        self._relabel(lambda c: fit.get(c, c))
        self.world.play(make())
        then()

    def breaches(self, cards: Mapping[int, int]) -> list[tuple[int, int, str]]:
        """(seat, where the word lies among the moves and words taken, reason) of every word
        that ``cards`` (each position's card, as the final reveal shows them) contradict, by
        word round, then seat: every seat's copy names the same first."""
        false = sorted((c for c in self.claims if not c.true_of(cards)), key=_word_order)
        return [
            (
                c.seat,
                c.taken,
                f"P{c.seat}'s owners' word in word round {c.round + 1} is false "
                "(the final reveal shows its face-down gems)",
            )
            for c in false
        ]

    # ------------------------------------------------------------------ inside
    def _setup_ops(self) -> list[SeatOp]:
        s, n = self.world.setup, self.world.players
        ops = [
            SeatOp("shuffle", deck=SUPPLY, cards=PLACES),
            SeatOp("shuffle", deck=GEMS_DECK, cards=GEMS),
        ]
        ops += [SeatOp("shuffle", deck=reserve(q), cards=servants_of(q)) for q in range(n)]
        for k in range(ROW_SLOTS):
            self._take(s.places[k], None)
            ops.append(SeatOp("turn", deck=SUPPLY, zone=f"row:{k}"))
        for q in range(n):
            for card in s.gems[START_GEMS * q : START_GEMS * (q + 1)]:
                self._take(card, None)
                ops.append(SeatOp("deal", deck=GEMS_DECK, seat=q))
        for q in range(n):
            for card in s.reserves[q][:START_SERVANTS]:
                self._take(card, None)
                ops.append(SeatOp("deal", deck=reserve(q), seat=q))
        return ops

    def _take(self, card: int, op: SeatOp | None) -> None:
        self._labels.append(card)
        if op is not None:
            self._due.append(op)

    def _where(self, card: int) -> int:
        """The last position that took ``card`` (a returned servant is dealt again later)."""
        return len(self._labels) - 1 - self._labels[::-1].index(card)

    def _apply(self, make: Callable[[], int], then: Callable[[], None] = lambda: None) -> None:
        """Play ``make()`` on the world, then ``then``; first the owners' word, if the move
        leaves the end to face-down gems (a ritual or the move that first does so asks)."""
        move = make()
        reason = self.world.check(move)
        if reason is not None:  # a refusal the table blames on the mover
            raise IllegalMove(reason)
        trial = clone(self.world)
        trial.play(move)
        ritual = mv.decode(move).kind == mv.KIND_RITUAL
        if ow.asks(trial) and (ritual or not ow.asks(self.world)):
            self._resume, self._trial = (make, then), trial
            self._askers, self._words = ow.owners(trial), {}
            self._word_round += 1
            self._asked_gems = {q: self._gems_of(trial, q) for q in self._askers}
            return
        self.world.play(move)
        then()

    def _gems_of(self, game: Game2004, seat: int) -> tuple[tuple[int, int], ...]:
        """``seat``'s face-down gems on the places of ``game``: (position, the place's kind)."""
        return tuple(
            (self._where(g), place_kind(p.place))
            for p in game.row
            if p is not None
            for s, g in p.gems
            if s == seat
        )

    def _go_on_with_ritual(self) -> None:
        slot = self._ritual
        assert slot is not None
        place = self.world.row[slot]
        assert place is not None
        if any(c not in self._known for c in [*(g for _, g in place.gems), *place.servants]):
            return  # the reveal has not opened everything yet
        if self._turned is None:
            trial = clone(self.world)
            trial.play(mv.ritual_move(slot))
            done = next(r for r in reversed(trial.log) if isinstance(r, RitualDone))
            self._returned = done.returned
            for servant in done.returned:
                deck, where = reserve(servant_owner(servant)), self._where(servant)
                self._gone.add(where)
                self._due.append(SeatOp("return", deck=deck, position=where))
            if done.turned is not None:
                self._turned = done.turned
                self._take(done.turned, SeatOp("turn", deck=SUPPLY, zone=f"row:{slot}"))
                return
        elif self._turned not in self._known:
            return  # the turn has not opened the new place yet
        self._ritual, self._turned = None, None
        self._apply(lambda: mv.ritual_move(slot), self._after_ritual)

    def _after_ritual(self) -> None:
        self._known.difference_update(self._returned)  # in a reserve again, none knows where
        self._returned = ()
        while self.world.pending_reshuffle is not None:
            due = self.world.pending_reshuffle
            self._due.append(SeatOp("shuffle", deck=reserve(due)))
            self.world.shuffle_reserve(list(reversed(self.world.reserves[due])))

    def _swap(self, a: int, b: int) -> None:
        """Exchange cards ``a`` and ``b`` everywhere in the world (both hidden from this seat)."""
        self._relabel(lambda c: b if c == a else a if c == b else c)

    def _relabel(self, f: Callable[[int], int]) -> None:
        """Rename cards everywhere in the world by ``f``, a permutation of cards hidden from
        this seat (which therefore changes nothing it saw)."""
        w = self.world
        w.hands = [[f(c) for c in h] for h in w.hands]
        w.pile, w.supply = [f(c) for c in w.pile], [f(c) for c in w.supply]
        w.reserves = [[f(c) for c in r] for r in w.reserves]
        w.discards = [(s, f(c)) for s, c in w.discards]
        for p in w.row:
            if p is not None:
                p.place = f(p.place)
                p.gems = [(s, f(g)) for s, g in p.gems]
                p.servants = [f(c) for c in p.servants]
        self._labels = [c if i in self._gone else f(c) for i, c in enumerate(self._labels)]
        if self._turned is not None:
            self._turned = f(self._turned)


def _own(move: GameMove) -> mv.Move:
    """One of this game's moves (TypeError for another game's)."""
    if not isinstance(move, mv.Move):
        raise TypeError(f"druids2004 plays its own Move, not {type(move).__name__}")
    return move
