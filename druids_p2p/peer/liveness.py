"""A seated table's liveness: who is away, whose owed message is late, and the grace periods.

Every tick the runner asks who the table waits for: a seat silent for ``away_after_s`` is shown
as away; what may have been lost is asked for again every ``NUDGE_AFTER_S``; a seat whose owed
message is past its deadline is blamed (``peer/deadlines.py``). After another peer's abort claim,
or a peer's message built on another head than ours (a divergence), this peer only checks for
a grace period
(``ABORT_GRACE_S``) before it stops: its own checks, on the same signed messages, decide whom
to blame (protocol.md §9).
"""

from __future__ import annotations

from druids_p2p.peer.deadlines import WINDOW, debts, lost_contact, who
from druids_p2p.peer.runner_base import RunnerBase
from druids_p2p.table.table_state import Departure, Divergence, TableFault
from druids_p2p.wire import Message

NUDGE_AFTER_S = 1.0
"""How long without progress before what may have been lost is asked for (and ours resent)."""
ABORT_GRACE_S = 2.0
"""How long a peer keeps checking after another stopped the table, to verify its claim."""


class LivenessChecks(RunnerBase):
    """The runner's checks on the others' silence, debts and claims (module docstring)."""

    def _check_liveness(self) -> None:
        """Who the table waits for: shown away when silent, nudged when nothing moves, blamed
        once its owed message is past its deadline."""
        machine = self.machine
        step = machine.step
        now = self.clock()
        if step is None:
            return
        waiting = [k for k in step.senders if k != machine.me and not machine.has_next(k)]
        for key in waiting:
            silent = now - self.last_heard.get(key, now)
            if silent > self.config.away_after_s and key not in self.away:
                self.away.add(key)
                self.config.emit(
                    {"event": "away", "name": machine.names[key], "seconds": round(silent, 1)}
                )
        self._check_deadlines(now)
        if waiting and now - self.last_progress > NUDGE_AFTER_S:
            # Something may have been lost while a peer restarted: ask again and resend ours.
            self.last_progress = now
            self.broadcast(machine.resend_own())
            if machine.phase == "seating" and machine.seat_message.sender == machine.me:
                for key in waiting:
                    self.mesh.send(key, machine.seat_message.raw)
            self.catch_up.forget()
            for key in waiting:
                self._ask_resend(key)
            if any(key in self.away or self._half_owed(key, now) for key in waiting):
                # A split: what a silent seat sent before its link went may have reached the
                # others only. They answer with what follows our head, so a peer cut off from
                # one seat is not left owing the next step (and blamed for it) over that seat.
                # So too when a seat that keeps talking has owed its message for half the
                # deadline: it may have shown it to the others alone (a seat nonce, say).
                for key in machine.list_keys:
                    if key != machine.me and key not in waiting:
                        self._ask_resend(key)

    def _half_owed(self, key: bytes, now: float) -> bool:
        """``key`` has owed an automatic message for at least half its deadline."""
        limit = self.deadlines.limit
        return any(now >= due - limit(d) / 2 for d, due in self.deadlines.automatic(key))

    def _check_deadlines(self, now: float) -> None:
        """Blame the seat whose owed message is past its deadline (``peer/deadlines.py``): only
        that message pays the debt; a keepalive or any other message does not."""
        machine = self.machine
        self.deadlines.update(debts(machine, machine.has_next), now)
        self._tell_pace()
        late = self.deadlines.check(now, self.last_heard, self.aborts)
        if late is not None:
            key = late.debt.key
            # Half the time the seat was waited for, or half its silence if that is shorter
            # (its rejoin time already spent): that long a silence from all is our own link.
            waited = min(late.limit_s + late.rejoin_s, late.silent_s)
            alone = lost_contact(now, self.last_heard, machine.me, waited / 2)
            if late.unreachable and alone is not None:
                raise TableFault(
                    f"{who(machine, machine.me)} lost contact with the table: no message from "
                    f"any peer for {alone:.0f} s (while waiting for {late.debt.what} from "
                    f"{who(machine, key)})",
                    None,
                )
            machine.check_everything_held()  # a bad pass held is blamed before a silence after it
            raise Departure(late.reason(who(machine, key)), machine.seat_of(key))

    def _tell_pace(self) -> None:
        """A seat that keeps sending its automatic messages late (``deadlines.py``) is shown slow to
        this peer's person (an event), and no longer once it answers promptly again."""
        for news in self.deadlines.pace.news():
            name = self.machine.names.get(news.key, "?")
            if news.slow:
                text = (
                    f"{name} is slow: {news.late} of its last {WINDOW} automatic messages came "
                    f"after more than {self.deadlines.pace.late_after_s:.1f} s (deadline "
                    f"{self.deadlines.step_s:.0f} s)"
                )
                self.config.emit({"event": "slow", "name": name, "late": news.late, "text": text})
            else:
                text = f"{name} answers promptly again"
                self.config.emit({"event": "not_slow", "name": name, "text": text})

    def _progress_mark(self) -> tuple[int, int]:
        """Changes when a message was new to this peer: appended, or held for a later step.

        A duplicate (another peer's nudge resends its pending messages to everyone) is not
        progress: counting it would reset this peer's own nudge timer, and with several peers
        waiting only one of them would ever ask for what is missing."""
        return self.machine.held()

    def _peer_aborted(self, msg: Message) -> None:
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

    def _seek_proof(self, fault: TableFault) -> bool:
        """A peer's message is built on another head than ours after a head we share: somebody
        signed two versions, but this peer holds only one. Ask that peer, and every other seat,
        for what it appended after the head: with both signed versions the machine raises an
        equivocation that blames their signer with proof. The others too: when the message is
        the two-faced signer's own, it will not send the other version, but an honest seat
        shown it will. True if asked."""
        if not isinstance(fault, Divergence):
            return False
        self.machine.take_over(fault)
        self._ask_resend(fault.peer, fault.prev)
        for key in self.machine.list_keys:
            if key not in (fault.peer, self.machine.me):
                self._ask_resend(key, fault.prev)
        self.divergence = fault
        self.divergence_deadline = self.clock() + ABORT_GRACE_S
        return True

    def _in_grace(self) -> bool:
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
        if self.machine.aborted is not None:
            self.abort_claim = None  # our own checks found the fault (and its culprit) first
        elif self.abort_claim is not None and self.clock() > self.abort_claim_deadline:
            claim, self.abort_claim = self.abort_claim, None
            self.machine.check_everything_held()  # what came in during the grace, checked now
            self.deadlines.update(debts(self.machine, self.machine.has_next), self.clock())
            for sender, abort in self.aborts.items():
                # It stopped instead of sending what it owes (a reveal, shares...), and our own
                # checks did not confirm its claim: it is blamed as withholding.
                owed = self.deadlines.unexcused(sender)
                if owed:
                    raise Departure(
                        f"{who(self.machine, sender)} withheld {owed[0].what} after its "
                        f"abort ({abort.body['reason'][:80]})",
                        self.machine.seat_of(sender),
                        (abort.raw,),
                    )
            # Its abort is recorded before ours when it is its signer's next message here, so
            # the record names the seat it blames (as that seat's claim, not ours).
            first = next(iter(self.aborts.values()), None)
            raise TableFault(claim, None, () if first is None else (first.raw,))


__all__ = ["ABORT_GRACE_S", "NUDGE_AFTER_S", "LivenessChecks"]
