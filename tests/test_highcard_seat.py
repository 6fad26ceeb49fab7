"""High card's seat copies at a card table, side by side in one process, without the deck: each
copy is told only its own deal (an onlooker every card, as ``druids audit`` tells it), every
show goes to every copy, and all must give the same schedule, the same verdict on every move and
the same end; a revoke is taken by every copy but the revoker's and named at the final reveal."""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

SUPPORT = str(Path(__file__).parent / "support")
if SUPPORT not in sys.path:
    sys.path.append(SUPPORT)  # the game's package only: importing it registers nothing

from highcard.cards import Move, parse_card, suit  # noqa: E402
from highcard.engine import Options  # noqa: E402
from highcard.ruleset import HighCardRuleset  # noqa: E402
from highcard.table_seat import DECK, TRICK, HighCardSeat, Op  # noqa: E402

from druids_p2p.games.seam import PLAY, IllegalMove, TableMove  # noqa: E402

RULES = HighCardRuleset()


class Table:
    """Every seat's copy and an onlooker, dealt ``hands`` (position ``p`` to seat ``p % n``)."""

    def __init__(self, hands: Sequence[Sequence[int]], onlooker_told: bool = True) -> None:
        n = len(hands)
        options = Options(players=n)
        self.copies = [RULES.table_seat(options, s, random.Random(s)) for s in range(n)]
        self.onlooker = RULES.onlooker(options)
        self.all = [*self.copies, self.onlooker]
        schedules = [c.ops() for c in self.all]
        assert all(s == schedules[0] for s in schedules)
        cards_dealt = tuple(range(12))
        assert schedules[0] == [
            Op("shuffle", deck=DECK, cards=cards_dealt),
            Op("deals", deck=DECK, seats=tuple(range(n)) * 3),
        ]
        self.cards = {s + k * n: hands[s][k] for s in range(n) for k in range(3)}
        for position, card in self.cards.items():
            self.copies[position % n].learn(position, card)
            if onlooker_told:
                self.onlooker.learn(position, card)
        assert all(c.ops() == [] for c in self.all)

    def show(self, seat: int, position: int, claimed: int | None = None) -> None:
        """``seat`` shows ``position`` (as ``claimed``; by default its real card) to every copy."""
        card = self.cards[position] if claimed is None else claimed
        for k, copy in enumerate(self.all):
            said = None if k == seat else card  # its own copy knows its card
            assert copy.check_play(seat, position, TRICK, said) is None
            op = copy.play(seat, position, TRICK, said)
            assert op == Op("show", seat=seat, zone=TRICK)

    def to_move(self) -> int:
        movers = {c.to_move for c in self.all}
        assert len(movers) == 1, movers
        (mover,) = movers
        assert mover is not None
        return mover


def random_hands(players: int, seed: int) -> list[list[int]]:
    cards = list(range(12))
    random.Random(seed).shuffle(cards)
    return [cards[3 * s : 3 * s + 3] for s in range(players)]


def hands(*tokens: str) -> list[list[int]]:
    return [[parse_card(t) for t in h.split()] for h in tokens]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_copy_gives_the_same_schedule_verdicts_and_end(players: int) -> None:
    for seed in range(25):
        dealt = random_hands(players, seed)
        table = Table(dealt)
        for s in range(players):  # a copy sees its own hand; an onlooker told every card, all
            assert (
                table.onlooker.view(s).hand
                == table.copies[s].view(s).hand
                == tuple(sorted(dealt[s]))
            )
            assert table.copies[(s + 1) % players].view(s).hand == ()
        rng = random.Random(seed)
        while not table.copies[0].game_over:
            mover = table.to_move()
            own = table.copies[mover]
            legal = own.legal_moves()
            assert legal and all(c.legal_moves() == [] for c in table.copies if c is not own)
            card, zone = own.table_move(Move.of(rng.choice(legal))) or (-1, "")
            assert zone == TRICK
            table.show(mover, own.position_of(card))
        finals = [c.ops() for c in table.all]
        assert all(f == [Op("final")] for f in finals) and all(c.ops() == [] for c in table.all)
        ends = {(tuple(c.totals), tuple(c.winners or ()), c.ended_by) for c in table.all}
        assert len(ends) == 1 and sum(table.copies[0].totals) == 3
        assert all(c.log == table.copies[0].log for c in table.all)
        assert len(table.copies[0].log[0]) == 3 * players
        assert all(c.breaches(table.cards) == [] for c in table.all)  # nobody revoked


def test_a_revoke_is_taken_by_every_copy_but_the_revokers_and_named_at_the_final_reveal() -> None:
    table = Table(hands("S1 H4 C2", "S3 H1 C4"))
    table.show(0, 0)  # P0 leads S1 (position 0)
    revoker = table.copies[1]  # P1's positions are 1, 3, 5: S3, H1, C4
    assert revoker.table_move(Move.of(parse_card("C4"))) == (parse_card("C4"), TRICK)
    assert revoker.check_play(1, 5, TRICK) == "P1 must follow suit (S) and holds one"
    with pytest.raises(IllegalMove, match="must follow suit"):
        revoker.play(1, 5, TRICK)  # its show is refused where it is made
    others = [table.copies[0], table.onlooker]
    for copy in others:  # neither can tell from what is public
        assert copy.check_play(1, 5, TRICK, parse_card("C4")) is None
        copy.play(1, 5, TRICK, parse_card("C4"))
        assert copy.to_move == 0 and copy.totals == [1, 0]
    assert revoker.to_move == 1 and revoker.log == [[table.copies[0].log[0][0]]]  # unchanged
    blame = "P1 played C4 on a S lead in trick 1 while holding S3"
    for copy in others:
        assert copy.breaches(table.cards) == [(1, 1, blame)]
        assert copy.breaches({}) == []  # (without the cards, nothing can be told)


def test_a_show_the_public_play_refutes_is_refused_with_its_reason() -> None:
    table = Table(hands("S1 H4 C2", "S3 H1 C4", "S2 H2 H3"))
    p0, p1 = table.copies[0], table.copies[1]
    card = parse_card
    assert p0.check_play(1, 1, TRICK, card("S3")) == "it is not P1's move"
    assert p0.check_play(0, 0, "pile") == "P0 played into 'pile': cards go into trick"
    assert p0.check_play(0, 1, TRICK) == "P0 played position 1, which is not in its hand"
    assert p1.check_play(0, 0, TRICK, None) == "P0's card at position 0 must be shown face up"
    assert p1.check_play(0, 0, TRICK, card("S3")) == "P0 shows S3, which lies at 1"
    assert p1.check_play(0, 0, TRICK, 12) == "P0 shows card 12, which does not exist"
    assert table.onlooker.check_play(0, 0, TRICK, card("C1")) == (
        f"P0 shows card {card('C1')} at 0, which holds {card('S1')}"
    )
    table.show(0, 0)
    assert p1.check_play(2, 2, TRICK, card("S2")) == "it is not P2's move"
    assert p0.check_play(1, 1, TRICK, card("S1")) == "P1 shows S1, which lies at 0"
    with pytest.raises(IllegalMove, match="is not P2's move"):
        p0.play(2, 2, TRICK, card("S2"))
    assert p0.log == [[TableMove(PLAY, 0, zone=TRICK, position=0, card=card("S1"))]]


def test_no_public_moves_and_no_words() -> None:
    table = Table(hands("S1 H4 C2", "S3 H1 C4"))
    p0 = table.copies[0]
    assert (
        p0.check_move(0, Move.of(0)) == "S1: a card is played by a show of its position into trick"
    )
    with pytest.raises(IllegalMove):
        p0.move(0, Move.of(0))
    assert (p0.words_asked(), p0.words_due(), p0.own_word(), p0.word_of(1)) == ((), (), None, None)
    assert p0.check_word(1, "Word:yes") == "P1 owes no word: high card has none"
    with pytest.raises(IllegalMove):
        p0.word(1, "Word:yes")
    assert not p0.words_contradicted and p0.round_scores == []
    assert p0.shown_move(parse_card("H4"), TRICK) is Move.of(parse_card("H4"))
    with pytest.raises(ValueError, match="no zone"):
        p0.shown_move(0, "pile")


def test_an_onlooker_told_nothing_follows_the_game_by_its_shows_alone() -> None:
    """A record without its secrets: the onlooker takes each card as it is shown."""
    table = Table(hands("S1 H4 C2", "S3 H1 C4", "S2 H2 H3"), onlooker_told=False)
    rng = random.Random(5)
    while not table.copies[0].game_over:
        mover = table.to_move()
        own = table.copies[mover]
        card = rng.choice(own.legal_moves())
        table.show(mover, own.position_of(card))
    assert table.onlooker.totals == table.copies[0].totals and table.onlooker.game_over


def test_learn_refuses_what_cannot_be() -> None:
    seat = HighCardSeat(Options(players=2), 0)
    seat.ops()
    seat.learn(0, parse_card("S1"))
    seat.learn(0, parse_card("S1"))  # told again: the same
    with pytest.raises(ValueError, match="holds S1"):
        seat.learn(0, parse_card("S2"))
    with pytest.raises(ValueError, match="S1 lies at position 0"):
        seat.learn(2, parse_card("S1"))
    with pytest.raises(ValueError, match="no position 6"):
        seat.learn(6, 1)
    with pytest.raises(ValueError, match="no card has id 12"):
        seat.learn(2, 12)
    with pytest.raises(ValueError, match="no seat 2"):
        HighCardSeat(Options(players=2), 2)
    assert seat.to_move is None  # its own hand is not all known yet
    seat.learn(2, parse_card("S2"))
    seat.learn(4, parse_card("H1"))
    assert seat.to_move == 0 and seat.legal_moves() == [0, 1, 4]
    assert suit(parse_card("H1")) == 1
