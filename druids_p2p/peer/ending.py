"""How a seated table ends for this peer: on a fault, its abort recorded after its own unfinished
step messages and sent with the evidence first (protocol.md §9); either way its result with the
deal and move times `druids bench` reads, and a finished game marked in its home; then it
lingers to answer resend requests and carry the last words of chat.
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from druids_p2p.lan.mesh import MeshPort
from druids_p2p.lan.peer_config import PeerConfig, Player, TableChat
from druids_p2p.peer.deadlines import Deadlines, claim_of
from druids_p2p.peer.go_on import go_on_after
from druids_p2p.peer.homes import HomeTable
from druids_p2p.peer.links import FrameGuard, Resends, broadcast, control
from druids_p2p.table.codec import move_kind
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import RecordLost, TableFault
from druids_p2p.wire import MsgType, WireError, decode, equivocation_body, verify_equivocation

__all__ = ["LINGER_AFTER_GAME_S", "LINGER_FOR_THE_END_S", "LINGER_QUIET_S", "Ending", "Timings"]


class Timings:
    """Each round's deal (wall and CPU) and each of this peer's moves, from sending it to the
    table being ready for the next, for the result ``druids bench`` reads."""

    def __init__(self) -> None:
        self.deal_ms: list[float] = []
        self.deal_cpu_ms: list[float] = []
        """This process's CPU per deal (beside the wall ``deal_ms``): a shared machine's load
        moves the wall figure, much less this one."""
        self.latencies_ms: list[float] = []
        self.move_kinds: list[str] = []
        """At a card table, the class of each of ``latencies_ms`` (``table/codec.py``)."""
        self._deal_started: float | None = None
        self._deal_cpu_started = 0.0
        self._sent_at: float | None = None
        self._sent_in: object = None
        """The step our last move was sent in (a card table's latency ends in another one)."""
        self._ops_from = 0
        """The deck's operation count before our last move: the operations from there to the
        table's next move are what that move set off."""
        self._round = -1
        """The round the move being timed was made in (its end opens the next round's table)."""
        self._next: tuple[int, object] = (0, None)

    def round_started(self) -> None:
        self._deal_started = time.perf_counter()
        self._deal_cpu_started = time.process_time()

    def dealt(self, machine: TableMachine) -> None:
        """The round's deal is done once a move is due."""
        step = machine.step
        if step is not None and step.name == "card_move" and self._deal_started is not None:
            self.deal_ms.append((time.perf_counter() - self._deal_started) * 1000.0)
            self.deal_cpu_ms.append((time.process_time() - self._deal_cpu_started) * 1000.0)
            self._deal_started = None

    def moving(self, machine: TableMachine) -> None:
        """Our move is about to be played: where the table stands before it."""
        play = machine.card_play
        self._round = -1 if play is None else play.round_no
        # A move that completes its step at once (ours alone) leaves it before play() returns.
        self._next = (0 if play is None else len(play.peer.state.ops), machine.step)

    def moved(self) -> None:
        """Our move was played and is being sent: its clock starts."""
        self._sent_at = time.perf_counter()
        self._ops_from, self._sent_in = self._next

    def counted(self, machine: TableMachine) -> None:
        """Our move's clock stops once the table is ready for the next move (a draw: the
        others' shares of the drawn card are in)."""
        play = machine.card_play
        if play is None or self._sent_at is None:
            return
        step = machine.step
        ready = machine.phase != "play" or (
            step is not self._sent_in
            and step is not None
            and step.name in ("card_move", "card_word", "card_check")
            and not machine.own_pending_in_step()
        )
        if ready:
            took = (time.perf_counter() - self._sent_at) * 1000.0
            deck = play.peer.state
            done = [deck.ops[i].kind for i in range(self._ops_from, deck.done)]
            ended = machine.phase != "play" or play.round_no != self._round  # a round's end
            self.latencies_ms.append(took)
            self.move_kinds.append(move_kind(done, ended))
            self._sent_at = None


log = logging.getLogger(__name__)

LINGER_AFTER_GAME_S = 1.5
LINGER_FOR_THE_END_S = 10.0
LINGER_QUIET_S = 2.5
TALK_AFTER_GAME_S = 600.0
"""The longest a peer whose person is still at the ended table keeps carrying chat."""


class Ending:
    """The abort, the result and the lingering of one seated table (module docstring)."""

    def __init__(
        self,
        config: PeerConfig,
        mesh: MeshPort,
        machine: TableMachine,
        state: HomeTable,
        resends: Resends,
        frames: FrameGuard,
        key_of_link: dict[bytes, bytes],
        chat: TableChat,
        deadlines: Deadlines,
        timings: Timings,
    ) -> None:
        """The runner's parts that go on while it lingers (resends, frames, links: CURVE key
        -> seat key, chat) or that the result reports (deadlines, timings)."""
        self.config = config
        self.mesh = mesh
        self.machine = machine
        self.state = state
        self.resends = resends
        self.frames = frames
        self.key_of_link = key_of_link
        self.chat = chat
        self.deadlines = deadlines
        self.timings = timings

    def abort(self, fault: TableFault, player: Player, bad_messages: int) -> dict[str, Any]:
        """Stop on ``fault``: record this peer's abort, tell the others (evidence first),
        linger, and return the result."""
        machine = self.machine
        machine.abort(fault)
        if isinstance(fault, RecordLost):  # any slot of our chain may be taken: sign nothing
            result = self.result(player, bad_messages)
            self.config.emit({"event": "aborted", "reason": fault.reason, "blame": None})
            self.config.emit({"event": "result", **result})
            return result
        body: dict[str, object] = {"reason": fault.reason[:200]}
        if fault.seat is not None:
            body["seat"] = fault.seat
            keys = machine.order or machine.list_keys
            body["key"] = keys[fault.seat]
        # Our own messages already sent for a step that never completed go into the record
        # first: the abort is chained after them, and the record must end with its reason.
        own_pending = machine.own_pending()
        for own in own_pending:
            with contextlib.suppress(WireError):
                machine.record_control(own)
        for raw in fault.evidence:  # a blamed peer's own abort, in its place in its chain
            with contextlib.suppress(WireError):
                msg = decode(raw)
                if msg.type is MsgType.ABORT and msg.sender != machine.me:
                    machine.record_control(msg)
        raw = control(machine, MsgType.ABORT, body, chain=True)
        try:
            machine.record_control(raw)
        except WireError as exc:
            log.warning("could not record the abort in the transcript: %s", exc)
        machine.flush()
        # Then sent again with it: a peer that stops while its own step messages are unsent
        # (its own confirmation showed the seat message misplacing it) must still show them.
        outgoing = [*(own.raw for own in own_pending), raw]
        proof: bytes | None = None
        if len(fault.evidence) == 2:
            try:
                verify_equivocation(*sorted(fault.evidence))  # other evidence pairs are no proof
                pair = equivocation_body(*fault.evidence)
                proof = control(machine, MsgType.EQUIVOCATION, pair, chain=False)
            except WireError:
                proof = None
        if proof is not None:
            outgoing.insert(0, proof)
        elif fault.seat is not None and fault.evidence:
            # The culprit's own signed message goes out first (protocol.md §9): a peer that was
            # shown another version of it now holds two and proves the equivocation; one that
            # never got it checks it like any message. Either way it blames on its own checks.
            outgoing.insert(0, fault.evidence[0])
        broadcast(self.mesh, outgoing)
        result = self.result(player, bad_messages)
        self.config.emit({"event": "aborted", "reason": fault.reason, "blame": fault.seat})
        self.config.emit({"event": "result", **result})
        self.linger(player)
        return result

    def result(self, player: Player, bad_messages: int) -> dict[str, Any]:
        """What ``run_peer`` returns (and the CLI prints); a finished game is marked so."""
        machine, timings = self.machine, self.timings
        totals, winners = machine.outcome()  # a card table's: this seat's copy of the game
        rounds = machine.all_round_scores()
        ended_by = None if machine.card_play is None else machine.card_play.copy.ended_by
        result: dict[str, Any] = {
            "finished": machine.finished,
            "aborted": None if machine.aborted is None else machine.aborted.reason,
            "blame": None if machine.aborted is None else machine.aborted.seat,
            "claim": claim_of(machine),
            "seat": machine.my_seat,
            "name": machine.identity.name,
            "names": [machine.names.get(key, "?") for key in machine.order or machine.list_keys],
            "totals": totals,
            "round_scores": rounds,
            "winners": winners,
            "ended_by": ended_by,
            "record": str(self.state.record),
            "head": machine.head.hex(),
            "deal_ms": timings.deal_ms,
            "deal_cpu_ms": timings.deal_cpu_ms,
            "cpu_s": round(time.process_time(), 3),
            "move_latency_ms": timings.latencies_ms,
            "move_kinds": timings.move_kinds,
            "bad_messages": bad_messages,
            "links": self.frames.stats(),
            "automatic_max_s": round(self.deadlines.pace.longest_s, 3),
            "rejoin_spent_s": {
                str(machine.names.get(k, "?")): round(t, 3) for k, t in self.deadlines.spent.items()
            },
            "faults": getattr(player, "faults", []),
        }
        if machine.finished:
            machine.flush()
            names = [machine.name_of_seat(s) for s in range(len(totals))]  # play order
            self.state.mark_finished({"totals": totals, "winners": winners, "names": names})
        return result

    def linger(self, player: Player) -> None:
        """Answer resend requests a little longer, so slower peers can finish too.

        A peer that left at once, its last messages lost on a lossy link, left the others
        waiting until ``gone_after`` (seen at 30% loss). Chat goes on meanwhile, so last
        words are heard; every wait here is bounded by its constant.
        """
        machine = self.machine
        start = time.monotonic()
        until = start + LINGER_AFTER_GAME_S
        last_hello = start
        going_on = self.config.go_on_ask is not None and go_on_after(machine) is not None
        while True:
            now = time.monotonic()
            playing = machine.finished and now - last_hello < LINGER_QUIET_S
            talking = (
                player.stays_for_talk()
                and not player.wants_to_leave()
                and now < start + TALK_AFTER_GAME_S
                and not going_on  # the question whether to go on comes first; talk goes on there
            )
            done = not playing or now >= start + LINGER_FOR_THE_END_S
            if now >= until and done and not talking:
                return
            for inbound in self.mesh.poll(20):
                link = self.key_of_link.get(inbound.curve)
                if not self.frames.admit(link, blame=False):
                    continue  # a flood goes on being dropped unread after the table stopped
                try:
                    msg = self.frames.decode(inbound.payload)
                except WireError:
                    continue
                if msg.table_id != machine.table_id:
                    continue
                if msg.type is MsgType.RESEND:
                    self.resends.answer(msg)
                elif msg.type is MsgType.HELLO and link == msg.sender:  # its own link (§8)
                    last_hello = time.monotonic()  # someone is still playing: stay a little
                elif msg.type is MsgType.CHAT and msg.sender in machine.list_keys:
                    self.chat.receive(msg)
            broadcast(self.mesh, self.chat.outgoing())
