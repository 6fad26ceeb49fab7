"""Each seat's copy of a Druids (2004) game at a card table knows only what it may, yet all agree.

A true game (the engine with every card known) is played by rule bots deciding from their own
seat's copy; each seat's copy (``TableSeat2004``) is told only what the table would open to it:
its own deals, every turn, every ritual's cards. At every step every copy gives the same
schedule, which is the true game's own (``hidden.py``), and shows its seat exactly the view
the true game shows that seat; other seats' moves it cannot check are refused with the reason.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004 import hidden as sched
from druids_p2p.games.druids2004.cards import is_gem
from druids_p2p.games.druids2004.policy import greedy_move
from druids_p2p.games.druids2004.setup import Options, random_setup
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.table_seat import SeatOp, TableSeat2004
from druids_p2p.games.registry import RULESETS
from druids_p2p.games.seam import CardTableRuleset, IllegalMove

MAX_STEPS = 5000


class Table:
    """The truth and every seat's copy, with what the card table would open to whom."""

    def __init__(self, players: int, seed: int) -> None:
        rng = random.Random(seed)
        self.truth = Game2004(random_setup(rng, players, start=0), Options(players=players))
        self.seats = [
            TableSeat2004(Options(players=players), s, random.Random(seed * 10 + s))
            for s in range(players)
        ]
        self.rng = rng
        self.taken = 0
        self.zones: dict[str, list[int]] = {}
        self.ops: list[SeatOp] = []
        self.words = 0

    def card(self, position: int) -> int:
        taken = [op.cards[0] for op in sched.schedule(self.truth) if op.kind in ("deal", "turn")]
        return taken[position]

    def run(self) -> None:
        """Run the schedule until nobody's copy has an operation due."""
        for _ in range(MAX_STEPS):
            batches = [seat.ops() for seat in self.seats]
            assert all(b == batches[0] for b in batches), "the copies disagree on the schedule"
            asked = {seat.words_asked() for seat in self.seats}
            assert len(asked) == 1, "the copies disagree on whose word is asked"
            if not batches[0] and asked != {()}:
                words = {q: self.seats[q].own_word() for q in self.seats[0].words_due()}
                for seat in self.seats:
                    for q, token in words.items():
                        assert token is not None
                        seat.word(q, token)
                self.words += 1
                continue
            if not batches[0]:
                return
            for op in batches[0]:
                self.ops.append(op)
                self.execute(op)
        raise AssertionError("the schedule did not settle")

    def execute(self, op: SeatOp) -> None:
        if op.kind in ("deal", "turn"):
            position, self.taken = self.taken, self.taken + 1
            self.zones.setdefault(op.zone or f"hand:{op.seat}", []).append(position)
            to = self.seats if op.kind == "turn" else [self.seats[op.seat or 0]]
            for seat in to:
                seat.learn(position, self.card(position))
        elif op.kind == "return":
            for positions in self.zones.values():
                if op.position in positions:
                    positions.remove(op.position)  # it leaves its zone (deck.md §6.2, `return`)
        elif op.kind == "reveal":
            for position in self.zones.get(op.zone, []):
                for seat in self.seats:
                    seat.learn(position, self.card(position))

    def step(self) -> None:
        mover = self.truth.to_move
        assert mover is not None
        copy = self.seats[mover]
        assert copy.to_move == mover and copy.legal_moves() == self.truth.legal_moves()
        move = greedy_move(copy.world, self.rng)
        m = mv.decode(move)
        if m.kind in (mv.KIND_PLAY, mv.KIND_DISCARD):
            position = copy.position_of(m.card)
            zone = "discards" if m.kind == mv.KIND_DISCARD else f"slot:{m.slot}"
            ops = {seat.play(mover, position, zone) for seat in self.seats}
            assert ops == {SeatOp("play", seat=mover, zone=zone)}
            self.ops.append(SeatOp("play", seat=mover, zone=zone))
            self.zones.setdefault(zone, []).append(position)
        else:
            for seat in self.seats:
                seat.move(mover, mv.Move.of(move))
        self.truth.play(move)
        while self.truth.pending_reshuffle is not None:
            self.truth.shuffle_reserve_random(self.rng)
        self.run()

    def check_views(self) -> None:
        for s, seat in enumerate(self.seats):
            assert seat.view(s) == self.truth.view(s), f"seat {s}'s copy shows it another game"


def play_whole_game(players: int, seed: int) -> Table:
    table = Table(players, seed)
    table.run()
    table.check_views()
    for _ in range(MAX_STEPS):
        if table.truth.game_over:
            break
        table.step()
        table.check_views()
    assert table.truth.game_over
    return table


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (4, 18)])
def test_every_seats_copy_follows_a_whole_game_from_what_it_may_know(
    players: int, seed: int
) -> None:
    table = play_whole_game(players, seed)
    truth = table.truth
    for seat in table.seats:
        assert seat.game_over and seat.totals == truth.totals and seat.winners == truth.winners
    public = [op for op in sched.schedule(truth) if op.kind != sched.FINAL]
    ours = [op for op in table.ops if op.kind != "final"]
    assert len(ours) == len(public), "one table operation per operation of the game"
    returned = {c for op in public if op.kind == sched.RETURN for c in op.cards}
    for op, game_op in zip(ours, public, strict=True):
        kind, source, target, who = game_op.kind, game_op.source, game_op.target, game_op.seat
        assert op.kind == kind
        if kind == sched.DEAL:
            assert (op.deck, op.seat) == (source, who)
        elif kind == sched.TURN:
            assert (op.deck, op.zone) == (source, target)
        elif kind == sched.PLAY:
            assert (op.seat, op.zone) == (who, target)
        elif kind == sched.REVEAL:
            assert op.zone == source
        elif kind == sched.RETURN:
            assert op.deck == target and op.position is not None
            assert table.card(op.position) in returned
        else:
            assert op.deck == target
    assert table.ops[-1] == SeatOp("final")


def test_a_move_no_copy_can_allow_is_refused_with_its_reason() -> None:
    table = Table(3, 5)
    table.run()
    seat = table.seats[1]
    mover = table.truth.to_move
    assert mover == 0
    with pytest.raises(IllegalMove, match="not P1's move"):
        seat.move(1, mv.Move.from_token("Draw:gem"))
    others = table.zones["hand:2"]
    with pytest.raises(IllegalMove, match="not in its hand"):
        seat.play(0, others[0], "slot:1")
    with pytest.raises(IllegalMove, match="only by a table play"):
        seat.move(0, mv.Move.of(mv.discard_move(0)))
    servant = next(p for p in table.zones["hand:0"] if not is_gem(table.card(p)))
    with pytest.raises(IllegalMove, match="only a gem is discarded"):
        seat.play(0, servant, "discards")
    with pytest.raises(IllegalMove, match="no place of the row"):
        seat.play(0, servant, "slot:9")


def test_two_servants_in_one_turn_are_refused_by_every_copy() -> None:
    table = Table(2, 7)
    table.run()
    hand = table.zones["hand:0"]
    servants = [p for p in hand if not is_gem(table.card(p))]
    for seat in table.seats:
        seat.play(0, servants[0], "slot:0")
    for seat in table.seats:
        with pytest.raises(IllegalMove, match="never two servants in one turn"):
            seat.play(0, servants[1], "slot:1")


def test_the_druids2004_rule_set_offers_table_seats_through_the_seam() -> None:
    rules = RULESETS["druids2004"]
    assert isinstance(rules, CardTableRuleset)
    seat = rules.table_seat(rules.make_options(4), 2, random.Random(0))
    assert seat.seat == 2 and seat.to_move is None and seat.ops()[0].kind == "shuffle"


def test_the_nothing_left_end_over_hidden_gems_waits_for_the_owners_word() -> None:
    """Seed 114: the pile runs out with no gem in any hand while gems lie face down on the
    places; the owners give their word and every copy decides as the true game does."""
    table = play_whole_game(4, 114)
    assert table.words > 0
    assert all(seat.winners == table.truth.winners for seat in table.seats)


def test_every_owners_word_is_judged_true_of_the_revealed_cards_by_every_copy() -> None:
    """Seed 114's words, each an owner's own (``word_of``, from its copy's cards), are true of
    the cards every position holds (``breaches``, the final reveal's judge): the two ways a
    word is judged are one. Every copy keeps the same words; the opposite of each is false."""
    table = play_whole_game(4, 114)
    cards = {p: table.card(p) for p in range(table.taken)}
    claims = [seat.claims for seat in table.seats]
    assert claims[0] and all(c == claims[0] for c in claims)
    for seat in table.seats:
        assert seat.breaches(cards) == []
    for claim in claims[0]:
        assert not replace(claim, said=not claim.said).true_of(cards), claim


def test_breaches_name_the_false_words_by_word_round_then_seat() -> None:
    """``breaches`` (the seam's one end-of-game judge) names the seat of every false word, by
    word round then seat, with where the word lies among the moves and words the copy took:
    none in an honest game; a word turned into its opposite is named with its round, on every
    copy alike."""
    table = play_whole_game(4, 114)
    cards = {p: table.card(p) for p in range(table.taken)}
    for seat in table.seats:
        assert seat.breaches(cards) == []
    claims = table.seats[0].claims
    flipped = {0, len(claims) - 1}
    for seat in table.seats:
        seat.claims = [
            replace(c, said=not c.said) if i in flipped else c for i, c in enumerate(claims)
        ]
    found = [[(s, reason) for s, _, reason in seat.breaches(cards)] for seat in table.seats]
    assert all(f == found[0] for f in found)
    named = sorted((claims[i].round, claims[i].seat, claims[i].taken) for i in flipped)
    assert [s for s, _ in found[0]] == [s for _, s, _ in named]
    for (liar, reason), (word_round, _, _) in zip(found[0], named, strict=True):
        assert reason.startswith(f"P{liar}'s owners' word in word round {word_round + 1} ")
    assert [t for _, t, _ in table.seats[0].breaches(cards)] == [t for _, _, t in named]


def test_a_face_down_play_shows_no_card() -> None:
    table = Table(2, 7)
    table.run()
    servant = next(p for p in table.zones["hand:0"] if not is_gem(table.card(p)))
    for seat in table.seats:
        reason = seat.check_play(0, servant, "slot:0", table.card(servant))
        assert reason is not None and "face down" in reason
        with pytest.raises(IllegalMove, match="face down"):
            seat.play(0, servant, "slot:0", table.card(servant))
    for seat in table.seats:
        assert seat.play(0, servant, "slot:0") == SeatOp("play", seat=0, zone="slot:0")
