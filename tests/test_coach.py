"""The coach (issue 32): every game's spec names one, and in positions of real games (random
play from seeded deals) it answers with a legal move and one line that names that move as the
person would type it and says why from the position; the same position gets the same advice."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from druids_p2p.bots.host import derive_rng
from druids_p2p.games.registry import game_spec

GAMES = ("druids2017", "druids2004", "druids2016")
ASKED = 12
"""Positions asked about per game (spread over one game each)."""


def _streams(seed: int) -> Any:
    """The game's seeded chance streams, one per purpose and index."""
    streams: dict[tuple[str, int], random.Random] = {}

    def stream(purpose: str, index: int) -> random.Random:
        if (purpose, index) not in streams:
            streams[purpose, index] = derive_rng(seed, purpose, index)
        return streams[purpose, index]

    return stream


def _games(name: str, seeds: range, every: int, least: int = 1) -> Iterator[tuple[Any, Any]]:
    """(game, view of the seat to move) in games of random play, every ``every``-th move where
    the seat has at least ``least`` legal moves (test_coach_truth's positions too)."""
    spec = game_spec(name)
    rules = spec.rules
    for seed in seeds:
        options = rules.make_options(spec.default_players, False, 1 if spec.rounds else 5)
        stream = _streams(seed)
        rng = random.Random(seed)
        game = rules.start(options, stream)
        table = rules.in_play(game)
        for step in range(2000):
            mover = table.to_move
            if mover is None:
                if game.game_over:
                    break
                rules.chance(game, stream)
                table = rules.in_play(game)
                continue
            legal = table.legal_moves()
            if step % every == 0 and len(legal) >= least:
                yield game, game.view(mover)
            table.play(legal[rng.randrange(len(legal))])


def _positions(name: str, seed: int, every: int) -> Iterator[Any]:
    """Views of the seat to move in one game of random play, every ``every``-th move."""
    for _, view in _games(name, range(seed, seed + 1), every):
        yield view


def _named(name: str, move: int) -> str:
    """The move as the coach's line must name it: the game's typed form."""
    rules = game_spec(name).rules
    return str(rules.typed_move(rules.Move.of(move)))


@pytest.mark.parametrize("name", GAMES)
def test_the_coach_plays_a_legal_move_and_its_line_names_it(name: str) -> None:
    coach = game_spec(name).coach
    assert coach is not None, f"{name} has no coach"
    asked = 0
    for view in _positions(name, seed=7, every=3):
        move, line = coach(view)
        assert move in view.legal, (move, view.legal)
        assert _named(name, move) in line, line
        assert "\n" not in line and 20 < len(line) < 240, line
        asked += 1
        if asked == ASKED:
            break
    assert asked == ASKED


@pytest.mark.parametrize("name", GAMES)
def test_the_same_position_gets_the_same_advice(name: str) -> None:
    coach = game_spec(name).coach
    assert coach is not None
    views = [v for v, _ in zip(_positions(name, seed=11, every=5), range(3), strict=False)]
    assert views
    for view in views:
        assert coach(view) == coach(view)


def _lead_view(played: tuple[int, ...]) -> Any:
    """Seat 0 of 4 to lead with Y11 and G1, after one trick of ``played`` (seats 1-3 and 0)."""
    from druids_p2p.games.druids2017.view import PlayerView

    trick = tuple(zip((1, 2, 3, 0), played, strict=True))
    return PlayerView(
        seat=0, players=4, variant=False, round_index=0, hand=(22, 0), hand_sizes=(2, 2, 2, 2),
        to_move=0, legal=(22, 0), leader=0, trick=(), lead_domain=-1, light=False,
        tricks=((1, trick, 0, ()),), pile_tops=((None,) * 5,) * 4, pile_sizes=((0,) * 5,) * 4,
        pending_pile_choice=(), round_scores=(), totals=(0, 0, 0, 0), round_over=False,
        game_over=False,
    )  # fmt: skip


def test_the_2017_coach_says_when_every_card_above_its_lead_is_gone() -> None:
    """The issue's example: a lead with nothing of its domain above it left out takes the
    trick; with the 12 still out it says so: it may not take the trick, and which of the
    trick's cards ends on the taker's pile (not that the lead does: a lower one may follow)."""
    from druids_p2p.games.druids2017.coach import _why

    gone = _lead_view((23, 14, 15, 16))  # Y12 was played (and G3, G4, G5)
    assert _why(gone, 22) == "lead Y11: every yellow above it is gone: it takes the trick"
    out = _lead_view((14, 15, 16, 17))  # no yellow seen: Y12 is out
    assert _why(out, 22) == (
        "lead Y11: 1 higher yellow is still out, so it may not take the trick; the lowest yellow "
        "of a trick goes on top of its taker's yellow pile"
    )
