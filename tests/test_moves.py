"""The one accepted-move record: the pure check every path that takes a move goes through."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest
from table_harness import LocalTable

from druids_p2p.games.seam import GameState, Ruleset
from druids_p2p.net.moves import (
    AcceptedMove,
    MoveLog,
    MoveRefused,
    accept_move,
    play_accepted,
    replay_accepted,
)
from druids_p2p.rulesets import dealt_ruleset

RULES: Ruleset = dealt_ruleset("druids2017")
Check = Callable[[int], str | None]


def _dealt(seed: int = 3, players: int = 4) -> tuple[GameState, list[list[int]]]:
    game = RULES.new_game(players)
    hands = RULES.deal(random.Random(seed), players)
    game.start_round(hands)
    return game, hands


def _lead(game: GameState) -> AcceptedMove:
    seat = game.to_move
    assert seat is not None
    token = RULES.format_move(game.legal_moves()[0])
    return accept_move(RULES, game, seat, token, index=0, lead_shown=True)


def test_the_lead_needs_the_lead_card_shown_and_no_opening() -> None:
    game, _ = _dealt()
    seat = game.to_move
    assert seat is not None
    token = RULES.format_move(game.legal_moves()[0])
    with pytest.raises(MoveRefused, match="without the lead card shown at ready"):
        accept_move(RULES, game, seat, token, index=0)
    with pytest.raises(MoveRefused, match="with an opening"):
        accept_move(RULES, game, seat, token, index=0, opens=True, lead_shown=True)
    accepted = accept_move(RULES, game, seat, token, index=0, lead_shown=True, msg_hash=b"h")
    assert accepted == AcceptedMove(
        0, 0, seat, RULES.parse_move(token), token, RULES.lead_card, b"h"
    )
    assert accepted.move is not None
    assert game.to_move == seat and game.check(accepted.move) is None  # pure: nothing played
    with pytest.raises(dataclasses.FrozenInstanceError):
        accepted.seat = 1  # type: ignore[misc]


def test_out_of_turn_and_non_canonical_tokens_are_refused() -> None:
    game, _ = _dealt()
    seat = game.to_move
    assert seat is not None
    token = RULES.format_move(game.legal_moves()[0])
    other = (seat + 1) % game.players
    with pytest.raises(MoveRefused, match="out of turn"):
        accept_move(RULES, game, other, token, index=0, lead_shown=True)
    with pytest.raises(MoveRefused, match="canonical"):
        accept_move(RULES, game, seat, token + ":dark", index=0, lead_shown=True)


def test_a_card_is_played_only_with_its_own_opening() -> None:
    game, hands = _dealt()
    play_accepted(game, _lead(game))
    seat = game.to_move
    assert seat is not None
    move = game.legal_moves()[0]
    token = RULES.format_move(move)
    (card,) = RULES.cards_for_move(move)
    other_card = next(c for c in hands[seat] if c != card)
    with pytest.raises(MoveRefused, match="without opening that card"):
        accept_move(RULES, game, seat, token, index=1)
    with pytest.raises(MoveRefused, match="without opening that card"):
        accept_move(RULES, game, seat, token, index=1, opens=True, card=other_card)
    accepted = accept_move(RULES, game, seat, token, index=1, opens=True, card=card)
    assert (accepted.seat, accepted.card, accepted.index) == (seat, card, 1)


def test_an_illegal_move_is_refused_with_the_engines_reason() -> None:
    game, hands = _dealt()
    play_accepted(game, _lead(game))
    seat = game.to_move
    assert seat is not None
    held = {c for hand in hands for c in hand}
    missing = next(
        m
        for m in range(80)
        if len(RULES.cards_for_move(m)) == 1
        and RULES.cards_for_move(m)[0] not in hands[seat]
        and RULES.cards_for_move(m)[0] in held
    )
    (card,) = RULES.cards_for_move(missing)
    token = RULES.format_move(missing)
    with pytest.raises(MoveRefused, match=f"played an illegal move {token}: .*not in seat"):
        accept_move(RULES, game, seat, token, index=1, opens=True, card=card)


def test_replay_with_every_hand_finds_the_move_a_hidden_hand_hid() -> None:
    """Moves accepted on one deal, replayed on another: the first move the other deal does not
    allow is named (seat, index, reason)."""
    game, _ = _dealt(seed=3)
    log = MoveLog()
    for index in range(8):
        seat = game.to_move
        assert seat is not None
        move = game.legal_moves()[0]
        cards = RULES.cards_for_move(move)
        card = cards[0] if cards else None
        lead = card == RULES.lead_card
        accepted = accept_move(
            RULES,
            game,
            seat,
            RULES.format_move(move),
            index=index,
            opens=card is not None and not lead,
            card=card,
            lead_shown=lead,
        )
        play_accepted(game, accepted)
        log.append(accepted)
    same, _ = _dealt(seed=3)
    assert replay_accepted(RULES, same, list(log)) is None
    for seed in range(4, 40):
        other, _ = _dealt(seed=seed)
        breach = replay_accepted(RULES, other, list(log))
        if breach is not None:
            seat, index, reason = breach
            assert log[index].seat == seat and reason
            return
    raise AssertionError("no other deal refused these moves")


def test_the_log_takes_moves_in_order_only() -> None:
    game, _ = _dealt()
    log = MoveLog()
    accepted = _lead(game)
    with pytest.raises(ValueError):
        log.append(dataclasses.replace(accepted, index=1))
    log.append(accepted)
    assert log.last == accepted and len(log) == 1


class _CountingRules:
    """The real rule set, counting how often a signed move token is read."""

    def __init__(self, rules: Ruleset) -> None:
        self._rules = rules
        self.parsed = 0

    def parse_move_token(self, token: str) -> int:
        self.parsed += 1
        return self._rules.parse_move_token(token)

    def __getattr__(self, name: str) -> object:
        return getattr(self._rules, name)


def test_the_table_keeps_one_log_and_the_mover_checks_its_own_move_once() -> None:
    table = LocalTable(players=3, rounds=1, seed=5)
    counters = []
    checks = [0] * len(table.machines)
    for k, m in enumerate(table.machines):
        counter = _CountingRules(m.rules)
        m.rules = counter  # type: ignore[assignment]
        counters.append(counter)
        check = m.game.check

        def counted(
            move: int, k: int = k, check: Callable[[int], str | None] = check
        ) -> str | None:
            checks[k] += 1
            return check(move)

        m.game.check = counted  # type: ignore[method-assign]
    table.run()
    first = table.machines[0]
    assert first.finished
    moves = [msg for msg in first.transcript.messages if msg.type.label == "move"]
    for m, counter, checked in zip(table.machines, counters, checks, strict=True):
        log = list(m.moves)
        assert [a.msg_hash for a in log] == [msg.hash for msg in moves]
        assert all(isinstance(a, AcceptedMove) for a in log)
        # each move read once when accepted (the mover's own at play), once more in the
        # end-of-round replay with every hand known: never int -> text -> int again
        assert counter.parsed == 2 * len(moves)
        assert checked == len(moves)  # every move checked once by this peer, its own too
