"""The seated table's loop: one peer's table machine driven over the mesh to the end.

Every peer is equal here: a full CURVE mesh, every message checked by ``wire.decode`` and the
table machine, and one bad peer can only get itself blamed. Each tick the runner hands the
machine what arrived (with the link that carried it), sends what the machine says,
asks the player for a move on this seat's turn (showing it a read-only view, never the
machine), and runs its liveness checks (``peer/runner_base.py``); a :class:`TableFault` ends the
table (``peer/ending.py``).
"""

from __future__ import annotations

import time
from typing import Any

from druids_p2p.games.seam import IllegalMove
from druids_p2p.lan.peer_config import PlayerMove
from druids_p2p.peer.ending import TableEnding
from druids_p2p.peer.runner_base import LivenessChecks
from druids_p2p.table.moves import move_kind
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import (
    MsgType,
    WireError,
    verify_equivocation,
)

KEEPALIVE_S = 1.0
"""A signed hello goes out about this often, so that silence means gone, not thinking."""
CLIENT = "druids-p2p/0.1.0"
"""What this peer's hellos say it runs."""


class TableRunner(LivenessChecks, TableEnding):
    """Drives one seated table over the mesh until the game ends or is aborted."""

    def run(self, resume: bool = False) -> dict[str, Any]:
        """Play the seated table to its end (``resume``: a restarted peer, which first asks
        everyone for what it missed); returns this peer's result."""
        machine = self.machine
        self.player.attach(self.table)
        self.connect_all()
        if resume:
            self._ask_everyone_to_resend()
        start = self.clock()
        for key in machine.list_keys:
            self.last_heard[key] = start
        try:
            self.broadcast(machine.start())
            for raw in self.early:
                self._on_message(raw)
            while not machine.finished and machine.aborted is None:
                self._tick()
        except TableFault as fault:
            return self._abort(fault)
        self._emit_events()
        result = self._result()
        self.config.emit({"event": "result", **result})  # before lingering: others may wait
        self._linger()
        return result

    def _tick(self) -> None:
        """One turn of the loop: what arrived, this seat's move, chat, keepalive, liveness."""
        machine = self.machine
        if self.player.wants_to_leave() and not machine.finished:
            raise TableFault(f"{machine.identity.name} left the table", None)
        for inbound in self.mesh.poll(10):
            raw = inbound.payload
            link = self.links.seat_of(inbound.curve)
            repeats = self.frames.repeats
            self._on_message(raw, link)
            if machine.aborted is not None or machine.finished:
                return
            # A full answer may have been cut short: ask for the rest. Only frames new here
            # count: an answer comes over both links, and its second copy is no news.
            fresh = self.frames.repeats == repeats
            if fresh and self.catch_up.heard(link) and link is not None:
                self._ask_resend(link)
        if not self.links.settled:
            self.links.update()
        # What happened is told before this seat is asked for a move: a user interface that
        # takes its picture of the table from each event must not see one older than the ask.
        self._emit_events()
        self.broadcast(self.chat.outgoing())  # talk waits for nothing, a grace period neither
        step = machine.step  # the round's deal is done once a move is due
        if step is not None and step.name == "card_move" and self.deal_started is not None:
            self.deal_ms.append((time.perf_counter() - self.deal_started) * 1000.0)
            self.deal_cpu_ms.append((time.process_time() - self.deal_cpu_started) * 1000.0)
            self.deal_started = None
        if self._in_grace():
            self._check_deadlines(self.clock())  # its own deadlines still run out meanwhile
            return
        if machine.my_turn:
            self._play(self.player.poll(self.table))
        self._emit_events()
        self._keepalive()
        self._check_liveness()

    def _play(self, move: PlayerMove | None) -> None:
        """This seat's move, if the player has one: checked once, by the machine, which refuses
        an illegal one (the player is told why and asked again on the next tick)."""
        if move is None:
            return
        play = self.machine.card_play
        ops_before = 0 if play is None else len(play.peer.state.ops)
        self.move_round = -1 if play is None else play.round_no
        sent_in = self.machine.step  # a move that completes its step at once (ours alone)
        try:
            raws = self.machine.play(move)
        except IllegalMove as exc:
            self.player.refused(move, str(exc))
            return
        self.move_sent_at = time.perf_counter()
        self.move_step = sent_in  # leaves the table at the next one before play() returns
        self.move_ops_from = ops_before
        self.broadcast(raws)
        self.last_progress = self.clock()
        self._note_counted()  # a public move may leave the table ready at once

    def _keepalive(self) -> None:
        """A signed hello about once a second, so silence means a peer is gone, not thinking.
        Its ``n`` (this clock in ms, always above the last) makes each one news: a copy of an
        older one, relayed or replayed, is not (``_on_hello``)."""
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
        self.broadcast([self._control(MsgType.HELLO, body, chain=False)])

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
        if msg.table_id != machine.table_id or msg.sender not in machine.list_keys:
            self._drop("dropped a message from outside this table")
            return
        now = self.clock()
        # Liveness (issue 27 item 2): only its own link speaks for a seat, and a hello only
        # when it is news (``_on_hello``); anything else still goes on to be checked below.
        if msg.type is MsgType.HELLO:
            self._on_hello(msg, link, now)
            return  # a keepalive: hearing it is all it is for
        if link == msg.sender:
            self._heard(msg.sender, now)
        if msg.type is MsgType.CHAT:
            self.chat.receive(msg)  # table talk: shown or dropped, never part of the game
            return
        if msg.type is MsgType.RESEND:
            self._answer_resend(msg)
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
            self._peer_aborted(msg)
            return
        if self.divergence is not None:
            # Only one thing matters now: another copy of a message we already hold.
            if msg.seq < machine.next_seq(msg.sender):
                machine.receive(msg)  # raises the equivocation, with both signed copies
            return
        before = self._progress_mark()
        try:
            self.broadcast(machine.receive(msg))
            if machine.deferred:
                machine.check_deferred()  # our messages are out: the fault held back now
        except TableFault as fault:
            if not self._seek_proof(fault):
                raise
            return
        except ValueError as exc:
            self._drop(f"dropped a message: {exc}")
            return
        if self._progress_mark() != before:
            self.last_progress = now
        self._note_counted()

    def _note_counted(self) -> None:
        """Move latency: from sending our move to the table being ready for the next move (a
        draw: the others' shares of the drawn card are in), classed by the deck operations the
        move set off meanwhile (``table/moves.py``)."""
        machine = self.machine
        play = machine.card_play
        if play is None or self.move_sent_at is None:
            return
        step = machine.step
        ready = machine.phase != "play" or (
            step is not self.move_step
            and step is not None
            and step.name in ("card_move", "card_word", "card_check")
            and not machine.own_pending_in_step()
        )
        if ready:
            took = (time.perf_counter() - self.move_sent_at) * 1000.0
            deck = play.peer.state
            done = [deck.ops[i].kind for i in range(self.move_ops_from, deck.done)]
            ended = machine.phase != "play" or play.round_no != self.move_round  # a round's end
            self.latencies_ms.append(took)
            self.move_kinds.append(move_kind(done, ended))
            self.move_sent_at = None


__all__ = ["CLIENT", "KEEPALIVE_S", "TableRunner"]
