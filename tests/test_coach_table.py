"""The coach as a table option (issue 32): ``coach`` in the seat message's options, bound into
the table id, and each seat's word whether a person or a bot plays it (``bot`` in its signed
join, ``bots`` in the seat message). A table with the coach on that seats two persons is refused
by every peer, blaming its host, from the seat message alone; so is a seat message that calls a
person a bot; with one person and bots it plays to the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from table_harness import LocalTable
from test_links import _start_all

from druids_p2p.audit.audit import audit_messages
from druids_p2p.games.registry import new_table_options, table_options
from druids_p2p.lan.lobby import Lobby
from druids_p2p.lan.mesh import Inbound, Mesh
from druids_p2p.lan.peer_config import HostSpec, PeerConfig
from druids_p2p.lan.persons import COACH_ONE_PERSON
from druids_p2p.lan.seating import make_join, make_seat_message
from druids_p2p.wire import Identity, MsgType, decode, derive_table_id


def _coach_table(bots: list[bool], listed: list[int] | None = None) -> LocalTable:
    """A 3-seat table with the coach on, founded again on a seat message whose joins say
    ``bots`` (per seat; the host's own is its word) and whose ``bots`` lists ``listed``
    (default: what the seats say)."""
    table = LocalTable(players=3)
    offer = decode(table.joins[1]).table_id
    joins = [
        make_join(table.ids[k], offer, endpoint, curve, bot=bots[k])
        for k, (_, _, endpoint, curve) in enumerate(table.seats)
    ]
    options = new_table_options("druids2017", 3, rounds=1, coach=True)
    table.seat_raw = make_seat_message(
        table.ids[0],
        table.seats,
        options,
        joins=joins[1:],
        ruleset="druids2017",
        bots=[k for k, b in enumerate(bots) if b] if listed is None else listed,
    )
    table.seat_msg = decode(table.seat_raw)
    table.machines = [table._machine(k) for k in range(3)]
    return table


def test_coach_is_in_the_signed_options_and_the_table_id() -> None:
    """Off, the options are what they always were (the table id of wire.md §11 unchanged); on,
    ``coach: true`` is in the options every signature at the table binds."""
    off = new_table_options("druids2017", 3, rounds=1)
    on = new_table_options("druids2017", 3, rounds=1, coach=True)
    ids = [Identity.generate(f"p{k}") for k in range(3)]
    host = ids[0]
    seats = [
        (
            ids[k].public_key,
            f"p{k}",
            f"tcp://127.0.0.1:{6000 + k}",
            bytes([k + 1]) * 32,
        )
        for k in range(3)
    ]
    raw_off = decode(make_seat_message(host, seats, off, nonce=b"\xaa" * 32))
    raw_on = decode(make_seat_message(host, seats, on, nonce=b"\xaa" * 32))
    assert "coach" not in raw_off.body["options"]
    assert raw_on.body["options"]["coach"] is True
    assert raw_on.table_id != raw_off.table_id
    keys = [s[0] for s in seats]
    assert raw_on.table_id == derive_table_id(keys, dict(raw_on.body["options"]), b"\xaa" * 32)
    assert table_options(raw_on.body["options"])[1].coach is True
    assert table_options(raw_off.body["options"])[1].coach is False


def test_a_coach_table_seating_two_persons_is_refused_by_every_peer() -> None:
    """The host (a person) seats a second person at a table with the coach on: every peer, the
    host's own machine too, refuses the seat message blaming its host (seat-list index 0), with
    one line naming both persons; the audit finds the record invalid at its host."""
    table = _coach_table([False, False, True])
    faults = _start_all(table)
    assert sorted(faults) == [0, 1, 2]
    names = table.seat_msg.body["names"]
    for fault in faults.values():
        assert fault.seat == 0, fault.reason
        assert fault.reason.endswith(
            f"seat message is refused: {COACH_ONE_PERSON}, not 2 persons ({names[0]}, {names[1]})"
        ), fault.reason
        assert "\n" not in fault.reason
    report = audit_messages([table.seat_raw])
    assert report.problem is not None and report.problem.seat == 0, report.problem
    assert COACH_ONE_PERSON in report.problem.error


def test_a_seat_message_calling_a_person_a_bot_is_refused() -> None:
    """Joiner 1 joined as a person; the host lists it as a bot to pass the coach's rule: the
    joins the seat message quotes prove it, and every peer blames the host."""
    table = _coach_table([False, False, True], listed=[1, 2])
    faults = _start_all(table)
    assert sorted(faults) == [0, 1, 2]
    name = table.seat_msg.body["names"][1]
    for fault in faults.values():
        assert fault.seat == 0
        assert f"lists {name} as a bot, which {name}'s own signed join does not say" in fault.reason


def test_a_coach_table_of_one_person_and_bots_plays_to_the_end() -> None:
    table = _coach_table([False, True, True])
    table.run()
    assert all(m.finished and m.aborted is None for m in table.machines)


# ==================================================================== the host's lobby
def _ask(lobby: Lobby, host_mesh: Mesh, joiner: Identity, bot: bool) -> str | None:
    """One join over real sockets; the host's answer (an abort's reason), None if seated."""
    mesh = Mesh("127.0.0.1")
    try:
        mesh.connect(b"host", host_mesh.endpoint, host_mesh.curve_public_raw)
        mesh.watch_dealer(b"host")
        join = make_join(joiner, lobby.table_id, mesh.endpoint, mesh.curve_public_raw, bot=bot)
        mesh.send(b"host", join)
        answer: Inbound | None = None
        for _ in range(100):  # bounded: the host answers (or seats) within a few polls
            for inbound in host_mesh.poll(20):
                lobby._on_join(inbound.routing_id, inbound.payload)
            if any(s[0] == joiner.public_key for s in lobby.seats):
                return None
            replies = mesh.poll(20)
            if replies:
                answer = replies[0]
                break
        assert answer is not None, "the host never answered"
        reply = decode(answer.payload)
        assert reply.type is MsgType.ABORT
        return str(reply.body["reason"])
    finally:
        mesh.close()


@pytest.mark.parametrize("host_is_bot", [False, True])
def test_a_coach_host_refuses_a_second_person_and_seats_bots(
    tmp_path: Path, host_is_bot: bool
) -> None:
    """The host never signs a seat message every peer would refuse: with its person seated
    (itself, or the first person to join a bot's table) it refuses the next person's join in
    one line, and still seats a bot; its seat message lists the bots."""
    events: list[dict[str, Any]] = []
    config = PeerConfig(
        home=tmp_path,
        identity=Identity.generate("host"),
        player="bot:random" if host_is_bot else "human",
        announce=False,
        open_table=True,
        emit=events.append,
    )
    options = new_table_options("druids2017", 4, rounds=1, coach=True)
    host_mesh = Mesh("127.0.0.1")
    lobby = Lobby(config, host_mesh, HostSpec("t", options, "druids2017"))
    try:
        if host_is_bot:
            assert _ask(lobby, host_mesh, Identity.generate("first"), bot=False) is None
        refused = _ask(lobby, host_mesh, Identity.generate("second"), bot=False)
        assert refused == f"join refused: {COACH_ONE_PERSON}, and its person is seated"
        assert _ask(lobby, host_mesh, Identity.generate("bot"), bot=True) is None
        assert [e["reason"] for e in events if e["event"] == "refused"] == [refused]
        bots = sorted(i for i, s in enumerate(lobby.seats) if s[0] in lobby.bots)
        assert bots == ([0, 2] if host_is_bot else [1])
    finally:
        lobby.close()
        host_mesh.close()
