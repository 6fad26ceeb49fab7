"""Who at a table is a person and who a bot, and the coach option's one rule about it.

A seat is a bot when its own signed ``join`` says so. A coached table seats one person at most:
the coach is help for someone learning against bots, an unfair hand among people
(protocol.md §3, "The coach").
"""

from __future__ import annotations

from druids_p2p.wire import Message

__all__ = ["COACH_ONE_PERSON", "bot_seats", "coach_fault", "join_refusal", "persons"]


COACH_ONE_PERSON = "the coach is on at this table: it seats one person, the rest bots"
"""Why a table with the coach on seats no second person (protocol.md §3, "The coach")."""


def bot_seats(seat_message: Message) -> frozenset[int]:
    """The seat-list indexes the seat message declares bots (``bots``; none without it)."""
    return frozenset(int(i) for i in seat_message.body.get("bots", ()))


def coach_fault(seat_message: Message) -> str | None:
    """Why the seat message's coach option cannot be, or None: with the coach on, at most one
    seat may be a person (a seat not in ``bots``): a person at a table of other people must not
    be told what the strongest bot would play. Also a ``bots`` entry naming no seat."""
    body = seat_message.body
    seats = list(body["seats"])
    bots = bot_seats(seat_message)
    if any(i >= len(seats) for i in bots):
        return "the seat message lists as a bot a seat it does not have"
    if not body["options"].get("coach", False):
        return None
    people = persons(seat_message)
    if len(people) > 1:
        return f"{COACH_ONE_PERSON}, not {len(people)} persons ({', '.join(people)})"
    return None


def persons(seat_message: Message) -> list[str]:
    """The names of the seats the seat message does not declare bots, in seat-list order."""
    body = seat_message.body
    bots = bot_seats(seat_message)
    return [str(name) for i, name in enumerate(body["names"]) if i not in bots]


def join_refusal(coach: bool, bot: bool, persons_seated: int) -> str | None:
    """Why a host with the coach on refuses a join (a person, when a person is seated), or None:
    it never signs a seat message every peer would refuse."""
    if coach and not bot and persons_seated >= 1:
        return f"join refused: {COACH_ONE_PERSON}, and its person is seated"
    return None
