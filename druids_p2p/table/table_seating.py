"""The seating steps of a table: every seat confirms its seat, then reveals its seat nonce.

The confirmations fix where each seat is reached (its own word, ``seating.py``); the nonces,
committed to in the confirmations, make the coin flip that fixes the play order, which nobody can
steer unless all the others collude (``protocol.md`` §4). The last to reveal knows the order
first; a seat that then withholds its nonce is blamed by its deadline, and the others go on
without it at a new table (``reseat.py``). Each function acts on one
:class:`~druids_p2p.table.table_state.TableMachineState`, inside its schedule pump.
"""

from __future__ import annotations

import hashlib

from druids_p2p.lan.seating import confirm_contradiction, seat_order
from druids_p2p.table.card_table_round import start_card_table
from druids_p2p.table.table_state import TableFault, TableMachineState
from druids_p2p.wire import Message, MsgType


def on_confirms(t: TableMachineState, batch: list[Message]) -> None:
    """Every seat confirmed: reveal this seat's nonce."""
    for msg in batch:
        t.seating.confirms[msg.sender] = msg
    t._next("nonce", t.list_keys, MsgType.SEAT_NONCE)
    t._send_own(MsgType.SEAT_NONCE, {"nonce": t.secret.seat_nonce()})


def check_confirm(t: TableMachineState, msg: Message) -> None:
    """A confirmation names an endpoint on the table's network (else its signer is blamed)
    and agrees with what the seat message lists for its signer, which is its signer's own
    signed word (its quoted join; for the host, the seat message): else its signer
    contradicts itself, and the seat message and the confirmation prove it."""
    refused = t.network.refusal(msg.body["endpoint"])
    if refused is not None:
        raise TableFault(
            f"{t._who(msg.sender)}'s seat confirmation is refused: {refused}",
            t.seat_of(msg.sender),
            (msg.raw,),
        )
    wrong = confirm_contradiction(t.seat_message, msg)
    if wrong is not None:
        own = "seat message" if msg.sender == t.seat_message.sender else "join"
        raise TableFault(
            f"{t._who(msg.sender)}'s seat confirmation names {wrong}, which its own "
            f"signed {own} does not",
            t.seat_of(msg.sender),
            (t.seat_message.raw, msg.raw),
        )


def on_nonces(t: TableMachineState, batch: list[Message]) -> None:
    """Every nonce is out: check each against its commitment, flip the coin, deal round 1."""
    for msg in batch:
        nonce = msg.body["nonce"]
        commit = t.seating.confirms[msg.sender].body["commit"]
        if hashlib.sha256(nonce).digest() != commit:
            raise TableFault(
                f"{t._who(msg.sender)}'s seat nonce does not match its commitment",
                t.list_keys.index(msg.sender),
                (t.seating.confirms[msg.sender].raw, msg.raw),
            )
        t.seating.nonces[msg.sender] = nonce
    t.order = seat_order(t.table_id, t.list_keys, t.seating.nonces)
    names = ", ".join(f"{i}: {t.names[k]}" for i, k in enumerate(t.order))
    order = [t.names[k] for k in t.order]  # the players by play seat, for who prints results
    t._event("seated", f"seat order fixed by coin flip — {names}", {"order": order})
    start_card_table(t)  # the game at the mental card table (table/card_table_round.py)
