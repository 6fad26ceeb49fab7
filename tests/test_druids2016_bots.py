"""Druids (2016) bots: every policy returns a legal move and leaves the game alone, the same seed
and node budget give the same move, the rule bot wins when it can and saves its Master when it
can, the search finds wins in one and in two, a time budget stops on the clock passed in, and
whole games between bots end.

Default board: Temples c1/c7; c3 and c5 River symbols, b4 and d4 Cloud symbols. Player 0 sits at
row 1 and moves first (``druids2016_positions``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from druids2016_positions import BOARD, TILES, position, tokens

from druids_p2p.games.druids2016.game import WIN, Game
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.policy import (
    Budget,
    Policy,
    clone,
    demo_policy,
    random_move,
    rule_move,
    temple_distances,
)
from druids_p2p.games.druids2016.replay import demo_lines
from druids_p2p.games.druids2016.search import (
    MATE_BAND,
    Searcher,
    play_game,
    search_move,
    seeded_setup,
    wilson,
)

POLICIES: list[Policy] = [random_move, rule_move, search_move]
NODES = Budget(nodes=400)


def wins_at_once(game: Game) -> list[str]:
    """The moves of the player to move that win on the spot."""
    side, out = game.side, []
    for move in game.legal_moves():
        game.play_code(move.code)
        result = game.result
        if result is not None and result.status == WIN and result.winner == game.player(side):
            out.append(move.token())
        game.undo()
    return out


def positions(count: int, seed: int) -> Iterator[Game]:
    """Positions from random play on random setups (never over)."""
    rng = random.Random(seed)
    for _ in range(count):
        game = Game(seeded_setup(rng.randrange(10**6), rng.randrange(2), BOARD), BOARD)
        for _ in range(rng.randrange(40)):
            game.play_code(rng.choice(game.legal_codes()))
            if game.result is not None:
                game.undo()
                break
        yield game


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.__name__)
def test_every_policy_returns_a_legal_move_and_leaves_the_game_as_it_was(policy: Policy) -> None:
    for game in positions(12, 7):
        before = (game.key(), list(game.history), dict(game.counts), game.ply, game.quiet)
        move = policy(game, random.Random(1), NODES)
        assert game.check(move) is None, move.token()
        assert (game.key(), list(game.history), dict(game.counts), game.ply, game.quiet) == before


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.__name__)
def test_same_seed_budget_and_position_give_the_same_move(policy: Policy) -> None:
    for game in positions(8, 11):
        moves = {policy(clone(game), random.Random(5), NODES) for _ in range(3)}
        assert len(moves) == 1


def test_search_with_different_node_budgets_may_differ_but_each_is_reproducible() -> None:
    game = next(positions(1, 3))
    for nodes in (50, 300, 1200):
        budget = Budget(nodes=nodes)
        searches = [Searcher(game, random.Random(2), budget) for _ in range(2)]
        assert searches[0].run() == searches[1].run()
        assert searches[0].nodes == searches[1].nodes <= nodes + 1


def test_a_budget_needs_nodes_or_seconds_with_a_clock() -> None:
    with pytest.raises(ValueError, match="nodes, seconds"):
        Budget()
    with pytest.raises(ValueError, match="clock"):
        Budget(seconds=0.1)
    with pytest.raises(ValueError, match="at least 1"):
        Budget(nodes=0)


def test_a_time_budget_reads_only_the_clock_passed_in_and_stops_on_it() -> None:
    ticks = iter(range(10**6))
    readings: list[int] = []

    def clock() -> float:  # one second a reading: the deadline (0.5 s) passes at the first check
        readings.append(next(ticks))
        return float(readings[-1])

    game = next(positions(1, 5))
    search = Searcher(game, random.Random(1), Budget(seconds=0.5, clock=clock))
    code, _ = search.run()
    assert game.check(Move.from_code(code)) is None
    assert len(readings) == 2  # the deadline set, then one check after CLOCK_EVERY nodes
    assert search.nodes <= 128


def test_a_policy_asked_to_move_in_a_finished_game_says_so() -> None:
    game = position({"c6": "0e*", "e7": "1w*"}, masters=False)
    game.play(Move.from_token("c6n"))  # onto the Temple c7: won
    for policy in POLICIES:
        with pytest.raises(ValueError, match="over"):
            policy(game, random.Random(1), NODES)


# --- winning and not losing ----------------------------------------------------------------
TEMPLE_IN_ONE = {"c6": "0e*", "e7": "1w*", "a3": "0n", "b3": "1s"}
"""Player 0's Master steps onto c7; a3e would capture a Druid instead."""
MASTER_IN_ONE = {"e5": "0e", "d5": "1n*", "a1": "0e*", "a3": "0n", "b3": "1s"}
"""e5w captures player 1's Master on d5; a3e would capture a Druid instead."""
RIVER_TILES = {"c6": "R", "a6": "M", "e6": "F", "e2": "C", "a2": "C"}
RIVER_IN_ONE = {"c5": "0e*", "e7": "1w*", "a3": "0n", "b3": "1s"}
"""On RIVER_TILES: c5n enters the River tile on c6 and the River carries the Master onto c7."""


@pytest.mark.parametrize(
    ("druids", "tiles", "winning"),
    [
        (TEMPLE_IN_ONE, TILES, "c6n"),
        (MASTER_IN_ONE, TILES, "e5w"),
        (RIVER_IN_ONE, RIVER_TILES, "c5n"),
    ],
    ids=["temple", "master", "river"],
)
@pytest.mark.parametrize("policy", [rule_move, search_move], ids=["rule", "search"])
def test_the_rule_and_search_bots_take_a_win_in_one(
    policy: Policy, druids: dict[str, str], tiles: dict[str, str], winning: str
) -> None:
    game = position(druids, tiles, masters=False)
    assert wins_at_once(game) == [winning]
    for seed in range(5):
        assert policy(game, random.Random(seed), NODES).token() == winning


THREATENED = {"b1": "0n*", "b2": "1n", "e7": "1w*", "d3": "0s", "e3": "0e", "e4": "1w"}
"""Player 1's Druid on b2 may step s and capture player 0's Master on b1; e3n would capture a
Druid (and save e3 from e4s), but only a Master step (b1e, b1w) saves the game."""


def test_position_threatened_lets_the_opponent_win_after_most_moves() -> None:
    game = position(THREATENED, masters=False)
    losing = 0
    for move in game.legal_moves():
        game.play_code(move.code)
        losing += bool(wins_at_once(game))
        game.undo()
    assert 0 < losing < len(game.legal_moves()) and losing >= 4


@pytest.mark.parametrize("policy", [rule_move, search_move], ids=["rule", "search"])
def test_the_rule_and_search_bots_never_leave_the_master_capturable_when_they_can(
    policy: Policy,
) -> None:
    game = position(THREATENED, masters=False)
    for seed in range(8):
        move = policy(game, random.Random(seed), NODES)
        game.play_code(move.code)
        assert wins_at_once(game) == [], move.token()
        game.undo()


SAFE_OR_GUARDED = {"a1": "0e*", "a3": "0n", "d3": "0s", "d5": "1w*", "b3": "1n", "d4": "1s"}
"""a3e takes b3 and nothing can take back; d3n takes d4 but the Master on d5 takes back."""


def test_the_rule_bot_takes_the_safe_capture_not_the_one_taken_back() -> None:
    game = position(SAFE_OR_GUARDED, masters=False)
    assert tokens(game, "d3n") and tokens(game, "a3e")
    assert {rule_move(game, random.Random(s), NODES).token() for s in range(6)} == {"a3e"}


def test_the_search_finds_a_win_in_two_and_proves_it() -> None:
    # the Master on b6 faces e: b6n reaches b7, then b7e enters the Temple c7; nothing of
    # player 1 can reach b7 or block c7 in time (its Master is on e7, facing e)
    game = position({"b6": "0e*", "e7": "1e*", "a1": "0n"}, masters=False)
    assert wins_at_once(game) == []
    search = Searcher(game, random.Random(1), Budget(nodes=3000))
    code, score = search.run()
    assert score >= MATE_BAND
    game.play_code(code)
    for reply in game.legal_codes():
        game.play_code(reply)
        assert wins_at_once(game), Move.from_code(reply).token()
        game.undo()


def test_temple_distances_count_the_zigzag_the_facing_rule_forces() -> None:
    dist = temple_distances(BOARD, 0)  # to c7
    c6, c5, b7 = 27, 22, 31
    assert dist[c6][1] == 1  # facing e, step n
    assert dist[c6][0] == 3  # facing n: sideways, north, back
    assert dist[b7][0] == 1 and dist[b7][1] == 3
    assert dist[c5][1] == 4  # two rows up: n, sideways, n, back (never n twice in a row)
    assert temple_distances(BOARD, 1)[7][2] >= 1


# --- whole games -------------------------------------------------------------------------
def test_whole_games_between_bots_end_and_repeat_from_their_seed() -> None:
    budgets = (Budget(nodes=100), Budget(nodes=100))
    pairs: list[tuple[Policy, Policy]] = [
        (search_move, rule_move),
        (rule_move, random_move),
        (random_move, search_move),
    ]
    for first, policies in enumerate(pairs):
        played = play_game(policies, budgets, 4, first % 2)
        assert played.game.result is not None and played.first == first % 2
        assert played.plies <= played.game.options.max_moves
    again = [play_game(pairs[1], budgets, 4, 0) for _ in range(2)]
    assert again[0].result == again[1].result
    assert again[0].game.history == again[1].game.history


def test_a_pair_of_games_plays_one_setup_from_both_chairs() -> None:
    zero, one = seeded_setup(9, 0, BOARD), seeded_setup(9, 1, BOARD)
    assert (zero.first, one.first) == (0, 1) and zero.tiles == one.tiles
    assert zero.placements == (one.placements[1], one.placements[0])


def test_play_game_refuses_a_policy_that_returns_an_illegal_move() -> None:
    def cheat(game: Game, rng: random.Random, budget: Budget) -> Move:
        return Move.from_token("a1s")

    with pytest.raises(ValueError, match="player 0's policy chose 'a1s'"):
        play_game((cheat, random_move), (NODES, NODES), 1, 0)


def test_a_bot_tells_a_demo_game() -> None:
    lines = list(demo_lines(3, BOARD, demo_policy(rule_move, random.Random(3), NODES)))
    assert lines[-1].startswith(("P0 wins", "P1 wins", "Drawn"))


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(5, 10)
    assert round(low, 4) == 0.2366 and round(high, 4) == 0.7634
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    low, high = wilson(60, 60)
    assert round(low, 4) == 0.9398 and high == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)
