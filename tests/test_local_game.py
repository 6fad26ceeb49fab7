"""The one in-process game loop knows no game: a third game, registered through its entry
point, plays there as it is.

``Countdown`` is a toy game written only against the seam: each round a pile of 5..9 tokens is
dealt from the chance stream, seats take 1 or 2 in turn, and whoever takes the last token scores
a point. It has no seat at a card table (a game for the loop, demo and replay only). Nothing in
the loop, the host or a tournament worker names it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from dist_info import installed_games

from druids_p2p.bots.host import HOOK_TIMEOUT_MS, Bot, RandomBot, wait_limit_ms
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.cli.main import main
from druids_p2p.games.registry import RULESETS, games
from druids_p2p.games.seam import CommonGameState, CommonRuleset, Streams
from druids_p2p.games.spec import GameSpec
from druids_p2p.plugins import builtin_registry
from druids_p2p.tournament.config import game_timeout_s
from druids_p2p.tournament.play import play_game

NAME = "countdown"


@dataclass(frozen=True)
class CountdownOptions:
    players: int = 2
    rounds: int = 3


@dataclass(frozen=True)
class CountdownView:
    seat: int
    pile: int
    legal: tuple[int, ...]


class Countdown:
    """The game state: the CommonGameState protocol and nothing else."""

    def __init__(self, options: CountdownOptions) -> None:
        self.options = options
        self.pile = 0
        self.seat = 0
        self.round_scores: list[list[int]] = []
        self.ended = True

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def to_move(self) -> int | None:
        return None if self.ended else self.seat

    @property
    def game_over(self) -> bool:
        return self.ended and len(self.round_scores) == self.options.rounds

    @property
    def totals(self) -> list[int]:
        return [sum(r[s] for r in self.round_scores) for s in range(self.players)]

    @property
    def winners(self) -> list[int] | None:
        if not self.game_over:
            return None
        best = max(self.totals)
        return [s for s, t in enumerate(self.totals) if t == best]

    def legal_moves(self) -> list[int]:
        return [] if self.ended else [m for m in (1, 2) if m <= self.pile]

    def check(self, move: int) -> str | None:
        return None if move in self.legal_moves() else f"cannot take {move} of {self.pile}"

    def play(self, move: int) -> None:
        why = self.check(move)
        if why is not None:
            raise ValueError(why)
        self.pile -= move
        if self.pile == 0:
            self.ended = True
            self.round_scores.append([int(s == self.seat) for s in range(self.players)])
        else:
            self.seat = (self.seat + 1) % self.players

    def view(self, seat: int) -> CountdownView:
        legal = tuple(self.legal_moves()) if seat == self.to_move else ()
        return CountdownView(seat, self.pile, legal)

    def deal(self, pile: int) -> None:
        self.pile, self.ended = pile, False
        self.seat = len(self.round_scores) % self.players


@dataclass(frozen=True, slots=True)
class CountdownMove:
    """Countdown's move value (the seam's ``GameMove``): take one or two tokens."""

    id: int

    def token(self) -> str:
        return f"take{self.id}"

    @classmethod
    def of(cls, move_id: int) -> CountdownMove:
        if move_id not in _COUNTDOWN_MOVES:
            raise ValueError(f"no move has id {move_id}")
        return _COUNTDOWN_MOVES[move_id]

    @classmethod
    def from_token(cls, token: str) -> CountdownMove:
        for move in _COUNTDOWN_MOVES.values():
            if move.token() == token:
                return move
        raise ValueError(f"unknown move token {token!r}")


_COUNTDOWN_MOVES = {m: CountdownMove(m) for m in (1, 2)}


class CountdownRuleset:
    name = NAME
    Move = CountdownMove
    min_players = 2
    max_players = 4
    deck_size = 0

    def new_game(self, players: int, **options: Any) -> Countdown:
        return Countdown(CountdownOptions(players, **options))

    def format_card(self, card: int) -> str:
        raise ValueError("countdown has no cards")

    def parse_card(self, token: str) -> int:
        raise ValueError("countdown has no cards")

    def make_options(self, players: int, variant: bool = False) -> CountdownOptions:
        return CountdownOptions(players)

    def max_moves(self, players: int, rounds: int) -> int:
        return rounds * 9  # a pile of at most 9 tokens, one taken at least each move

    def start(self, options: Any, streams: Streams) -> Countdown:
        return Countdown(options)

    def chance(self, state: CommonGameState, streams: Streams) -> list[list[int]] | None:
        assert isinstance(state, Countdown)
        pile = streams("pile", len(state.round_scores)).randint(5, 9)
        state.deal(pile)
        return [[pile]]

    def in_play(self, state: CommonGameState) -> Countdown:
        assert isinstance(state, Countdown)
        return state

    def round_result(self, state: CommonGameState) -> tuple[list[int], str] | None:
        assert isinstance(state, Countdown)
        if not state.ended or not state.round_scores:
            return None
        return state.round_scores[-1], "last token"

    def record(
        self,
        state: CommonGameState,
        deals: Sequence[Sequence[Sequence[int]]],
        moves: Sequence[Sequence[int]],
    ) -> dict[str, Any]:
        piles = [d[0][0] for d in deals]
        return {"game": NAME, "piles": piles, "moves": [[f"take{m}" for m in r] for r in moves]}

    def replay(self, text: str) -> tuple[int, dict[str, Any]]:
        raise ValueError("countdown records are not replayed here")

    def describe(self, state: CommonGameState) -> Iterator[str]:
        assert isinstance(state, Countdown)
        yield f"countdown, {state.players} players: totals {state.totals}"


class TakesThree(Bot):
    """Always answers a move the game does not have."""

    def choose(self, view: Any) -> int:
        return 3


SPEC = GameSpec(
    name=NAME,
    title="Countdown",
    rules=cast(CommonRuleset, CountdownRuleset()),
    view=CountdownView,
    options=CountdownOptions,
)
"""What ``countdown``'s entry point names (``test_local_game:SPEC``)."""


@pytest.fixture
def countdown(tmp_path: Path) -> Iterator[CountdownRuleset]:
    with installed_games(tmp_path, {NAME: f"{__name__}:SPEC"}):
        assert games()[NAME] is SPEC and NAME not in RULESETS  # no seat at a card table
        yield cast(CountdownRuleset, SPEC.rules)


def test_a_registered_third_game_plays_in_the_one_loop(countdown: CountdownRuleset) -> None:
    result = play_local_game([RandomBot, RandomBot, RandomBot], seed=4, game=NAME)
    assert result.game == NAME and len(result.rounds) == 3 and not result.faults
    record = result.record()
    for rnd, pile, moves in zip(result.rounds, record["piles"], record["moves"], strict=True):
        assert sum(rnd.moves) == pile and 5 <= pile <= 9 and len(moves) == len(rnd.moves)
        assert rnd.ended_by == "last token" and sum(rnd.scores) == 1
    assert result.totals == [sum(col) for col in zip(*result.round_scores, strict=True)]
    again = play_local_game([RandomBot, RandomBot, RandomBot], seed=4, game=NAME)
    assert again.record() == record  # the chance stream comes from the seed


def test_a_faulty_bot_in_a_third_game_plays_its_first_legal_move(
    countdown: CountdownRuleset,
) -> None:
    result = play_local_game([TakesThree, RandomBot], seed=1, game=NAME, budget_ms=50)
    mine = result.faults_of(0)
    assert mine and all(f.text.startswith("returned illegal move 3 (unknown)") for f in mine)
    assert "legal: take1 take2" in mine[0].text
    first = [m for r in result.rounds for s, m in zip(r.seats, r.moves, strict=True) if s == 0]
    assert first and all(m == 1 for m in first)  # the fallback of a game the host does not know


def test_a_tournament_worker_plays_the_third_game_as_the_host_does(
    countdown: CountdownRuleset,
) -> None:
    options = CountdownOptions(players=2)
    line = play_game(("random", "random"), options, 9, 5.0, builtin_registry(), game=NAME)
    host = play_local_game([RandomBot, RandomBot], options, 9, 5.0, game=NAME)
    assert line["game"] == NAME and line["status"] == "ok"
    assert line["round_scores"] == host.round_scores and line["totals"] == host.totals
    assert line["moves"] == [host.moves_of(0), host.moves_of(1)]


def test_a_tournament_bounds_a_game_by_its_rule_set(countdown: CountdownRuleset) -> None:
    """The game timeout comes from the seam (``max_moves``), for the third game as for ours."""
    hooks = 2 * (2 * 3 + 1) * HOOK_TIMEOUT_MS
    expected = (3 * 9 * wait_limit_ms(10.0) + hooks) / 1000.0
    assert game_timeout_s(2, 10.0, rounds=3, game=NAME) == pytest.approx(expected)
    by_hand_2017 = 5 * (4 * 14 + 12)  # 5 rounds of 4 hands of 14 cards, 12 pile choices each
    assert RULESETS["druids2017"].max_moves(4, 5) == by_hand_2017
    assert RULESETS["druids2004"].max_moves(4, 5) == RULESETS["druids2004"].max_moves(2, 1)


@pytest.mark.parametrize(
    ("game", "players", "last"), [("druids2017", 4, "Totals"), ("druids2004", 3, "Scores")]
)
def test_druids_demo_prints_the_game_the_one_loop_plays(
    game: str, players: int, last: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["demo", "--game", game, "--players", str(players), "--seed", "6"])
        raise SystemExit(0)
    assert info.value.code in (0, None)
    final = capsys.readouterr().out.splitlines()[-1]
    result = play_local_game([RandomBot] * players, None, 6, game=game, enforce_budget=False)
    assert final.startswith(f"{last} {result.totals}")
