"""Druids (2004): why each servant of a ritual took what it took, as the engine's data (issue 28).

The screen explains every +0 and every tie-break (taking order among equal servants, the score
column's sole winner); the reasons come from the engine's records, never re-derived by a UI.
Each game is built from given card orders and played through the real engine.
"""

from __future__ import annotations

from test_druids2004_rulebook import (
    cards,
    column_game,
    last_ritual,
    play,
    ties_game,
)

from druids_p2p.games.druids2004.cards import format_card
from druids_p2p.games.druids2004.setup import (
    TAKE_LAST,
    TAKE_NO_AMULETS,
    TAKE_NONE_LEFT,
    TAKE_SHORT,
    TAKE_VALUE,
    GameEnded,
    Options,
    arranged_setup,
)
from druids_p2p.games.druids2004.state import Game2004


def _whys(game: Game2004) -> list[tuple[str, str, int]]:
    return [(format_card(s.servant), s.why, s.points) for s in last_ritual(game).shares]


def test_each_share_says_why_it_took_what_it_took() -> None:
    game = ties_game()
    assert _whys(game) == [
        ("S2:1", TAKE_VALUE, 1),
        ("S1:2", TAKE_VALUE, 2),
        ("S2:2", TAKE_VALUE, 2),
        ("S0:2", TAKE_LAST, 3),  # the last takes all that remain: 3, more than its value
    ]
    assert all(s.blocked_by == () for s in last_ritual(game).shares)


def test_equal_servants_name_each_other_and_the_seat_they_take_from() -> None:
    r = last_ritual(ties_game())
    tied = {format_card(s.servant): [format_card(c) for c in s.tied] for s in r.shares}
    assert tied == {"S2:1": [], "S1:2": ["S2:2", "S0:2"], "S2:2": ["S1:2", "S0:2"],
                    "S0:2": ["S1:2", "S2:2"]}  # fmt: skip
    assert (r.tie_order, r.tie_first) == ("announcer", 1)  # P1 announced it
    r = last_ritual(ties_game("after_announcer"))
    assert (r.tie_order, r.tie_first) == ("after_announcer", 2)
    r = last_ritual(ties_game("starting_player"))
    assert (r.tie_order, r.tie_first) == ("starting_player", 0)


def test_the_column_end_names_the_pawns_that_blocked_it() -> None:
    game = column_game()
    play(game, "Ritual:0")  # S0:5 (last) takes 5 amulets, but P0's pawn moves only 4
    r = last_ritual(game)
    last = r.shares[-1]
    assert (len(last.amulets), last.points, last.why) == (5, 4, TAKE_LAST)
    assert last.blocked_by == (1, 2)  # both stand on score 0, the column's bottom card
    assert r.shares[0].blocked_by == ()
    end = game.log[-1]
    assert isinstance(end, GameEnded) and end.winners == (0,)


def test_a_servant_finding_no_amulet_left_and_a_ritual_without_amulets_say_so() -> None:
    # @K1 gets K1 and three servants: 1 amulet; S0:1 takes it, the two after find none left.
    setup = arranged_setup(
        3,
        0,
        row=cards("@K1 @W1"),
        gems={0: cards("K1 W1 W2 W3"), 1: cards("W4 W5 W6 W7"), 2: cards("K2 K3 K4 K5")},
        servants={0: cards("S0:1 S0:2 S0:3"), 1: cards("S1:4 S1:5 S1:6"),
                  2: cards("S2:4 S2:5 S2:6")},
    )  # fmt: skip
    game = Game2004(setup, Options(players=3))
    play(game, "K1>0 S0:1>0 Stop W4>1 S1:4>0 Stop K2>1 S2:6>0 Stop Ritual:0")
    assert _whys(game) == [
        ("S0:1", TAKE_VALUE, 1),
        ("S1:4", TAKE_NONE_LEFT, 0),
        ("S2:6", TAKE_NONE_LEFT, 0),
    ]
    # @W1 gets K1, K2 and S0:1: three cards, a servant, and no white gem: no amulet at all.
    game2 = Game2004(setup, Options(players=3))
    play(game2, "K1>1 S0:1>1 Stop W4>0 W5>0 Stop K2>1 K3>0 Stop Ritual:1")
    assert _whys(game2) == [("S0:1", TAKE_NO_AMULETS, 0)]


def test_a_servant_short_of_its_value_took_only_what_was_left() -> None:
    setup = arranged_setup(
        3,
        0,
        row=cards("@K1 @W1"),
        gems={0: cards("K1 K2 W1 W2"), 1: cards("K3 W3 W4 W5"), 2: cards("W6 W7 W8 W9")},
        servants={0: cards("S0:1 S0:2 S0:3"), 1: cards("S1:4 S1:5 S1:6"),
                  2: cards("S2:4 S2:5 S2:6")},
    )  # fmt: skip
    game = Game2004(setup, Options(players=3))
    # 3 amulets; S1:4 (value 4) comes first and finds only 3; S2:6 is last and finds none.
    play(game, "K1>0 K2>0 Stop K3>0 S1:4>0 Stop W6>1 S2:6>0 Stop Ritual:0")
    assert _whys(game) == [("S1:4", TAKE_SHORT, 3), ("S2:6", TAKE_NONE_LEFT, 0)]
