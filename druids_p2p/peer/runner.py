"""The seated table's loop: one peer's table machine driven over the mesh to the end.

The loop is the runner's one job; it composes parts that each do one (``links.py``,
``liveness.py``, ``ending.py``). The machine keeps the game's messages; the runner's own (hello,
resend, chat, equivocation, abort) never reach it, except abort, sealed through it.
"""

from __future__ import annotations

import logging
from typing import Any

from druids_p2p.games.seam import CardTableSeat, CommonRuleset, IllegalMove, TableOptions
from druids_p2p.lan.mesh import MeshPort
from druids_p2p.lan.peer_config import (
    PeerConfig,
    PeerError,
    Player,
    PlayerMove,
    TableChat,
    TableView,
)
from druids_p2p.peer.deadlines import Deadlines
from druids_p2p.peer.ending import Ending, Timings
from druids_p2p.peer.homes import HomeTable
from druids_p2p.peer.links import (
    FrameGuard,
    LinkError,
    Links,
    Resends,
    broadcast,
    control,
)
from druids_p2p.peer.liveness import Grace, Liveness
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableEvent, TableFault
from druids_p2p.wire import MsgType, WireError, verify_equivocation

__all__ = ["MachineView", "TableRunner"]


# What a player is shown of its seated table: a read-only :class:`TableView` over the table
# machine, so that no player (a bot, a person's UI) can reach the machine and change it.
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


log = logging.getLogger(__name__)


class TableRunner:
    """Drives one seated table over the mesh until the game ends or is aborted."""

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

        def clock() -> float:
            return self.clock()  # late-bound: a test sets a fake clock after construction

        self.deadlines = Deadlines(
            config.step_deadline_s, config.gone_after_s, config.away_after_s, config.rejoin_time_s
        )
        self.links = Links(mesh, machine)
        self.key_of_link = self.links.key_of_link
        """Raw CURVE key of an authenticated link -> the Ed25519 key of the seat behind it."""
        self.frames = FrameGuard(machine, clock)
        """Each link's rate limit and the cache of frames decoded (``links.py``)."""
        self.resends = Resends(mesh, machine)
        self.chat = TableChat(machine, config.emit, self.clock, config.chat)
        self.grace = Grace(machine, self.resends, self.deadlines, clock)
        self.liveness = Liveness(
            config, mesh, machine, self.resends, self.deadlines, self.grace.aborts, clock
        )
        self.timings = Timings()
        self.ending = Ending(
            config,
            mesh,
            machine,
            state,
            self.resends,
            self.frames,
            self.key_of_link,
            self.chat,
            self.deadlines,
            self.timings,
        )
        self.bad_messages = 0
        self.early: list[bytes] = []
        """Frames of this table taken in the lobby, before seating: handed in first."""
        self.held_events: list[dict[str, Any]] = []
        machine.listen(self._on_event)

    def run(self, resume: bool = False) -> dict[str, Any]:
        """Play the seated table to its end (``resume``: a restarted peer, which first asks
        everyone for what it missed); returns this peer's result."""
        machine = self.machine
        self.player.attach(self.table)
        try:
            # Links from the seat message until every seat's own signed confirmation is in,
            # then from the confirmations (``links.py``).
            self.links.start()
        except LinkError as exc:
            raise PeerError(str(exc)) from None
        if resume:
            self.resends.ask_everyone()
        self.liveness.start()
        try:
            broadcast(self.mesh, machine.start())
            for raw in self.early:
                self._on_message(raw)
            while not machine.finished and machine.aborted is None:
                self._tick()
        except TableFault as fault:
            return self._abort(fault)
        self._emit_events()
        result = self._result()
        self.config.emit({"event": "result", **result})  # before lingering: others may wait
        self.ending.linger(self.player)
        return result

    def _tick(self) -> None:
        """One turn of the loop: what arrived, this seat's move, chat, keepalive, liveness."""
        machine = self.machine
        if self.player.wants_to_leave() and not machine.finished:
            raise TableFault(f"{machine.identity.name} left the table", None)
        arrived = self.mesh.poll(0)
        if not arrived and not machine.check_while_idle():  # (a deal's proofs left for later)
            arrived = self.mesh.poll(10)
        for inbound in arrived:
            raw = inbound.payload
            link = self.links.seat_of(inbound.curve)
            repeats = self.frames.repeats
            self._on_message(raw, link)
            if machine.aborted is not None or machine.finished:
                return
            # A full answer may have been cut short: ask for the rest. Only frames new here
            # count: an answer comes over both links, and its second copy is no news.
            fresh = self.frames.repeats == repeats
            if fresh and self.resends.catch_up.heard(link) and link is not None:
                self.resends.ask(link)
        if not self.links.settled:
            self.links.update()
        # What happened is told before this seat is asked for a move: a user interface that
        # takes its picture of the table from each event must not see one older than the ask.
        self._emit_events()
        broadcast(self.mesh, self.chat.outgoing())  # talk waits for nothing, a grace period neither
        self.timings.dealt(machine)
        if self.grace.in_grace():
            self.liveness.check_deadlines(self.clock())  # its own deadlines still run out meanwhile
            return
        if machine.my_turn:
            self._play(self.player.poll(self.table))
        self._emit_events()
        self._keepalive()
        self.liveness.check()

    def _play(self, move: PlayerMove | None) -> None:
        """This seat's move, if the player has one: checked once, by the machine, which refuses
        an illegal one (the player is told why and asked again on the next tick)."""
        if move is None:
            return
        self.timings.moving(self.machine)
        try:
            raws = self.machine.play(move)
        except IllegalMove as exc:
            self.player.refused(move, str(exc))
            return
        self.timings.moved()
        step = self.machine.step  # the next move's: its mover waits for ours, the others do not
        nexts = () if step is None else tuple(k for k in step.senders if k != self.machine.me)
        broadcast(self.mesh, raws, nexts)
        self.liveness.last_progress = self.clock()
        self.timings.counted(self.machine)  # a public move may leave the table ready at once

    def _keepalive(self) -> None:
        """This peer's hello, when one is due (``liveness.py``)."""
        self.liveness.keepalive()

    def _on_message(self, raw: bytes, link: bytes | None = None) -> None:
        """One frame from the mesh; ``link`` is the seat key its CURVE link authenticated."""
        machine = self.machine
        if not self.frames.admit(link):
            return  # over a link cut off for flooding: dropped unread (peer/links.py)
        try:
            msg = self.frames.decode(raw)  # bytes decoded before are not verified again
        except WireError as exc:
            self._drop(f"dropped a bad message: {exc}")
            return
        seated = link is not None and link == msg.sender and link in machine.list_keys
        if msg.type is MsgType.JOIN and seated:
            return  # a seated joiner's join sent again after its link was renewed (lobby)
        if msg.table_id != machine.table_id or msg.sender not in machine.list_keys:
            self._drop("dropped a message from outside this table")
            return
        now = self.clock()
        # Liveness (issue 27 item 2): only its own link speaks for a seat, and a hello only
        # when it is news; anything else still goes on to be checked below.
        if msg.type is MsgType.HELLO:
            why = self.liveness.on_hello(msg, link, now)
            if why is not None:
                self._drop(why)
            return  # a keepalive: hearing it is all it is for
        if link == msg.sender:
            self.liveness.heard(msg.sender, now)
        if msg.type is MsgType.CHAT:
            self.chat.receive(msg)  # table talk: shown or dropped, never part of the game
            return
        if msg.type is MsgType.RESEND:
            self.resends.answer(msg)
            return
        if msg.type is MsgType.EQUIVOCATION:
            try:
                first = verify_equivocation(msg.body["a"], msg.body["b"])
            except WireError:
                self.bad_messages += 1
                return
            if first.sender not in machine.list_keys:  # convicts nobody at this table
                self._drop("dropped an equivocation proof against a key with no seat here")
                return
            raise TableFault(
                f"{machine.names.get(first.sender, '?')} equivocated (proof from "
                f"{machine.names[msg.sender]})",
                machine.seat_of(first.sender),
                (msg.body["a"], msg.body["b"]),
            )
        if msg.type is MsgType.ABORT:
            self.grace.peer_aborted(msg)
            return
        if self.grace.divergence is not None:
            # Only one thing matters now: another copy of a message we already hold.
            if msg.seq < machine.next_seq(msg.sender):
                machine.receive(msg)  # raises the equivocation, with both signed copies
            return
        # Progress is a message new here, appended or held for a later step. A duplicate (a
        # nudge resends its pending messages to everyone) is not: it would reset this peer's
        # own nudge timer, and with several peers waiting only one would ever ask again.
        before = machine.held()
        try:
            broadcast(self.mesh, machine.receive(msg))
            if machine.deferred:
                machine.check_deferred()  # our messages are out: the fault held back now
        except TableFault as fault:
            if not self.grace.seek_proof(fault):
                raise
            return
        except ValueError as exc:
            self._drop(f"dropped a message: {exc}")
            return
        if machine.held() != before:
            self.liveness.last_progress = now
        self.timings.counted(machine)

    def _drop(self, why: str) -> None:
        """A frame refused: counted, logged with the reason, and otherwise ignored."""
        self.bad_messages += 1
        log.warning("%s", why)

    def _on_event(self, event: TableEvent) -> None:
        """Held until what caused it has been sent: printing (a pipe write that wakes whoever
        reads it) must not delay the messages the other peers are waiting for."""
        if event.kind == "round_started":
            self.timings.round_started()
        self.held_events.append({"event": event.kind, "text": event.text, **event.data})

    def _emit_events(self) -> None:
        events, self.held_events = self.held_events, []
        for data in events:
            self.config.emit(data)

    # ---------------------------------------------------------------- the parts, by name
    def _abort(self, fault: TableFault) -> dict[str, Any]:
        """Stop on ``fault`` (``ending.py``), what happened so far told first."""
        self._emit_events()
        return self.ending.abort(fault, self.player, self.bad_messages)

    def _result(self) -> dict[str, Any]:
        return self.ending.result(self.player, self.bad_messages)

    def _in_grace(self) -> bool:
        return self.grace.in_grace()

    def _ask_resend(self, key: bytes, head: bytes | None = None) -> None:
        self.resends.ask(key, head)

    def _control(self, msg_type: MsgType, body: dict[str, object], chain: bool) -> bytes:
        return control(self.machine, msg_type, body, chain)
