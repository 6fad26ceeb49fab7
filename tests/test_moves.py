"""One move at the card table, checked once and recorded once: the pure check every path that
takes a move goes through and the copy's own log, here on Druids 2017's seat copies at the card
table (each knows its own hand only)."""

from __future__ import annotations

import dataclasses
import pickle
import random
from typing import Any

import pytest
from table_harness import LocalTable

from druids_p2p.games.druids2017.cards import GAIA, HAND_SIZE, N_CARDS, card_domain
from druids_p2p.games.druids2017.game import NO, TRICK, YES, GameOptions
from druids_p2p.games.druids2017.notation import Move
from druids_p2p.games.druids2017.table_seat import TableSeat2017
from druids_p2p.games.seam import MOVE, PLAY, WORD, TableMove
from druids_p2p.table import card_table_play
from druids_p2p.table import codec as moves
from druids_p2p.table.card_table_play import is_logged_move, message_move
from druids_p2p.table.codec import (
    Chain,
    MoveRefused,
    all_moves,
    check_table_move,
    moves_of,
    take_table_move,
)
from druids_p2p.wire import ZERO_HASH, Identity, Message, MsgType
from druids_p2p.wire.envelope import head0

Copies = list[TableSeat2017]
TABLE_ID = bytes(range(32))


def _public(seat: int, token: str) -> TableMove:
    """``seat``'s public move ``token`` (a canonical one), as the table builds it."""
    return TableMove(MOVE, seat, Move.from_token(token), token)


def _down(seat: int, zone: str, position: int, card: int | None = None) -> TableMove:
    """``seat`` puts ``position`` into ``zone``: shown as ``card``, or face down (None)."""
    return TableMove(PLAY, seat, zone=zone, position=position, card=card)


def _signed_move(token: str) -> Message:
    """A signed ``move`` message of round 0 carrying ``token`` as it came over the wire."""
    chain = Chain(Identity.from_seed(bytes(32), "p0"), TABLE_ID, lambda: (0, ZERO_HASH))
    return chain.seal_message(MsgType.MOVE, {"move": token, "round": 0}, head0(TABLE_ID))


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
            take_table_move(copy, TableMove(WORD, s, token=word))
    return copies, cards


def _take(copies: Copies, cards: dict[int, int], seat: int, position: int, zone: str) -> None:
    """``seat`` shows ``position`` into ``zone``: its own copy knows the card, the others are
    told the card it claims."""
    for copy in copies:
        card = None if copy.seat == seat else cards[position]
        take_table_move(copy, _down(seat, zone, position, card))


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
        check_table_move(other, _public(holder, "Gaia:R"))
    with pytest.raises(MoveRefused, match="Gaia is led into gaia:D"):
        check_table_move(other, _down(holder, TRICK, holder, GAIA))
    with pytest.raises(MoveRefused, match="holds Gaia"):  # the words put Gaia there
        check_table_move(other, _down(holder, "gaia:R", holder, cards[4]))
    lead = _down(holder, "gaia:R", holder, GAIA)
    check_table_move(other, lead)
    assert _state(other) == before, "a pure check: nothing played"
    check_table_move(mine, _down(holder, "gaia:R", holder))  # its own copy knows the card
    taken = len(other.log[0])
    take_table_move(other, lead)
    take_table_move(mine, _down(holder, "gaia:R", holder))
    assert other.log[0][taken:] == [lead], "the move checked is the move recorded, once"
    assert mine.log[0][-1] == lead, "its own copy records the card it knows"
    with pytest.raises(dataclasses.FrozenInstanceError):
        lead.seat = 1  # type: ignore[misc]


def test_out_of_turn_and_non_canonical_tokens_are_refused() -> None:
    copies, cards = _dealt()
    holder = next(s for s in range(4) if cards[s] == GAIA)
    other = (holder + 1) % 4
    with pytest.raises(MoveRefused, match="out of turn"):
        check_table_move(copies[holder], _down(other, "gaia:R", other, GAIA))
    with pytest.raises(MoveRefused, match="canonical"):  # parsed once, where the body enters
        message_move(copies[holder], Move, holder, _signed_move("Gaia:R:dark"), round_no=0)


def test_a_card_leaves_a_hand_only_shown_as_the_card_its_position_holds() -> None:
    copies, cards = _dealt()
    _lead(copies, cards)
    seat = copies[0].to_move
    assert seat is not None
    mine, other = copies[seat], copies[(seat + 1) % 4]
    move = Move.of(mine.legal_moves()[0])
    down = mine.table_move(move)
    assert down is not None
    card, zone = down
    position = mine.position_of(card)
    wrong = next(cards[p] for p in range(seat, len(cards), 4) if p != position)
    with pytest.raises(MoveRefused, match="a card leaves a hand only by a show"):
        check_table_move(other, TableMove(MOVE, seat, move, move.token()))
    with pytest.raises(MoveRefused, match=f"at position {position}, which holds"):
        check_table_move(mine, _down(seat, zone, position, wrong))
    with pytest.raises(MoveRefused, match="must be shown face up"):
        check_table_move(other, _down(seat, zone, position))
    shown = _down(seat, zone, position, card)
    check_table_move(other, shown)
    take_table_move(other, shown)
    logged = other.log[0][-1]
    assert (logged.seat, logged.card, len(other.log[0]), logged.position) == (
        seat,
        card,
        6,  # the 4 words, the lead, this play
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
            check_table_move(copies[seat], _down(seat, TRICK, off[0]))
        receiver = copies[(seat + 1) % 4]
        theirs = next(p for p in range(receiver.seat + 4, len(cards), 4) if cards[p] < 60)
        with pytest.raises(MoveRefused, match=f"but it lies at position {theirs}"):
            check_table_move(receiver, _down(seat, TRICK, off[0], cards[theirs]))
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
            take_table_move(copy, _down(seat, TRICK, off[0], cards[off[0]]))
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


def test_the_log_is_the_copys_own_record_in_the_order_it_took_moves() -> None:
    """Only the copy appends to its log, when it takes a move: a refused move leaves no entry,
    a taken one is the next entry of its round, and a round not reached holds none."""
    copies, cards = _dealt()
    holder = next(s for s in range(4) if cards[s] == GAIA)
    mine = copies[holder]
    before = list(mine.log[0])
    with pytest.raises(MoveRefused):
        take_table_move(mine, _down(holder, TRICK, holder))  # Gaia is led into gaia:D
    assert list(mine.log[0]) == before, "a refused move is not recorded"
    take_table_move(mine, _down(holder, "gaia:R", holder))
    assert list(moves_of(mine, 0)) == [*before, _down(holder, "gaia:R", holder, GAIA)]
    assert moves_of(mine, 1) == () and moves_of(mine, -1) == ()
    assert all_moves(mine) == [(0, m) for m in moves_of(mine, 0)]


def test_the_table_keeps_one_log_and_each_move_is_taken_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A whole 2017 game of table machines: each peer's one log (its copy's) holds every move
    and word, in the record's order, and the table's references point at their messages; each
    peer's copy of the rules took each of them once (its own move too, when made: taking checks
    it) and was never asked beside, over every round's card table."""
    table = LocalTable(players=3, rounds=2, seed=5)
    taken: dict[int, int] = {}
    asked: list[object] = []
    take, ask = moves.take_table_move, moves.check_table_move

    def counted(copy: TableSeat2017, m: TableMove) -> Any:
        taken[copy.seat] = taken.get(copy.seat, 0) + 1
        return take(copy, m)

    def asking(copy: TableSeat2017, m: TableMove) -> None:
        asked.append(m)
        ask(copy, m)

    monkeypatch.setattr(card_table_play, "take_table_move", counted)  # the names it calls
    monkeypatch.setattr(card_table_play, "check_table_move", asking)
    table.run()
    first = table.machines[0]
    assert first.finished and first.rounds_audited == 2
    record = first.transcript.messages
    logged = [msg for msg in record if is_logged_move(msg)]
    assert {msg.body["round"] for msg in logged} == {0, 1}
    at_logged = [i for i, msg in enumerate(record) if is_logged_move(msg)]
    for m in table.machines:
        play = m.card_play
        log = all_moves(play.copy)
        refs = [play.signed.of(r, i) for r in range(len(play.copy.log))
                for i in range(len(play.copy.log[r]))]  # fmt: skip
        assert [record[at].hash for _, at in refs] == [h for h, _ in refs], "each its message"
        assert sorted(at for _, at in refs) == at_logged, "every move and word, once"
        moved = [at for (_, at), (_, t) in zip(refs, log, strict=True) if t.kind != WORD]
        assert moved == sorted(moved), "in the record's order (a seat's own word comes first)"
        assert [r for r, _ in log] == [msg.body["round"] for msg in logged]
        for (r, t), (_, at) in zip(log, refs, strict=True):
            assert record[at].body["round"] == r and play.signed.at(r, 0) >= 0
            assert t.seat == m.seat_of(record[at].sender)
        assert m.my_seat is not None
        assert taken[m.my_seat] == len(logged)  # every move and word taken once by this peer
    assert not asked, "no player asked about its move here: no check besides the take"
