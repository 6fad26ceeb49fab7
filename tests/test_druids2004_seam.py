"""Druids (2004) behind the seam: registered beside 2017 without changing 2017's callers, and
the import direction kept (the 2017 engine and the new package never import each other: the
registry, ``druids_p2p.games.registry``, finds both by their entry points)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import parse_card
from druids_p2p.games.druids2004.hidden import public_token
from druids_p2p.games.druids2004.table_seat import TableSeat2004
from druids_p2p.games.druids2016.table_seat import Druids2016Seat
from druids_p2p.games.druids2017.ruleset import DruidsRuleset
from druids_p2p.games.druids2017.table_seat import TableSeat2017
from druids_p2p.games.registry import RULESETS, SeatOptions, new_table_options
from druids_p2p.games.seam import CommonGameState

ROOT = Path(__file__).resolve().parent.parent / "druids_p2p"


def test_both_games_are_registered() -> None:
    assert {"druids2017", "druids2004", "druids2016"} <= set(RULESETS)
    rules = RULESETS["druids2004"]
    assert (rules.min_players, rules.max_players, rules.deck_size) == (2, 4, 90)
    game = rules.new_game(3, seed=7)
    assert isinstance(game, CommonGameState)
    assert game.to_move is not None and game.legal_moves()
    for move in game.legal_moves():
        assert rules.Move.from_token(rules.Move.of(move).token()).id == move
    assert rules.format_card(rules.parse_card("S2:5")) == "S2:5"
    same = rules.new_game(3, rng=random.Random(7))
    assert same.legal_moves() == game.legal_moves()
    other = rules.new_game(3, seed=7, tie_order="starting_player", spaces_per_card=5)
    assert other.legal_moves() == game.legal_moves()
    with pytest.raises(ValueError, match="tie_order must be one of"):
        rules.new_game(3, tie_order="oldest")


def test_every_game_is_played_at_the_card_table() -> None:
    """Protocol version 2: one table protocol. Each registered game gives the table its seat
    copy at the mental card table (the seam's ``table_seat``) and the size of its deck; 2017
    keeps its rule set, whose seat copy is the card table's."""
    assert isinstance(RULESETS["druids2017"], DruidsRuleset)
    copies = {
        "druids2017": TableSeat2017,
        "druids2004": TableSeat2004,
        "druids2016": Druids2016Seat,
    }
    for name, rules in RULESETS.items():
        options = rules.make_options(rules.min_players, False, 1)
        copy = rules.table_seat(options, 0, random.Random(1))
        assert isinstance(copy, copies[name]) and copy.seat == 0
        assert copy.ops(), f"{name}: a game begins with card-table operations (its deal)"
    assert RULESETS["druids2017"].deck_size == 65


def test_every_table_starter_gets_its_options_from_the_registry() -> None:
    """A host's seat-message options: 2017's own; at a card table the three wire fields (no
    light side of Gaia there); a name no table plays is refused."""
    assert new_table_options("druids2017", 4, True, 2) == SeatOptions(4, True, 2)
    assert new_table_options("druids2004", 3, True) == SeatOptions(3, False, 5)
    with pytest.raises(ValueError, match="'chess': unknown game"):
        new_table_options("chess", 3)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_import_direction() -> None:
    for path in (ROOT / "engine").glob("*.py"):
        games = {m for m in _imports(path) if m.startswith("druids_p2p.games")}
        assert not games, f"{path.name} imports {games} (the registry finds the games)"
    for path in (ROOT / "games" / "druids2004").glob("*.py"):
        project = {m for m in _imports(path) if m.startswith("druids_p2p")}
        own = ("druids_p2p.games.druids2004", "druids_p2p.games.seam", "druids_p2p.games.spec")
        assert all(m.startswith(own) for m in project), (path, project)
        assert len(path.read_text().splitlines()) < 500, f"{path.name} is too long"


def test_public_form_of_each_move() -> None:
    assert public_token(mv.play_move(parse_card("K7"), 2)) == "gem>2"
    assert public_token(mv.play_move(parse_card("S1:4"), 0)) == "S1:?>0"
    assert public_token(mv.discard_move(parse_card("Y3"))) == "Discard:gem"
    assert public_token(mv.ritual_move(5)) == "Ritual:5"
    assert public_token(mv.DRAW_SERVANT) == "Draw:servant"


def test_deck_schedule_accounts_for_every_card_move() -> None:
    """The deck operations of whole games: every draw a deal from the right deck to the drawer,
    every play face down, every ritual one reveal, and the final reveal opens what is left."""
    from collections import Counter

    from druids_p2p.games.druids2004.hidden import DEAL, FINAL, PLAY, REVEAL, TURN, schedule
    from druids_p2p.games.druids2004.ruleset import play_random_game
    from druids_p2p.games.druids2004.setup import Drew, Options, Played, RitualDone

    rng = random.Random(8)
    for n in (2, 3, 4):
        game, _ = play_random_game(rng, Options(players=n))
        ops = schedule(game)
        kinds = Counter(op.kind for op in ops)
        draws = [r for r in game.log if isinstance(r, Drew)]
        rituals = [r for r in game.log if isinstance(r, RitualDone)]
        assert kinds[DEAL] == 7 * n + len(draws)
        assert kinds[REVEAL] == len(rituals)
        assert kinds[TURN] == 6 + sum(1 for r in rituals if r.turned is not None)
        assert kinds[PLAY] == sum(1 for r in game.log if isinstance(r, Played)) + len(game.discards)
        assert all(op.seen_by == "owner" for op in ops if op.kind in (DEAL, PLAY))
        final = [op for op in ops if op.kind == FINAL]
        assert len(final) == 1 and ops[-1] is final[0]
        # Every gem a seat holds at the end was dealt to it and not played since.
        for seat in range(n):
            dealt = [op.cards[0] for op in ops if op.kind == DEAL and op.seat == seat]
            played = [op.cards[0] for op in ops if op.kind == PLAY and op.seat == seat]
            assert sorted(game.hands[seat]) == sorted((Counter(dealt) - Counter(played)).elements())
