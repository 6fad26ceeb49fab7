"""Who owes the table a message, since when, and when a missing message becomes a blame: every
message the current step still waits for is a debt with its own clock, reset only by that very
message, so a keepalive proves a peer alive but never that it did its part. Seats that answer
late though within the step deadline are shown slow (protocol.md §9).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from druids_p2p.table.table import TableMachine
from druids_p2p.wire import MsgType, decode

__all__ = ["LATE_FRACTION", "SLOW_AT", "WINDOW", "Pace", "PaceNews"]


# Which seats answer their automatic messages late, though within the step deadline.
LATE_FRACTION = 0.5
"""An automatic message is late when it came after this fraction of the step deadline."""
WINDOW = 6
"""How many of a seat's last automatic messages are looked at."""
SLOW_AT = 3
"""Late ones among them that make the seat slow."""


@dataclass(frozen=True)
class PaceNews:
    """A seat became slow (``slow``) or answers promptly again."""

    key: bytes
    slow: bool
    late: int
    """How many of its last :data:`WINDOW` automatic messages were late."""


class Pace:
    """How long each seat took over its automatic messages, and who is slow."""

    def __init__(self, step_s: float) -> None:
        self.late_after_s = step_s * LATE_FRACTION
        self._answers: dict[bytes, deque[bool]] = {}
        self.slow: set[bytes] = set()
        self._news: list[PaceNews] = []
        self.longest_s = 0.0
        """The longest any seat took over an automatic message (reported in the result)."""

    def paid(self, key: bytes, took_s: float) -> None:
        """``key`` sent an automatic message ``took_s`` after this peer first saw it owed."""
        self.longest_s = max(self.longest_s, took_s)
        answers = self._answers.setdefault(key, deque(maxlen=WINDOW))
        answers.append(took_s > self.late_after_s)
        late = sum(answers)
        if key not in self.slow and late >= SLOW_AT:
            self.slow.add(key)
            self._news.append(PaceNews(key, True, late))
        elif key in self.slow and late == 0:
            self.slow.discard(key)
            self._news.append(PaceNews(key, False, late))

    def news(self) -> list[PaceNews]:
        """What changed since the last call."""
        out, self._news = self._news, []
        return out


# Who owes the table a message, since when, and when a missing message becomes a blame.
REJOIN_S = 30.0
"""A seat's rejoin time for the whole game, unless the peer is told otherwise."""


@dataclass(frozen=True)
class Debt:
    """One message ``key`` owes for the step (or move) identified by ``token``."""

    key: bytes
    what: str
    """The message type's label (``table_share``...) or the step's name."""
    human: bool
    """A person's choice (a move): the long move limit applies, not the step deadline."""
    token: bytes
    """Identifies the step instance (its head and name, or the last move's hash): a new step
    starts a new debt even when the same seat owes the same kind of message again."""


@dataclass(frozen=True)
class Overdue:
    """A debt past its deadline: what the runner raises as a fault blaming ``debt.key``."""

    debt: Debt
    owed_s: float
    silent_s: float
    """Seconds since anything at all (keepalives included) was heard from the seat."""
    limit_s: float
    unreachable: bool
    """Nothing heard for longer than the away threshold (or half the deadline, if shorter): a
    crash or a cut link, not a cheat."""
    rejoin_s: float = 0.0
    """The rejoin time a silent seat was given on top of the step deadline (all of it spent)."""

    def reason(self, who: str) -> str:
        """The abort reason recorded and told to the others (at most 200 characters)."""
        what, limit = self.debt.what, self.limit_s
        if self.unreachable:
            allowed = f"limit {limit:.0f} s"
            if not self.debt.human:
                allowed = f"deadline {limit:.0f} s, rejoin time {self.rejoin_s:.0f} s spent"
            return (
                f"{who} unreachable: gone for {self.silent_s:.0f} s with no message while it "
                f"owed {what} ({allowed})"
            )
        if self.debt.human:
            return f"{who} did not make its move within the move limit of {limit:.0f} s"
        return (
            f"{who} withheld {what} past the deadline ({limit:.0f} s) while sending other messages"
        )


def who(machine: TableMachine, key: bytes) -> str:
    """A seat as abort reasons name it: ``NAME (seat S)``."""
    return f"{machine.names.get(key, '?')} (seat {machine.seat_of(key)})"


def debts(machine: TableMachine, has_next: Callable[[bytes], bool]) -> list[Debt]:
    """Every message the current step still waits for from another seat.

    ``has_next(key)``: this peer already holds ``key``'s next message (held for the step)."""
    out: list[Debt] = []
    step = machine.step
    if step is not None and machine.aborted is None and not machine.finished:
        # A step of one type names it; a move step (move, table_play or table_show) its name.
        what = next(iter(step.types)).label if len(step.types) == 1 else step.name
        human = step.name == "card_move"  # a person's choice
        token = machine.step_head + step.name.encode()
        for key in step.senders:
            if key != machine.me and not has_next(key):
                out.append(Debt(key, what, human, token))
    return out


class Deadlines:
    """The clocks of the current debts; :meth:`check` says which one is overdue first."""

    def __init__(
        self, step_s: float, move_s: float, away_s: float, rejoin_s: float = REJOIN_S
    ) -> None:
        # At most half the move limit: an automatic message waited for the step deadline and
        # its seat's rejoin time is overdue well before a move would be.
        self.step_s = min(step_s, move_s / 2)
        self.move_s = move_s
        self.away_s = away_s
        self.rejoin_s = max(0.0, min(rejoin_s, move_s / 2 - self.step_s))
        self._since: dict[tuple[bytes, bytes], tuple[Debt, float]] = {}
        self._gone: dict[tuple[bytes, bytes], float] = {}
        """Per debt, the last word heard from its seat before it first fell silent while owing
        it (once per debt): a move is then due the move limit after that word, and an automatic
        message may use what is left of the seat's rejoin time, even once the seat is back, so a
        crashed seat keeps its time to restart, rejoin and pay (issue 27 item 2)."""
        self.spent: dict[bytes, float] = {}
        """Each seat's rejoin time used so far (its automatic debts' time past the deadline)."""
        self._charged_to: float | None = None
        self.pace = Pace(self.step_s)
        """How long each seat takes over its automatic messages (``deadlines.py``)."""

    def limit(self, debt: Debt) -> float:
        return self.move_s if debt.human else self.step_s

    def update(self, current: Iterable[Debt], now: float) -> None:
        """Start the clock of each new debt; forget those paid (or whose step is over), each
        automatic one's time told to :attr:`pace`; take the time past the deadline from the
        owing seat's rejoin time."""
        self._charge(now)
        fresh: dict[tuple[bytes, bytes], tuple[Debt, float]] = {}
        for debt in current:
            ident = (debt.key, debt.token)
            known = self._since.get(ident)
            fresh[ident] = (debt, now) if known is None else known
        for ident, (debt, since) in self._since.items():
            if ident not in fresh and not debt.human:
                self.pace.paid(debt.key, now - since)
        self._since = fresh
        self._gone = {ident: t for ident, t in self._gone.items() if ident in fresh}

    def _due(self, debt: Debt, since: float) -> float:
        """When ``debt`` (owed since ``since``) falls due: its deadline after ``since``, or
        after its seat's last word before it fell silent, if that is later."""
        return max(since, self._gone.get((debt.key, debt.token), since)) + self.limit(debt)

    def _charge(self, now: float) -> None:
        """Since the last update, each seat's time with an automatic debt past the step
        deadline (once however many it had) is taken from its rejoin time."""
        last, self._charged_to = self._charged_to, now
        if last is None or now <= last:
            return
        over: dict[bytes, float] = {}
        for debt, since in self._since.values():
            if not debt.human:
                due = since + self.step_s
                over[debt.key] = min(over.get(debt.key, due), due)
        for key, due in over.items():
            start = max(last, due)
            if now > start:
                self.spent[key] = self.spent.get(key, 0.0) + now - start

    def rejoin_left(self, key: bytes) -> float:
        return max(0.0, self.rejoin_s - self.spent.get(key, 0.0))

    def owed(self, key: bytes) -> list[tuple[Debt, float]]:
        """``key``'s open debts with the deadline of each (a move: its limit after its seat's
        last word before a silence). An automatic one may go past it by what is left of its
        seat's rejoin time (:meth:`rejoin_left`) if its seat falls silent."""
        return [
            (d, self._due(d, since) if d.human else since + self.limit(d))
            for d, since in self._since.values()
            if d.key == key
        ]

    def automatic(self, key: bytes) -> list[tuple[Debt, float]]:
        """``key``'s open debts of automatic messages."""
        return [(d, due) for d, due in self.owed(key) if not d.human]

    def unexcused(self, key: bytes) -> list[Debt]:
        """What an abort cannot excuse: the automatic messages of the step (shares, a shuffle,
        a final reveal...). A move can: stopping mid-play is leaving, not withholding."""
        return [d for d, _ in self.automatic(key)]

    def check(
        self, now: float, last_heard: Mapping[bytes, float], exempt: Iterable[bytes] = ()
    ) -> Overdue | None:
        """The longest-overdue debt, if any is past its deadline (none of the ``exempt`` seats:
        those that stopped the table, whose abort is judged on its own). Call :meth:`update`
        first, at the same ``now``: it takes what a silent seat used of its rejoin time."""
        worst: Overdue | None = None
        skip = set(exempt)
        for debt, since in self._since.values():
            if debt.key in skip:
                continue
            limit = self.limit(debt)
            heard = last_heard.get(debt.key, since)
            silent = now - heard
            # Keepalives come about once a second: an alive peer is never silent for long. (The
            # half limit matters only for limits shorter than twice the away threshold.) One that
            # fell silent while owing is given time to restart and rejoin, and keeps it once back
            # (once per debt): the move limit again from its last word for a move; for an
            # automatic message, what is left of its rejoin time (once a game, charged above).
            alive = silent <= min(self.away_s, limit / 2)
            ident = (debt.key, debt.token)
            if not alive:
                self._gone.setdefault(ident, heard)
            owed = now - since
            if debt.human:
                if now <= self._due(debt, since):
                    continue
            elif owed <= limit or (ident in self._gone and self.rejoin_left(debt.key) > 0):
                continue
            rejoin = 0.0 if debt.human or ident not in self._gone else self.rejoin_s
            late = Overdue(debt, owed, silent, limit, unreachable=not alive, rejoin_s=rejoin)
            if worst is None or owed - limit > worst.owed_s - worst.limit_s:
                worst = late
        return worst


def lost_contact(
    now: float, last_heard: Mapping[bytes, float], me: bytes, silent_s: float
) -> float | None:
    """Seconds since this peer heard from *any* other peer, if all were silent over ``silent_s``.

    A peer whose own link is down hears from nobody: blaming the seat it waited for would record a
    split as that seat's fault (issue 13 item 5), so it records lost contact, blaming nobody
    (``protocol.md`` §9).
    """
    others = [t for key, t in last_heard.items() if key != me]
    if not others:
        return None
    silent = now - max(others)
    return silent if silent > silent_s else None


def claim_of(machine: TableMachine) -> dict[str, object] | None:
    """When this peer stopped on another's word (its fault names nobody and holds that peer's
    abort): who said so and whom it blames. Reported as that peer's claim, apart from this
    peer's own ``blame``, which stays empty (``protocol.md`` §9)."""
    fault = machine.aborted
    if fault is None or fault.seat is not None or len(fault.evidence) != 1:
        return None
    msg = decode(fault.evidence[0])
    if msg.type is not MsgType.ABORT or msg.sender == machine.me:
        return None
    return {"by": machine.seat_of(msg.sender), "seat": msg.body.get("seat")}
