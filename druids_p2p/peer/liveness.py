"""Who at a seated table is alive and doing its part: this peer's signed hello about once a second,
so that silence means gone, not thinking; a seat blamed once a message it owes is past its
deadline, never for mere silence; and the grace periods after another's abort claim or a
divergence, so that a true claim is found by this peer's own checks (protocol.md §8, §9).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

from druids_p2p.lan.mesh import MeshPort
from druids_p2p.lan.peer_config import PeerConfig
from druids_p2p.peer.deadlines import WINDOW, Deadlines, debts, lost_contact, who
from druids_p2p.peer.links import Resends, broadcast, control
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import Departure, Divergence, TableFault, blames_a_deck_check
from druids_p2p.wire import Message, MsgType

__all__ = ["ABORT_GRACE_S", "CLIENT", "KEEPALIVE_S", "NUDGE_AFTER_S", "Grace", "Liveness"]


log = logging.getLogger(__name__)

KEEPALIVE_S = 1.0
"""A signed hello goes out about this often, so that silence means gone, not thinking."""
CLIENT = "druids-p2p/0.1.0"
"""What this peer's hellos say it runs."""
NUDGE_AFTER_S = 1.0
"""How long without progress before what may have been lost is asked for (and ours resent)."""


class Liveness:
    """The hellos, who was heard when, who is away, and the deadline checks (module docstring)."""

    def __init__(
        self,
        config: PeerConfig,
        mesh: MeshPort,
        machine: TableMachine,
        resends: Resends,
        deadlines: Deadlines,
        aborts: Mapping[bytes, Message],
        clock: Callable[[], float],
    ) -> None:
        """``aborts``: the seats that stopped the table, judged by their abort, not the clock."""
        self.config = config
        self.mesh = mesh
        self.machine = machine
        self.resends = resends
        self.deadlines = deadlines
        self.aborts = aborts
        self.clock = clock
        self.last_heard: dict[bytes, float] = {}
        """When each seat was last heard from: a frame over its own link (:meth:`heard`)."""
        self.heard_n: dict[bytes, int] = {}
        """Each seat's highest hello ``n`` counted: an older or equal one is no news."""
        self.away: set[bytes] = set()
        self.hello_n = 0
        """The ``n`` of this peer's last hello."""
        self.last_keepalive = 0.0
        self.last_progress = clock()
        """When a message last was news here (the nudge waits ``NUDGE_AFTER_S`` after it)."""

    # ---------------------------------------------------------------- hearing
    def start(self) -> None:
        """Everyone counts as heard from when the table starts."""
        now = self.clock()
        for key in self.machine.list_keys:
            self.last_heard[key] = now

    def keepalive(self) -> None:
        """A signed hello about once a second. Its ``n`` (this clock in ms, always above the
        last) makes each one news: a copy of an older one, relayed or replayed, is not."""
        now = self.clock()
        if now - self.last_keepalive < KEEPALIVE_S:
            return
        self.last_keepalive = now
        self.hello_n = max(self.hello_n + 1, int(time.time() * 1000))
        body: dict[str, object] = {
            "name": self.machine.identity.name,
            "client": CLIENT,
            "n": self.hello_n,
        }
        broadcast(self.mesh, [control(self.machine, MsgType.HELLO, body, chain=False)])

    def on_hello(self, msg: Message, link: bytes | None, now: float) -> str | None:
        """A keepalive is hearing from its signer only over the signer's own link and when it
        is fresher than the last one counted: a hello another seat relays, or one replayed,
        says nothing of its signer now, and must not keep a crashed seat "withholding" instead
        of unreachable (issue 27 item 2). Returns why the frame is refused, if it is."""
        if link is None:
            return None  # over no known link yet (taken in the lobby, before seating): no news
        if link != msg.sender:
            return "dropped a hello that came over another seat's link"
        if msg.body["n"] <= self.heard_n.get(msg.sender, 0):
            # Not counted as bad: an honest hello still in flight on a link's dropped connection
            # can arrive after a newer one over its replacement (30% loss does it).
            log.debug("ignored a hello no fresher than the last one heard")
            return None
        self.heard_n[msg.sender] = msg.body["n"]
        self.heard(msg.sender, now)
        return None

    def heard(self, key: bytes, now: float) -> None:
        """``key`` is alive now: a valid frame came over its own authenticated link."""
        self.last_heard[key] = now
        if key in self.away:
            self.away.discard(key)
            self.config.emit({"event": "rejoined", "name": self.machine.names[key]})

    # ---------------------------------------------------------------- checking
    def check(self) -> None:
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
        self.check_deadlines(now)
        if waiting and now - self.last_progress > NUDGE_AFTER_S:
            # Something may have been lost while a peer restarted: ask again and resend ours.
            self.last_progress = now
            broadcast(self.mesh, machine.resend_own())
            if machine.phase == "seating" and machine.seat_message.sender == machine.me:
                for key in waiting:
                    self.mesh.send(key, machine.seat_message.raw)
            self.resends.catch_up.forget()
            for key in waiting:
                self.resends.ask(key)
            if any(key in self.away or self._half_owed(key, now) for key in waiting):
                # A split: what a silent seat sent before its link went may have reached the
                # others only. They answer with what follows our head, so a peer cut off from
                # one seat is not left owing the next step (and blamed for it) over that seat.
                # So too when a seat that keeps talking has owed its message for half the
                # deadline: it may have shown it to the others alone (a seat nonce, say).
                for key in machine.list_keys:
                    if key != machine.me and key not in waiting:
                        self.resends.ask(key)

    def _half_owed(self, key: bytes, now: float) -> bool:
        """``key`` has owed an automatic message for at least half its deadline."""
        limit = self.deadlines.limit
        return any(now >= due - limit(d) / 2 for d, due in self.deadlines.automatic(key))

    def check_deadlines(self, now: float) -> None:
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


ABORT_GRACE_S = 2.0
"""How long a peer keeps checking after another stopped the table, to verify its claim."""


class Grace:
    """The others' aborts and a divergence looked into a short while before stopping, so that a
    two-faced signer is caught with both versions (protocol.md §9)."""

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

    def _false_claim(self, sender: bytes, abort: Message) -> TableFault | None:
        """The fault of a claim this peer judges false: ``abort`` blames another seat for a
        failed deck check (its reason ``card table: …``, protocol.md §11), yet this peer holds
        everything the claimant held when it stopped (its abort's head is in this transcript)
        and every message of the blamed seat it holds is recorded, every check of them run and
        passed (``check_everything_held``, just before). A deck check is the same at every
        peer on the same messages, so the claim is false: its signer is blamed, the abort as
        evidence. None when the claim names no other seat or this peer cannot judge it (a
        deadline's, or one about a message still held for its step here)."""
        machine = self.machine
        reason = abort.body["reason"]
        blamed = abort.body.get("seat")
        keys = machine.order or machine.list_keys
        if not isinstance(blamed, int) or not 0 <= blamed < len(keys) or keys[blamed] == sender:
            return None
        if not blames_a_deck_check(reason):
            return None
        if not machine.holds_head(abort.head) or machine.has_next(keys[blamed]):
            return None
        return TableFault(
            f"{who(machine, sender)} falsely blamed {who(machine, keys[blamed])} ({reason[:120]}):"
            " every check of its messages held here",
            machine.seat_of(sender),
            (abort.raw,),
        )

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
            for sender, abort in self.aborts.items():
                false = self._false_claim(sender, abort)
                if false is not None:
                    raise false
            # Its abort is recorded before ours when it is its signer's next message here, so
            # the record names the seat it blames (as that seat's claim, not ours).
            first = next(iter(self.aborts.values()), None)
            raise TableFault(claim, None, () if first is None else (first.raw,))
