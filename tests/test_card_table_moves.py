"""One move recorded once at a card table (Druids 2004): every move checked once against a seat's
copy (``check_table_move`` asks, ``take_table_move`` takes), the same record in every seat's copy
whether the move was its own or received, the table's references pointing at the signed
messages, and a refused move leaving the copy as it was."""

from __future__ import annotations

import pickle
import random
from collections.abc import Sequence

import pytest
from table_harness import LocalTable
from test_card_table_play import Table
from test_druids2004_table_seat import MAX_STEPS
from test_druids2004_table_seat import Table as SeatsTable

from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004 import hidden as ow
from druids_p2p.games.druids2004.table_seat import TableSeat2004
from druids_p2p.games.seam import MOVE, PLAY, WORD, TableMove
from druids_p2p.table.card_table_play import (
    WORDS_CHECKS,
    CardTablePlay,
    is_logged_move,
    message_move,
)
from druids_p2p.table.codec import MoveRefused, all_moves, check_table_move, take_table_move
from druids_p2p.wire import Message, MsgType, decode


def _records(seat: CardTablePlay) -> list[tuple[TableMove, bytes, int]]:
    """Each move of the seat copy's log with where the table says its message lies."""
    return [(m, *seat.signed.of(r, i)) for r, moves in enumerate(seat.copy.log)
            for i, m in enumerate(moves)]  # fmt: skip


@pytest.mark.parametrize(("players", "seed"), [(2, 11), (3, 12)])
def test_every_seat_records_the_same_accepted_moves_own_or_received(
    players: int, seed: int
) -> None:
    table = Table(players, seed)
    table.run(random.Random(seed))
    logs = [_records(s) for s in table.seats]
    moves = [m for m in table.sent if is_logged_move(m)]
    assert len(logs[0]) == len(moves) > 0
    for log in logs[1:]:
        assert log == logs[0], "the mover's own record equals every receiver's"
    for index, (m, msg_hash, at) in enumerate(logs[0]):
        msg = table.sent[at]
        assert sorted(a for _, _, a in logs[0]).index(at) == index and msg_hash == msg.hash
        assert m.seat == table.seat_of(msg.sender)
        if msg.type is MsgType.TABLE_PLAY:
            assert m.kind == PLAY and m.zone == str(msg.body["zone"])
            assert m.position == msg.body["pos"] and m.card is None  # face down
        else:
            assert m.token == msg.body["move"] and m.position is None
    own = {m.seat for m, _, _ in logs[0]}
    assert own == set(range(players)), "every seat's own moves are in every log"


WORDS_KEYS_SEED = 4
"""Keys whose 3-seat game (delivery seed 5) asks the owners' word five times: 15 words' checks
in the record, the game that made this test fail when it counted every ``move`` message."""


@pytest.mark.parametrize("keys_seed", [None, WORDS_KEYS_SEED])
def test_table_machines_keep_one_log_whose_records_point_into_the_transcript(
    keys_seed: int | None,
) -> None:
    """Every move and word is in the log once, in transcript order; the words' checks, ``move``
    messages too, are not moves (:func:`is_logged_move`). ``None``: a fresh game each run."""
    table = LocalTable(
        players=3, seed=5, ruleset="druids2004", keys_seed=keys_seed, fresh_keys=keys_seed is None
    )
    table.run()
    machines = table.machines
    assert all(m.finished for m in machines)
    logs = [_records(m.card_play) for m in machines]
    assert all(sorted(log, key=_at) == sorted(logs[0], key=_at) for log in logs) and logs[0]
    record = machines[0].transcript.messages
    moves = [i for i, m in enumerate(record) if is_logged_move(m)]
    assert sorted(a for _, _, a in logs[0]) == moves, "every move, once, in transcript order"
    assert all(record[a].hash == h for _, h, a in logs[0])
    checks = [m for m in record if m.type is MsgType.MOVE and not is_logged_move(m)]
    words = [m for m, _, _ in logs[0] if m.token.startswith("Word:")]
    assert all(m.body["move"] in WORDS_CHECKS for m in checks)
    asked = _word_rounds(record)
    assert len(checks) == len(table.machines) * asked
    if keys_seed == WORDS_KEYS_SEED:
        assert asked == 5 and len(words) == 15 == len(checks)


def _at(record: tuple[TableMove, bytes, int]) -> int:
    return record[2]


def _word_rounds(record: Sequence[Message]) -> int:
    """How often a record's game asked the owners' word: its runs of ``Word:`` moves."""
    tokens = [str(m.body["move"]) if m.type is MsgType.MOVE else "" for m in record]
    return sum(
        1
        for i, t in enumerate(tokens)
        if t.startswith("Word:") and (i == 0 or not tokens[i - 1].startswith("Word:"))
    )


def test_a_words_check_is_refused_as_a_move() -> None:
    """Why a words' check is no move: the one check of moves refuses its token in a move step."""
    _, mover = _ready(2, 4)
    for token in sorted(WORDS_CHECKS):
        msg = mover._seal_move(token)
        with pytest.raises(MoveRefused, match="unknown move token"):
            message_move(mover.copy, mv.Move, mover.seat, msg, round_no=0)


def _ready(players: int, seed: int) -> tuple[Table, CardTablePlay]:
    table = Table(players, seed)
    for seat in table.seats:
        seat.start()
    table.place_own()
    table.settle()
    (mover,) = [s for s in table.seats if s.my_turn]
    return table, mover


def _state(copy: object) -> bytes:
    return pickle.dumps(copy)


def test_a_refused_move_leaves_the_copy_unchanged() -> None:
    table, mover = _ready(2, 4)
    other = next(s for s in table.seats if s is not mover)
    copy = other.copy
    assert isinstance(copy, TableSeat2004)
    before = _state(copy)
    hand = [
        p
        for p in range(len(mover.peer.state.positions))
        if p in mover.peer.state.zone(f"hand:{mover.seat}")
    ]
    elsewhere = next(p for p in range(len(mover.peer.state.positions)) if p not in hand)

    def public(seat: int, token: str) -> TableMove:
        return TableMove(MOVE, seat, mv.Move.from_token(token), token)

    def down(zone: str, position: int) -> TableMove:
        return TableMove(PLAY, mover.seat, zone=zone, position=position)

    refusals = [
        (public(other.seat, "Stop"), "moved out of turn"),
        (public(mover.seat, "Draw:gem"), "must first play"),
        (down("slot:1", elsewhere), "not in its hand"),
        (down("slot:9", hand[0]), "no place of the row"),
    ]
    for m, why in refusals:
        for ask in (check_table_move, take_table_move):  # asked, or taken: refused alike
            with pytest.raises(MoveRefused, match=why):
                ask(copy, m)
            assert _state(copy) == before, f"{m} changed the copy"
    word = mover._seal_move("Word:yes")  # a token that names no move: refused where it enters
    with pytest.raises(MoveRefused, match="unknown move token"):
        message_move(copy, mv.Move, mover.seat, word, round_no=0)
    assert _state(copy) == before
    play = down("slot:0", hand[0])
    check_table_move(copy, play)
    assert _state(copy) == before, "a pure check, even of a legal move"
    op = take_table_move(copy, play)
    assert op is not None and op.kind == "play" and op.zone == "slot:0"
    assert _state(copy) != before


def test_a_seats_own_illegal_move_is_refused_before_anything_is_sealed() -> None:
    table, mover = _ready(2, 4)
    copy = mover.copy
    assert isinstance(copy, TableSeat2004)
    before, sent = _state(copy), len(table.sent)
    with pytest.raises(ValueError, match="must first play"):
        mover.play(mv.Move.from_token("Draw:gem"))
    assert _state(copy) == before and len(table.sent) == sent and not all_moves(copy)
    assert decode(table.sent[-1].raw).type is not MsgType.MOVE


def test_a_seat_asks_before_it_moves_the_very_check_its_move_gets() -> None:
    """``refusal`` (what a player asks through the runner) is ``play``'s own check: None for
    every legal move of the copy, the rules' reason otherwise, and nothing changes."""
    table, mover = _ready(2, 4)
    before = _state(mover.copy)
    legal = mover.copy.legal_moves()
    assert legal and all(mover.refusal(mv.Move.of(move)) is None for move in legal)
    assert "must first play" in (mover.refusal(mv.Move.from_token("Draw:gem")) or "")
    assert _state(mover.copy) == before
    other = next(s for s in table.seats if s is not mover)
    assert other.refusal(mv.Move.of(legal[0])) == "it is not this seat's turn"


class _UntilWords(SeatsTable):
    """The seats' copies driven by the truth, stopping where the owners' words are due (the
    words left for the test to give)."""

    def run(self) -> None:
        for _ in range(MAX_STEPS):
            batches = [seat.ops() for seat in self.seats]
            if not batches[0]:
                return
            for op in batches[0]:
                self.ops.append(op)
                self.execute(op)


def _asked_words() -> _UntilWords:
    """Seed 114's 4-seat game (test_druids2004_table_seat's), stopped at its first word round."""
    table = _UntilWords(4, 114)
    table.run()  # the setup
    for _ in range(MAX_STEPS):
        if table.seats[0].words_due() or table.truth.game_over:
            break
        table.step()
    return table


def test_a_word_the_copy_cannot_go_on_from_is_not_in_its_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last word of a word round lets the waiting move go on; if that raises (a
    RuntimeError: the rules cannot decide from what is known, which stops the table with
    nobody blamed), the word was not taken: the copy's log and its claims hold no entry for it,
    so the log and the table's references into the record stay one for one."""
    table = _asked_words()
    copy = table.seats[0]
    due = copy.words_due()
    assert due, "the game asked the owners' word"
    for q in due[:-1]:
        take_table_move(copy, TableMove(WORD, q, token=table.seats[q].word_of(q) or ""))
    logged, claims = list(copy.log[0]), list(copy.claims)
    last = due[-1]

    def undecided(*_: object) -> None:
        raise RuntimeError("no arrangement could be searched")

    monkeypatch.setattr(ow, "fit_words", undecided)
    with pytest.raises(RuntimeError, match="no arrangement"):
        take_table_move(copy, TableMove(WORD, last, token=table.seats[last].word_of(last) or ""))
    assert list(copy.log[0]) == logged and list(copy.claims) == claims
    assert copy.words_due() == (last,), "the word is still due: it was not taken"
