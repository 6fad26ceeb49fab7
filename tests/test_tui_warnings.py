"""The warnings a player wants (tui/druids2017/cards.py), checked against the real engine: who
takes a trick as it stands and which pile a Sickle removes, over many random rounds."""

from __future__ import annotations

import random
from dataclasses import replace

from druids_p2p.games.druids2017 import Game, GameOptions, deal_from_seed
from druids_p2p.games.druids2017.cards import PLAY_SICKLE, domain_card
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.tui.druids2017.cards import (
    missing_domain,
    sickle_victim_pile,
    trick_leader_now,
    warning_line,
    warnings,
)

NAMES = ("alice", "bob", "carol", "dan")


def _view(**changes: object) -> PlayerView:
    game = Game(GameOptions(players=4, rounds=1))
    game.start_round(deal_from_seed(0, 4))
    return replace(game.view(0), **changes)  # type: ignore[arg-type]


def _tops(*rows: tuple[int | None, ...]) -> tuple[tuple[int | None, ...], ...]:
    return tuple(rows) + tuple((None,) * 5 for _ in range(4 - len(rows)))


def test_four_domains_warns_with_the_missing_one_and_says_you() -> None:
    g3, y5, r7, b2 = (domain_card(d, v) for d, v in ((0, 3), (1, 5), (2, 7), (3, 2)))
    tops = _tops((g3, y5, r7, b2, None), (None,) * 5, (g3, y5, None, b2, None))
    view = _view(pile_tops=tops, trick=(), lead_domain=-1)
    assert missing_domain(view, 0) == 4 and missing_domain(view, 2) is None
    found = warnings(view)
    assert [(w.kind, w.seat, w.domain, w.urgent) for w in found] == [("four_domains", 0, 4, False)]
    line = warning_line(found[0], NAMES, 0)
    assert line.startswith("You hold four domains") and "violet" in line and "−3" in line
    # The trick has violet in it: urgent. Another seat's four domains are named.
    v9 = domain_card(4, 9)
    view = _view(
        pile_tops=_tops((None,) * 5, (g3, y5, r7, b2, None)), trick=((1, v9),), lead_domain=4
    )
    (warning,) = warnings(view)
    assert warning.seat == 1 and warning.urgent
    assert warning_line(warning, NAMES, 0).startswith("bob holds four domains")
    assert "this trick has violet" in warning_line(warning, NAMES, 0)


def test_no_warning_without_danger_or_after_the_round() -> None:
    view = _view(pile_tops=_tops(), trick=(), lead_domain=-1)
    assert warnings(view) == []
    g3 = domain_card(0, 3)
    view = _view(
        pile_tops=_tops((g3, None, None, None, None)),
        trick=((1, PLAY_SICKLE),),
        lead_domain=-1,
        round_over=True,
    )
    assert warnings(view) == []


def test_sickle_names_the_pile_after_the_trick_is_stacked() -> None:
    g3, r7, r2, g11 = (domain_card(d, v) for d, v in ((0, 3), (2, 7), (2, 2), (0, 11)))
    tops = _tops((g3, None, r7, None, None))
    # No trick card of red: the red pile (7) is the highest and goes.
    view = _view(pile_tops=tops, trick=((1, PLAY_SICKLE), (2, g11)), lead_domain=0)
    assert sickle_victim_pile(view, 0) == 0  # G11 goes on the green pile: 11 > 7
    # A red 2 on the red pile makes its top 2: green 3 is now the highest.
    view = _view(pile_tops=tops, trick=((1, PLAY_SICKLE), (2, r2)), lead_domain=2)
    assert sickle_victim_pile(view, 0) == 0
    (warning,) = warnings(view)
    assert warning.kind == "sickle" and "green pile" in warning_line(warning, NAMES, 0)
    # Two reds: the dark side puts R2 on top (green 3 goes), the light side R9 (red goes).
    r9 = domain_card(2, 9)
    trick = ((1, PLAY_SICKLE), (2, r2), (3, r9))
    assert sickle_victim_pile(_view(pile_tops=tops, trick=trick, lead_domain=2), 0) == 0
    view = _view(pile_tops=tops, trick=trick, lead_domain=2, light=True)
    assert sickle_victim_pile(view, 0) == 2


def test_trick_taker_and_sickle_pile_agree_with_the_engine() -> None:
    """Over random rounds: just before each trick's last card, the view with that card added
    names the engine's taker, and (one Sickle, no tie, no fifth domain) the pile it removes."""
    checked = sickles = 0
    for seed in range(150):
        rng = random.Random(seed)
        game = Game(GameOptions(players=4, rounds=1))
        rnd = game.start_round(deal_from_seed(seed, 4))
        while not rnd.over:
            seat = rnd.to_move
            assert seat is not None
            move = rng.choice(game.legal_moves())
            last = len(rnd.trick) == 3
            before = game.view(seat)
            game.play(move)
            if not last or rnd.pending_sickles:
                continue
            trick = rnd.tricks[-1]
            full = replace(before, trick=(*before.trick, (seat, move)))
            assert trick_leader_now(full) == trick.winner
            checked += 1
            if sum(1 for _, m in trick.plays if m == PLAY_SICKLE) == 1 and not rnd.over:
                expected = trick.removed[0] if trick.removed else None
                assert sickle_victim_pile(full, trick.winner) == expected
                sickles += 1
    assert checked > 1000 and sickles > 20
