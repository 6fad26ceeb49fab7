"""A seated table's runner, the part its loop, liveness checks and ending share.

The runner (``peer/runner.py``) drives one seated :class:`TableMachine` over the mesh: it feeds the
machine what arrives, sends what the machine says to send, and owns the control messages. It
drives the machine through its methods only (``TableMachine.listen`` and the methods after it),
never writing into it. This base holds its state and how it sends: to everyone or to one seat,
control messages, and resend requests and answers. Its liveness checks are in
``peer/liveness.py``, how it ends in ``peer/ending.py``.

Which messages are whose. The machine's: seat, seat_confirm, seat_nonce, the card table's
(table_*), move and result; it makes, checks and records them and says which to send. Join is the
lobby's (``lan/lobby.py``). The runner's, never handed to the machine: hello (the keepalive),
resend (a request), chat (``lan/chat.py``), equivocation (a proof) and abort (this peer stops: its
own finding, another's claim after the grace period, or its player leaving). Only the abort is in
this peer's chain and record: sealed by ``TableMachine.seal_control``, recorded by
``TableMachine.record_control``; the others carry seq 0 and take no slot.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from druids_p2p.games.seam import CardTableSeat, CommonRuleset, TableOptions
from druids_p2p.lan.chat import TableChat
from druids_p2p.lan.mesh import MeshPort
from druids_p2p.lan.peer_config import PeerConfig, PeerError, Player, PlayerMove, TableView
from druids_p2p.peer.deadlines import Deadlines
from druids_p2p.peer.homes import HomeTable
from druids_p2p.peer.links import CatchUp, FrameGuard, LinkError, Links, ResendLimiter, bounded
from druids_p2p.table.card_table_round import move_value
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableEvent, TableFault
from druids_p2p.wire import ZERO_HASH, Message, MsgType, encode

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
            value = move_value(self._machine, move)
        except ValueError as exc:
            return str(exc)
        reason: str | None = play.refusal(value)  # the check its move will get (table/moves.py)
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
        """At a card table, the class of each of ``latencies_ms`` (``table/moves.py``)."""
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


__all__ = ["MachineView", "RunnerBase"]
