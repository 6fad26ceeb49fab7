"""The result step: every record ends with each seat's signed totals and winners, so a record is
checked on its own (protocol.md §7, "The result")."""

from __future__ import annotations

from pathlib import Path

from message_surgery import resign
from table_harness import LocalTable, game_of

from druids_p2p.audit.audit import audit_file, audit_messages
from druids_p2p.wire import MsgType, decode, read_record


def _finished_table(tmp_path: Path, seed: int = 4) -> LocalTable:
    table = LocalTable(players=3, rounds=1, seed=seed, records=tmp_path)
    table.run()
    assert all(m.finished and m.aborted is None for m in table.machines)
    return table


def test_every_record_ends_with_every_seats_signed_result_in_play_order(tmp_path: Path) -> None:
    table = _finished_table(tmp_path)
    game = game_of(table.machines[0])
    for k in range(3):
        messages = [decode(raw) for raw in read_record(tmp_path / f"p{k}.druids").messages]
        results = messages[-3:]
        assert [m.type for m in results] == [MsgType.RESULT] * 3
        assert [m.sender for m in results] == list(table.machines[k].order)
        for m in results:
            assert list(m.body["totals"]) == game.totals
            assert list(m.body["winners"]) == sorted(game.winners or [])
        report = audit_file(tmp_path / f"p{k}.druids")
        assert report.problem is None and report.complete


def test_a_record_cut_before_the_last_result_is_valid_but_incomplete(tmp_path: Path) -> None:
    _finished_table(tmp_path)
    raws = read_record(tmp_path / "p0.druids").messages
    report = audit_messages(raws[:-1])
    assert report.problem is None
    assert not report.complete


def test_a_result_re_signed_with_other_totals_is_invalid_and_blames_its_signer(
    tmp_path: Path,
) -> None:
    table = _finished_table(tmp_path)
    raws = list(read_record(tmp_path / "p0.druids").messages)
    last = decode(raws[-1])
    signer = next(i for i in table.ids if i.public_key == last.sender)
    body = dict(last.body, totals=[t + 1 for t in last.body["totals"]])
    raws[-1] = resign(signer, raws[-1], body=body)
    report = audit_messages(raws)
    assert report.problem is not None
    assert "signed the result totals" in str(report.problem)
    assert report.problem.message_index == len(raws) - 1
    assert report.problem.seat == table.machines[0].order.index(last.sender)
