"""One seat's copy of a Druids (2017) game at the mental card table: its own hand, no more. It runs
the engine's hidden round, so every copy enforces what public cards decide; who holds Gaia (the
owners' words) and follow-suit are judged at the final reveal (:meth:`breaches`). The schedule and
the judgement are protocol.md §11.2's; the onlooker holds no hand and replays for the audit.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from druids_p2p.games.druids2017.cards import (
    GAIA,
    MISTLETOES,
    N_CARDS,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_VALUES,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    card_domain,
    is_gaia_move,
    is_pile_move,
)
from druids_p2p.games.druids2017.game import (
    NO,
    TRICK,
    YES,
    Claim,
    GaiaWord,
    Game,
    GameOptions,
    Revoke,
    SeatOp,
    gaia_zone,
    round_ops,
    zone_move,
)
from druids_p2p.games.druids2017.notation import MOVES, Move, format_card
from druids_p2p.games.druids2017.rules import Round
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.seam import MOVE, PLAY, WORD, GameMove, IllegalMove, TableMove

ONLOOKER = -1
"""The seat of a copy that holds no hand (an auditor's)."""


class TableSeat2017:
    """``seat``'s copy of a game with ``options`` (the seam's ``CardTableSeat``)."""

    def __init__(self, options: GameOptions, seat: int, rng: random.Random | None = None) -> None:
        """``rng`` is the seam's, unused: this copy never guesses a hidden card. ``seat`` may be
        :data:`ONLOOKER`: a copy that holds no hand."""
        if seat != ONLOOKER and not 0 <= seat < options.players:
            raise ValueError(f"no seat {seat} at a {options.players}-player table")
        self.seat = seat
        self.game = Game(options)
        self._n = options.players
        self._seats = tuple(range(self._n))
        self._h = options.hand_size
        self._rounds_dealt = 0
        """Rounds whose deal has been scheduled (the last is the one asked for or played)."""
        self._finals = 0
        """Rounds whose final reveal has been scheduled."""
        self._due: list[SeatOp] = []
        self._cards: dict[int, int] = {}
        """Each position of this round's table with its card as this copy knows it: its own
        deals, every show."""
        self._where: dict[int, int] = {}
        """card -> the position of this round known to hold it."""
        self._hands: list[list[int]] = [[] for _ in range(options.players)]
        """Each seat's positions of this round not yet shown, in position order."""
        self._words: dict[int, bool] = {}
        self._word_taken: dict[int, int] = {}
        self._asking = False
        self._gaia_at: int | None = None
        """The position holding Gaia this round, by the words (not yet shown)."""
        self.claims: list[Claim] = []
        """This round's Gaia words and off-domain plays, in play order, for :meth:`breaches`."""
        self.log: list[list[TableMove]] = []
        """Every round's moves and words as this copy took them (the seam's ``log``)."""
        self.words_contradicted = False
        """The Gaia words fit no deal this copy can see: one is false, and it goes no further."""
        self._schedule_round()

    @property
    def taken(self) -> int:
        """The moves and words this copy took this round (each play, move and word counts one)."""
        return len(self.log[-1])

    # ------------------------------------------------------------------ progress
    @property
    def to_move(self) -> int | None:
        if self._due or self._asking or self.words_contradicted:
            return None
        rounds = self.game.rounds  # (the game's to_move inline: asked on every message)
        return rounds[-1].to_move if rounds else None

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
        """How the last round ended (its scores' reason), once it has."""
        return self.game.round_ended_by

    def view(self, seat: int) -> PlayerView:
        return self.game.view(seat)

    def legal_moves(self) -> list[int]:
        return self.game.legal_moves() if self.to_move == self.seat else []

    # ------------------------------------------------------------------ the schedule
    def ops(self) -> list[SeatOp]:
        """A round over: its table's final reveal; asked again once that is done (the next
        round's table is a new one), the next round's deal."""
        idle = not (self._due or self._asking or self.words_contradicted)
        if idle and self.game.round_over and self._rounds_dealt == len(self.game.rounds):
            if self._finals < self._rounds_dealt:
                self._finals += 1
                self._due.append(SeatOp("final"))
            elif not self.game.game_over:
                self._schedule_round()
        due, self._due = self._due, []
        return due

    @property
    def round_scores(self) -> list[list[int]]:
        """Every ended round's scores."""
        return self.game.round_scores

    def learn(self, position: int, card: int) -> None:
        """The table opened ``position`` to this seat as ``card`` (its own deal, or any card to
        an auditor's copy); ValueError if that cannot be."""
        per_round = self._n * self._h
        if not 0 <= position < per_round or not self._rounds_dealt:
            raise ValueError(f"no position {position} has been dealt")
        if not 0 <= card < N_CARDS:
            raise ValueError(f"no card has id {card}")
        known = self._cards.get(position)
        if known is not None:
            if known != card:
                raise ValueError(
                    f"position {position} holds {format_card(known)}, not {format_card(card)}"
                )
            return
        if card == GAIA and position >= self._n:
            raise ValueError(f"position {position} was dealt from deck, which holds no Gaia")
        where = self._where.get(card)
        if where is not None:
            raise ValueError(f"{format_card(card)} is known to lie elsewhere ({where}), not here")
        self._know(position, card)
        self._settle()

    # ------------------------------------------------------------------ the owners' word
    def words_asked(self) -> tuple[int, ...]:
        """Every seat, once the round's deal is out, while any Gaia word is due."""
        asked = self._asking and not self._due and len(self._words) < self._n
        return self._seats if asked else ()

    def words_due(self) -> tuple[int, ...]:
        if not self._asking or self._due or len(self._words) >= self._n:
            return ()  # (asked on every message at a table: mostly none; words_asked inline)
        return tuple([s for s in self._seats if s not in self._words])

    def own_word(self) -> str | None:
        return self.word_of(self.seat)

    def word_of(self, seat: int) -> str | None:
        """The word ``seat`` owes, from its ``lead`` card if this copy knows it (its own)."""
        if seat in self._words or seat not in self.words_asked():
            return None
        card = self._cards.get(seat)
        return None if card is None else YES if card == GAIA else NO

    def check_word(self, seat: int, token: str) -> str | None:
        if seat not in self.words_due():
            return f"P{seat} owes no word now"
        if token not in (YES, NO):
            return f"{token!r} is no word ({YES} or {NO})"
        return None

    def word(self, seat: int, token: str) -> None:
        reason = self.check_word(seat, token)
        if reason is not None:
            raise IllegalMove(reason)
        self._words[seat] = token == YES
        self._word_taken[seat] = self.taken
        self._settle()
        self.log[-1].append(TableMove(WORD, seat, token=token))  # recorded once taken

    def breaches(self, cards: Mapping[int, int]) -> list[tuple[int, int, str]]:
        """(seat, where it lies among the moves and words taken, reason) of every false Gaia
        word and every revoke of this round that ``cards`` (each position's card, from its
        final reveal) show: the words in seat order, then the plays in play order, the same on
        every copy."""
        found = ((c.seat, c.taken, c.reason(cards)) for c in self.claims)
        return [(seat, taken, reason) for seat, taken, reason in found if reason is not None]

    # ------------------------------------------------------------------ moves
    def table_move(self, value: GameMove) -> tuple[int, str] | None:
        """(card, zone) a card move of this seat shows; None for a Sickle pile choice. A card
        this seat does not hold is refused here (IllegalMove) with the rules' own reason when
        they have one (a player is told what the rules say: "… must lead Gaia first")."""
        move = _own(value)
        if is_pile_move(move):
            return None
        if move < N_DOMAIN_CARDS:
            return self._held(move, move, TRICK)
        if is_gaia_move(move):
            return self._held(move, GAIA, gaia_zone(move))
        if move in (PLAY_MISTLETOE, PLAY_SICKLE):
            rnd = self._round()
            copies = rnd.mistletoes if move == PLAY_MISTLETOE else rnd.sickles
            if copies[self.seat]:
                return copies[self.seat][-1], TRICK  # the copy the engine plays
            name = "Mistletoe" if move == PLAY_MISTLETOE else "Sickle"
            raise IllegalMove(rnd.check(move) or f"this seat holds no {name}")
        raise ValueError(f"move {move} puts no card on the table")

    def _held(self, move: int, card: int, zone: str) -> tuple[int, str]:
        """(card, zone) if this seat holds ``card``; else IllegalMove with the reason the rules
        give for ``move`` (asked only then: a legal move is checked once, by its show)."""
        if any(self._cards.get(p) == card for p in self._hand(self.seat)):
            return card, zone
        raise IllegalMove(self._round().check(move) or f"card {card} is not in this seat's hand")

    def shown_move(self, card: int, zone: str) -> Move:
        """The move that shows ``card`` into ``zone`` (ValueError, its reason, if none)."""
        return MOVES[zone_move(card, zone)]

    def position_of(self, card: int) -> int:
        if self.seat == ONLOOKER:
            raise ValueError("an onlooker holds no hand")
        for p in self._hand(self.seat):
            if self._cards.get(p) == card:
                return p
        raise ValueError(f"card {card} is not in this seat's hand")

    def check_play(
        self, seat: int, position: int, zone: str, card: int | None = None
    ) -> str | None:
        """Why ``seat`` may not show ``position`` (as ``card``, which another seat's show
        claims) into ``zone`` now, or None. Pure: a hidden seat's card enters the engine only
        for the check and leaves it again."""
        try:
            self._judge(seat, position, zone, card)
        except IllegalMove as exc:
            return exc.reason
        return None

    def play(self, seat: int, position: int, zone: str, card: int | None = None) -> SeatOp:
        """``seat`` shows ``position`` into ``zone``; the table's ``show`` operation. It checks
        itself, once: the engine's ``play`` refuses what the rules refuse (IllegalMove, the copy
        unchanged), as :meth:`check_play` would."""
        shown, move = self._shown(seat, position, zone, card)
        rnd = self._round()
        hidden = seat != self.seat and shown != GAIA  # its card enters the engine as it is shown
        if hidden:
            try:
                rnd.reveal(seat, shown)
            except ValueError as exc:
                raise IllegalMove(str(exc)) from None
        led, trick = rnd.lead_domain, len(rnd.tricks)
        for copies in (rnd.mistletoes[seat], rnd.sickles[seat]):
            if shown in copies:  # the engine plays the last copy: make it this one
                copies.remove(shown)
                copies.append(shown)
        try:
            rnd.play(move)
        except IllegalMove:
            if hidden:
                _unreveal(rnd, seat, shown)
            raise
        if led >= 0 and card_domain(shown) not in (-1, led):  # judged at the final reveal
            held = tuple([p for p in self._hand(seat) if p != position])
            r = len(self.game.rounds) - 1
            self.claims.append(Revoke(r, trick, seat, shown, led, held, self.taken))
        self._hands[seat].remove(position)
        self.log[-1].append(TableMove(PLAY, seat, zone=zone, position=position, card=shown))
        if position not in self._cards:
            self._know(position, shown)
        return SeatOp("show", seat=seat, zone=zone)

    def check_move(self, seat: int, move: GameMove) -> str | None:
        """Why ``seat``'s public move (a Sickle pile choice) is refused now, or None (pure)."""
        if self.to_move != seat:
            return f"it is not P{seat}'s move"
        if not is_pile_move(_own(move)):
            return (
                f"{move.token()}: a card leaves a hand only by a show of its position into a zone"
            )
        return self._round().check(move.id)

    def move(self, seat: int, move: GameMove) -> None:
        reason = self.check_move(seat, move)
        if reason is not None:
            raise IllegalMove(reason)
        self._round().play(move.id)
        self.log[-1].append(TableMove(MOVE, seat, move, move.token()))

    # ------------------------------------------------------------------ inside
    def _schedule_round(self) -> None:
        """The next round, at a new card table: positions from 0, nothing known yet."""
        self._due += round_ops(self._n)
        self._rounds_dealt += 1
        self._asking, self._words, self._gaia_at = True, {}, None
        self._cards, self._where = {}, {}
        n, h = self._n, self._h
        self._hands = [[s + k * n for k in range(h)] for s in range(n)]
        self._word_taken, self.claims = {}, []
        self.log.append([])

    def _know(self, position: int, card: int) -> None:
        self._cards[position] = card
        self._where[card] = position

    def _round(self) -> Round:
        rnd = self.game.round
        if rnd is None:
            raise IllegalMove("no round has been dealt")
        return rnd

    def _hand(self, seat: int) -> list[int]:
        """``seat``'s positions of this round not yet shown (the list itself: read only)."""
        return self._hands[seat]

    def _settle(self) -> None:
        """Once every word is in and this seat's hand is known: who holds Gaia, or stop."""
        n = self._n
        own = [] if self.seat == ONLOOKER else [self.seat + k * n for k in range(self._h)]
        if not self._asking or len(self._words) < n or any(p not in self._cards for p in own):
            return
        self._asking = False
        r = self._rounds_dealt - 1
        self.claims += [GaiaWord(r, s, self._words[s], s, self._word_taken[s]) for s in range(n)]
        yes = [s for s in range(n) if self._words[s]]
        known = {s: self._cards[s] for s in range(n) if s in self._cards}
        if len(yes) != 1 or any((c == GAIA) != (s == yes[0]) for s, c in known.items()):
            self.words_contradicted = True
            return
        self._gaia_at = yes[0]
        seat = None if self.seat == ONLOOKER else self.seat
        self.game.start_hidden_round(seat, [self._cards[p] for p in own])
        if yes[0] != self.seat:
            self.game.reveal(yes[0], GAIA)

    def _judge(self, seat: int, position: int, zone: str, claimed: int | None) -> tuple[int, int]:
        """(card, move) of ``seat``'s show of ``position`` into ``zone``; IllegalMove if not."""
        card, move = self._shown(seat, position, zone, claimed)
        reason = self._engine_check(seat, card, move)
        if reason is not None:
            raise IllegalMove(reason)
        return card, move

    def _shown(self, seat: int, position: int, zone: str, claimed: int | None) -> tuple[int, int]:
        """(card, move) of ``seat``'s show of ``position`` into ``zone``, before the engine's
        verdict (IllegalMove if the show itself is wrong: out of turn, not its card...)."""
        if self.to_move != seat:
            raise IllegalMove(f"it is not P{seat}'s move")
        if position not in self._hand(seat):
            raise IllegalMove(f"P{seat} played position {position}, which is not in its hand")
        card = self._card_at(seat, position, claimed)
        return card, zone_move(card, zone)

    def _card_at(self, seat: int, position: int, claimed: int | None) -> int:
        """The card ``seat`` shows at ``position``: the one this copy knows there (its own, or
        Gaia by the words), else the one claimed, if it may lie there."""
        known = self._cards.get(position)
        if known is None and position == self._gaia_at:
            known = GAIA
        if known is not None:
            if claimed is not None and claimed != known:
                raise IllegalMove(
                    f"P{seat} shows {_name(claimed)} at position {position}, "
                    f"which holds {format_card(known)}"
                )
            return known
        if claimed is None:
            raise IllegalMove(f"P{seat}'s card at position {position} must be shown face up")
        if not 0 <= claimed < N_CARDS:
            raise IllegalMove(f"P{seat} shows card {claimed}, which does not exist")
        if claimed == GAIA:
            raise IllegalMove(f"Gaia lies at position {self._gaia_at} by the words, not {position}")
        where = self._where.get(claimed)
        if where is not None:
            raise IllegalMove(
                f"P{seat} shows {format_card(claimed)} at position {position}, "
                f"but it lies at position {where}"
            )
        return claimed

    def _engine_check(self, seat: int, card: int, move: int) -> str | None:
        """The engine's verdict on ``move``; a hidden seat's ``card`` is in its hand meanwhile."""
        rnd = self._round()
        if seat == self.seat or card == GAIA:  # a hand the engine knows, or Gaia by the words
            return rnd.check(move)
        try:
            rnd.reveal(seat, card)
        except ValueError as exc:
            return str(exc)
        try:
            return rnd.check(move)
        finally:
            _unreveal(rnd, seat, card)


def _own(move: GameMove) -> int:
    """The id of one of this game's moves (TypeError for another game's)."""
    if not isinstance(move, Move):
        raise TypeError(f"druids2017 plays its own Move, not {type(move).__name__}")
    return move.id


def _unreveal(rnd: Round, seat: int, card: int) -> None:
    """Undo :meth:`Round.reveal` of a card that was not played (what keeps a check pure)."""
    if card < N_DOMAIN_CARDS:
        rnd.hands[seat * N_DOMAINS + card // N_VALUES] &= ~(1 << card % N_VALUES)
    else:
        (rnd.mistletoes if card in MISTLETOES else rnd.sickles)[seat].remove(card)


def _name(card: int) -> str:
    return format_card(card) if 0 <= card < N_CARDS else f"card {card}"


__all__ = ["ONLOOKER", "SeatOp", "TableSeat2017"]
