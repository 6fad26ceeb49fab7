"""The ``ready`` step after each deal, and the audit a round may need before its end.

Kept apart from ``net/table.py`` (the schedule itself): these are the steps that make the Gaia
holder public at the deal, so the lead step names its sender and a silent holder is timed out
like any mover, and that turn the deck's :class:`~druids_p2p.deck.AuditRequired` into a reveal
and an audit naming a seat instead of a stop that blames nobody (``protocol.md`` §5, "Ready" and
"Audit calls"; ``docs/protocol/deck.md`` §6.5, §9). Each function acts on one
:class:`~druids_p2p.net.table_state.TableState`, inside its schedule pump.
"""

from __future__ import annotations

from collections.abc import Sequence

from druids_p2p.deck import AuditRequired
from druids_p2p.net.table_state import TableState
from druids_p2p.net.table_types import TableFault
from druids_p2p.wire import Message, MsgType


def on_ready(machine: TableState, batch: list[Message]) -> None:
    """Every seat's ``ready`` is in: the one that showed Gaia leads. An audit call in the
    step, a card shown that needs an audit, or no Gaia shown at all start the audit."""
    machine.ready = batch
    lead = machine.rules.lead_card
    callers = [m for m in batch if m.type is MsgType.DECK_REVEAL]
    shown: list[Message] = []
    try:
        for msg in batch:
            if msg.type is MsgType.READY and "open" in msg.body:
                if msg.body["open"]["card"] != lead:
                    raise TableFault(
                        f"{machine._who(msg.sender)} showed a card other than Gaia at ready",
                        machine.seat_of(msg.sender),
                        (msg.raw,),
                    )
                if machine._deck_receive(msg, audit=True):
                    raise TableFault("the deck emitted a message in response to a ready")
                shown.append(msg)
            elif msg.type is MsgType.DECK_REVEAL:
                machine._deck_receive(msg)
    except AuditRequired as exc:
        start_audit(machine, callers, f"Gaia as shown at ready needs an audit ({exc.reason})")
        return
    if callers:
        start_audit(machine, callers, machine.audit_why or "a seat's hand does not decrypt")
        return
    if not shown:
        start_audit(machine, [], "nobody showed Gaia at ready")
        return
    holder = shown[0].sender
    if holder != machine.me:
        seat = machine.seat_of(holder)
        assert seat is not None
        try:
            machine.game.reveal(seat, lead)
        except ValueError as exc:
            raise TableFault(
                f"{machine._who(holder)} showed Gaia: {exc}", seat, (shown[0].raw,)
            ) from None
    machine.gaia_holder = holder
    machine._next("lead", (holder,), MsgType.MOVE)


def start_audit(machine: TableState, callers: Sequence[Message], why: str) -> None:
    """Something only the round's secrets can attribute (deck.md §6.5, §9): every seat
    reveals now, the round is audited, and the table stops blaming the seat it names."""
    assert machine.deck is not None
    machine.check_deferred()
    machine.phase = "audit"
    machine.audit_callers = tuple(callers)
    machine.audit_why = why
    machine._event("audit", f"round {machine.deck.params.round_no + 1}: {why}: audit", {"why": why})
    revealed = {m.sender for m in callers}
    remaining = [k for k in machine.order if k not in revealed]
    if not remaining:
        finish_audit(machine)
        return
    machine._next("audit", remaining, MsgType.DECK_REVEAL)
    if machine.me in remaining:
        machine.deck.reveal()  # sealed and queued through the codec


def on_audit(machine: TableState, batch: list[Message]) -> None:
    for msg in batch:
        machine._deck_receive(msg)
    finish_audit(machine)


def finish_audit(machine: TableState) -> None:
    """Every secret is out: the audit names a cheater; if the deal is sound, whoever made
    the audit necessary is at fault (a hidden Gaia, or a call the deal does not justify)."""
    assert machine.deck is not None
    machine.steps.close()
    result = machine._audit_deal()
    if (
        not machine.audit_callers
        and machine.ready
        and not any("open" in m.body for m in machine.ready)
    ):
        lead = machine.rules.lead_card
        seat = next(s for s, hand in enumerate(result.hands) if lead in hand)
        ready = next(m for m in machine.ready if m.sender == machine.order[seat])
        raise TableFault(
            f"audit: {machine.name_of_seat(seat)} (seat {seat}) held Gaia but its ready did "
            "not show it",
            seat,
            (ready.raw,),
        )
    if machine.audit_callers:
        call = machine.audit_callers[0]
        raise TableFault(
            f"audit: {machine._who(call.sender)} called an audit, but the deal is sound",
            machine.seat_of(call.sender),
            (call.raw,),
        )
    raise TableFault(f"the audit found no fault, after: {machine.audit_why}", None)
