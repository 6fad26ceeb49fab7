"""Forming a table: the signed seat message that founds every transcript of the table.

Where a seat is reached (its inbox endpoint and CURVE key) is that seat's own word, never the
host's: each joiner signs it in its ``join``, the seat message quotes those joins, and each peer
signs it again in its ``seat_confirm``. So a seat message whose list says anything else for a seat
than that seat's own quoted join convicts its host from its own bytes, and a confirmation that
says anything else than its signer's own join (or, for the host, its own seat message) convicts
its signer: nobody can get another peer blamed, or stand in for it, by lying about its address.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

from druids_p2p.games.registry import default_game
from druids_p2p.games.seam import TableOptions
from druids_p2p.lan.continuation import Account, account_fault, joins_fault
from druids_p2p.wire import (
    ZERO_HASH,
    Identity,
    Message,
    MsgType,
    WireError,
    decode,
    derive_table_id,
    encode,
    head0,
)


def options_body(options: TableOptions, ruleset: str | None = None) -> dict[str, object]:
    """The seat message's ``options``: the game by name (None: the default) and its options
    (wire.md §6)."""
    return {
        "players": options.players,
        "rounds": options.rounds,
        "ruleset": ruleset if ruleset is not None else default_game(),
        "variant": options.variant,
    }


def make_join(
    identity: Identity,
    offer_id: bytes,
    endpoint: str,
    curve: bytes,
    continues: Account | None = None,
) -> bytes:
    """A joiner's signed request for a seat at table offer ``offer_id``, saying where its inbox
    listens and with which CURVE key: its own word, which the seat message will quote.
    ``continues``: the account of the previous table this seat sat at, as its own record gives
    it, when the new table goes on from there (``continuation.py``)."""
    body: dict[str, object] = {"name": identity.name, "endpoint": endpoint, "curve": curve}
    if continues is not None:
        body["continues"] = continues
    return encode(
        identity, MsgType.JOIN, table_id=offer_id, seq=0, prev=ZERO_HASH, head=ZERO_HASH, body=body
    )


def make_seat_message(
    host: Identity,
    seats: Sequence[tuple[bytes, str, str, bytes]],
    options: TableOptions,
    nonce: bytes | None = None,
    joins: Sequence[bytes] | None = None,
    ruleset: str | None = None,
    continues: Account | None = None,
    stand_in: int | None = None,
) -> bytes:
    """The host's seat message: (key, name, endpoint, curve) per seat in join order, and the
    raw signed ``join`` of every seat but the host's, in seat order (``joins``), for the game
    ``ruleset``; with ``continues`` and ``stand_in``, a table going on from a previous one's
    account, the seat at index ``stand_in`` a bot standing in for the departed seat.

    The table id is the hash of the seated keys, the options and a nonce, so every later
    signature at the table also signs who sits there and what is played.
    """
    nonce = nonce or secrets.token_bytes(32)
    keys = [s[0] for s in seats]
    body: dict[str, object] = {
        "seats": keys,
        "names": [s[1] for s in seats],
        "options": options_body(options, ruleset),
        "nonce": nonce,
        "endpoints": [s[2] for s in seats],
        "curves": [s[3] for s in seats],
    }
    if joins:
        body["joins"] = list(joins)
    if continues is not None and stand_in is not None:
        body["continues"] = continues
        body["stand_in"] = stand_in
    table_id = derive_table_id(keys, body["options"], nonce)  # type: ignore[arg-type]
    return encode(
        host,
        MsgType.SEAT,
        table_id=table_id,
        seq=0,
        prev=bytes(32),
        head=head0(table_id),
        body=body,
    )


def seat_list_fault(seat_message: Message) -> str | None:
    """Why the seat message's endpoints and CURVE keys are not every seat's own word, or None.

    Each seat but the host's must be backed by its quoted ``join``: signed by that seat, for the
    same table offer as the others, naming exactly the listed endpoint and CURVE key. The host's
    own entry is the host's word (it signs the seat message). Anything else is the host's fault,
    proven by the seat message alone. So is a seat message not built on ``head_0`` (wire.md §6):
    the host signs it before anything else exists at the table."""
    if seat_message.head != head0(seat_message.table_id):
        return "the seat message is not built on head_0 (the head of the empty transcript)"
    account = account_fault(seat_message)
    if account is not None:
        return account
    body = seat_message.body
    if "endpoints" not in body and "curves" not in body:
        return None  # no addresses at all: a table that is not on a network (no links)
    seats = list(body["seats"])
    endpoints, curves = body.get("endpoints", ()), body.get("curves", ())
    if len(endpoints) != len(seats) or len(curves) != len(seats):
        return "the seat message does not list one endpoint and one CURVE key per seat"
    if len(set(curves)) != len(curves):
        # A link is known by its CURVE key alone (protocol.md §1): one key for two seats would
        # book one seat's frames, and its liveness, to the other. The host refuses such a join.
        return "the seat message lists one CURVE key for two seats"
    joiners = [k for k in seats if k != seat_message.sender]
    joins = body.get("joins", ())
    if len(joins) != len(joiners):
        return (
            f"the seat message quotes {len(joins)} signed joins for {len(joiners)} joined seats: "
            "the addresses it lists are not the joiners' own word"
        )
    offer: bytes | None = None
    decoded: dict[bytes, Message] = {}
    for key, raw in zip(joiners, joins, strict=True):
        index = seats.index(key)
        name = body["names"][index]
        try:
            join = decode(raw)
        except WireError as exc:
            return f"the join the seat message quotes for {name} is invalid: {exc}"
        if join.type is not MsgType.JOIN or join.sender != key:
            return f"the seat message quotes, for {name}, a message that is not {name}'s join"
        if offer is None:
            offer = join.table_id
        elif join.table_id != offer:
            return "the seat message quotes joins made for different table offers"
        if join.body.get("endpoint") != endpoints[index] or join.body.get("curve") != curves[index]:
            return (
                f"the seat message lists for {name} an endpoint or CURVE key that {name}'s own "
                "signed join does not say"
            )
        decoded[key] = join
    return joins_fault(seat_message, decoded)


def quoted_join(seat_message: Message, key: bytes) -> bytes | None:
    """The raw join the seat message quotes for seat ``key`` (None for the host, or none)."""
    joiners = [k for k in seat_message.body["seats"] if k != seat_message.sender]
    joins = seat_message.body.get("joins", ())
    if key not in joiners or len(joins) != len(joiners):
        return None
    return bytes(joins[joiners.index(key)])


def confirm_contradiction(seat_message: Message, confirm: Message) -> str | None:
    """What the seat message lists for ``confirm``'s signer that its own signed confirmation
    contradicts (its inbox endpoint or its CURVE key), or None if they agree.

    Once :func:`seat_list_fault` found nothing, every listed address is its seat's own signed
    word (its quoted join, or the host's seat message): a confirmation saying otherwise is its
    signer contradicting itself, and the two messages prove it."""
    body = seat_message.body
    if "endpoints" not in body or "curves" not in body:
        return None
    index = list(body["seats"]).index(confirm.sender)
    wrong = []
    if body["endpoints"][index] != confirm.body["endpoint"]:
        wrong.append(f"endpoint {confirm.body['endpoint']}")
    if body["curves"][index] != confirm.body["curve"]:
        wrong.append(f"CURVE key {bytes(confirm.body['curve']).hex()[:16]}…")
    return " and ".join(wrong) or None


def seat_order(
    table_id: bytes, keys: Sequence[bytes], nonces: dict[bytes, bytes]
) -> tuple[bytes, ...]:
    """Play order from the coin flip: nobody can steer it unless all others collude."""
    joint = hashlib.sha256(
        b"druids-p2p/v1 seat-order\x00" + table_id + b"".join(nonces[k] for k in keys)
    ).digest()
    return tuple(sorted(keys, key=lambda k: hashlib.sha256(joint + k).digest()))
