"""High card, the tests' third game (``tests/support/highcard``), by its own rules: its move
values, the engine's rules (follow suit, the highest of the led suit takes the trick), a hand the
engine does not know, its JSON notation and replay, and whole games through the one in-process
loop, which plays it knowing nothing of it.

Importing the package registers nothing (its entry point is in ``support/highcard_dist``), so
these tests need no registry."""

from __future__ import annotations

import copy
import json
import pickle
import random
import sys
from pathlib import Path
from typing import Any

import pytest

SUPPORT = str(Path(__file__).parent / "support")
if SUPPORT not in sys.path:
    sys.path.append(SUPPORT)  # the game's package only: importing it registers nothing

from highcard.bots import GreedyBot, fallback  # noqa: E402
from highcard.cards import MOVES, N_CARDS, Move, format_card, parse_card  # noqa: E402
from highcard.engine import HighCard, Options, deal, playout  # noqa: E402
from highcard.ruleset import HighCardRuleset  # noqa: E402

from druids_p2p.bots.host import derive_rng  # noqa: E402
from druids_p2p.bots.local_game import Seat, run_game  # noqa: E402
from druids_p2p.games.seam import CardTableRuleset, IllegalMove, InvalidDeal  # noqa: E402

RULES = HighCardRuleset()


def cards(tokens: str) -> list[int]:
    return [parse_card(t) for t in tokens.split()]


def game(*hands: str) -> HighCard:
    return HighCard(Options(players=len(hands)), [cards(h) for h in hands])


def test_a_move_is_one_value_per_id_with_one_token() -> None:
    for move_id in range(N_CARDS):
        move = Move.of(move_id)
        assert move is MOVES[move_id] is Move.from_token(move.token())
        assert move.token() == format_card(move_id) and parse_card(move.token()) == move_id
        assert pickle.loads(pickle.dumps(move)) is move and copy.deepcopy(move) is move
    for bad_id in (-1, N_CARDS, True, "3"):
        with pytest.raises(ValueError, match="no move has id"):
            Move.of(bad_id)  # type: ignore[arg-type]
    for bad_token in ("S5", "s1", "", "S1 ", "X2"):
        with pytest.raises(ValueError, match=repr(bad_token)):
            Move.from_token(bad_token)
    with pytest.raises(TypeError):
        Move(3)
    with pytest.raises(AttributeError):
        Move.of(0).id = 1


def test_follow_suit_and_the_highest_card_of_the_led_suit_takes_the_trick() -> None:
    g = game("S1 H4 C2", "S3 H1 C4", "H2 H3 C1")
    assert g.to_move == 0 and g.legal_moves() == sorted(cards("S1 H4 C2"))
    g.play(parse_card("S1"))
    assert g.legal_moves() == cards("S3")  # P1 holds a spade: it must follow
    assert g.check(parse_card("C4")) == "P1 must follow suit (S) and holds one"
    with pytest.raises(IllegalMove, match="must follow suit"):
        g.play(parse_card("C4"))
    g.play(parse_card("S3"))
    assert g.legal_moves() == sorted(cards("C1 H2 H3"))  # P2 has no spade: anything
    g.play(parse_card("H3"))  # off suit: a higher rank, yet no taker
    assert g.tricks[-1][2] == 1 and g.to_move == 1 and g.totals == [0, 1, 0]
    g.play(parse_card("C4"))
    assert g.check(parse_card("H4")) == "P2 does not hold H4"
    g.play(parse_card("C1"))
    g.play(parse_card("C2"))
    assert g.tricks[-1][2] == 1 and g.leader == 1
    for token in ("H1", "H2", "H4"):
        g.play(parse_card(token))
    assert g.game_over and g.to_move is None and g.totals == [1, 2, 0] and g.winners == [1]
    assert g.check(parse_card("S2")) == "the game is over" and g.ended_by == "tricks"


def test_a_hand_the_engine_does_not_know_is_checked_by_what_is_public_alone() -> None:
    """A seat's copy at a card table knows its own hand only: another seat's card is refused if
    it is played already or known to lie in another hand, and an off-suit card is taken."""
    g = HighCard(Options(players=3), [cards("S1 H4 C2"), None, None])
    g.play(parse_card("S1"))
    assert g.legal_moves() == []  # nobody here knows P1's cards
    assert g.check(parse_card("S1")) == "S1 has been played already"
    assert g.check(parse_card("H4")) == "H4 is in P0's hand, not P1's"
    assert g.check(parse_card("C3")) is None  # off suit: only the final reveal can tell
    g.play(parse_card("C3"))
    assert g.view(1).hand == () and g.view(0).hand == tuple(sorted(cards("C2 H4")))


def test_a_deal_is_three_different_cards_a_seat_and_a_bad_one_is_refused() -> None:
    for players in (2, 3, 4):
        hands = deal(random.Random(players), players)
        every = [c for h in hands for c in h]
        assert all(len(h) == 3 for h in hands) and len(set(every)) == 3 * players
    with pytest.raises(InvalidDeal, match="3 different cards"):
        game("S1 S1 S2", "H1 H2 H3")
    with pytest.raises(InvalidDeal, match="cannot be there"):
        game("S1 S2 S3", "S3 H2 H3")
    with pytest.raises(InvalidDeal, match="2 hands for 3 players"):
        HighCard(Options(players=3), [cards("S1 S2 S3"), cards("H1 H2 H3")])
    for players in (1, 5):
        with pytest.raises(ValueError, match=f"highcard seats 2 to 4, not {players}"):
            Options(players=players)


def _random_seats(players: int, seed: int) -> list[Seat]:
    return [Seat(f"random-{s}", None, derive_rng(seed, "bot", s)) for s in range(players)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_games_between_random_bots_in_the_one_loop_replay_to_their_end(
    players: int,
) -> None:
    """The in-process loop (``bots/local_game.run_game``) plays the game through the seam; each
    game's record, in the game's notation, replays legal to the same scores and winners."""
    rules: CardTableRuleset = RULES
    for seed in range(20):
        result = run_game(
            rules, rules.make_options(players), seed, _random_seats(players, seed), 5.0
        )
        assert len(result.rounds) == 1 and len(result.rounds[0].moves) == 3 * players
        assert sum(result.totals) == 3 and result.rounds[0].scores == result.totals
        assert result.rounds[0].ended_by == "tricks" and not result.faults
        record = RULES.record(result.state, [], [r.moves for r in result.rounds])
        code, out = RULES.replay(json.dumps(record))
        assert code == 0 and out["ok"] and out["finished"], out
        assert out["scores"] == result.totals and out["winners"] == result.winners
        assert [len(h) for h in record["hands"]] == [3] * players
        again = run_game(
            rules, rules.make_options(players), seed, _random_seats(players, seed), 5.0
        )
        assert RULES.record(again.state, [], []) == record  # the deal is the seed's stream's
        assert list(RULES.describe(result.state))[-1].startswith(f"Totals {result.totals}")


def _record(**fields: Any) -> str:
    base: dict[str, Any] = {
        "game": "highcard",
        "players": 2,
        "hands": [["S1", "H4", "C2"], ["S3", "H1", "C4"]],
        "moves": ["S1", "S3"],
    }
    return json.dumps(base | fields)


def test_replay_stops_at_the_first_illegal_move_and_says_why() -> None:
    code, out = RULES.replay(_record(moves=["S1", "C4"]))
    assert (code, out) == (
        1,
        {"ok": False, "move": 1, "error": "P1 must follow suit (S) and holds one"},
    )
    code, out = RULES.replay(_record(moves=["S1", "S3", "Z9"]))
    assert (code, out["move"], out["error"]) == (1, 2, "no card 'Z9'")
    code, out = RULES.replay(_record())
    assert code == 0 and out["to_move"] == 1 and not out["finished"]
    assert out["tricks"] == [{"leader": 0, "cards": ["S1", "S3"], "winner": 1}]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not JSON"),
        ("[]", 'an object with "game": "highcard"'),
        (_record(game="druids2004"), 'an object with "game": "highcard"'),
        (_record(hands="S1"), '"hands" must be a list of lists'),
        (_record(moves=[1]), '"moves" must be a list of card tokens'),
        (_record(players=3), '"players" must be the number of hands (2), not 3'),
        (_record(hands=[["S1", "S9", "C2"], ["S3", "H1", "C4"]]), "unknown card token 'S9'"),
        (_record(hands=[["S1", "H4", "C2"], ["S1", "H1", "C4"]]), "cannot be there"),
    ],
)
def test_a_malformed_record_is_one_line_naming_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=None) as info:
        RULES.replay(text)
    assert says in str(info.value) and "\n" not in str(info.value)


def test_the_greedy_bot_and_the_fallback_play_legal_moves_and_greedy_beats_random() -> None:
    """Over the same 300 deals, seat 0 greedy scores more than seat 0 random (duplicate)."""
    scores = {"greedy": 0, "random": 0}
    for seed in range(300):
        for name in scores:
            g = HighCard(Options(players=3), deal(random.Random(seed), 3))
            bot, rng = GreedyBot(), random.Random(seed)
            while not g.game_over:
                view = g.view(g.to_move or 0)
                assert fallback(view) in view.legal
                if g.to_move == 0 and name == "greedy":
                    move = bot.choose(view)
                else:
                    move = rng.choice(view.legal)
                assert move in view.legal
                g.play(move)
            scores[name] += g.totals[0]
    assert scores["greedy"] > scores["random"], scores


def test_a_random_playout_is_every_card_of_every_hand() -> None:
    for players in (2, 3, 4):
        assert playout(random.Random(players), Options(players=players)) == 3 * players
    assert RULES.max_moves(4, 5) == 12  # one round: ``rounds`` is another game's


def test_the_seat_text_a_person_reads_and_types() -> None:
    g = game("S1 H4 C2", "S3 H1 C4")
    g.play(parse_card("S1"))
    view = g.view(1)
    assert RULES.seat_lines(view) == ["trick 1: P0:S1; points [0, 0]", "your hand: S3 H1 C4"]
    assert RULES.parse_typed_move(" s3 ") is Move.of(parse_card("S3"))
    assert RULES.typed_move(Move.of(0)) == "S1"
    with pytest.raises(TypeError, match="shows its View"):
        RULES.seat_lines(object())
