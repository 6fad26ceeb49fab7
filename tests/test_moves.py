"""The one accepted-move record: the pure check every path that takes a move goes through, here
on Druids 2017's seat copies at the card table (each knows its own hand only)."""

from __future__ import annotations

import dataclasses
import pickle
import random
from typing import Any

import pytest
from table_harness import LocalTable

from druids_p2p.games.druids2017.cards import GAIA, HAND_SIZE, N_CARDS, card_domain
from druids_p2p.games.druids2017.game import GameOptions
from druids_p2p.games.druids2017.notation import format_move
from druids_p2p.games.druids2017.table_schedule import NO, TRICK, YES
from druids_p2p.games.druids2017.table_seat import TableSeat2017
from druids_p2p.net import card_table_play, moves
from druids_p2p.net.card_table_play import is_logged_move
from druids_p2p.net.moves import (
    AcceptedMove,
    MoveLog,
    MoveRefused,
    accept_table_move,
    play_token,
    take_table_move,
)

Copies = list[TableSeat2017]


def _dealt(seed: int = 3, players: int = 4) -> tuple[Copies, dict[int, int]]:
    """Every seat's copy of a round dealt at random (as the card table deals: Gaia among the
    ``lead`` cards, one to each seat, position ``p`` to seat ``p % players``), each told its own
    cards only, and every seat's true word on its ``lead`` card taken by every copy."""
    rng = random.Random(seed)
    others = [c for c in range(N_CARDS) if c != GAIA]
    rng.shuffle(others)
    lead = [GAIA, *others[: players - 1]]
    rng.shuffle(lead)
    rest = others[players - 1 :]
    cards = {s: lead[s] for s in range(players)}
    for i in range((HAND_SIZE[players] - 1) * players):
        cards[players + i] = rest[i]
    copies = [TableSeat2017(GameOptions(players=players), s) for s in range(players)]
    for copy in copies:
        assert copy.ops(), "the round's deal"
        for p, card in cards.items():
            if p % players == copy.seat:
                copy.learn(p, card)
    for s in range(players):
        word = YES if cards[s] == GAIA else NO
        for copy in copies:
            take_table_move(copy, s, word, round_no=0, index=s)
    return copies, cards


def _take(copies: Copies, cards: dict[int, int], seat: int, position: int, zone: str) -> None:
    """``seat`` shows ``position`` into ``zone``: its own copy knows the card, the others are
    told the card it claims."""
    for copy in copies:
        card = None if copy.seat == seat else cards[position]
        take_table_move(copy, seat, play_token(zone), round_no=0, index=0, position=position,
                        card=card)  # fmt: skip


def _lead(copies: Copies, cards: dict[int, int]) -> None:
    holder = next(s for s in range(len(copies)) if cards[s] == GAIA)
    _take(copies, cards, holder, holder, "gaia:R")


def _state(copy: TableSeat2017) -> bytes:
    return pickle.dumps(copy)


def test_the_lead_is_gaia_shown_into_gaia_d() -> None:
    copies, cards = _dealt()
    holder = next(s for s in range(4) if cards[s] == GAIA)
    other = copies[(holder + 1) % 4]
    mine = copies[holder]
    assert mine.to_move == holder == other.to_move
    before = _state(other)
    with pytest.raises(MoveRefused, match="a card leaves a hand only by a show"):
        accept_table_move(other, holder, "Gaia:R", round_no=0, index=0)
    with pytest.raises(MoveRefused, match="Gaia is led into gaia:D"):
        accept_table_move(other, holder, play_token(TRICK), round_no=0, index=0,
                          position=holder, card=GAIA)  # fmt: skip
    with pytest.raises(MoveRefused, match="holds Gaia"):  # the words put Gaia there
        accept_table_move(other, holder, play_token("gaia:R"), round_no=0, index=0,
                          position=holder, card=cards[4])  # fmt: skip
    accepted = accept_table_move(other, holder, play_token("gaia:R"), round_no=0, index=0,
                                 position=holder, card=GAIA, msg_hash=b"h")  # fmt: skip
    assert accepted == AcceptedMove(0, 0, holder, "play gaia:R", GAIA, b"h", -1, holder)
    assert _state(other) == before, "a pure check: nothing played"
    own = accept_table_move(mine, holder, play_token("gaia:R"), round_no=0, index=0,
                            position=holder)  # fmt: skip
    assert own.card is None and own.position == holder  # its own copy knows the card
    with pytest.raises(dataclasses.FrozenInstanceError):
        accepted.seat = 1  # type: ignore[misc]


def test_out_of_turn_and_non_canonical_tokens_are_refused() -> None:
    copies, cards = _dealt()
    holder = next(s for s in range(4) if cards[s] == GAIA)
    other = (holder + 1) % 4
    with pytest.raises(MoveRefused, match="out of turn"):
        accept_table_move(copies[holder], other, play_token("gaia:R"), round_no=0, index=0,
                          position=other, card=GAIA)  # fmt: skip
    with pytest.raises(MoveRefused, match="canonical"):
        accept_table_move(copies[holder], holder, "Gaia:R:dark", round_no=0, index=0)


def test_a_card_leaves_a_hand_only_shown_as_the_card_its_position_holds() -> None:
    copies, cards = _dealt()
    _lead(copies, cards)
    seat = copies[0].to_move
    assert seat is not None
    mine, other = copies[seat], copies[(seat + 1) % 4]
    move = mine.legal_moves()[0]
    down = mine.table_move(move)
    assert down is not None
    card, zone = down
    position = mine.position_of(card)
    wrong = next(cards[p] for p in range(seat, len(cards), 4) if p != position)
    with pytest.raises(MoveRefused, match="a card leaves a hand only by a show"):
        accept_table_move(other, seat, format_move(move), round_no=0, index=1)
    with pytest.raises(MoveRefused, match=f"at position {position}, which holds"):
        accept_table_move(mine, seat, play_token(zone), round_no=0, index=1, position=position,
                          card=wrong)  # fmt: skip
    with pytest.raises(MoveRefused, match="must be shown face up"):
        accept_table_move(other, seat, play_token(zone), round_no=0, index=1, position=position)
    accepted = accept_table_move(other, seat, play_token(zone), round_no=0, index=1,
                                 position=position, card=card)  # fmt: skip
    assert (accepted.seat, accepted.card, accepted.index, accepted.position) == (
        seat,
        card,
        1,
        position,
    )


def test_an_illegal_move_is_refused_with_the_engines_reason() -> None:
    """The mover's own copy knows its hand: a card off the led domain while it holds one is
    the engine's "does not follow"; a receiving copy refuses a card it holds itself."""
    for seed in range(40):
        copies, cards = _dealt(seed)
        _lead(copies, cards)
        seat = copies[0].to_move
        assert seat is not None
        n_led = copies[seat]._round().lead_domain
        own = [p for p in range(seat, len(cards), 4) if p >= 4 or cards[p] != GAIA]
        led = [p for p in own if card_domain(cards[p]) == n_led]
        off = [p for p in own if cards[p] < 60 and card_domain(cards[p]) != n_led]
        if not led or not off:
            continue
        with pytest.raises(MoveRefused, match="does not follow"):
            accept_table_move(copies[seat], seat, play_token(TRICK), round_no=0, index=1,
                              position=off[0])  # fmt: skip
        receiver = copies[(seat + 1) % 4]
        theirs = next(p for p in range(receiver.seat + 4, len(cards), 4) if cards[p] < 60)
        with pytest.raises(MoveRefused, match=f"but it lies at position {theirs}"):
            accept_table_move(receiver, seat, play_token(TRICK), round_no=0, index=1,
                              position=off[0], card=cards[theirs])  # fmt: skip
        return
    raise AssertionError("no deal in 40 let the mover revoke")


def test_a_revoke_the_hidden_hands_hid_is_named_by_breaches_once_every_card_is_known() -> None:
    """The copies that cannot see the mover's hand take its off-domain card; with every card
    known (the round's final reveal) each names the same breach: the seat, where the play lies
    among the moves it took, and why. Had the seat held none of the led domain, none."""
    for seed in range(40):
        copies, cards = _dealt(seed)
        _lead(copies, cards)
        seat = copies[0].to_move
        assert seat is not None
        lead_domain = copies[seat]._round().lead_domain
        own = [p for p in range(seat, len(cards), 4) if cards[p] != GAIA]
        led = [p for p in own if card_domain(cards[p]) == lead_domain]
        off = [p for p in own if cards[p] < 60 and card_domain(cards[p]) != lead_domain]
        if not led or not off:
            continue
        others = [c for c in copies if c.seat != seat]
        for copy in others:
            take_table_move(copy, seat, play_token(TRICK), round_no=0, index=1,
                            position=off[0], card=cards[off[0]])  # fmt: skip
        found = [copy.breaches(cards) for copy in others]
        assert all(f == found[0] for f in found), "every copy names the same breach"
        ((blamed, taken, reason),) = found[0]
        assert blamed == seat and taken == others[0].taken - 1  # the play, after 4 words, lead
        assert "while holding" in reason
        innocent = dict(cards)
        for p in led:  # had the seat held none of the led domain
            innocent[p] = cards[off[0]]
        assert all(copy.breaches(innocent) == [] for copy in others)
        return
    raise AssertionError("no deal in 40 let the mover revoke")


def test_the_log_takes_moves_in_order_only() -> None:
    copies, cards = _dealt()
    holder = next(s for s in range(4) if cards[s] == GAIA)
    accepted = accept_table_move(copies[holder], holder, play_token("gaia:R"), round_no=0,
                                 index=0, position=holder)  # fmt: skip
    log = MoveLog()
    with pytest.raises(ValueError):
        log.append(dataclasses.replace(accepted, index=1))
    log.append(accepted)
    assert log.last == accepted and len(log) == 1
    assert log.of_round(0) == (accepted,) and log.of_round(1) == ()


def test_the_table_keeps_one_log_and_each_move_is_taken_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A whole 2017 game of table machines: each peer's one log holds every move and word, in
    the record's order, pointing at their messages; each peer's copy of the rules took each of
    them once (its own move too, when made: taking checks it) and was never asked beside,
    over every round's card table."""
    table = LocalTable(players=3, rounds=2, seed=5)
    taken: dict[int, int] = {}
    asked: list[object] = []
    take, ask = moves.take_table_move, moves.accept_table_move

    def counted(copy: TableSeat2017, *args: Any, **kwargs: Any) -> Any:
        taken[copy.seat] = taken.get(copy.seat, 0) + 1
        return take(copy, *args, **kwargs)

    def asking(*args: Any, **kwargs: Any) -> AcceptedMove:
        asked.append(args)
        return ask(*args, **kwargs)

    monkeypatch.setattr(card_table_play, "take_table_move", counted)  # the names it calls
    monkeypatch.setattr(card_table_play, "accept_table_move", asking)
    table.run()
    first = table.machines[0]
    assert first.finished and first.rounds_audited == 2
    record = first.transcript.messages
    logged = [msg for msg in record if is_logged_move(msg)]
    assert {msg.body["round"] for msg in logged} == {0, 1}
    for m in table.machines:
        log = list(m.card_play.moves)
        assert [a.msg_hash for a in log] == [msg.hash for msg in logged]
        assert [a.at for a in log] == [i for i, msg in enumerate(record) if is_logged_move(msg)]
        assert [a.round for a in log] == [msg.body["round"] for msg in logged]
        assert m.my_seat is not None
        assert taken[m.my_seat] == len(logged)  # every move and word taken once by this peer
    assert not asked, "no player asked about its move here: no check besides the take"
