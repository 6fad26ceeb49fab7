"""The bot host (faults and fallbacks), local games, the test kit and the built-in bots."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from druids_p2p.bots import RandomBot
from druids_p2p.bots.host import Bot, BotRunner, BotSpec, MoveOutcome, choose_move
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.games.druids2004.cards import Move as Move2004
from druids_p2p.games.druids2004.setup import Options as Options2004
from druids_p2p.games.druids2017 import Game, GameOptions, PlayerView, deal, parse_hand, parse_move
from druids_p2p.games.druids2017.cards import GAIA_DARK, PLAY_MISTLETOE, PLAY_SICKLE
from druids_p2p.games.druids2017.notation import Move
from druids_p2p.games.druids2017.rule_bot import RuleBot, fallback_move, rule_move
from druids_p2p.games.druids2017.ruleset import replay
from druids_p2p.testing import check_bot


# ------------------------------------------------------------------ misbehaving bots
class RaisingBot(Bot):
    def choose(self, view: PlayerView) -> int:
        raise ValueError("no idea what to do")


class IllegalBot(Bot):
    def choose(self, view: PlayerView) -> int:
        return max(view.legal) + 1 if max(view.legal) < 77 else 0


class StringBot(Bot):
    def choose(self, view: PlayerView) -> Any:
        return "R7"


class SlowOnceBot(Bot):
    """Overruns once (answering an illegal move late: it must be discarded), then behaves."""

    def __init__(self, sleep_s: float = 0.3) -> None:
        super().__init__()
        self.sleep_s = sleep_s
        self.calls = 0
        self.late_answered = threading.Event()

    def choose(self, view: PlayerView) -> int:
        self.calls += 1
        if self.calls == 1:
            time.sleep(self.sleep_s)
            self.late_answered.set()
            return 999
        return view.legal[0]


class HookRaisingBot(RandomBot):
    def end_round(self, view: PlayerView) -> None:
        raise RuntimeError("end_round broke")


def first_view(seed: int = 1, players: int = 4) -> PlayerView:
    """A view in mid-round (a few moves in) for the seat to move."""
    game = Game(GameOptions(players=players))
    game.start_round(deal(random.Random(seed), players))
    rng = random.Random(seed)
    for _ in range(6):
        game.play(rng.choice(game.legal_moves()))
    seat = game.to_move
    assert seat is not None
    return game.view(seat)


# ------------------------------------------------------------------------- choose_move
def test_choose_move_accepts_a_legal_answer() -> None:
    view = first_view()
    outcome = choose_move(RuleBot(), view, budget_ms=100)
    assert outcome == MoveOutcome(rule_move(view), None, outcome.elapsed_ms)
    assert outcome.elapsed_ms >= 0


@pytest.mark.parametrize(
    ("bot", "fault"),
    [
        (RaisingBot(), "raised ValueError: no idea what to do"),
        (IllegalBot(), "returned illegal move"),
        (StringBot(), "returned 'R7' (str), not a move id (int)"),
    ],
)
def test_choose_move_faults_fall_back_to_a_legal_move(bot: Bot, fault: str) -> None:
    view = first_view()
    outcome = choose_move(bot, view, budget_ms=50)
    assert outcome.fault is not None and fault in outcome.fault
    assert outcome.move in view.legal
    assert outcome.move == fallback_move(view) == rule_move(view)


class MoveValueBot(Bot):
    """Answers the rule bot's move as the game's Move value (API 1.1), not its id."""

    def choose(self, view: PlayerView) -> Move:
        return Move.of(rule_move(view))


class OtherGamesMoveBot(Bot):
    """Answers a move value of the other game (Druids 2004's ``Stop``)."""

    def choose(self, view: PlayerView) -> Move2004:
        return Move2004.from_token("Stop")


def test_a_bot_may_answer_its_games_move_value() -> None:
    """The host reads the game's own Move as its id, once; another game's value is a fault."""
    view = first_view()
    outcome = choose_move(MoveValueBot(), view, budget_ms=100)
    assert outcome == MoveOutcome(rule_move(view), None, outcome.elapsed_ms)
    other = choose_move(OtherGamesMoveBot(), view, budget_ms=100)
    assert other.fault is not None and "not a move id (int) nor a Move" in other.fault
    result = play_local_game([MoveValueBot, RandomBot, RuleBot], seed=5, budget_ms=50)
    assert len(result.rounds) == 5 and not result.faults


def test_choose_move_times_out_and_discards_the_late_answer() -> None:
    view = first_view()
    bot = SlowOnceBot(sleep_s=0.3)
    start = time.perf_counter()
    outcome = choose_move(bot, view, budget_ms=10)  # waits 10 * 2 + 50 = 70 ms
    waited = time.perf_counter() - start
    assert outcome.fault is not None and "no answer within 70 ms" in outcome.fault
    assert outcome.move == rule_move(view)
    assert waited < 0.25
    assert bot.late_answered.wait(2.0)


def test_runner_reports_busy_while_an_overrun_call_runs() -> None:
    view = first_view()
    runner = BotRunner(SlowOnceBot(sleep_s=0.2), budget_ms=5)
    try:
        assert "no answer" in (runner.choose(view).fault or "")
        assert "still busy" in (runner.choose(view).fault or "")
        deadline = time.monotonic() + 5.0
        while runner.busy and time.monotonic() < deadline:
            time.sleep(0.01)
        outcome = runner.choose(view)  # the late call has returned: the bot is asked again
        assert outcome.move == view.legal[0] and outcome.fault is None
    finally:
        runner.close()


def test_unenforced_runner_calls_directly() -> None:
    view = first_view()
    runner = BotRunner(RuleBot(), budget_ms=1, enforce=False)
    assert runner.choose(view).move == rule_move(view)
    assert runner.choose(view).fault is None


# ------------------------------------------------------------------------- whole games
@pytest.mark.parametrize(
    ("bad", "fault"),
    [
        (RaisingBot, "raised ValueError"),
        (IllegalBot, "returned illegal move"),
        (StringBot, "not a move id"),
    ],
)
def test_a_faulty_bot_does_not_stop_the_game(bad: type[Bot], fault: str) -> None:
    result = play_local_game([RandomBot, bad, RuleBot], seed=5, budget_ms=50)
    assert len(result.rounds) == 5 and all(r.scores for r in result.rounds)
    faults = result.faults
    assert faults and all(f.seat == 1 and f.stage == "choose" for f in faults)
    assert all(fault in f.text for f in faults)
    moves_by_seat_1 = sum(r.seats.count(1) for r in result.rounds)
    assert len(faults) == moves_by_seat_1  # every one of its moves fell back
    # The record (fallbacks included) replays as a legal game.
    code, out = replay(__import__("json").dumps(result.record()))
    assert code == 0 and out["totals"] == result.totals


def test_a_slow_bot_is_timed_out_and_the_game_finishes() -> None:
    slow = SlowOnceBot(sleep_s=0.25)
    result = play_local_game([RuleBot, slow, RandomBot, RandomBot], seed=2, budget_ms=10)
    assert len(result.rounds) == 5
    first = result.faults[0]
    assert first.seat == 1 and first.stage == "choose" and "no answer within" in first.text
    assert all(f.seat == 1 for f in result.faults)
    assert slow.late_answered.wait(2.0)  # its late (illegal) answer was never played
    code, _ = replay(__import__("json").dumps(result.record()))
    assert code == 0


def test_lifecycle_hook_faults_are_recorded() -> None:
    result = play_local_game([HookRaisingBot, RandomBot, RandomBot], seed=4)
    stages = [(f.seat, f.stage, f.round) for f in result.faults]
    assert stages == [(0, "end_round", r) for r in range(5)]
    assert "RuntimeError: end_round broke" in result.faults[0].text


class RecordingBot(RandomBot):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []
        self.first_draw = -1.0

    def start_game(
        self,
        seat: int,
        options: GameOptions | Options2004,
        rng: random.Random,
        time_budget_ms: float,
    ) -> None:
        super().start_game(seat, options, rng, time_budget_ms)
        self.events.append(f"start {seat} {time_budget_ms:g}")
        self.first_draw = random.Random(rng.random()).random()

    def end_round(self, view: PlayerView) -> None:
        self.events.append(f"round {view.round_index} {len(view.round_scores)}")

    def end_game(self, view: PlayerView) -> None:
        self.events.append(f"game {view.game_over}")


def test_lifecycle_and_own_rngs() -> None:
    bots = [RecordingBot() for _ in range(3)]
    result = play_local_game(bots, seed=9, budget_ms=40)
    assert not result.faults
    for seat, bot in enumerate(bots):
        assert bot.events == [
            f"start {seat} 40",
            *(f"round {r} {r + 1}" for r in range(5)),
            "game True",
        ]
    assert len({b.first_draw for b in bots}) == 3  # each seat has its own stream


def test_same_seed_same_game_and_same_deals_whoever_sits_where() -> None:
    a = play_local_game([RuleBot, RandomBot, RandomBot, RandomBot], seed=21)
    b = play_local_game([RuleBot, RandomBot, RandomBot, RandomBot], seed=21)
    assert a.record() == b.record() and a.totals == b.totals and a.winners == b.winners
    c = play_local_game([RandomBot, RandomBot, RuleBot, RandomBot], seed=21)
    assert [r.hands for r in c.rounds] == [r.hands for r in a.rounds]
    d = play_local_game([RuleBot, RandomBot, RandomBot, RandomBot], seed=22)
    assert d.rounds[0].hands != a.rounds[0].hands
    assert a.names == ["RuleBot", "RandomBot", "RandomBot", "RandomBot"]
    assert sum(len(a.move_times_ms(s)) for s in range(4)) == sum(len(r.moves) for r in a.rounds)
    assert a.round_scores == [r.scores for r in a.rounds]
    assert sum(map(sum, zip(*a.round_scores, strict=True))) == sum(a.totals)


def test_players_by_name_spec_and_instance() -> None:
    spec = BotSpec(name="mine", factory=RuleBot)
    result = play_local_game(["rule", spec, RandomBot()], seed=1, enforce_budget=False)
    assert result.names == ["rule", "mine", "RandomBot"]
    with pytest.raises(ValueError, match="3 bots for a 4-player game"):
        play_local_game(["rule"] * 3, GameOptions(players=4))
    with pytest.raises(KeyError, match="unknown bot 'nope'"):
        play_local_game(["rule", "random", "nope"])
    with pytest.raises(TypeError, match="not a Bot"):
        play_local_game([BotSpec(name="x", factory=object), "rule", "rule"])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- test kit
@pytest.mark.parametrize("bot", [RandomBot, RuleBot])
def test_check_bot_passes_the_builtins(bot: type[Bot]) -> None:
    report = check_bot(bot, games=12)
    assert report.ok and report.moves > 0 and report.games == 12
    assert report.max_move_ms < 100


def test_check_bot_fails_clearly() -> None:
    with pytest.raises(AssertionError) as info:
        check_bot(RaisingBot, games=3)
    text = str(info.value)
    assert "check_bot(RaisingBot)" in text and "raised ValueError: no idea what to do" in text
    assert "seed 0" in text
    report = check_bot(IllegalBot, games=2, raise_on_failure=False)
    assert not report.ok and "illegal move" in report.failures[0]
    with pytest.raises(AssertionError, match="invalid BotSpec"):
        check_bot(BotSpec(name="Bad!", factory=RandomBot))


class SluggishBot(Bot):
    def choose(self, view: PlayerView) -> int:
        time.sleep(0.012)
        return view.legal[0]


def test_check_bot_flags_moves_over_budget() -> None:
    report = check_bot(SluggishBot, games=1, players=(3,), budget_ms=5, raise_on_failure=False)
    assert report.failures and all("over the 5 ms budget" in f for f in report.failures)


# -------------------------------------------------------------------------- rule bot
def make_view(
    seat: int,
    hand: str,
    trick: list[tuple[int, str]],
    tops: list[str],
    *,
    players: int = 4,
    hand_sizes: list[int] | None = None,
) -> PlayerView:
    """A hand-built view: ``tops`` per seat like "G9 B12" (a pile per listed card)."""
    cards = parse_hand(hand.split())
    plays = tuple((s, parse_move(m)) for s, m in trick)
    led = -1
    for _, m in plays:
        if m < 60:
            led = m // 12
            break
    pile_tops: list[tuple[int | None, ...]] = []
    for row in tops:
        by_domain: list[int | None] = [None] * 5
        for card in parse_hand(row.split()):
            by_domain[card // 12] = card
        pile_tops.append(tuple(by_domain))
    legal_game_free = [
        c if c < 60 else (PLAY_MISTLETOE if c in (61, 62) else PLAY_SICKLE) for c in cards
    ]
    following = [m for m in legal_game_free if m < 60 and m // 12 == led]
    specials = sorted({m for m in legal_game_free if m >= 60})
    legal = (
        tuple(sorted(set(following + specials)))
        if following
        else tuple(sorted(set(legal_game_free)))
    )
    sizes = hand_sizes or [len(cards)] * players
    return PlayerView(
        seat=seat,
        players=players,
        variant=False,
        round_index=0,
        hand=tuple(cards),
        hand_sizes=tuple(sizes),
        to_move=seat,
        legal=legal,
        leader=plays[0][0] if plays else seat,
        trick=plays,
        lead_domain=led,
        light=False,
        tricks=(),
        pile_tops=tuple(pile_tops),
        pile_sizes=tuple(tuple(0 if t is None else 1 for t in row) for row in pile_tops),
        pending_pile_choice=(),
        round_scores=(),
        totals=(0,) * players,
        round_over=False,
        game_over=False,
    )


def test_rule_dodges_a_fifth_domain_with_mistletoe() -> None:
    view = make_view(
        3, "V8 V12 Mistletoe", [(0, "V5"), (1, "V3"), (2, "V7")], ["", "", "", "G9 Y10 R11 B12"]
    )
    assert rule_move(view) == PLAY_MISTLETOE


def test_rule_plays_the_sickle_into_an_opponents_trick_late() -> None:
    view = make_view(
        3,
        "G1 Sickle",
        [(0, "G10"), (1, "G9"), (2, "G11")],
        ["", "", "B12 Y11", ""],
        hand_sizes=[1, 1, 1, 2],
    )
    assert rule_move(view) == PLAY_SICKLE


def test_rule_feeds_a_low_card_onto_the_winners_best_pile() -> None:
    # Void in green: dump B1 onto seat 0's B12 rather than a high card or a new pile.
    view = make_view(3, "B1 B11 R12 Y6", [(0, "G12"), (1, "G3"), (2, "G4")], ["B12", "", "", ""])
    assert rule_move(view) == parse_move("B1")


def test_rule_ducks_a_trick_of_low_cards() -> None:
    # Last to play: R12 would take R2 R4 R3, turning our red top R11 into R2; R1 ducks (and tops
    # the winner's red pile with 1).
    view = make_view(3, "R1 R12", [(0, "R2"), (1, "R4"), (2, "R3")], ["", "", "", "G9 R11"])
    assert rule_move(view) == parse_move("R1")


def test_rule_names_gaia_in_its_strongest_domain() -> None:
    game = Game(GameOptions(players=3))
    hands = deal(random.Random(0), 3)
    game.start_round(hands)
    holder = game.to_move
    assert holder is not None
    view = game.view(holder)
    strength = [sum(c % 12 + 1 for c in view.hand if c < 60 and c // 12 == d) for d in range(5)]
    assert rule_move(view) == GAIA_DARK + strength.index(max(strength))


def test_rule_is_deterministic_and_always_legal() -> None:
    rng = random.Random(5)
    for players in (3, 4, 5):
        game = Game(GameOptions(players=players, variant=True))
        while not game.game_over:
            game.start_round(deal(rng, players))
            while not game.round_over:
                seat = game.to_move
                assert seat is not None
                view = game.view(seat)
                move = rule_move(view)
                assert move in view.legal and move == rule_move(view)
                game.play(move if rng.random() < 0.5 else rng.choice(view.legal))
