"""Druids (2004): one test per ruling of RULINGS-2004.md and per worked example of rules-2004.md.

Games are built from given card orders (``arranged_setup``) and played move by move through the
real engine; each asserts the exact outcome the rule book states.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypedDict

import pytest

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import (
    GEMS,
    KINDS,
    N_CARDS,
    PLACES,
    format_card,
    gem_kind,
    move_pawn,
    parse_card,
    place_kind,
    servants_of,
)
from druids_p2p.games.druids2004.hidden import known_to
from druids_p2p.games.druids2004.setup import (
    InvalidSetup,
    Options,
    RitualDone,
    TurnEnded,
    arranged_setup,
    random_setup,
)
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import HIDDEN
from druids_p2p.games.seam import IllegalMove


class Arranged(TypedDict, total=False):
    """The card orders ``arranged_setup`` takes by keyword (every one optional)."""

    row: Sequence[int]
    gems: dict[int, Sequence[int]]
    servants: dict[int, Sequence[int]]
    pile: Sequence[int]


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def play(game: Game2004, tokens: str) -> Game2004:
    """Play the tokens in order; a due reshuffle keeps the reserve's order (deterministic)."""
    for token in tokens.split():
        while game.pending_reshuffle is not None:
            game.shuffle_reserve(list(reversed(game.reserves[game.pending_reshuffle])))
        game.play(mv.parse_move(token))
    return game


def last_ritual(game: Game2004) -> RitualDone:
    return [r for r in game.log if isinstance(r, RitualDone)][-1]


def shares(game: Game2004) -> list[tuple[str, int, int]]:
    return [(format_card(s.servant), len(s.amulets), s.points) for s in last_ritual(game).shares]


# ------------------------------------------------------------------ worked example A: ties
TIES_SETUP = Arranged(
    row=cards("@K1 @W1 @R1 @B1 @G1 @Y1"),
    gems={0: cards("K1 K2 K3 W1"), 1: cards("K4 K5 K6 W2"), 2: cards("K7 K8 W3 W4")},
    servants={
        0: cards("S0:2 S0:4 S0:5"),
        1: cards("S1:2 S1:4 S1:5"),
        2: cards("S2:1 S2:2 S2:4"),
    },
)
TIES_MOVES = (
    "K1>0 K2>0 Stop  K4>0 K5>0 Stop  K7>0 S2:1>0 Stop  K3>0 S0:2>0 Stop  K6>0 S1:2>0 Stop"
    "  K8>0 S2:2>0 Stop  W1>0 S0:4>1 Stop  Ritual:0"
)


def ties_game(tie_order: str = "announcer") -> Game2004:
    game = Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3, tie_order=tie_order))
    return play(game, TIES_MOVES)


def test_example_ritual_with_ties_announcer_first() -> None:
    game = ties_game()
    r = last_ritual(game)
    assert r.seat == 1 and len(r.amulets) == 8 and [format_card(g) for g in r.discarded] == ["W1"]
    assert shares(game) == [("S2:1", 1, 1), ("S1:2", 2, 2), ("S2:2", 2, 2), ("S0:2", 3, 3)]
    assert game.scores == [3, 2, 3]
    assert game.to_move is None and game.pending_reshuffle == 0  # the reserves come first
    play(game, "")
    while game.pending_reshuffle is not None:
        game.shuffle_reserve_random(random.Random(1))
    assert game.to_move == 1 and game.plays_left == 2  # then the announcer plays its cards


@pytest.mark.parametrize(
    ("tie_order", "order", "scores"),
    [
        ("after_announcer", ["S2:1", "S2:2", "S0:2", "S1:2"], [2, 3, 3]),
        ("starting_player", ["S2:1", "S0:2", "S1:2", "S2:2"], [2, 2, 4]),
    ],
)
def test_example_ritual_with_ties_other_readings(
    tie_order: str, order: list[str], scores: list[int]
) -> None:
    game = ties_game(tie_order)
    assert [s[0] for s in shares(game)] == order
    assert game.scores == scores


def test_ritual_returns_servants_and_reshuffles_in_seat_order() -> None:
    game = Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3))
    play(game, TIES_MOVES)
    assert last_ritual(game).returned == tuple(cards("S2:1 S0:2 S1:2 S2:2"))
    assert game.to_move is None and game.pending_reshuffle == 0
    assert game.check(mv.STOP) == "seat 0's reserve must be reshuffled first"
    assert game.check_reshuffle(cards("S0:2")) is not None  # not the whole reserve
    rng = random.Random(5)
    for seat in (0, 1, 2):
        assert game.pending_reshuffle == seat
        game.shuffle_reserve_random(rng)
    assert game.to_move == 1
    assert sorted(game.reserves[2]) == cards("S2:1 S2:2 S2:3 S2:5 S2:6")
    assert sorted(game.reserves[0]) == cards("S0:1 S0:2 S0:3 S0:6")


def test_ritual_servants_out_of_the_game_option() -> None:
    game = Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3, servants_return=False))
    play(game, TIES_MOVES)
    assert last_ritual(game).returned == () and game.pending_reshuffle is None
    assert set(cards("S2:1 S0:2 S1:2 S2:2")) <= set(game.out)


def test_ritual_place_leaves_and_supply_top_turns_into_the_slot() -> None:
    game = ties_game()
    r = last_ritual(game)
    supply_top = game.setup.places[6]
    assert r.turned == supply_top
    assert game.row[0] is not None and game.row[0].place == supply_top and game.row[0].size == 0
    assert parse_card("@K1") in game.out and len(game.supply) == 5
    assert [parse_card("K1")] != game.won[0] and len(game.won[0]) == 3


def test_ritual_only_before_the_first_card_and_once_a_turn() -> None:
    game = ties_game()
    while game.pending_reshuffle is not None:
        game.shuffle_reserve_random(random.Random(0))
    assert game.check(mv.ritual_move(1)) == "only one ritual a turn"
    game2 = Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3))
    play(game2, TIES_MOVES.rsplit("Ritual:0", 1)[0] + " W2>1")
    assert game2.check(mv.ritual_move(0)) == "a ritual is announced before playing a card"


def test_ritual_needs_three_cards_and_a_servant() -> None:
    game = Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3))
    play(game, "K1>0 K2>0 Stop K4>0 K5>0 Stop")
    assert game.check(mv.ritual_move(0)) == ("place 1 (@K1) holds no servant; a ritual needs one")
    play(game, "K7>1 S2:1>1 Stop")
    assert game.check(mv.ritual_move(1)) == (
        "place 2 (@W1) holds 2 card(s); a ritual needs at least 3"
    )
    assert mv.ritual_move(1) not in game.legal_moves()
    play(game, "S0:2>1 K3>2 Stop")  # slot 1 now has 3 cards, one a servant of another seat
    assert mv.ritual_move(1) in game.legal_moves()


# ----------------------------------------- worked example B: the last servant, too few amulets
def two_seat_game(
    row: str, gems: tuple[str, str], servants: tuple[str, str], moves: str
) -> Game2004:
    """Two seats, seat 0 to start, with this place row, these gem hands and servant reserves,
    after ``moves``."""
    setup = arranged_setup(
        2,
        0,
        row=cards(row),
        gems={0: cards(gems[0]), 1: cards(gems[1])},
        servants={0: cards(servants[0]), 1: cards(servants[1])},
    )
    return play(Game2004(setup, Options(players=2)), moves)


def test_example_last_servant_takes_the_rest() -> None:
    game = two_seat_game(
        "@R1",
        ("R1 R2 R3 K1", "R5 R6 R7 W1"),
        ("S0:1 S0:5 S0:6", "S1:2 S1:5 S1:6"),
        "R1>0 R2>0 Stop R5>0 R6>0 Stop R3>0 S0:1>0 Stop R7>0 S1:2>0 Stop Ritual:0",
    )
    assert shares(game) == [("S0:1", 1, 1), ("S1:2", 5, 5)]
    assert game.scores == [1, 5]


def test_example_too_few_amulets() -> None:
    game = two_seat_game(
        "@B1 @K1",
        ("B1 B2 B3 K1", "K2 K3 K4 K5"),
        ("S0:1 S0:5 S0:6", "S1:3 S1:4 S1:6"),
        "B1>0 B2>0 Stop K2>1 S1:3>0 Stop B3>0 S0:1>0 Stop K3>1 S1:4>0 Stop"
        " S0:5>0 K1>1 Stop Ritual:0",
    )
    assert shares(game) == [("S0:1", 1, 1), ("S1:3", 2, 2), ("S1:4", 0, 0), ("S0:5", 0, 0)]
    assert game.scores == [1, 2]


def test_example_one_servant_takes_every_amulet() -> None:
    game = two_seat_game(
        "@G1 @K1",
        ("G1 G2 G3 K1", "K2 K3 K4 K5"),
        ("S0:1 S0:5 S0:6", "S1:3 S1:4 S1:6"),
        "G1>0 G2>0 Stop K2>1 K3>1 Stop G3>0 S0:1>0 Stop K4>1 K5>1 Stop Ritual:0",
    )
    assert shares(game) == [("S0:1", 3, 3)]


def test_gem_numbers_play_no_part() -> None:
    """The same ritual with other numbers of the same kinds scores the same."""
    a = ties_game()
    swapped = Arranged(**TIES_SETUP)
    swapped["gems"] = {0: cards("K9 K2 K3 W9"), 1: cards("K4 K5 K6 W2"), 2: cards("K7 K8 W3 W4")}
    game = Game2004(arranged_setup(3, 0, **swapped), Options(players=3))
    play(game, TIES_MOVES.replace("K1>0", "K9>0").replace("W1>0", "W9>0"))
    assert game.scores == a.scores


# -------------------------------------------------------- worked example C: the score column
def test_example_column_wraps_when_the_bottom_card_is_free() -> None:
    # S = 2: the column shows 0..11. P0 at 10, P1 at 4, P0 gains 5.
    moved = move_pawn([10, 4], 0, 0, 5, 2)
    assert (moved.score, moved.base, moved.ended) == (15, 4, False)


def test_example_column_blocked_ends_the_game() -> None:
    # P1 at 3 stands on the second card once the first has moved: P0 stops at the top, 13.
    moved = move_pawn([10, 3], 0, 0, 5, 2)
    assert (moved.score, moved.base, moved.ended, moved.scored) == (13, 2, True, 3)
    # Another pawn on the top space does not share the win (checked in the game below).
    assert move_pawn([10, 0, 11], 0, 0, 2, 2).ended


def column_game() -> Game2004:
    setup = arranged_setup(
        3,
        0,
        row=cards("@K1 @W1"),
        gems={0: cards("K1 K2 K3 K4"), 1: cards("K5 K6 W1 W2"), 2: cards("W3 W4 W5 W6")},
        servants={0: cards("S0:1 S0:5 S0:6"), 1: cards("S1:1 S1:5 S1:6")},
    )
    game = Game2004(setup, Options(players=3, spaces_per_card=1))
    return play(
        game,
        "K1>0 K2>0 Stop K5>0 K6>0 Stop W3>1 W4>1 Stop K3>0 S0:1>0 Stop W1>1 W2>1 Stop"
        " W5>1 W6>1 Stop K4>0 S0:5>0 Stop",
    )


def test_example_column_end_mid_ritual() -> None:
    game = column_game()
    play(game, "Ritual:0")  # P1 announces: 6 amulets, S0:1 takes 1, S0:5 (last) takes 5
    r = last_ritual(game)
    assert r.ended == "column" and game.ended_by == "column"
    # S = 1: the column shows 0..5; P0 must reach 6 while P1 and P2 stand on score 0.
    assert [(format_card(s.servant), len(s.amulets), s.points) for s in r.shares] == [
        ("S0:1", 1, 1),
        ("S0:5", 5, 4),
    ]
    assert game.scores == [5, 0, 0] and game.winners == [0]
    # Nothing further: no servant returns, no reserve is shuffled, no place is turned.
    assert r.returned == () and r.turned is None and game.pending_reshuffle is None
    assert game.row[0] is not None and game.row[0].place == parse_card("@K1")


# --------------------------------------------------------------------- the turn, step by step
def test_play_two_cards_never_two_servants_either_order() -> None:
    game = Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3))
    play(game, "S0:2>3")
    assert game.check(mv.parse_move("S0:4>3")) == "never two servants in one turn"
    assert game.check(mv.STOP) == "P0 must first play 1 more card(s)"
    assert game.check(mv.parse_move("K4>0")) == "K4 is not in P0's hand"
    play(game, "K1>5")  # the gem second, on another place
    assert game.check(mv.parse_move("K2>0")) == "P0 has played its 2 card(s) this turn"
    assert game.check(mv.play_move(parse_card("@K1"), 0)) == (
        "@K1 is a place card; places are never played"
    )
    with pytest.raises(ValueError, match="never played"):
        mv.parse_move("@K1>0")


def test_a_hand_that_cannot_play_two_plays_one() -> None:
    # P0 plays its 4 gems over two turns without drawing: 3 servants left, so it plays one.
    game = Game2004(arranged_setup(2, 0, **_two_player()), Options(players=2))
    play(game, "K1>0 K2>0 Stop K5>1 K6>1 Stop K3>0 K4>0 Stop K7>1 K8>1 Stop")
    assert game.plays_needed == 1 and game.hands[0] == cards("S0:2 S0:4 S0:5")
    play(game, "S0:2>2")
    assert game.plays_left == 0 and game.check(mv.parse_move("S0:4>2")) is not None


def _two_player() -> Arranged:
    return Arranged(
        row=cards("@K1 @W1 @R1"),
        gems={0: cards("K1 K2 K3 K4"), 1: cards("K5 K6 K7 K8")},
        servants={0: cards("S0:2 S0:4 S0:5"), 1: cards("S1:2 S1:4 S1:5")},
    )


def test_discard_one_gem_before_drawing() -> None:
    game = Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3))
    play(game, "K1>0 K2>0")
    assert game.check(mv.discard_move(parse_card("K4"))) == "K4 is not in P0's hand"
    play(game, "Discard:W1")
    assert game.check(mv.discard_move(parse_card("K3"))) == "only one discard a turn"
    assert (0, parse_card("W1")) in game.discards
    game2 = play(Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3)), "K1>0 K2>0")
    play(game2, "Draw:gem")
    assert game2.check(mv.discard_move(parse_card("K3"))) == "the discard comes before drawing"
    with pytest.raises(ValueError, match="only a gem"):
        mv.parse_move("Discard:S0:2")


def test_draw_one_at_a_time_to_seven_and_stop_early() -> None:
    setup = arranged_setup(3, 0, **TIES_SETUP)
    game = Game2004(setup, Options(players=3))
    play(game, "K1>0 K2>0 Draw:gem Draw:servant")
    pile_top = setup.gems[12]
    assert game.hands[0][-2:] == [pile_top, setup.reserves[0][3]]
    assert len(game.hands[0]) == 7 and game.to_move == 1  # full: the turn ended by itself
    game2 = play(Game2004(setup, Options(players=3)), "K1>0 K2>0 Stop")
    assert game2.to_move == 1 and len(game2.hands[0]) == 5  # stopping before the first card


def test_a_full_hand_ends_the_turn_by_itself() -> None:
    setup = arranged_setup(3, 0, **TIES_SETUP)
    game = play(Game2004(setup, Options(players=3)), "K1>0 K2>0 Draw:gem Draw:gem")
    assert game.to_move == 1 and isinstance(game.log[-1], TurnEnded)


def test_an_empty_source_cannot_be_chosen() -> None:
    game = Game2004(arranged_setup(2, 0, **_two_player()), Options(players=2))
    play(game, "K1>0 S0:2>0 Draw:servant Draw:servant")  # 7 cards: the turn ends by itself
    play(game, "K5>1 K6>1 Stop K2>0 S0:4>0 Draw:servant")
    assert game.reserves[0] == [] and game.to_move == 0
    assert game.check(mv.DRAW_SERVANT) == "P0's reserve is empty"
    assert mv.DRAW_SERVANT not in game.legal_moves() and mv.DRAW_GEM in game.legal_moves()


# ---------------------------------------------------------------------------- setup, cards
def test_components() -> None:
    assert len(GEMS) == 54 and {gem_kind(g) for g in GEMS} == set(range(6))
    assert [format_card(g) for g in GEMS[:9]] == [f"K{n}" for n in range(1, 10)]
    assert sorted(KINDS) == sorted("KWRBGY")
    assert len(PLACES) == 12 and sorted(place_kind(p) for p in PLACES) == sorted(list(range(6)) * 2)
    assert [format_card(c) for c in servants_of(2)] == [f"S2:{v}" for v in range(1, 7)]
    assert {parse_card(format_card(c)) for c in range(N_CARDS)} == set(range(N_CARDS))
    assert Options().spaces_per_card == 2 and Options().tie_order == "announcer"
    assert Options().servants_return is True


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players(players: int) -> None:
    with pytest.raises(ValueError, match="2 to 4 players"):
        Options(players=players)


def test_setup_from_orders() -> None:
    setup = random_setup(random.Random(3), 4)
    game = Game2004(setup, Options(players=4))
    assert [p.place for p in game.row if p] == list(setup.places[:6])
    assert list(reversed(game.supply)) == list(setup.places[6:])
    for seat in range(4):
        assert game.hands[seat] == [*setup.gems[4 * seat : 4 * seat + 4], *setup.reserves[seat][:3]]
        assert list(reversed(game.reserves[seat])) == list(setup.reserves[seat][3:])
    assert list(reversed(game.pile)) == list(setup.gems[16:])
    assert game.to_move == setup.start
    bad = setup.__class__(setup.places, setup.gems[:-1] + setup.gems[:1], setup.reserves, 0)
    with pytest.raises(InvalidSetup, match="listed twice"):
        Game2004(bad, Options(players=4))


def test_setup_two_players_keeps_the_other_series_in_the_box() -> None:
    game = Game2004(random_setup(random.Random(1), 2), Options(players=2))
    assert set(game.box) == set(servants_of(2)) | set(servants_of(3))


def test_starting_player_is_drawn_from_the_rng() -> None:
    starts = {random_setup(random.Random(seed), 4).start for seed in range(40)}
    assert starts == {0, 1, 2, 3}


# --------------------------------------------------------------------------- hidden information
def test_views_hide_what_a_seat_may_not_know() -> None:
    game = Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3))
    play(game, "K1>0 K2>0 Stop K4>0 K5>0 Stop K7>0 S2:1>0 Stop")
    v0, v2 = game.view(0), game.view(2)
    place0 = v0.row[0]
    assert place0 is not None
    assert place0.gems == (
        (0, parse_card("K1")),
        (0, parse_card("K2")),
        (1, HIDDEN),
        (1, HIDDEN),
        (2, HIDDEN),
    )
    assert place0.servants == ((2, HIDDEN),)  # a servant of P2: owner public, value hidden
    assert v2.row[0] is not None and v2.row[0].servants == ((2, parse_card("S2:1")),)
    assert v0.hand == tuple(sorted(game.hands[0])) and v0.hand_sizes == (5, 5, 5)
    assert v0.hand_gems == (2, 2, 3) and v0.reserve_sizes == (3, 3, 3)
    assert not any(c in v0.hand for c in game.hands[1])
    assert known_to(game, parse_card("K4")) == frozenset({1})
    assert known_to(game, parse_card("S2:1")) == frozenset({2})
    assert known_to(game, game.setup.reserves[0][3]) == frozenset()  # not even its owner
    assert known_to(game, game.setup.places[0]) == frozenset({0, 1, 2})


# ------------------------------------------------------------------------------- the ends
def test_example_stall() -> None:
    """Both players empty their hands without drawing, then stop twice: the game stalls."""
    game = Game2004(arranged_setup(2, 0, **_two_player()), Options(players=2))
    play(game, "K1>0 K2>0 Stop K5>1 K6>1 Stop K3>0 S0:2>0 Stop K7>1 S1:2>1 Stop")
    play(game, "K4>2 S0:4>2 Stop K8>2 S1:4>2 Stop S0:5>2 Stop S1:5>2 Stop")
    assert game.hands == [[], []] and game.to_move == 0
    play(game, "Stop")
    assert not game.game_over and game.idle_turns == 1
    play(game, "Stop")
    assert game.ended_by == "stall" and game.winners == [0, 1]


def _random_games(count: int, players: int, seed: int) -> list[Game2004]:
    from druids_p2p.games.druids2004.ruleset import play_random_game

    rng = random.Random(seed)
    return [play_random_game(rng, Options(players=players))[0] for _ in range(count)]


def test_example_row_end() -> None:
    game = next(g for g in _random_games(40, 3, 1) if g.ended_by == "row")
    assert sum(p is not None for p in game.row) == 1 and game.supply == []
    assert len([r for r in game.log if isinstance(r, RitualDone)]) == 11
    best = max(game.scores)
    assert game.winners == [s for s, v in enumerate(game.scores) if v == best]


def test_example_nothing_left_to_score() -> None:
    game = next(g for g in _random_games(40, 2, 2) if g.ended_by == "nothing_left")
    assert game.pile == [] and not any(gem_kind(c) >= 0 and c < 54 for h in game.hands for c in h)
    assert not any(
        p is not None and any(gem_kind(g) == place_kind(p.place) for _, g in p.gems)
        for p in game.row
    )


def test_several_ends_name_the_first() -> None:
    """A ritual that empties the row and leaves nothing to score is recorded as the row end."""
    for game in _random_games(200, 2, 3):
        r = last_ritual(game) if any(isinstance(x, RitualDone) for x in game.log) else None
        if game.ended_by == "row" and game._nothing_left_now():
            assert r is not None and r.ended == "row"
            return
    pytest.fail("no game in the sample ended with both the row and nothing left")


def test_illegal_move_raises_with_reason() -> None:
    game = Game2004(arranged_setup(3, 0, **TIES_SETUP), Options(players=3))
    with pytest.raises(IllegalMove) as info:
        game.play(mv.STOP)
    assert info.value.reason == "P0 must first play 2 more card(s)"
    assert game.check(9999) == "no move has id 9999"


def test_example_column_winner_alone_even_sharing_the_top_space() -> None:
    """S = 1: P2 reaches 5 (the top space); then P0 must pass 5 while P1 stands on 0."""
    setup = arranged_setup(
        3,
        0,
        row=cards("@K1 @W1 @R1"),
        gems={0: cards("K1 K2 K3 K4"), 1: cards("K5 K6 R1 R2"), 2: cards("W1 W2 W3 W4")},
        servants={0: cards("S0:1 S0:5 S0:6"), 2: cards("S2:6 S2:1 S2:2")},
        pile=cards("W5 W6"),
    )
    game = Game2004(setup, Options(players=3, spaces_per_card=1))
    play(
        game,
        "K1>0 K2>0 Stop  K5>0 K6>0 Stop  W1>1 W2>1 Draw:gem Draw:gem"
        "  K3>0 S0:1>0 Stop  R1>2 R2>2 Stop  W3>1 W4>1 Stop"
        "  K4>0 S0:5>0 Stop  S1:1>2 Stop  W5>1 S2:6>1 Stop"
        "  S0:6>2 Stop  S1:2>2 Stop  Ritual:1 W6>2 S2:1>2 Stop",
    )
    assert game.scores == [0, 0, 5] and not game.game_over
    play(game, "Ritual:0")
    assert game.ended_by == "column" and game.scores == [5, 0, 5] and game.winners == [0]


def test_an_empty_supply_leaves_the_slot_empty() -> None:
    for game in _random_games(30, 2, 4):
        late = [
            r
            for r in game.log
            if isinstance(r, RitualDone) and r.turned is None and r.ended is None
        ]
        if late:
            slot = late[0].slot
            index = game.log.index(late[0])
            later = [r for r in game.log[index:] if isinstance(r, RitualDone)]
            assert all(r.slot != slot for r in later[1:])  # nothing came back into the slot
            assert game.row[slot] is None
            return
    pytest.fail("no ritual in the sample found the supply empty")


def test_nothing_left_can_follow_a_discard() -> None:
    """Discarding the last gem any hand holds (the pile empty) ends the game at once."""
    from druids_p2p.games.druids2004.setup import Discarded

    for game in _random_games(400, 4, 5):
        if game.ended_by == "nothing_left" and isinstance(game.log[-2], Discarded):
            assert game._nothing_left_now() and game.pile == []
            return
    pytest.fail("no game in the sample ended by a discard")
