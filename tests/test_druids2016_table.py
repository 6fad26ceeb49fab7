"""Druids (2016) at a card table of two real table machines (``table_harness``): the draw and
the placements by the card table's proven operations, every step a signed public move, the
audit, a cheat at each stage blamed on the cheater with its signed message, and a peer rebuilt
from its record playing on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from card_table_cheater import CHEATER, assert_blamed, body_with, cheater_seat, forge
from druids2016_registered import register
from table_harness import LocalTable

from druids_p2p.audit.audit import audit_file
from druids_p2p.games.druids2016.board import DIRECTION_NAMES, square_name
from druids_p2p.games.druids2016.table_seat import PLACEMENT, TURNS, Druids2016Seat, square_cards
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import Message, MsgType, read_record

GAME = "druids2016"


@pytest.fixture(autouse=True, scope="module")
def registered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from register(tmp_path_factory.mktemp("meta"))


def _copy(machine: TableMachine) -> Druids2016Seat:
    assert machine.card_play is not None
    copy = machine.card_play.copy
    assert isinstance(copy, Druids2016Seat)
    return copy


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_table_of_two_machines_plays_to_the_end_and_both_records_audit(
    tmp_path: Path, seed: int
) -> None:
    table = LocalTable(players=2, seed=seed, records=tmp_path, ruleset=GAME)
    table.run()
    copies = [_copy(m) for m in table.machines]
    assert all(m.finished for m in table.machines)
    assert all(c.game_over for c in copies)
    games = [c.game for c in copies]
    assert games[0] is not None and games[1] is not None
    assert games[0].setup == games[1].setup  # one draw, one pair of placements on both
    assert games[0].history == games[1].history and games[0].result == games[1].result
    assert {c.totals[0] + c.totals[1] for c in copies} == {2}
    # the draw was the card table's: the setup deck's seven cards were all turned, public
    assert sorted(copies[0]._cards[p] for p in range(TURNS)) == list(range(TURNS))
    for k in range(2):
        report = audit_file(tmp_path / f"p{k}.druids")
        assert report.verdict == "complete", report
        assert report.totals == copies[0].totals


def _illegal_step(table: LocalTable) -> Any:
    """The cheater's step rewritten into a step a Druid of its may not make: the way it faces.
    Read from the cheater's own copy, which took the step just sent: a Druid of the cheater's
    that did not move faces the same way in the position the step is judged in."""

    def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any] | None:
        game = _copy(table.machines[CHEATER]).game
        if game is None or not game.history:
            return None
        me = cheater_seat(table)  # (its play seat: known once the table is seated)
        side = game.setup.side_of(me)
        moved = game.history[-1][1]
        still = [d for d in range(3 * side, 3 * side + 3) if game.pos[d] >= 0 and d != moved]
        if moved // 3 != side or not still:
            return None
        druid = still[0]
        token = f"{square_name(game.pos[druid])}{DIRECTION_NAMES[game.face[druid]]}"
        return body_with(msg, move=token)

    return rewrite


def test_an_illegal_step_is_refused_and_blamed_on_its_signer() -> None:
    table = LocalTable(players=2, seed=3, ruleset=GAME)
    rewrite = _illegal_step(table)
    forgery, fault = forge(table, MsgType.MOVE, rewrite)
    assert_blamed(table, forgery, fault, "may not move that way")


def test_a_placement_changed_at_its_reveal_is_blamed_on_its_owner() -> None:
    """The cheater put two square cards down face down; at the reveal it opens one of them as
    another of its square cards (one it kept): the deck's proof binds the card put down."""
    table = LocalTable(players=2, seed=4, ruleset=GAME)

    def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any] | None:
        me = cheater_seat(table)
        opens = [dict(o) for o in msg.body["opens"]]
        if len(opens) != 2 or any(o["card"] not in square_cards(me) for o in opens):
            return None  # (not the placements' reveal: the final one opens every secret)
        kept = [c for c in square_cards(me) if c not in {o["card"] for o in opens}]
        opens[0]["card"] = kept[0]
        return body_with(msg, opens=opens)

    forgery, fault = forge(table, MsgType.TABLE_OPEN, rewrite)
    if fault is None:  # found while the honest seat's own open was still to go: raised after it
        try:
            table.machines[1].check_deferred()
        except TableFault as deferred:
            fault = deferred
    assert_blamed(table, forgery, fault, "claimed card")


def test_a_placement_shown_face_up_is_refused() -> None:
    """A placement is put down face down: the cheater's first placement sent as a show of its
    card (which would tell the opponent before it commits) is refused and blamed."""
    table = LocalTable(players=2, seed=5, ruleset=GAME)

    def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any] | None:
        if msg.body.get("zone") != PLACEMENT:
            return None
        return body_with(msg, zone="setup")

    forgery, fault = forge(table, MsgType.TABLE_PLAY, rewrite)
    assert_blamed(table, forgery, fault, "a placement goes into placement")


@pytest.mark.parametrize("after", [3, 20, 45, 70])
def test_a_peer_restarted_from_its_record_plays_on_to_the_same_end(
    tmp_path: Path, after: int
) -> None:
    """Killed in the draw (shuffles, turns), at the placements, and in play."""
    table = LocalTable(players=2, seed=after, records=tmp_path, ruleset=GAME)
    victim = table.machines[1]
    table.run(stop=lambda: len(victim.transcript) > after or victim.finished)
    assert not victim.finished
    table.restart(1)
    fresh = table.machines[1]
    table.broadcast(1, fresh.resend_own())
    table.run()
    assert len({m.transcript.head for m in table.machines}) == 1
    assert all(m.finished for m in table.machines)
    assert len({tuple(_copy(m).totals) for m in table.machines}) == 1
    for k in range(2):
        read = read_record(tmp_path / f"p{k}.druids")
        assert not read.tail and len(read.messages) == len(table.machines[k].transcript)
