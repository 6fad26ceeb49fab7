"""The account a table carries when it goes on without a departed seat (``protocol.md`` §4,
"Going on without a departed seat").

A game dealt by rounds (Druids 2017) whose table stops because a seat is gone for good (it
crashed, left, or stalled past its deadline) can go on from its first round not yet complete at
a new table: the seats that remain, and a bot that stands in for the departed seat, its keys its
own. The new table's seat message carries the previous table's **account**: that table's id, the
departed seat's key there (``for``), and every seat's score in each round completed and audited
there (``scores``, per key, itself including any account that table carried). Every seat that
sat at the previous table signs the same account in its ``join`` (it built it from its own record)
and the host quotes those joins; every seat, the stand-in included, signs the seat message through
the head chain of its ``seat_confirm``. So the running totals carry over verifiably: anyone
holding a record of the previous table can check the account against it (``druids audit``
recomputes the rounds), and a host whose account differs from a joiner's own cannot seat it.

This module holds the account's rules, shared by the peer (``seating.py``, ``table_state.py``)
and the offline audit: how it is built, what makes a seat message carrying one the host's fault,
and the totals it adds to the game's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from druids_p2p.games.registry import RULESETS, ruleset_of, table_options
from druids_p2p.wire import Message

Account = dict[str, Any]
"""The ``continues`` map: ``{for, scores: [{key, rounds}], table}`` (wire.md §5)."""


def make_account(
    table_id: bytes, departed: bytes, rounds: Mapping[bytes, Sequence[int]]
) -> Account:
    """The account of a table left by ``departed``: every key's completed rounds, by key."""
    return {
        "for": departed,
        "scores": [{"key": k, "rounds": list(rounds[k])} for k in sorted(rounds)],
        "table": table_id,
    }


def plain(value: Any) -> Any:
    """A decoded value (read-only maps, tuples) as plain dicts and lists, to compare."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def same_account(a: object, b: object) -> bool:
    """Two accounts are one (as decoded or as built)."""
    return a is not None and b is not None and plain(a) == plain(b)


def account_fault(seat_message: Message) -> str | None:
    """Why a seat message's account (``continues``, ``stand_in``) cannot be, or None (also
    when it carries none). Every such fault is the host's: it signs the seat message."""
    body = seat_message.body
    account, stand_in = body.get("continues"), body.get("stand_in")
    if account is None and stand_in is None:
        return None
    if account is None or stand_in is None:
        return "the seat message carries an account of a previous table without its stand-in"
    seats = list(body["seats"])
    options = dict(body["options"])
    rules = RULESETS.get(ruleset_of(options))
    if rules is None or "rounds" not in rules.table_flags:
        return "a game not played by rounds cannot go on from a previous table's account"
    if not 0 <= stand_in < len(seats) or seats[stand_in] == seat_message.sender:
        return "the seat message names as the stand-in a seat it does not have, or its host"
    scores = list(account["scores"])
    keys = [bytes(s["key"]) for s in scores]
    departed = bytes(account["for"])
    if keys != sorted(set(keys)):
        return "the account's scores are not one per key in increasing key order"
    expected = {k for k in seats if k != seats[stand_in]} | {departed}
    if departed in seats or set(keys) != expected:
        return (
            "the account's scores are not those of the seats that remain and the departed seat "
            "(which is not seated again)"
        )
    done = {len(s["rounds"]) for s in scores}
    if len(done) != 1:
        return "the account's seats completed different numbers of rounds"
    try:
        table_options(options | {"rounds": int(options["rounds"]) + done.pop()})
    except ValueError as exc:
        return f"the account's rounds and the rounds left make no game: {exc}"
    return None


def joins_fault(seat_message: Message, joins: Mapping[bytes, Message]) -> str | None:
    """Every quoted join of a seat that sat at the previous table (all but the stand-in's)
    carries exactly the seat message's account; the stand-in's carries none."""
    body = seat_message.body
    account = body.get("continues")
    if account is None:
        if any("continues" in j.body for j in joins.values()):
            return "a quoted join carries an account of a previous table the seat message does not"
        return None
    stand_in = list(body["seats"])[body["stand_in"]]
    for key, join in joins.items():
        if key == stand_in:
            if "continues" in join.body:
                return "the stand-in's quoted join carries an account of a table it did not sit at"
        elif not same_account(join.body.get("continues"), account):
            name = body["names"][list(body["seats"]).index(key)]
            return (
                f"the seat message's account of the previous table is not the one {name}'s own "
                "signed join carries"
            )
    return None


def carried_rounds(seat_message: Message) -> dict[bytes, list[int]]:
    """Each seated key's rounds carried from the previous tables (the stand-in takes the
    departed seat's); empty without an account. The seat message must have passed the checks
    above (``seating.seat_list_fault``)."""
    body = seat_message.body
    account = body.get("continues")
    if account is None:
        return {}
    by_key = {bytes(s["key"]): [int(r) for r in s["rounds"]] for s in account["scores"]}
    seats = [bytes(k) for k in body["seats"]]
    stand_in = seats[body["stand_in"]]
    departed = bytes(account["for"])
    return {k: by_key[departed if k == stand_in else k] for k in seats}


def with_carried(
    totals: Sequence[int], order: Sequence[bytes], carried: Mapping[bytes, Sequence[int]]
) -> list[int]:
    """The game's totals (play order) with every seat's carried rounds added."""
    if not carried:
        return list(totals)
    return [t + sum(carried[k]) for t, k in zip(totals, order, strict=True)]


def winners_of(totals: Sequence[int]) -> list[int]:
    """The play seats with the highest total (a tie shares the win)."""
    best = max(totals)
    return [seat for seat, total in enumerate(totals) if total == best]


def carried_in_play_order(
    order: Sequence[bytes], carried: Mapping[bytes, Sequence[int]]
) -> list[list[int]]:
    """The carried rounds as round scores in play order (round by round)."""
    if not carried:
        return []
    rounds = len(next(iter(carried.values())))
    return [[carried[k][r] for k in order] for r in range(rounds)]


__all__ = [
    "Account",
    "account_fault",
    "carried_in_play_order",
    "carried_rounds",
    "joins_fault",
    "make_account",
    "plain",
    "same_account",
    "winners_of",
    "with_carried",
]
