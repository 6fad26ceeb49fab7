"""``druids audit`` of a Druids (2004) card table's record: an honest record audits complete with
the outcome every seat signed, its moves accepted by the same function as at the table; each
tampering (a changed move, a card lied about, a false secret, a dropped message, a false result)
is refused naming the message index and the seat, a record cut short is a valid prefix."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from card_table_cheater import assert_blamed, body_with, cheater_seat, forge
from cli_harness import audit_record, check_result_block, result_block, run_cli
from message_surgery import abort_after, rechain, resign, thaw
from table_harness import LocalTable

from druids_p2p.audit.audit import audit_messages
from druids_p2p.audit.audit_card_table import CardTableReplay
from druids_p2p.audit.schedule import ScheduleWalk
from druids_p2p.deck.table_audit import secret_fault
from druids_p2p.deck.table_state import Sent
from druids_p2p.games.registry import RULESETS
from druids_p2p.table.card_table_play import WORDS_FIT, WORDS_UNFIT
from druids_p2p.wire import Identity, MsgType, decode
from druids_p2p.wire.transcript import verify_chain

RULES = RULESETS["druids2004"]
HEADLESS = [sys.executable, "-m", "druids_p2p", "play", "--headless", "--game", "druids2004"]


def _played(
    players: int, seed: int, records: Path | None = None, keys_seed: int | None = None
) -> LocalTable:
    table = LocalTable(
        players=players, seed=seed, ruleset="druids2004", records=records, keys_seed=keys_seed
    )
    table.run()
    assert all(m.finished for m in table.machines)
    return table


@pytest.fixture(scope="module")
def table() -> LocalTable:
    return _played(3, 2)


def _raws(table: LocalTable) -> list[bytes]:
    return [m.raw for m in table.machines[0].transcript.messages]


def _keys(table: LocalTable) -> dict[bytes, Identity]:
    return {i.public_key: i for i in table.ids}


def _seat(table: LocalTable, key: bytes) -> int:
    return table.machines[0].order.index(key)


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 8), (3, 2), (4, 3)])
def test_an_honest_record_audits_complete_with_the_signed_outcome(players: int, seed: int) -> None:
    table = _played(players, seed)
    report = audit_messages(_raws(table))
    assert report.verdict == "complete" and report.exit_code == 0, report.problem
    totals, winners = table.machines[0].outcome()
    assert report.totals == totals and report.winners == winners
    assert [p["public_key"] for p in report.players] == [k.hex() for k in table.machines[0].order]


def test_the_audit_accepts_every_move_as_the_table_did(table: LocalTable) -> None:
    """The audit's replay takes each move through ``accept_table_move``, as every seat did:
    the same records, in the same log order, pointing at the same messages."""
    transcript = verify_chain(_raws(table))
    walk = ScheduleWalk(transcript)
    walk.run()
    replay = CardTableReplay(transcript.messages, walk, RULES, table.machines[0].options)
    replay.run()
    assert replay.complete
    play = table.machines[0].card_play
    assert replay.copy.log == play.copy.log  # the game's own record, the same on replay
    for r, moves in enumerate(play.copy.log):
        assert [replay.signed.of(r, i) for i in range(len(moves))] == [
            play.signed.of(r, i) for i in range(len(moves))
        ]
    assert replay.copy.totals == table.machines[0].outcome()[0]


def test_a_record_file_audits_through_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = _played(2, 5, records=tmp_path)
    path = tmp_path / "p0.druids"
    code, report = audit_record(str(path))
    assert code == 0 and report["verdict"] == "complete", report
    assert report["totals"] == table.machines[0].outcome()[0]
    code, out, _ = run_cli(["audit", str(path)], capsys)
    assert code == 0 and "valid and complete" in out and "won by" in out


def _tamper(
    table: LocalTable, pick: Callable[[int, Any], bool], change: Callable[[dict[str, Any]], None]
) -> tuple[int, list[bytes]]:
    """The first message ``pick(index, message)`` chooses, its body changed and the record
    re-chained (every later message re-signed in place), so that only the change is wrong."""
    raws = _raws(table)
    index = next(i for i, raw in enumerate(raws) if pick(i, decode(raw)))
    sender = decode(raws[index]).sender
    body = thaw(decode(raws[index]).body)
    change(body)
    forged = resign(_keys(table)[sender], raws[index], body=body)
    return index, rechain([*raws[:index], forged, *raws[index + 1 :]], _keys(table), raws)


def _refused(raws: list[bytes], index: int, seat: int, words: str) -> None:
    report = audit_messages(raws)
    assert report.verdict == "invalid" and report.exit_code == 1, report.to_json()
    problem = report.problem
    assert problem is not None
    assert (problem.message_index, problem.seat) == (index, seat), problem
    assert words in problem.error, problem.error


def test_a_changed_move_is_refused_at_its_message(table: LocalTable) -> None:
    def draw(_: int, msg: Any) -> bool:
        return msg.type is MsgType.MOVE and str(msg.body["move"]).startswith("Draw:")

    index, raws = _tamper(table, draw, lambda body: body.update(move="Draw:nothing"))
    _refused(raws, index, _seat(table, decode(raws[index]).sender), "unknown move token")


def test_a_card_put_down_from_another_position_is_refused(table: LocalTable) -> None:
    def play(_: int, msg: Any) -> bool:
        return msg.type is MsgType.TABLE_PLAY

    index, raws = _tamper(table, play, lambda body: body.update(pos=0))
    seat = _seat(table, decode(raws[index]).sender)
    _refused(raws, index, seat, "not in its hand")


def test_a_card_lied_about_at_a_ritual_opening_is_blamed_on_its_owner(table: LocalTable) -> None:
    def opening(_: int, msg: Any) -> bool:
        return msg.type is MsgType.TABLE_OPEN

    def lie(body: dict[str, Any]) -> None:
        first = body["opens"][0]
        first["card"] = (first["card"] + 1) % RULES.deck_size

    index, raws = _tamper(table, opening, lie)
    _refused(raws, index, _seat(table, decode(raws[index]).sender), "claimed card")


def test_a_false_secret_at_the_final_reveal_is_blamed_on_its_seat(table: LocalTable) -> None:
    def reveal(_: int, msg: Any) -> bool:
        return msg.type is MsgType.TABLE_REVEAL

    def lie(body: dict[str, Any]) -> None:
        body["x"] = (1).to_bytes(32, "little")

    index, raws = _tamper(table, reveal, lie)
    seat = _seat(table, decode(raws[index]).sender)
    _refused(raws, index, seat, "secret does not match its table_key")


def test_a_revealed_secret_is_held_against_its_key_and_every_share_its_seat_proved(
    table: LocalTable,
) -> None:
    """``secret_fault``, which the audit asks of every final secret it cannot take through the
    deck's final reveal: a true secret passes; a false one is named by its ``table_key``; a
    share in the state that is not the secret times A (which a sound proof rules out) is named
    too, the reveal first in the evidence."""
    transcript = verify_chain(_raws(table))
    walk = ScheduleWalk(transcript)
    walk.run()
    replay = CardTableReplay(transcript.messages, walk, RULES, table.machines[0].options)
    replay.run()
    deck = replay.deck
    reveal = next(m for m in transcript.messages if m.type is MsgType.TABLE_REVEAL)
    seat = _seat(table, reveal.sender)
    secret = bytes(reveal.body["x"])
    assert secret_fault(deck, seat, secret, reveal.raw) is None
    false = secret_fault(deck, seat, (7).to_bytes(32, "little"), reveal.raw)
    assert false is not None and false.seat == seat, false
    assert "does not match its table_key" in false.reason
    assert false.evidence == (reveal.raw, deck.keys[seat].raw)
    p = next(p for p, pos in enumerate(deck.positions) if seat in pos.shares)
    sent = deck.positions[p].shares[seat]
    other = replace(sent.msg, share=deck.positions[p].a)  # 1·A, not x·A
    deck.positions[p].shares[seat] = Sent(seat, other, sent.raw)
    share = secret_fault(deck, seat, secret, reveal.raw)
    assert share is not None and share.seat == seat, share
    assert share.reason == f"audit: its share of position {p} is not its secret times A"
    assert share.evidence == (reveal.raw, sent.raw)


def test_a_false_result_is_refused(table: LocalTable) -> None:
    def result(_: int, msg: Any) -> bool:
        return msg.type is MsgType.RESULT

    def lie(body: dict[str, Any]) -> None:
        body["totals"] = [t + 1 for t in body["totals"]]

    index, raws = _tamper(table, result, lie)
    _refused(raws, index, _seat(table, decode(raws[index]).sender), "")


def test_a_dropped_message_breaks_the_schedule_where_it_was_due(table: LocalTable) -> None:
    raws = _raws(table)
    shares = [i for i, raw in enumerate(raws) if decode(raw).type is MsgType.TABLE_SHARE]
    drop = shares[len(shares) // 2]
    forged = rechain([*raws[:drop], *raws[drop + 1 :]], _keys(table), raws)
    report = audit_messages(forged)
    assert report.verdict == "invalid" and report.exit_code == 1
    problem = report.problem
    assert problem is not None and problem.message_index == drop
    assert problem.seat == _seat(table, decode(forged[drop]).sender)


def test_a_record_cut_before_the_game_ends_is_a_valid_prefix(table: LocalTable) -> None:
    raws = _raws(table)
    plays = [i for i, raw in enumerate(raws) if decode(raw).type is MsgType.TABLE_PLAY]
    report = audit_messages(raws[: plays[len(plays) // 2]])
    assert report.verdict == "incomplete" and report.exit_code == 3, report.to_json()


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("seats", ["bot:rule,bot:random,bot:random"])
def test_every_record_of_a_real_druids2004_table_audits_complete(
    seats: str, tmp_path: Path
) -> None:
    """``druids play --headless --game druids2004``: peer processes on loopback; each seat's
    record audits complete, with the totals and winners the table printed. The 2-seat table
    (``bot:random,bot:rule``) is checked so in tests/test_lan2004_e2e.py, on the game that test
    plays with the same command."""
    out = subprocess.run(
        [*HEADLESS, "--seats", seats, "--workdir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    _, _, records = result_block(out.stdout)
    assert len(records) == len(seats.split(","))
    for record in records:
        code, report = audit_record(record)
        assert code == 0 and report["verdict"] == "complete", report
        check_result_block(out.stdout, report)


@pytest.fixture(scope="module")
def worded() -> tuple[LocalTable, list[int]]:
    """A game that asked for the owners' word, and its messages that are words."""
    for seed in range(102, 112):  # seeded games (keys_seed): 100 and 101 ask for no word
        table = _played(4, seed, keys_seed=seed)
        moves = [str(decode(raw).body.get("move", "")) for raw in _raws(table)]
        words = [i for i, move in enumerate(moves) if move.startswith("Word:")]
        if words:
            return table, words
    raise AssertionError("no game in 10 asked for the owners' word")


def test_a_false_word_about_face_down_gems_is_refused_once_every_card_is_known(
    worded: tuple[LocalTable, list[int]],
) -> None:
    """The owners' word (``Word:yes`` / ``Word:no``) decides the "nothing left" end from gems
    only their owners saw; the table takes it on trust, the audit knows every card and holds
    each word against its owner's real face-down gems."""
    table, words = worded
    assert audit_messages(_raws(table)).verdict == "complete"

    def flip(body: dict[str, Any]) -> None:
        body["move"] = "Word:no" if body["move"] == "Word:yes" else "Word:yes"

    def first_word(i: int, _: Any, at: int = words[0]) -> bool:
        return i == at

    index, forged = _tamper(table, first_word, flip)
    _refused(forged, index, _seat(table, decode(forged[index]).sender), "is false")


def test_a_record_cut_after_the_words_without_the_secrets_is_incomplete_never_invalid(
    worded: tuple[LocalTable, list[int]],
) -> None:
    """Without the final reveal's secrets the replay cannot know the gems the words speak of
    (a guess could accuse an honest seat): it replays up to the words and reads the record as
    a valid prefix."""
    table, words = worded
    raws = _raws(table)
    for cut in (words[0] + 1, words[-1] + 8, len(raws) - 12):
        report = audit_messages(raws[:cut])
        assert report.verdict == "incomplete" and report.exit_code == 3, report.to_json()


def test_every_words_check_is_in_the_record_and_a_false_call_is_blamed_on_its_caller(
    worded: tuple[LocalTable, list[int]],
) -> None:
    """After the words every seat signs its check of them (protocol.md §11, "The words'
    check"): the audit walks that step; a seat that called true words contradicted is named
    at its call, and a token that is no check at its message."""
    table, _ = worded
    raws = _raws(table)
    checks = [i for i, raw in enumerate(raws) if decode(raw).body.get("move") == WORDS_FIT]
    assert len(checks) % 4 == 0 and checks, "every seat checks every round of words"

    def first_check(i: int, _: Any, at: int = checks[0]) -> bool:
        return i == at

    seat = _seat(table, decode(raws[checks[0]]).sender)
    index, forged = _tamper(table, first_check, lambda body: body.update(move=WORDS_UNFIT))
    _refused(forged, index, seat, "called the owners' words contradicted")
    index, forged = _tamper(table, first_check, lambda body: body.update(move="Stop"))
    _refused(forged, index, seat, "when the words' check was due")


def test_a_table_stopped_mid_step_is_a_stopped_record_naming_who_owed(table: LocalTable) -> None:
    """A 2004 record ends in aborts as a 2017 one does (protocol.md §9): the step it stops in
    says who still owed its message; a seat that aborted instead of sending it withheld it."""
    raws = _raws(table)
    by_op: dict[int, list[int]] = {}
    for i, raw in enumerate(raws):
        if decode(raw).type is MsgType.TABLE_SHARE:
            by_op.setdefault(int(decode(raw).body["op"]), []).append(i)
    deals = [at for at in by_op.values() if len(at) == len(table.ids) - 1]  # all but the dealt
    due = deals[3][0]
    owed_by = decode(raws[due]).sender
    missing = _seat(table, owed_by)
    sharers = {decode(raws[i]).sender for i in deals[3]}
    (recorder,) = [i for i in table.ids if i.public_key not in sharers]  # it owes nothing here
    reason = f"p (seat {missing}) unreachable: gone for 40 s with no message while it owed x"
    stop = abort_after(recorder, raws[:due], {"reason": reason, "seat": missing})
    report = audit_messages([*raws[:due], stop])
    assert report.verdict == "stopped" and report.exit_code == 4, report.to_json()
    assert report.stop is not None and report.stop.seat == missing
    assert report.stop.summary.endswith("(the record shows it owing table_share)")
    left = abort_after(_keys(table)[owed_by], raws[:due], {"reason": "I leave"})
    withheld = audit_messages([*raws[:due], left])
    assert withheld.stop is not None and withheld.stop.summary == (
        f"seat {missing} withheld table_share"
    )


def test_a_table_stopped_on_a_cheat_is_stopped_with_the_evidence_checked(
    table: LocalTable,
) -> None:
    """A live peer appends a step's message, then checks it: a refused move is in the record,
    followed by the aborts. The audit finds the same fault and reads it as the stop's reason."""
    raws = _raws(table)
    at = next(i for i, raw in enumerate(raws) if decode(raw).type is MsgType.TABLE_PLAY)
    cheat = decode(raws[at])
    forged = resign(_keys(table)[cheat.sender], raws[at], body=thaw(cheat.body) | {"pos": 0})
    cheater = _seat(table, cheat.sender)
    recorder = next(i for i in table.ids if i.public_key != cheat.sender)
    kept = [*raws[:at], forged]
    reason = f"p (seat {cheater})'s move is refused: P{cheater} played position 0"
    stop = abort_after(recorder, kept, {"reason": reason, "seat": cheater})
    report = audit_messages([*kept, stop])
    assert report.verdict == "stopped" and report.stop is not None, report.to_json()
    assert report.stop.seat == cheater and report.stop.checked
    assert report.stop.message_index == at and "not in its hand" in report.stop.summary


def _reveals(raws: list[bytes]) -> list[int]:
    return [i for i, raw in enumerate(raws) if decode(raw).type is MsgType.TABLE_REVEAL]


def test_a_forged_final_secret_after_the_owners_words_is_blamed_on_its_seat(
    worded: tuple[LocalTable, list[int]],
) -> None:
    """A false final secret makes the record invalid, blaming its signer, whatever words came
    before: without every true secret the replay cannot read the gems the words speak of, but
    every secret the record reveals is still checked against its seat's table_key (issue 27,
    item 7: this record audited as valid and unfinished, exit 3)."""
    table, _ = worded
    raws = _raws(table)
    assert audit_messages(raws).verdict == "complete"
    reveals = _reveals(raws)
    assert len(reveals) == 4
    for at in (reveals[0], reveals[-1]):  # the whole record, re-signed after the forgery

        def reveal(i: int, _: Any, at: int = at) -> bool:
            return i == at

        def lie(body: dict[str, Any]) -> None:
            body["x"] = (7).to_bytes(32, "little")

        index, forged = _tamper(table, reveal, lie)
        seat = _seat(table, decode(forged[index]).sender)
        _refused(forged, index, seat, "revealed secret does not match its table_key")
    # the forger's own last message, signed by it alone: the record cut after the final step
    last = decode(raws[reveals[-1]])
    body = thaw(last.body) | {"x": (7).to_bytes(32, "little")}
    forged_last = resign(_keys(table)[last.sender], raws[reveals[-1]], body=body)
    cut = [*raws[: reveals[-1]], forged_last]
    seat = _seat(table, last.sender)
    _refused(cut, reveals[-1], seat, "revealed secret does not match its table_key")
    honest = audit_messages(raws[: reveals[-1] + 1])  # the same cut, honest: unfinished, valid
    assert honest.verdict == "incomplete" and honest.exit_code == 3, honest.to_json()


def test_a_table_stopped_on_a_forged_final_secret_audits_with_the_forger_blamed() -> None:
    """A game with an owners' word step in which seat-list index 0 reveals a false secret,
    signed by it, at the final reveal: every honest machine stops blaming it, and the record an
    honest seat keeps (cut at the forgery, or with its abort) blames the forger at its reveal."""
    for seed in range(102, 112):  # seeded games: 100 and 101 ask for no word (4.5 s each)
        table = LocalTable(players=4, seed=seed, ruleset="druids2004", keys_seed=seed)
        forgery, fault = forge(table, MsgType.TABLE_REVEAL, _false_secret)
        raws = [m.raw for m in table.machines[1].transcript.messages]
        if any(str(decode(raw).body.get("move", "")).startswith("Word:") for raw in raws):
            break
    else:
        raise AssertionError("no game in 10 asked for the owners' word")
    assert_blamed(table, forgery, fault, "revealed secret does not match its table_key")
    assert fault is not None and forgery.forged is not None
    at, seat = raws.index(forgery.forged), cheater_seat(table)
    _refused(raws, at, seat, "revealed secret does not match its table_key")
    stop = abort_after(table.ids[1], raws, {"reason": str(fault), "seat": seat})
    report = audit_messages([*raws, stop])
    assert report.verdict == "stopped" and report.stop is not None, report.to_json()
    assert (report.stop.seat, report.stop.message_index) == (seat, at), report.to_json()
    assert report.stop.checked, report.to_json()


def _false_secret(msg: Any, _: Any) -> dict[str, Any]:
    return body_with(msg, x=(7).to_bytes(32, "little"))
