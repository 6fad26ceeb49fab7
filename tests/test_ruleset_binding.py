"""The rule set a table plays is named in its seat message and bound into its table id
(wire.md §6), and the rule set, not the wire, decides which options are playable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from table_harness import LocalTable

from druids_p2p.audit.audit import audit_messages
from druids_p2p.games.registry import SeatOptions, new_table_options, table_options
from druids_p2p.lan.seating import options_body
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableSecret
from druids_p2p.wire import MsgType, decode, derive_table_id, encode, head0


def _seat_message(table: LocalTable, options: dict[str, object]) -> bytes:
    """The harness's seat message with other options, signed by its host as a host would."""
    body = dict(decode(table.seat_raw).body, options=options)
    table_id = derive_table_id(body["seats"], options, body["nonce"])
    return encode(
        table.ids[0],
        MsgType.SEAT,
        table_id=table_id,
        seq=0,
        prev=bytes(32),
        head=head0(table_id),
        body=body,
    )


def test_the_seat_message_names_the_rule_set_and_the_table_id_binds_it() -> None:
    table = LocalTable(players=3)
    body = table.seat_msg.body
    assert body["options"]["ruleset"] == "druids2017"
    other = dict(body["options"], ruleset="druids2004")
    assert derive_table_id(body["seats"], other, body["nonce"]) != table.seat_msg.table_id
    assert derive_table_id(body["seats"], body["options"], body["nonce"]) == table.seat_msg.table_id


def test_a_seat_message_of_protocol_version_1_names_no_rule_set_and_plays_druids_2017() -> None:
    legacy = {"players": 4, "rounds": 5, "variant": False}
    assert table_options(legacy) == ("druids2017", SeatOptions(players=4, variant=False, rounds=5))
    assert options_body(new_table_options("druids2017", 4)) == dict(legacy, ruleset="druids2017")


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"players": 3, "rounds": 5, "ruleset": "chess", "variant": False}, "rule set 'chess'"),
        (
            {"players": 6, "rounds": 5, "ruleset": "druids2017", "variant": False},
            "3, 4 or 5, not 6",
        ),
        ({"players": 3, "rounds": 9, "ruleset": "druids2017", "variant": False}, "1 to 5 rounds"),
    ],
)
def test_options_the_wire_allows_but_the_rule_set_does_not_are_refused(
    tmp_path: Path, options: dict[str, object], reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        table_options(options)
    table = LocalTable(players=3)
    if options["players"] != 3:
        return  # a seat message must seat as many players as it says: another check
    raw = _seat_message(table, options)
    with pytest.raises(ValueError, match=reason):
        TableMachine(
            table.ids[1],
            decode(raw),
            TableSecret(os.urandom(32)),
            table.seats[1][2],
            table.seats[1][3],
        )
    report = audit_messages([raw])
    assert report.problem is not None and reason in str(report.problem)
    assert report.problem.message_index == 0
