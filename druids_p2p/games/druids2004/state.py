"""A game of Druids (2004) as a state machine (docs/rules-2004.md): verify, can, do, as python-chess
and pokerkit do (:meth:`Game2004.check`, :meth:`legal_moves`, :meth:`play`, one frozen record a
move). No I/O, no clock; a reshuffle's order is handed in, and nobody moves while one is due.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import (
    HAND_LIMIT,
    MAX_PLAYERS,
    ROW_SLOTS,
    START_GEMS,
    PlaceSlot,
    format_card,
    gem_kind,
    is_gem,
    is_servant,
    move_pawn,
    place_kind,
    servant_owner,
    servant_value,
    servants_of,
)
from druids_p2p.games.druids2004.setup import (
    ENDED_COLUMN,
    ENDED_NOTHING_LEFT,
    ENDED_ROW,
    ENDED_STALL,
    Discarded,
    Drew,
    GameEnded,
    Options,
    Played,
    Record,
    Reshuffled,
    RitualDone,
    Setup,
    Share,
    Stopped,
    TurnEnded,
    shares,
    starting_hands,
    take_reasons,
    taking_order,
    tie_first,
    tied_with,
    validate_setup,
)
from druids_p2p.games.druids2004.view import HIDDEN, PlaceView, SeatView
from druids_p2p.games.seam import IllegalMove


def plays_required(hand: Sequence[int]) -> int:
    """Cards a turn must play: 2 (a gem and a servant, or two gems), else 1, else 0."""
    gems = sum(1 for c in hand if is_gem(c))
    if gems >= 2 or (gems == 1 and len(hand) >= 2):
        return 2
    return 1 if hand else 0


class Game2004:
    """The whole game. Piles are lists with the top card last (internal); orders outside are
    always top first."""

    def __init__(self, setup: Setup, options: Options | None = None) -> None:
        self.options = options or Options(players=setup.players)
        n = self.options.players
        validate_setup(setup, n)
        self.setup = setup
        self.hands: list[list[int]] = starting_hands(setup)
        self.pile: list[int] = list(reversed(setup.gems[START_GEMS * n :]))
        self.row: list[PlaceSlot | None] = [PlaceSlot(p) for p in setup.places[:ROW_SLOTS]]
        self.supply: list[int] = list(reversed(setup.places[ROW_SLOTS:]))
        self.reserves: list[list[int]] = [list(reversed(r[3:])) for r in setup.reserves]
        self.discards: list[tuple[int, int]] = []
        self.out: list[int] = []
        """Revealed cards out of the game: other gems, places after their ritual, and servants
        when they do not return."""
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.box: tuple[int, ...] = tuple(c for s in range(n, MAX_PLAYERS) for c in servants_of(s))
        self.scores: list[int] = [0] * n
        self.base = 0
        self.log: list[Record] = []
        self.pending: list[int] = []
        self.ended_by: str | None = None
        self.winners_: tuple[int, ...] | None = None
        self.idle_turns = 0
        self.turn = 0
        self.seat = setup.start
        self._begin_turn()

    # ------------------------------------------------------------------ state
    @property
    def players(self) -> int:
        return self.options.players

    @property
    def game_over(self) -> bool:
        return self.ended_by is not None

    @property
    def to_move(self) -> int | None:
        """The seat that decides next; None when the game is over or a reshuffle is due."""
        return None if self.ended_by is not None or self.pending else self.seat

    @property
    def pending_reshuffle(self) -> int | None:
        """The seat whose reserve must get a new order before play goes on."""
        return self.pending[0] if self.pending and self.ended_by is None else None

    @property
    def totals(self) -> list[int]:
        return list(self.scores)

    @property
    def winners(self) -> list[int] | None:
        return None if self.winners_ is None else list(self.winners_)

    @property
    def plays_left(self) -> int:
        return self.plays_needed - self.plays_made

    def _begin_turn(self) -> None:
        self.ritual_done = False
        self.plays_needed = plays_required(self.hands[self.seat])
        self.plays_made = 0
        self.servant_played = False
        self.discarded = False
        self.drawn = False
        self.active = False
        self._auto_end()

    def _may_ritual(self) -> bool:
        return not (self.ritual_done or self.plays_made or self.drawn)

    def ritual_reason(self, slot: int) -> str | None:
        """Why the place in ``slot`` cannot take a ritual now (None: it can). Reasons number the
        places 1–6, as every screen and the typed moves do (the notation's slots are 0–5)."""
        if self.ritual_done:
            return "only one ritual a turn"
        if self.plays_made or self.drawn:
            return "a ritual is announced before playing a card"
        place = self.row[slot]
        if place is None:
            return f"place {slot + 1} is empty"
        name = f"place {slot + 1} ({format_card(place.place)})"
        if place.size < 3:
            return f"{name} holds {place.size} card(s); a ritual needs at least 3"
        if not place.servants:
            return f"{name} holds no servant; a ritual needs one"
        return None

    def _ritual_ok(self, slot: int) -> bool:
        place = self.row[slot]
        return place is not None and bool(place.servants) and place.size >= 3

    def _draw_ok(self, hand: list[int]) -> bool:
        return len(hand) < HAND_LIMIT and bool(self.pile or self.reserves[self.seat])

    def _auto_end(self) -> None:
        """End the turn when ``Stop`` would be the only legal move (bounded by the stall end)."""
        while self.ended_by is None and not self.pending and self.plays_left == 0:
            hand = self.hands[self.seat]
            if self._draw_ok(hand):
                return
            if not (self.discarded or self.drawn) and any(is_gem(c) for c in hand):
                return
            if self._may_ritual() and any(self.ritual_reason(s) is None for s in range(ROW_SLOTS)):
                return
            self._end_turn()

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now (:mod:`.view`); ValueError for a seat not at the table."""
        n = self.players
        if not 0 <= seat < n:
            raise ValueError(f"no seat {seat} at a {n}-player table")
        row: list[PlaceView | None] = []
        for slot in self.row:
            if slot is None:
                row.append(None)
                continue
            gems = tuple((s, g if s == seat else HIDDEN) for s, g in slot.gems)
            servants = tuple(
                (servant_owner(c), c if servant_owner(c) == seat else HIDDEN) for c in slot.servants
            )
            row.append(PlaceView(slot.place, gems, servants))
        to_move = self.to_move
        return SeatView(
            seat=seat,
            players=n,
            start=self.setup.start,
            turn_seat=self.seat,
            to_move=to_move,
            legal=tuple(self.legal_moves()) if to_move == seat else (),
            hand=tuple(sorted(self.hands[seat])),
            hand_sizes=tuple(len(h) for h in self.hands),
            hand_gems=tuple(sum(1 for c in h if is_gem(c)) for h in self.hands),
            reserve_sizes=tuple(len(r) for r in self.reserves),
            pile_size=len(self.pile),
            supply_size=len(self.supply),
            row=tuple(row),
            scores=tuple(self.scores),
            base=self.base,
            my_discards=tuple(c for s, c in self.discards if s == seat),
            discard_counts=tuple(sum(1 for s, _ in self.discards if s == q) for q in range(n)),
            rituals=tuple(r for r in self.log if isinstance(r, RitualDone)),
            plays_left=self.plays_left,
            plays_made=self.plays_made,
            turn_active=self.active,
            ritual_done=self.ritual_done,
            servant_played=self.servant_played,
            discarded=self.discarded,
            drawn=self.drawn,
            idle_turns=self.idle_turns,
            pending_reshuffle=self.pending_reshuffle,
            game_over=self.game_over,
            ended_by=self.ended_by,
            winners=self.winners_,
        )

    # ------------------------------------------------------------------ moves
    def legal_moves(self) -> list[int]:
        if self.to_move is None:
            return []
        out: list[int] = []
        hand = self.hands[self.seat]
        if self._may_ritual():
            out.extend(mv.RITUAL + s for s in range(ROW_SLOTS) if self._ritual_ok(s))
        if self.plays_left:
            slots = [s for s in range(ROW_SLOTS) if self.row[s] is not None]
            for card in hand:
                if is_servant(card) and self.servant_played:
                    continue
                out.extend(mv.play_move(card, s) for s in slots)
        else:
            if not (self.discarded or self.drawn):
                out.extend(mv.DISCARD + c for c in hand if is_gem(c))
            if len(hand) < HAND_LIMIT:
                if self.pile:
                    out.append(mv.DRAW_GEM)
                if self.reserves[self.seat]:
                    out.append(mv.DRAW_SERVANT)
            out.append(mv.STOP)
        out.sort()
        return out

    def check(self, move: int) -> str | None:
        """None if ``move`` is legal now, else the precise reason it is not."""
        if self.ended_by is not None:
            return "the game is over"
        if self.pending:
            return f"seat {self.pending[0]}'s reserve must be reshuffled first"
        try:
            m = mv.decode(move)
        except ValueError as exc:
            return str(exc)
        seat, hand = self.seat, self.hands[self.seat]
        who = f"P{seat}"
        if m.kind == mv.KIND_RITUAL:
            return self.ritual_reason(m.slot)
        if m.kind == mv.KIND_PLAY:
            if not (is_gem(m.card) or is_servant(m.card)):
                return f"{format_card(m.card)} is a place card; places are never played"
            if self.plays_needed == 0:
                return f"{who} has no card to play"
            if not self.plays_left:
                return f"{who} has played its {self.plays_needed} card(s) this turn"
            if m.card not in hand:
                return f"{format_card(m.card)} is not in {who}'s hand"
            if is_servant(m.card) and self.servant_played:
                return "never two servants in one turn"
            if self.row[m.slot] is None:
                return f"place {m.slot + 1} is empty"
            return None
        if self.plays_left:
            return f"{who} must first play {self.plays_left} more card(s)"
        if m.kind == mv.KIND_DISCARD:
            if self.discarded:
                return "only one discard a turn"
            if self.drawn:
                return "the discard comes before drawing"
            if m.card not in hand:
                return f"{format_card(m.card)} is not in {who}'s hand"
            return None
        if m.kind == mv.KIND_DRAW:
            if len(hand) >= HAND_LIMIT:
                return f"{who}'s hand holds {HAND_LIMIT} cards already"
            if m.source == "gem" and not self.pile:
                return "the gem pile is empty"
            if m.source == "servant" and not self.reserves[seat]:
                return f"{who}'s reserve is empty"
            return None
        return None  # Stop

    def play(self, move: int) -> None:
        """Apply a legal move; IllegalMove with the reason otherwise."""
        reason = self.check(move)
        if reason is not None:
            raise IllegalMove(reason)
        m = mv.decode(move)
        seat, hand = self.seat, self.hands[self.seat]
        if m.kind == mv.KIND_RITUAL:
            self._ritual(m.slot)
        elif m.kind == mv.KIND_PLAY:
            hand.remove(m.card)
            place = self.row[m.slot]
            assert place is not None
            if is_gem(m.card):
                place.gems.append((seat, m.card))
            else:
                place.servants.append(m.card)
                self.servant_played = True
            self.plays_made += 1
            self.active = True
            self.log.append(Played(seat, m.card, m.slot))
            self._nothing_left()
        elif m.kind == mv.KIND_DISCARD:
            hand.remove(m.card)
            self.discards.append((seat, m.card))
            self.discarded = True
            self.log.append(Discarded(seat, m.card))
            self._nothing_left()  # the last gem in any hand may just have gone
        elif m.kind == mv.KIND_DRAW:
            source = self.pile if m.source == "gem" else self.reserves[seat]
            card = source.pop()
            hand.append(card)
            self.drawn = True
            self.active = True
            self.log.append(Drew(seat, m.source, card))
        else:
            self.log.append(Stopped(seat))
            self._end_turn()
        self._auto_end()

    push = play
    """python-chess's name for :meth:`play`."""

    # ---------------------------------------------------------------- rituals
    def _ritual(self, slot: int) -> None:
        place = self.row[slot]
        assert place is not None
        n, opts = self.players, self.options
        kind = place_kind(place.place)
        amulets = [g for _, g in place.gems if gem_kind(g) == kind]
        others = [g for _, g in place.gems if gem_kind(g) != kind]
        first = tie_first(opts.tie_order, self.seat, self.setup.start, n)
        order = taking_order(place.servants, first, n)
        values = [servant_value(c) for c in order]
        takes = shares(values, len(amulets))
        whys = take_reasons(values, takes, len(amulets))
        ties = tied_with(order)
        self.out.extend(others)
        self.ritual_done = True
        self.active = True
        given, ended = 0, None
        done: list[Share] = []
        for servant, take, why, tied in zip(order, takes, whys, ties, strict=True):
            got = tuple(amulets[given : given + take])
            given += take
            owner = servant_owner(servant)
            pawn = move_pawn(self.scores, self.base, owner, take, opts.spaces_per_card)
            self.scores[owner], self.base = pawn.score, pawn.base
            self.won[owner].extend(got)
            done.append(Share(servant, owner, got, pawn.scored, why, tied, pawn.blocked_by))
            if pawn.ended:
                ended = ENDED_COLUMN
                break

        def record(returned: tuple[int, ...], turned: int | None, ended: str | None) -> RitualDone:
            return RitualDone(
                self.seat,
                slot,
                place.place,
                tuple(place.gems),
                tuple(place.servants),
                tuple(amulets),
                tuple(others),
                tuple(done),
                returned,
                turned,
                ended,
                opts.tie_order,
                first,
            )

        if ended is not None:  # nothing further happens: the rest stays on the place
            rest = set(amulets[given:])
            self.log.append(record((), None, ended))
            place.gems = [(s, g) for s, g in place.gems if g in rest]
            self._end(ended)
            return
        returned: tuple[int, ...] = ()
        if opts.servants_return:
            returned = tuple(place.servants)
            for servant in place.servants:
                self.reserves[servant_owner(servant)].append(servant)
        else:
            self.out.extend(place.servants)
        self.out.append(place.place)
        turned = self.supply.pop() if self.supply else None
        self.row[slot] = None if turned is None else PlaceSlot(turned)
        if sum(p is not None for p in self.row) + len(self.supply) <= 1:
            ended = ENDED_ROW
        elif self._nothing_left_now():
            ended = ENDED_NOTHING_LEFT
        self.log.append(record(returned, turned, ended))
        if ended is not None:
            self._end(ended)
            return
        self.pending = sorted({servant_owner(c) for c in returned})

    def shuffle_reserve(self, order: Sequence[int]) -> None:
        """Give the due reserve its new order (top first); IllegalMove if it is not one."""
        reason = self.check_reshuffle(order)
        if reason is not None:
            raise IllegalMove(reason)
        seat = self.pending.pop(0)
        self.reserves[seat] = list(reversed(order))
        self.log.append(Reshuffled(seat, tuple(order)))
        self._auto_end()

    def check_reshuffle(self, order: Sequence[int]) -> str | None:
        if self.ended_by is not None:
            return "the game is over"
        if not self.pending:
            return "no reserve is due to be reshuffled"
        seat = self.pending[0]
        if sorted(order) != sorted(self.reserves[seat]):
            return f"not an order of seat {seat}'s reserve ({len(self.reserves[seat])} servants)"
        return None

    def shuffle_reserve_random(self, rng: random.Random) -> None:
        """Reshuffle the due reserve with ``rng`` (a seeded game, a bot's sampled world)."""
        order = list(reversed(self.reserves[self.pending[0]]))
        rng.shuffle(order)
        self.shuffle_reserve(order)

    # ------------------------------------------------------------------- ends
    def _nothing_left_now(self) -> bool:
        if self.pile or any(is_gem(c) for hand in self.hands for c in hand):
            return False
        return not any(
            p is not None and any(gem_kind(g) == place_kind(p.place) for _, g in p.gems)
            for p in self.row
        )

    def _nothing_left(self) -> None:
        if self.ended_by is None and self._nothing_left_now():
            self._end(ENDED_NOTHING_LEFT)

    def _end_turn(self) -> None:
        self.log.append(TurnEnded(self.seat, self.active))
        self.idle_turns = 0 if self.active else self.idle_turns + 1
        if self.idle_turns >= self.players:
            self._end(ENDED_STALL)
            return
        self.seat = (self.seat + 1) % self.players
        self.turn += 1
        self._begin_turn()

    def _end(self, reason: str) -> None:
        self.ended_by = reason
        self.pending = []
        if reason == ENDED_COLUMN:
            last = self.log[-1]
            assert isinstance(last, RitualDone)
            self.winners_ = (last.shares[-1].owner,)
        else:
            best = max(self.scores)
            self.winners_ = tuple(s for s, v in enumerate(self.scores) if v == best)
        self.log.append(GameEnded(reason, self.winners_, tuple(self.scores)))
