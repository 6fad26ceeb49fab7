"""One cheating seat at a Druids (2004) table of real table machines (``table_harness``).

The cheater is seat-list index 0. Its machine plays honestly; one of its messages is rewritten in
flight and re-signed with its own key (``message_surgery.resign``), as a cheating peer would sign
it, and every other machine then gets the same forged bytes. What to forge is decided from an
honest machine's public knowledge at the time (backs, zones, sizes), never from secrets. The
tests check that the first fault the table raises blames exactly the cheater's play seat, with
the forged signed message as its evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from message_surgery import resign, thaw
from table_harness import LocalTable

from druids_p2p.games.druids2004.hidden import NO, YES
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import Message, MsgType, decode

CHEATER = 0
"""The cheating seat's index in the seat list."""

Rewrite = Callable[[Message, TableMachine], dict[str, Any] | None]
"""(the cheater's message, the honest machine it is going to) -> the forged body, or None to
leave this message alone and wait for a later one."""


class Forgery:
    """The first message of ``kind`` from the cheater that ``rewrite`` changes, forged once."""

    def __init__(self, table: LocalTable, kind: MsgType, rewrite: Rewrite) -> None:
        self.table, self.kind, self.rewrite = table, kind, rewrite
        self.honest: bytes | None = None
        self.forged: bytes | None = None
        self.last_to = -1
        """The machine the last message went to (the one a fault in delivery comes from)."""

    def __call__(self, frm: int, to: int, raw: bytes) -> bytes | None:
        self.last_to = to
        if frm != CHEATER:
            return raw
        if self.honest is None:
            msg = decode(raw)
            if msg.type is not self.kind:
                return raw
            body = self.rewrite(msg, self.table.machines[to])
            if body is None:
                return raw
            self.honest = raw
            self.forged = resign(self.table.ids[CHEATER], raw, body=body)
        return self.forged if raw == self.honest else raw


def forge(table: LocalTable, kind: MsgType, rewrite: Rewrite) -> tuple[Forgery, TableFault | None]:
    """Run the table with the cheater's forgery; the fault it stopped on (None: it never did).
    After the first fault the messages already sent are still delivered (nobody moves), and
    every honest machine must stop on the same blame."""
    forgery = Forgery(table, kind, rewrite)
    table.tamper = forgery
    try:
        table.run()
    except TableFault as fault:
        first = fault
    else:
        return forgery, None
    every_honest_machine_blames(table, first, forgery.last_to, forgery)
    return forgery, first


def every_honest_machine_blames(
    table: LocalTable, first: TableFault, stopped: int, forgery: Forgery | None = None
) -> None:
    """Machine ``stopped`` raised ``first``: deliver what is still queued (nobody moves), and
    every other honest machine must stop on a fault naming the same seat."""
    faults = {stopped: first}
    for _ in range(100_000):
        if not table.queue:
            break
        k, j, raw = table.queue.pop(0)
        if j not in faults and j != CHEATER:
            try:
                table.deliver(j, raw if forgery is None else forgery(k, j, raw) or raw, k)
            except TableFault as fault:
                faults[j] = fault
    for j, machine in enumerate(table.machines):
        if j not in faults and j != CHEATER:
            try:
                machine.check_deferred()
            except TableFault as fault:
                faults[j] = fault
    for k in range(len(table.machines)):
        if k != CHEATER:
            got = faults.get(k)
            assert got is not None and got.seat == first.seat, f"machine {k}: {got}"


def cheater_seat(table: LocalTable) -> int:
    """The cheater's play seat, as an honest machine numbers it."""
    seat = table.machines[CHEATER + 1].seat_of(table.ids[CHEATER].public_key)
    assert seat is not None
    return seat


def assert_blamed(table: LocalTable, forgery: Forgery, fault: TableFault | None, why: str) -> None:
    """The table stopped blaming the cheater's seat for ``why``, the forged message as evidence."""
    assert forgery.forged is not None, "the cheater never sent what the test forges"
    assert fault is not None, "the forged message was accepted"
    assert why in str(fault), str(fault)
    assert fault.seat == cheater_seat(table), str(fault)
    assert fault.evidence[0] == forgery.forged


def body_with(msg: Message, **changes: Any) -> dict[str, Any]:
    """The message's body as plain data, with ``changes``."""
    body: dict[str, Any] = thaw(msg.body)
    return body | changes


def lie_once(table: LocalTable) -> None:
    """The cheater's machine, once seated, gives the opposite of its first true word (signed,
    so its own transcript agrees with everyone's); its machine plays honestly otherwise."""
    table.run(stop=lambda: table.machines[CHEATER].card_play is not None)
    copy = table.machines[CHEATER].card_play.copy
    true_word = copy.own_word
    lied: list[str] = []

    def own_word() -> str | None:
        word: str | None = true_word()
        if word is None or lied:
            return word
        lied.append(NO if word == YES else YES)
        return lied[0]

    copy.own_word = own_word


def run_to_fault(table: LocalTable) -> TableFault | None:
    """Run the table to its end; the fault it stopped on (None: it never did)."""
    try:
        table.run()
    except TableFault as fault:
        return fault
    return None
