"""A seated table's runner, the part its loop and ending share: its state, how it sends (to
everyone or one seat, control messages, resend requests and answers), and its liveness checks each
tick (who is away, whose owed message is late, the grace periods after an abort claim or a
divergence). It drives the table machine through its methods only, never writing into it.

The machine makes, checks and records seat, seat_confirm, seat_nonce, the card table's, move and
result. The runner's are never handed to it: hello, resend, chat, equivocation (out of chain) and
abort, the only one in this peer's chain (sealed and recorded through the machine).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from druids_p2p.games.seam import CardTableSeat, CommonRuleset, TableOptions
from druids_p2p.lan.mesh import MeshPort
from druids_p2p.lan.peer_config import (
    PeerConfig,
    PeerError,
    Player,
    PlayerMove,
    TableChat,
    TableView,
)
from druids_p2p.peer.deadlines import WINDOW, Deadlines, debts, lost_contact, who
from druids_p2p.peer.homes import HomeTable
from druids_p2p.peer.links import CatchUp, FrameGuard, LinkError, Links, ResendLimiter, bounded
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import Departure, Divergence, TableEvent, TableFault
from druids_p2p.wire import ZERO_HASH, Message, MsgType, encode

__all__ = ["ABORT_GRACE_S", "NUDGE_AFTER_S", "LivenessChecks", "MachineView", "RunnerBase"]


# A seated table's runner, the part its loop, liveness checks and ending share.
log = logging.getLogger(__name__)


class MachineView:
    """The :class:`TableView` of a seated table machine: reads it, never writes, and keeps it
    out of reach (a player is handed this, typed as the protocol)."""

    __slots__ = ("_machine",)

    def __init__(self, machine: TableMachine) -> None:
        self._machine = machine

    @property
    def seat(self) -> int | None:
        return self._machine.my_seat

    @property
    def names(self) -> tuple[str, ...]:
        machine = self._machine
        if machine.order:
            return tuple(machine.name_of_seat(s) for s in range(machine.options.players))
        return tuple(str(machine.names[k]) for k in machine.list_keys)

    @property
    def options(self) -> TableOptions:
        return self._machine.options

    @property
    def ruleset(self) -> CommonRuleset:
        return self._machine.card_rules

    def _game(self) -> CardTableSeat | None:
        """The game's progress: this seat's copy of it (None before the seats are fixed)."""
        play = self._machine.card_play
        return None if play is None else play.copy

    @property
    def phase(self) -> str:
        return self._machine.phase

    def player_view(self) -> Any:
        return self._machine.view()

    @property
    def settled(self) -> bool:
        play = self._machine.card_play
        if play is None:
            return True
        deck = play.peer.state
        if deck.done < len(deck.ops):  # a shuffle, deal, turn or reveal is under way
            return False
        # Between a ritual's steps, or while the owners' words are due, nobody is to move.
        return bool(play.copy.game_over or play.copy.to_move is not None)

    def check(self, move: PlayerMove) -> str | None:
        play = self._machine.card_play
        if play is None:
            return "the game has not started"
        try:
            value = self._machine.move_value(move)
        except ValueError as exc:
            return str(exc)
        reason: str | None = play.refusal(value)  # the check its move will get (table/codec.py)
        return reason

    @property
    def game_over(self) -> bool:
        game = self._game()
        return game is not None and game.game_over

    @property
    def round_scores(self) -> tuple[tuple[int, ...], ...]:
        """Every round's scores, a continued table's carried rounds first."""
        return tuple(tuple(s) for s in self._machine.all_round_scores())

    @property
    def carried_rounds(self) -> int:
        """Rounds carried from the previous tables of a game going on (``lan/seating.py``)."""
        carried = self._machine.carried
        return len(next(iter(carried.values()))) if carried else 0

    @property
    def stand_in(self) -> int | None:
        """The play seat of the bot standing in for a departed seat at a continued table."""
        machine = self._machine
        index = machine.seat_message.body.get("stand_in")
        if index is None or not machine.order:
            return None
        return machine.order.index(machine.list_keys[index])

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self._machine.outcome()[0])

    @property
    def winners(self) -> tuple[int, ...] | None:
        winners = self._machine.outcome()[1]
        return None if winners is None else tuple(winners)

    @property
    def ended_by(self) -> str | None:
        game = self._game()
        return None if game is None else game.ended_by


class RunnerBase:
    """One seated table's runner state and sending (see the module docstring)."""

    def __init__(
        self,
        config: PeerConfig,
        mesh: MeshPort,
        machine: TableMachine,
        state: HomeTable,
        player: Player,
    ) -> None:
        self.config = config
        self.mesh = mesh
        self.machine = machine
        self.state = state
        self.player = player
        self.table: TableView = MachineView(machine)
        """What the player is shown of the table (read-only; never the machine)."""
        self.clock = config.clock
        self.deadlines = Deadlines(
            config.step_deadline_s, config.gone_after_s, config.away_after_s, config.rejoin_time_s
        )
        self.aborts: dict[bytes, Message] = {}
        """Each peer's first abort, in arrival order: their debts are judged by that abort (one
        that owes an automatic message when the grace period ends withheld it), not the clock."""
        self.last_heard: dict[bytes, float] = {}
        """When each seat was last heard from: a frame over its own link (``_heard``)."""
        self.heard_n: dict[bytes, int] = {}
        """Each seat's highest hello ``n`` counted: an older or equal one is no news."""
        self.hello_n = 0
        """The ``n`` of this peer's last hello (``TableRunner._keepalive``)."""
        self.away: set[bytes] = set()
        self.bad_messages = 0
        self.move_sent_at: float | None = None
        self.move_step: object = None
        """The step our last move was sent in (a card table's latency ends in another one)."""
        self.move_ops_from = 0
        """At a card table, the deck's operation count before our last move: the operations
        from there to the table's next move are what that move set off."""
        self.latencies_ms: list[float] = []
        self.move_kinds: list[str] = []
        """At a card table, the class of each of ``latencies_ms`` (``table/codec.py``)."""
        self.move_round = -1
        """The round the move being timed was made in (its end opens the next round's table)."""
        self.deal_started: float | None = None
        self.deal_cpu_started = 0.0
        self.deal_ms: list[float] = []
        self.deal_cpu_ms: list[float] = []
        """This process's CPU per deal (beside the wall ``deal_ms``): a shared machine's load
        moves the wall figure, much less this one."""
        self.last_progress = self.clock()
        self.early: list[bytes] = []
        self.abort_claim: str | None = None
        self.last_keepalive = 0.0
        self.abort_claim_deadline = 0.0
        self.divergence: TableFault | None = None
        self.divergence_deadline = 0.0
        self.held_events: list[dict[str, Any]] = []
        self.links = Links(mesh, machine)
        self.key_of_link = self.links.key_of_link
        """Raw CURVE key of an authenticated link -> the Ed25519 key of the seat behind it."""
        self.resend_limiter = ResendLimiter()
        self.frames = FrameGuard(machine, lambda: self.clock())
        """Each link's rate limit and the cache of frames decoded (``links.py``)."""
        self.catch_up = CatchUp()
        self.chat = TableChat(machine, config.emit, self.clock, config.chat)
        machine.listen(self._on_event)

    # ---------------------------------------------------------------- wiring
    def connect_all(self) -> None:
        """Links to the other seats: from the seat message until every seat's own signed
        confirmation is in, then from the confirmations (``links.py``)."""
        try:
            self.links.start()
        except LinkError as exc:
            raise PeerError(str(exc)) from None

    def broadcast(self, raws: list[bytes]) -> None:
        for raw in raws:
            self.mesh.broadcast(raw)

    # ---------------------------------------------------------------- events
    def _on_event(self, event: TableEvent) -> None:
        """Held until what caused it has been sent: printing (a pipe write that wakes whoever
        reads it) must not delay the messages the other peers are waiting for."""
        data = {"event": event.kind, "text": event.text, **event.data}
        if event.kind == "round_started":
            self.deal_started = time.perf_counter()
            self.deal_cpu_started = time.process_time()
        self.held_events.append(data)

    def _emit_events(self) -> None:
        events, self.held_events = self.held_events, []
        for data in events:
            self.config.emit(data)

    # ---------------------------------------------------------------- hearing
    def _drop(self, why: str) -> None:
        """A frame refused: counted, logged with the reason, and otherwise ignored."""
        self.bad_messages += 1
        log.warning("%s", why)

    def _on_hello(self, msg: Message, link: bytes | None, now: float) -> None:
        """A keepalive is hearing from its signer only over the signer's own link and when it
        is fresher than the last one counted (protocol.md §8): a hello another seat relays, or
        one replayed, says nothing of its signer now, and must not keep a crashed seat
        "withholding" instead of unreachable (issue 27 item 2)."""
        if link is None:
            return  # over no known link yet (taken in the lobby, before seating): no news
        if link != msg.sender:
            self._drop("dropped a hello that came over another seat's link")
            return
        if msg.body["n"] <= self.heard_n.get(msg.sender, 0):
            # Not counted as bad: an honest hello still in flight on a link's dropped connection
            # can arrive after a newer one over its replacement (30% loss does it).
            log.debug("ignored a hello no fresher than the last one heard")
            return
        self.heard_n[msg.sender] = msg.body["n"]
        self._heard(msg.sender, now)

    def _heard(self, key: bytes, now: float) -> None:
        """``key`` is alive now: a valid frame came over its own authenticated link."""
        self.last_heard[key] = now
        if key in self.away:
            self.away.discard(key)
            self.config.emit({"event": "rejoined", "name": self.machine.names[key]})

    # ---------------------------------------------------------------- resending
    def _answer_resend(self, msg: Message) -> None:
        """At most ``RESEND_MAX_MESSAGES`` frames per answer, and a bounded rate of answers
        per requesting seat (``links.py``): a request costs its sender one frame."""
        if not self.resend_limiter.allow(msg.sender):
            log.info("a resend request from %s came too fast: unanswered", msg.sender.hex()[:12])
            return
        machine = self.machine
        if "head" in msg.body:
            raws = machine.answer_resend(msg.body["head"])
        else:
            raws = machine.messages_since(msg.body["sender"], msg.body["seq"])
        for raw in bounded(raws):
            self.mesh.send(msg.sender, raw, both_links=True)

    def _ask_resend(self, key: bytes, head: bytes | None = None) -> None:
        """Ask ``key`` for what it holds after ``head`` (by default our transcript's head)."""
        body: dict[str, object] = {"head": self.machine.head if head is None else head}
        self.mesh.send(key, self._control(MsgType.RESEND, body, chain=False), both_links=True)
        self.catch_up.asked(key)

    def _ask_everyone_to_resend(self) -> None:
        for key in self.machine.list_keys:
            if key != self.machine.me:
                self._ask_resend(key)

    def _control(self, msg_type: MsgType, body: dict[str, object], chain: bool) -> bytes:
        """A control message; ``chain`` makes it the next message of our chain (abort)."""
        machine = self.machine
        if chain:
            return machine.seal_control(msg_type, body)
        # Out-of-chain control messages carry seq 0 and a zero prev: they are never appended to
        # a transcript, take no slot, and a proof quoting one is refused (wire/envelope.py).
        return encode(
            machine.identity,
            msg_type,
            table_id=machine.table_id,
            seq=0,
            prev=ZERO_HASH,
            head=machine.head,
            body=body,
        )


# A seated table's liveness: who is away, whose owed message is late, and the grace periods.
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
