"""The seated table's loop: one peer's table machine driven over the mesh to the end. Each tick the
runner hands the machine what arrived, sends what it says, asks the player for a move on this
seat's turn (a read-only view, never the machine) and runs its liveness checks; a TableFault
ends the table: the abort is recorded after this peer's unfinished step messages and sent with
the evidence first (protocol.md §9), and either way the peer lingers a little to answer resend
requests so slower peers can finish.
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from druids_p2p.games.seam import IllegalMove
from druids_p2p.lan.peer_config import PlayerMove
from druids_p2p.peer.deadlines import claim_of
from druids_p2p.peer.go_on import go_on_after
from druids_p2p.peer.runner_base import LivenessChecks, RunnerBase
from druids_p2p.table.codec import move_kind
from druids_p2p.table.table_state import RecordLost, TableFault
from druids_p2p.wire import (
    MsgType,
    WireError,
    decode,
    equivocation_body,
    verify_equivocation,
)

__all__ = [
    "CLIENT",
    "KEEPALIVE_S",
    "LINGER_AFTER_GAME_S",
    "LINGER_FOR_THE_END_S",
    "LINGER_QUIET_S",
    "TableEnding",
    "TableRunner",
]


# How a seated table ends for this peer: its abort, its result, and lingering for the others.
log = logging.getLogger(__name__)

LINGER_AFTER_GAME_S = 1.5
LINGER_FOR_THE_END_S = 10.0
LINGER_QUIET_S = 2.5
TALK_AFTER_GAME_S = 600.0
"""The longest a peer whose person is still at the ended table keeps carrying chat."""


class TableEnding(RunnerBase):
    """The runner's abort, result and lingering (module docstring)."""

    def _abort(self, fault: TableFault) -> dict[str, Any]:
        """Stop on ``fault``: record this peer's abort, tell the others (evidence first),
        linger, and return the result."""
        self._emit_events()
        machine = self.machine
        machine.abort(fault)
        if isinstance(fault, RecordLost):  # any slot of our chain may be taken: sign nothing
            result = self._result()
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
        raw = self._control(MsgType.ABORT, body, chain=True)
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
                proof = self._control(
                    MsgType.EQUIVOCATION, equivocation_body(*fault.evidence), chain=False
                )
            except WireError:
                proof = None
        if proof is not None:
            outgoing.insert(0, proof)
        elif fault.seat is not None and fault.evidence:
            # The culprit's own signed message goes out first (protocol.md §9): a peer that was
            # shown another version of it now holds two and proves the equivocation; one that
            # never got it checks it like any message. Either way it blames on its own checks.
            outgoing.insert(0, fault.evidence[0])
        self.broadcast(outgoing)
        result = self._result()
        self.config.emit({"event": "aborted", "reason": fault.reason, "blame": fault.seat})
        self.config.emit({"event": "result", **result})
        self._linger()
        return result

    def _result(self) -> dict[str, Any]:
        """What ``run_peer`` returns (and the CLI prints); a finished game is marked so."""
        machine = self.machine
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
            "deal_ms": self.deal_ms,
            "deal_cpu_ms": self.deal_cpu_ms,
            "cpu_s": round(time.process_time(), 3),
            "move_latency_ms": self.latencies_ms,
            "move_kinds": self.move_kinds,
            "bad_messages": self.bad_messages,
            "links": self.frames.stats(),
            "automatic_max_s": round(self.deadlines.pace.longest_s, 3),
            "rejoin_spent_s": {
                str(machine.names.get(k, "?")): round(t, 3) for k, t in self.deadlines.spent.items()
            },
            "faults": getattr(self.player, "faults", []),
        }
        if machine.finished:
            machine.flush()
            names = [machine.name_of_seat(s) for s in range(len(totals))]  # play order
            self.state.mark_finished({"totals": totals, "winners": winners, "names": names})
        return result

    def _linger(self) -> None:
        """Answer resend requests a little longer, so slower peers can finish too.

        After a finished game, also (at most ``LINGER_FOR_THE_END_S``) until no peer still
        playing has sent its keepalive hello for ``LINGER_QUIET_S`` (a finished peer sends
        none): a peer that left at once, its last messages lost on a lossy link, left the
        others waiting for them until ``gone_after`` (seen at 30% loss).

        Chat goes on meanwhile, both ways (a "gg" said as the game ends is heard), and for as
        long as the person is still at the table (:meth:`Player.stays_for_talk`, the terminal
        UI's end screen), at most ``TALK_AFTER_GAME_S``: their last words reach the others who
        are still there too."""
        start = time.monotonic()
        until = start + LINGER_AFTER_GAME_S
        last_hello = start
        going_on = self.config.go_on_ask is not None and go_on_after(self.machine) is not None
        while True:
            now = time.monotonic()
            playing = self.machine.finished and now - last_hello < LINGER_QUIET_S
            talking = (
                self.player.stays_for_talk()
                and not self.player.wants_to_leave()
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
                if msg.table_id != self.machine.table_id:
                    continue
                if msg.type is MsgType.RESEND:
                    self._answer_resend(msg)
                elif msg.type is MsgType.HELLO and self._own_link(inbound.curve, msg.sender):
                    last_hello = time.monotonic()  # someone is still playing: stay a little
                elif msg.type is MsgType.CHAT and msg.sender in self.machine.list_keys:
                    self.chat.receive(msg)
            self.broadcast(self.chat.outgoing())

    def _own_link(self, curve: bytes, sender: bytes) -> bool:
        """A frame signed by ``sender`` came over ``sender``'s own link (protocol.md §8)."""
        return self.key_of_link.get(curve) == sender


# The seated table's loop: one peer's table machine driven over the mesh to the end.
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
        move set off meanwhile (``table/codec.py``)."""
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
