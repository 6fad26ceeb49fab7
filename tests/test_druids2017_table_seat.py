"""Each seat's copy of a Druids 2017 game at the card table knows only its own hand, yet all agree.

An in-process oracle plays the card table's part: it follows the copies' operations as data
(decks are lists of card ids; shuffle, transfer and deals with a seeded random stream; each
round's final reveal closes its table, positions counting from 0 again after it),
opens each seat's deals to that seat's copy alone, asks the seats' words about Gaia and delivers
every move to every copy (a show with its card to the others, a public move by its token). The
copies must agree at every step, and end where the plain engine ends on the same deals and
moves. Cheats the copies cannot see at play time (a revoke, a false word about Gaia) are named by
``breaches`` at the round's final reveal, by every copy alike.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from druids_p2p.games.druids2017.cards import (
    DOMAINS,
    GAIA,
    GAIA_LIGHT,
    HAND_SIZE,
    N_CARDS,
    ROUNDS_PER_GAME,
    card_domain,
    is_gaia_move,
    move_for_card,
)
from druids_p2p.games.druids2017.game import Game, GameOptions
from druids_p2p.games.druids2017.notation import Move, format_card
from druids_p2p.games.druids2017.ruleset import DruidsRuleset
from druids_p2p.games.druids2017.table_seat import SeatOp, TableSeat2017
from druids_p2p.games.seam import CardTableRuleset, CardTableSeat, IllegalMove

YES, NO = "Word:yes", "Word:no"
MAX_STEPS = 5000
Lie = Callable[["Table", int, str], str]
"""(table, seat, its true word) -> the word it gives."""


def spec_round_ops(n: int) -> list[SeatOp]:
    """A round's operations as V2_SPEC.md §"Druids 2017 at the card table" lists them, ``lead``
    created as Gaia alone (deck.md §14.2: a shuffle of one card hides nothing)."""
    h = HAND_SIZE[n]
    ops = [SeatOp("shuffle", deck="deck", cards=tuple(c for c in range(N_CARDS) if c != GAIA))]
    ops.append(SeatOp("create", deck="lead", cards=(GAIA,)))
    ops += [SeatOp("transfer", deck="lead", source="deck") for _ in range(n - 1)]
    ops.append(SeatOp("shuffle", deck="lead"))
    ops.append(SeatOp("deals", deck="lead", seats=tuple(range(n))))
    ops.append(SeatOp("deals", deck="deck", seats=tuple(range(n)) * (h - 1)))
    return ops


def zone_of(move: int) -> str:
    if is_gaia_move(move):
        light = ":light" if move >= GAIA_LIGHT else ""
        return f"gaia:{DOMAINS[(move - 60) % 5]}{light}"
    return "trick"


class Table:
    """The card table as an oracle: real decks, every honest seat's copy, and the plain engine."""

    def __init__(
        self,
        players: int,
        seed: int,
        *,
        variant: bool = False,
        rounds: int = ROUNDS_PER_GAME,
        cheaters: Sequence[int] = (),
        lie: Lie | None = None,
    ) -> None:
        self.options = GameOptions(players=players, variant=variant, rounds=rounds)
        self.n = players
        self.rng = random.Random(seed)
        self.copies = {
            s: TableSeat2017(self.options, s, random.Random(seed * 10 + s))
            for s in range(players)
            if s not in cheaters
        }
        self.lie = lie
        self.truth: Game | None = Game(self.options) if not cheaters and lie is None else None
        self.decks: dict[str, list[int]] = {}
        self.cards: dict[int, int] = {}
        """Every position's card (positions numbered as cards leave decks)."""
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.leads: dict[int, int] = {}
        self.ops: list[SeatOp] = []
        self.deals: list[list[list[int]]] = []
        self.moves: list[list[int]] = []
        self.revokes: list[tuple[int, int]] = []
        """(seat, card) of every play off the led domain by a seat that held the led domain."""
        self.judged: list[dict[int, list[tuple[int, int, str]]]] = []
        """Each round's breaches as every copy judged them at its final reveal."""

    def one(self, ask: Callable[[TableSeat2017], Any]) -> Any:
        """What every copy says alike (the test fails if two copies differ)."""
        said = [ask(c) for c in self.copies.values()]
        assert all(s == said[0] for s in said), f"the copies disagree: {said}"
        return said[0]

    def agree(self) -> None:
        for ask in (
            lambda c: c.to_move,
            lambda c: c.totals,
            lambda c: c.game_over,
            lambda c: c.winners,
            lambda c: c.ended_by,
        ):
            self.one(ask)
        if self.truth is not None:
            assert self.one(lambda c: c.to_move) == self.truth.to_move
            assert self.one(lambda c: c.totals) == self.truth.totals

    @property
    def stopped(self) -> bool:
        return any(c.words_contradicted for c in self.copies.values())

    def run(self) -> None:
        """Run the operations and words until someone is to move (or nothing is due)."""
        for _ in range(MAX_STEPS):
            batch = self.one(lambda c: c.ops())
            asked = self.one(lambda c: c.words_asked())
            if batch:
                for op in batch:
                    self.execute(op)
                continue
            if asked:
                self.give_words()
                continue
            if not self.stopped:
                self.agree()
            return
        raise AssertionError("the schedule did not settle")

    def execute(self, op: SeatOp) -> None:
        self.ops.append(op)
        if op.kind == "final":  # the round's table is revealed and judged, then closed
            self.judged.append({s: c.breaches(self.cards) for s, c in self.copies.items()})
            self.decks, self.cards, self.leads = {}, {}, {}
            self.hands = [[] for _ in range(self.n)]
        elif op.kind == "shuffle":
            if op.cards:
                assert op.deck not in self.decks
                self.decks[op.deck] = list(op.cards)
            self.rng.shuffle(self.decks[op.deck])
        elif op.kind == "create":
            assert op.deck not in self.decks and op.cards
            self.decks[op.deck] = list(op.cards)
        elif op.kind == "transfer":
            assert op.source != op.deck and self.decks[op.source]
            self.decks[op.deck].append(self.decks[op.source].pop(0))
        elif op.kind == "deals":  # as many deals, one to each seat listed, in order
            for seat in op.seats:
                position, card = len(self.cards), self.decks[op.deck].pop(0)
                self.cards[position] = card
                self.hands[seat].append(position)
                if op.deck == "lead":
                    self.leads[seat] = position
                if seat in self.copies:
                    self.copies[seat].learn(position, card)
        else:
            raise AssertionError(f"no such operation {op}")

    def breaches(self, seat: int) -> list[tuple[int, int, str]]:
        """Every breach ``seat``'s copy named at the final reveals, round after round."""
        return [b for judged in self.judged for b in judged[seat]]

    def give_words(self) -> None:
        due = self.one(lambda c: c.words_due())
        assert due == tuple(range(self.n))
        words: dict[int, str] = {}
        for q in due:
            true = YES if self.cards[self.leads[q]] == GAIA else NO
            if q in self.copies:
                assert self.copies[q].own_word() == true
            words[q] = true if self.lie is None else self.lie(self, q, true)
        for copy in self.copies.values():
            order = list(words)
            self.rng.shuffle(order)  # the words reach each seat in its own order
            for q in order:
                assert copy.check_word(q, words[q]) is None
                copy.word(q, words[q])
        hands = [sorted(self.cards[p] for p in self.hands[q]) for q in range(self.n)]
        self.deals.append(hands)
        self.moves.append([])
        if self.truth is not None:
            self.truth.start_round(hands)

    def holder(self) -> int:
        return next(q for q, p in self.leads.items() if self.cards[p] == GAIA)

    def step(self) -> None:
        mover = self.one(lambda c: c.to_move)
        assert mover is not None
        if mover in self.copies:
            copy = self.copies[mover]
            legal = copy.legal_moves()
            if self.truth is not None:
                assert legal == self.truth.legal_moves()
            move = self.rng.choice(legal)
            placed = copy.table_move(Move.of(move))
            position = None if placed is None else copy.position_of(placed[0])
        else:
            move, placed, position = self.cheat(mover)
        if placed is None:
            value = Move.of(move)
            for copy in self.copies.values():
                assert copy.check_move(mover, value) is None
                copy.move(mover, value)
        else:
            card, zone = placed
            assert position is not None and self.cards[position] == card
            assert zone == zone_of(move)
            ops = set()
            for s, copy in self.copies.items():
                shown = None if s == mover else card
                assert copy.check_play(mover, position, zone, shown) is None
                ops.add(copy.play(mover, position, zone, shown))
            assert ops == {SeatOp("show", seat=mover, zone=zone)}
            self.ops.append(SeatOp("show", seat=mover, zone=zone))
            self.hands[mover].remove(position)
        self.moves[-1].append(move)
        if self.truth is not None:
            self.truth.play(move)
        self.agree()
        self.run()

    def cheat(self, mover: int) -> tuple[int, tuple[int, str] | None, int | None]:
        """A seat whose software lies: publicly legal, it revokes whenever it can."""
        rnd = next(iter(self.copies.values())).game.round
        assert rnd is not None
        if rnd.pending_sickles or not rnd.plays:  # a pile choice or the Gaia lead: public
            move = self.rng.choice(rnd.legal_moves())
            if is_gaia_move(move):
                return move, (GAIA, zone_of(move)), self.leads[mover]
            return move, None, None
        held = {p: self.cards[p] for p in self.hands[mover]}
        led = rnd.lead_domain
        on = [p for p, c in held.items() if card_domain(c) == led]
        off = [p for p, c in held.items() if card_domain(c) not in (-1, led)]
        if led >= 0 and on and off:
            position = self.rng.choice(off)
            self.revokes.append((mover, held[position]))
        else:
            position = self.rng.choice(sorted(held))
        card = held[position]
        return move_for_card(card), (card, "trick"), position

    def play_out(self) -> None:
        self.run()
        for _ in range(MAX_STEPS):
            if self.one(lambda c: c.game_over):
                return
            self.step()
        raise AssertionError("the game did not end")


def play_whole_game(players: int, seed: int, variant: bool) -> Table:
    table = Table(players, seed, variant=variant)
    table.play_out()
    truth = table.truth
    assert truth is not None and truth.game_over
    for copy in table.copies.values():
        assert copy.game_over and copy.totals == truth.totals and copy.winners == truth.winners
        assert copy.to_move is None and copy.ops() == []
    # The schedule, round by round, is the spec's, each round closed by its final reveal.
    expected = [*spec_round_ops(players), SeatOp("final")] * ROUNDS_PER_GAME
    assert [op for op in table.ops if op.kind != "show"] == expected
    # The plain engine, replaying the same deals and moves, ends with the same totals.
    plain = Game(GameOptions(players=players, variant=variant))
    for hands, moves in zip(table.deals, table.moves, strict=True):
        plain.start_round(hands)
        for move in moves:
            plain.play(move)
    assert plain.game_over and plain.totals == table.one(lambda c: c.totals)
    # An honest game breaks no rule that only a final reveal shows.
    assert len(table.judged) == ROUNDS_PER_GAME
    for seat in table.copies:
        assert table.breaches(seat) == []
    return table


@pytest.mark.parametrize(
    ("players", "seed", "variant"), [(3, 1, False), (4, 2, True), (5, 3, False), (5, 4, True)]
)
def test_every_seats_copy_follows_whole_games_from_its_own_hand(
    players: int, seed: int, variant: bool
) -> None:
    play_whole_game(players, seed, variant)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    players=st.sampled_from([3, 4, 5]),
    variant=st.booleans(),
)
def test_copies_agree_with_the_plain_engine_for_any_shuffle(
    seed: int, players: int, variant: bool
) -> None:
    play_whole_game(players, seed, variant)


def test_gaia_lies_at_a_uniform_seat_and_the_deal_is_the_schedule() -> None:
    """The lead deck puts Gaia at every seat (one lead card each); the hands are full."""
    holders = set()
    for seed in range(40):
        table = Table(3, seed, rounds=1)
        table.run()
        holders.add(table.holder())
        assert all(len(h) == HAND_SIZE[3] for h in table.hands)
        assert sorted(table.cards.values()) == sorted(set(table.cards.values()))
        assert table.one(lambda c: c.to_move) == table.holder()
    assert holders == {0, 1, 2}


# ---------------------------------------------------------------------------- breaches
def test_a_revoke_is_accepted_at_play_time_and_named_at_the_final_reveal() -> None:
    table = Table(4, 11, cheaters=(1, 3))
    table.play_out()
    assert len({s for s, _ in table.revokes}) == 2, "both cheaters revoked"
    for seat in table.copies:
        found = table.breaches(seat)
        assert [s for s, _, _ in found] == [s for s, _ in table.revokes]
        for (who, _, reason), (_, card) in zip(found, table.revokes, strict=True):
            assert f"P{who} played {format_card(card)} " in reason
    for judged in table.judged:  # every copy names the same first breach of each round
        assert len({tuple(found[:1]) for found in judged.values()}) == 1


def test_a_revoke_is_refused_by_the_revokers_own_copy_only() -> None:
    """The mover's own copy knows its hand and refuses a revoke; the others cannot see it."""
    for seed in range(60):
        table = Table(3, seed, rounds=1)
        table.run()
        for _ in range(60):
            mover = table.one(lambda c: c.to_move)
            rnd = table.copies[0].game.round
            assert rnd is not None and mover is not None
            held = {p: table.cards[p] for p in table.hands[mover]}
            led = rnd.lead_domain
            off = [p for p, c in held.items() if card_domain(c) not in (-1, led)]
            on = [p for p, c in held.items() if card_domain(c) == led]
            if led >= 0 and not rnd.pending_sickles and off and on:
                p = off[0]
                own = table.copies[mover].check_play(mover, p, "trick")
                assert own is not None and "does not follow" in own
                for s, copy in table.copies.items():
                    if s != mover:
                        assert copy.check_play(mover, p, "trick", held[p]) is None
                return
            table.step()
            if table.one(lambda c: c.game.round_over):
                break
    raise AssertionError("no seed gave a chance to revoke")


def _lie_run(players: int, seed: int, lie: Lie) -> Table:
    table = Table(players, seed, rounds=1, lie=lie)
    table.run()
    return table


def test_a_holder_saying_no_is_a_contradiction_at_every_copy_and_is_named() -> None:
    table = _lie_run(4, 5, lambda t, q, true: NO)
    g = table.holder()
    for copy in table.copies.values():
        assert copy.words_contradicted and copy.to_move is None and copy.ops() == []
        (found,) = copy.breaches(table.cards)
        assert found[0] == g and "Gaia" in found[2]
        assert 0 <= found[1] < table.n  # the place of its word among the words this copy took


def test_a_non_holder_saying_yes_is_a_contradiction_at_the_holders_copy() -> None:
    """Beside the holder's true yes, a second yes fits no deal: every copy stops, the holder's
    (which knows it holds Gaia) among them."""

    def lie(t: Table, q: int, true: str) -> str:
        return YES if q == (t.holder() + 1) % t.n else true

    table = _lie_run(4, 6, lie)
    liar = (table.holder() + 1) % 4
    for copy in table.copies.values():
        assert copy.words_contradicted and copy.to_move is None
        assert [s for s, _, _ in copy.breaches(table.cards)] == [liar]


def test_a_swapped_gaia_is_seen_by_the_holders_copy_alone_and_both_liars_named() -> None:
    """The holder says no and another seat yes: one yes, which only the copies of the two
    liars can contradict (from their own lead cards); the others go on with the false holder
    to move. Every copy names both liars at the final reveal, in seat order."""

    def lie(t: Table, q: int, true: str) -> str:
        g = t.holder()
        return NO if q == g else YES if q == (g + 2) % t.n else true

    table = _lie_run(4, 7, lie)
    g = table.holder()
    liar = (g + 2) % 4
    for s, copy in table.copies.items():
        assert copy.words_contradicted == (s in (g, liar))
        assert copy.to_move == (None if s in (g, liar) else liar)
        found = copy.breaches(table.cards)
        assert [q for q, _, _ in found] == sorted((g, liar))


# ---------------------------------------------------------------------------- refusals
def _snapshot(copy: TableSeat2017) -> Any:
    rnd = copy.game.round
    assert rnd is not None
    return (
        copy.to_move,
        list(rnd.hands),
        [list(m) for m in rnd.mistletoes],
        [list(m) for m in rnd.sickles],
        list(rnd.hand_size),
        copy.view(copy.seat),
        copy.breaches({}),
    )


def _refused(table: Table, seat: int, position: int, zone: str, card: int, match: str) -> None:
    """Every copy refuses the play with a reason matching ``match``, and is unchanged."""
    for s, copy in table.copies.items():
        before = _snapshot(copy)
        shown = None if s == seat else card
        reason = copy.check_play(seat, position, zone, shown)
        assert reason is not None and match in reason, (s, reason)
        with pytest.raises(IllegalMove) as refused:
            copy.play(seat, position, zone, shown)
        assert refused.value.reason == reason
        assert _snapshot(copy) == before


def test_plays_no_copy_allows_are_refused_with_their_reason() -> None:
    table = Table(4, 3, rounds=1)
    table.run()
    g = table.holder()
    other = (g + 1) % 4
    lead, card_pos = table.leads[g], table.hands[g][-1]
    card = table.cards[card_pos]
    _refused(
        table,
        other,
        table.hands[other][1],
        "trick",
        table.cards[table.hands[other][1]],
        f"not P{other}'s move",
    )
    _refused(
        table,
        g,
        table.hands[other][1],
        "trick",
        table.cards[table.hands[other][1]],
        "not in its hand",
    )
    _refused(table, g, 10_000, "trick", 5, "not in its hand")
    _refused(table, g, card_pos, "trick", card, "must lead it first")
    _refused(table, g, lead, "trick", GAIA, "gaia:")
    _refused(table, g, card_pos, "gaia:R", card, "only Gaia is led into gaia:R")
    _refused(table, g, lead, "stack", GAIA, "no zone")
    if not table.options.variant:
        _refused(table, g, lead, "gaia:R:light", GAIA, "variant")
    for copy in table.copies.values():
        reason = copy.check_move(g, Move.from_token("Gaia:R"))
        assert reason is not None and "show" in reason
        assert copy.check_move(other, Move.from_token("Pile:G")) == f"it is not P{other}'s move"
        with pytest.raises(ValueError, match="not a canonical"):  # one token per move
            Move.from_token("Gaia:R:dark")
        assert copy.check_word(g, YES) == f"P{g} owes no word now"
    # A hidden hand's card is shown: a face-down play of it, a claimed card that lies
    # elsewhere, or Gaia away from the holder's lead position, is refused.
    watcher = next(s for s in table.copies if s != g)
    assert "shown" in (table.copies[watcher].check_play(g, card_pos, "trick") or "")
    mine = table.hands[watcher][0]
    reason = table.copies[watcher].check_play(g, card_pos, "trick", table.cards[mine])
    assert reason is not None and f"position {mine}" in reason
    reason = table.copies[watcher].check_play(g, card_pos, "gaia:R", GAIA)
    assert reason is not None and "Gaia" in reason
    # The holder's own copy knows the card at each of its positions.
    own = table.copies[g].check_play(g, card_pos, "trick", (card + 1) % 60)
    assert own is not None and "holds" in own


def test_a_pile_choice_is_refused_unless_due_and_a_card_while_it_is() -> None:
    for seed in range(200):
        table = Table(3, seed, rounds=1)
        table.run()
        mover = table.one(lambda c: c.to_move)
        table.step()  # past the Gaia lead
        mover = table.one(lambda c: c.to_move)
        for copy in table.copies.values():
            assert copy.check_move(mover, Move.from_token("Pile:G")) == (
                "no Sickle pile choice is pending"
            )
        for _ in range(80):
            rnd = table.copies[0].game.round
            assert rnd is not None
            if rnd.over:
                break
            mover = table.one(lambda c: c.to_move)
            if rnd.pending_sickles:
                p = table.hands[mover][0]
                _refused(table, mover, p, "trick", table.cards[p], "must first choose")
                tied = rnd.tied_highest_piles(mover)
                wrong = next(d for d in range(5) if d not in tied)
                for copy in table.copies.values():
                    pile = Move.from_token(f"Pile:{DOMAINS[wrong]}")
                    assert "not one of" in (copy.check_move(mover, pile) or "")
                return
            table.step()
    raise AssertionError("no seed gave a tied Sickle pile choice")


def test_a_card_leaves_a_hand_only_by_a_show() -> None:
    table = Table(3, 9, rounds=1)
    table.run()
    table.step()
    mover = table.one(lambda c: c.to_move)
    token = Move.from_token(format_card(table.cards[table.hands[mover][0]]))
    for copy in table.copies.values():
        assert "show" in (copy.check_move(mover, token) or "")
        with pytest.raises(IllegalMove):
            copy.move(mover, token)
        with pytest.raises(IllegalMove, match="owes no word"):
            copy.word(mover, NO)


def test_learn_refuses_what_cannot_be() -> None:
    table = Table(3, 4, rounds=1)
    table.run()
    copy = table.copies[0]
    mine = table.hands[0]
    with pytest.raises(ValueError, match="no position"):
        copy.learn(10_000, 3)
    with pytest.raises(ValueError, match="holds"):
        copy.learn(mine[1], (table.cards[mine[1]] + 1) % 60)
    other = table.hands[1][1]
    with pytest.raises(ValueError, match="elsewhere"):
        copy.learn(other, table.cards[mine[1]])
    with pytest.raises(ValueError, match="no Gaia"):
        copy.learn(other, GAIA)
    copy.learn(other, table.cards[other])  # an auditor's copy learns every card


def test_the_rule_set_offers_table_seats_through_the_seam() -> None:
    rules: CardTableRuleset = DruidsRuleset()  # mypy checks both protocols structurally
    assert isinstance(rules, CardTableRuleset)
    seat: CardTableSeat = rules.table_seat(rules.make_options(4), 2, random.Random(0))
    assert isinstance(seat, TableSeat2017)
    assert seat.seat == 2 and seat.to_move is None and seat.ops() == spec_round_ops(4)
    with pytest.raises(TypeError, match="GameOptions"):
        rules.table_seat({"players": 4}, 0, random.Random(0))
    with pytest.raises(ValueError, match="no seat 4"):
        rules.table_seat(rules.make_options(4), 4, random.Random(0))
