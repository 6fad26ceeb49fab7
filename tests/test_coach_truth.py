"""The coach gives its game's strongest bot's move, and its line is true (issue 32).

The strongest bot of Druids 2017 and 2004 is ``search`` (README's head-to-head figures), so the
coach's move is that bot's at the work of its 100 ms budget, seeded from the position: the same
move the bot itself makes there. The line is read off the seat's view, so what it says must hold
in the real game whatever the others do next: a 2017 line that says who takes the trick, or which
card ends on top of a pile, is checked against the trick as it ends in several random
continuations of the real game (the others' true hands); a 2004 line's counts against the
real state.
"""

from __future__ import annotations

import copy
import hashlib
import random
import re
from typing import Any

import pytest
from test_coach import _games

from druids_p2p.games.druids2017.cards import N_DOMAIN_CARDS, card_domain
from druids_p2p.games.druids2017.notation import format_card
from druids_p2p.games.registry import game_spec

CONTINUATIONS = 6
"""Random endings of the trick each 2017 line is checked against."""


def _seed(view: Any) -> random.Random:
    return random.Random(hashlib.sha256(repr(view).encode()).digest())


@pytest.mark.parametrize("name", ["druids2017", "druids2004"])
def test_the_coach_plays_its_games_strongest_bot_at_its_100_ms_work(name: str) -> None:
    """The coach names ``search`` and plays its move: the bot started with the 100 ms budget
    says how much work that is, and the same bot with that work fixed (no clock) and the
    position's seed makes the coach's move in every position asked."""
    spec = game_spec(name)
    coach = spec.coach
    assert coach is not None
    asked = 0
    for _, view in _games(name, range(3, 5), every=4, least=2):
        timed: Any = spec.bots["search"]()
        timed.start_game(view.seat, _options(name, view), random.Random(0), 100.0)
        work = timed.work_for()[0] if name == "druids2017" else timed.worlds
        fixed: Any = type(timed)(worlds=work)
        fixed.start_game(view.seat, _options(name, view), _seed(view), 100.0)
        move, line = coach(view)
        assert move == fixed.choose(view), line
        assert line.endswith(" (search's choice)"), line
        asked += 1
    assert asked >= 12


def _options(name: str, view: Any) -> Any:
    if name == "druids2017":
        from druids_p2p.games.druids2017.game import GameOptions

        return GameOptions(players=view.players, variant=view.variant)
    from druids_p2p.games.druids2004.setup import Options

    return Options(players=view.players)


def _trick_end(game: Any, seat: int, move: int, rng: random.Random) -> tuple[int, Any] | None:
    """(winner, seat's view after the trick) once ``move`` is played and the others end the trick
    at random; None if the round ended with the trick (five domains)."""
    game = copy.deepcopy(game)
    done = len(game.view(seat).tricks)
    game.play(move)
    for _ in range(50):
        view = game.view(seat)
        if len(view.tricks) > done:
            return view.tricks[done][2], view
        if view.round_over:
            return None
        legal = game.legal_moves()
        game.play(legal[rng.randrange(len(legal))])
    raise AssertionError("the trick did not end")


_TAKER = re.compile(r"(you|P\d) takes? the trick(?! so far)")
_ON_TOP = re.compile(r"\b([A-Z]\d+) (?:ends )?on top")


def test_what_the_2017_coach_says_of_the_trick_holds_in_the_real_game() -> None:
    """Who the line says takes the trick takes it, a card it says "cannot take the trick" does
    not, and a card it says ends on top is on top of that pile, in every random ending of the
    trick from the real position (the others' true hands)."""
    coach = game_spec("druids2017").coach
    assert coach is not None
    claims = 0
    for asked, (game, view) in enumerate(_games("druids2017", range(20, 32), every=3, least=2)):
        move, line = coach(view)
        rng = random.Random(asked)
        for _ in range(CONTINUATIONS):
            ended = _trick_end(game, view.seat, move, rng)
            if ended is None:
                break
            winner, after = ended
            taker = _TAKER.search(line)
            if taker is not None:
                said = view.seat if taker.group(1) == "you" else int(taker.group(1)[1:])
                assert winner == said, (line, winner, after.tricks[-1])
                claims += 1
            if "cannot take the trick" in line or "cannot win" in line:
                assert winner != view.seat, (line, after.tricks[-1])
                claims += 1
            top = _ON_TOP.search(line)
            if top is not None:
                card = next(c for c in range(N_DOMAIN_CARDS) if format_card(c) == top.group(1))
                if not any(m >= N_DOMAIN_CARDS and m != move for _, m in after.tricks[-1][1]):
                    # (a Sickle may take the pile away; then there is no top to check)
                    assert after.pile_tops[winner][card_domain(card)] == card, (
                        line,
                        after.tricks[-1],
                    )
                    claims += 1
    assert claims >= 30


def test_what_the_2004_coach_counts_is_the_real_games() -> None:
    """The 2004 line's counts (cards in hand and servants, gems left in the pile, the cards and
    your servants on a ritual's place) are the real game's, and a gem it calls no amulet
    anywhere matches no place in the real row."""
    from druids_p2p.games.druids2004.cards import KIND_NAMES, is_servant, place_kind

    coach = game_spec("druids2004").coach
    assert coach is not None
    checked = 0
    for game, view in _games("druids2004", range(5, 8), every=3, least=2):
        _, line = coach(view)
        seat = view.seat
        if m := re.search(r"your hand holds (\d+) \((\d+) servants\)", line):
            hand = game.hands[seat]
            assert (int(m[1]), int(m[2])) == (len(hand), sum(1 for c in hand if is_servant(c)))
            checked += 1
        if m := re.search(r"(\d+) gems left in the pile", line):
            assert int(m[1]) == len(game.pile), line
            checked += 1
        if m := re.search(r"no place in the row is (\w+)", line):
            kinds = {KIND_NAMES[place_kind(p.place)] for p in game.row if p is not None}
            assert m[1] not in kinds, line
            checked += 1
        if m := re.search(r"Ritual:(\d) .* holds (\d+) cards, (\d+) of them your servants", line):
            place = game.row[int(m[1]) - 1]
            mine = sum(1 for owner, _ in place.servants if owner == seat)
            assert (int(m[2]), int(m[3])) == (place.size, mine), line
            checked += 1
    assert checked >= 10
