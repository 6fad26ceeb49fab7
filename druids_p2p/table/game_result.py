"""The ``result`` step: every seat signs the totals and winners it computed, once the game is over.

Without it a record says what was played but not what anybody concluded from it, so a third party
holding one record could check the moves but not the result the players walked away with; with
it, a record is checked on its own, and a peer whose engine disagrees is caught at the table,
not later (``protocol.md`` §7, "The result"). Each function acts on one
:class:`~druids_p2p.table.table_state.TableMachineState`, inside its schedule pump.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from druids_p2p.table.table_state import TableFault, TableMachineState
from druids_p2p.wire import Message, MsgType


def result_body(totals: list[int], winners: list[int]) -> dict[str, Any]:
    """What a seat signs: totals in play order (play seat 0 first) and the winners' play seats,
    in increasing order."""
    return {"totals": list(totals), "winners": sorted(winners)}


def result_problem(body: Mapping[str, Any], totals: list[int], winners: list[int]) -> str | None:
    """Why a signed result is not the one the game gives, or None when it is."""
    expected = result_body(totals, winners)
    if list(body["totals"]) != expected["totals"] or list(body["winners"]) != expected["winners"]:
        return (
            f"signed the result totals {list(body['totals'])}, winners {list(body['winners'])}; "
            f"the game gives totals {expected['totals']}, winners {expected['winners']}"
        )
    return None


def start_result(machine: TableMachineState) -> None:
    """The last round is audited: every seat now signs what the game gives."""
    totals, winners = machine.outcome()
    assert winners is not None
    machine.phase = "result"
    machine._next("result", machine.order, MsgType.RESULT)
    machine._send_own(MsgType.RESULT, result_body(totals, winners))


def check_result(machine: TableMachineState, msg: Message) -> None:
    """A result is checked the moment it is its sender's next message in the step."""
    totals, winners = machine.outcome()
    assert winners is not None
    problem = result_problem(msg.body, totals, winners)
    if problem is not None:
        raise TableFault(
            f"{machine._who(msg.sender)} {problem}", machine.seat_of(msg.sender), (msg.raw,)
        )


def on_results(machine: TableMachineState, batch: list[Message]) -> None:
    """Every seat signed the same result as this peer: the game is over."""
    totals, winners = machine.outcome()
    machine.phase = "done"
    machine.steps.close()
    machine.finished = True
    machine._event(
        "game_over",
        f"game over: totals {totals}, winners {winners}",
        {"totals": totals, "winners": winners},
    )
