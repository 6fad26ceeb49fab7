"""The grace periods of a seated table: a peer that hears another stopped (an abort claim), or
that holds a message built on another head than its own (a divergence), keeps checking a short
while before it stops, so that a true claim is found by its own checks and blamed with evidence,
and a two-faced signer is caught with both versions (protocol.md §9).
"""

from __future__ import annotations

from collections.abc import Callable

from druids_p2p.peer.deadlines import Deadlines, debts, who
from druids_p2p.peer.links import Resends
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import Departure, Divergence, TableFault
from druids_p2p.wire import Message

__all__ = ["ABORT_GRACE_S", "Grace"]

ABORT_GRACE_S = 2.0
"""How long a peer keeps checking after another stopped the table, to verify its claim."""


class Grace:
    """The others' aborts and a divergence being looked into (module docstring)."""

    def __init__(
        self,
        machine: TableMachine,
        resends: Resends,
        deadlines: Deadlines,
        clock: Callable[[], float],
    ) -> None:
        self.machine = machine
        self.resends = resends
        self.deadlines = deadlines
        self.clock = clock
        self.aborts: dict[bytes, Message] = {}
        """Each peer's first abort, in arrival order: their debts are judged by that abort (one
        that owes an automatic message when the grace period ends withheld it), not the clock."""
        self.abort_claim: str | None = None
        self.abort_claim_deadline = 0.0
        self.divergence: TableFault | None = None
        self.divergence_deadline = 0.0

    def peer_aborted(self, msg: Message) -> None:
        machine = self.machine
        reason = msg.body["reason"]
        with_blame = f" (blames seat {msg.body['seat']})" if "seat" in msg.body else ""
        # A claimed blame is never adopted: an abort proves only that its sender stopped. This
        # peer keeps checking what it has for a short while, so that if the claim is true its
        # own checks (on the same canonical messages) find the fault and blame with evidence.
        if msg.sender in self.aborts:
            return  # a copy (a relay, a replay): it must not stretch the grace period again
        self.abort_claim = f"stopped on {who(machine, msg.sender)}'s word: {reason}{with_blame}"
        now = self.clock()
        self.aborts.setdefault(msg.sender, msg)
        self.abort_claim_deadline = now + ABORT_GRACE_S
        machine.check_everything_held()  # raises, blaming with evidence, if the claim is ours too
        self.deadlines.update(debts(machine, machine.has_next), now)
        blamed = msg.body.get("seat")
        keys = machine.order or machine.list_keys
        if isinstance(blamed, int) and 0 <= blamed < len(keys) and keys[blamed] != msg.sender:
            # The claim may be a deadline this peer has not reached yet (clocks started a few
            # milliseconds apart): check on until that seat's own debts here fall due.
            due = [t for _, t in self.deadlines.automatic(keys[blamed])]
            if due:
                latest = max(due) + self.deadlines.rejoin_left(keys[blamed])
                self.abort_claim_deadline = max(self.abort_claim_deadline, latest + 0.5)

    def seek_proof(self, fault: TableFault) -> bool:
        """A peer's message is built on another head than ours after a head we share: somebody
        signed two versions, but this peer holds only one. Ask that peer, and every other seat,
        for what it appended after the head: with both signed versions the machine raises an
        equivocation that blames their signer with proof. The others too: when the message is
        the two-faced signer's own, it will not send the other version, but an honest seat
        shown it will. True if asked."""
        if not isinstance(fault, Divergence):
            return False
        self.machine.take_over(fault)
        self.resends.ask(fault.peer, fault.prev)
        self.resends.ask_everyone(fault.prev, but=fault.peer)
        self.divergence = fault
        self.divergence_deadline = self.clock() + ABORT_GRACE_S
        return True

    def in_grace(self) -> bool:
        """True while this peer only checks (after an abort claim, or while seeking a proof);
        raises the fault to stop on once the grace period is over."""
        if self.abort_claim is not None:
            self._claim_expired()
            return True
        if self.divergence is not None:
            if self.clock() > self.divergence_deadline:
                raise self.divergence  # no proof came: stop, blaming nobody
            return True
        return False

    def _claim_expired(self) -> None:
        """After the grace period, stop on the other peer's word, blaming nobody: raises the
        fault, so this peer signs and records its own abort saying why it stopped."""
        machine = self.machine
        if machine.aborted is not None:
            self.abort_claim = None  # our own checks found the fault (and its culprit) first
        elif self.abort_claim is not None and self.clock() > self.abort_claim_deadline:
            claim, self.abort_claim = self.abort_claim, None
            machine.check_everything_held()  # what came in during the grace, checked now
            self.deadlines.update(debts(machine, machine.has_next), self.clock())
            for sender, abort in self.aborts.items():
                # It stopped instead of sending what it owes (a reveal, shares...), and our own
                # checks did not confirm its claim: it is blamed as withholding.
                owed = self.deadlines.unexcused(sender)
                if owed:
                    raise Departure(
                        f"{who(machine, sender)} withheld {owed[0].what} after its "
                        f"abort ({abort.body['reason'][:80]})",
                        machine.seat_of(sender),
                        (abort.raw,),
                    )
            # Its abort is recorded before ours when it is its signer's next message here, so
            # the record names the seat it blames (as that seat's claim, not ours).
            first = next(iter(self.aborts.values()), None)
            raise TableFault(claim, None, () if first is None else (first.raw,))
