"""One peer's pure view of a seated table (no sockets, no clock), whose steps are its methods;
the jobs with data of their own are objects it holds: the seating (``table_state.Seating``), the
record and held messages (``ledger.Ledger``) and the card table's rounds (``CardRound``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from druids_p2p.games.registry import RULESETS, table_options
from druids_p2p.games.seam import CardTableRuleset, GameMove, IllegalMove
from druids_p2p.lan.network import TableNetwork
from druids_p2p.lan.seating import carried_rounds, seat_list_fault
from druids_p2p.table.card_table_play import MOVE_TYPES
from druids_p2p.table.card_table_round import CardRound, result_body, result_problem
from druids_p2p.table.codec import Chain, MoveRefused
from druids_p2p.table.ledger import Ledger
from druids_p2p.table.table_state import Seating, Step, StepLog, TableEvent, TableFault, TableSecret
from druids_p2p.wire import Identity, Message, MsgType, Transcript

__all__ = ["TableMachine"]


class TableMachine:
    """One peer at one seated table. Feed it decoded messages; send what it returns: each step
    is appended once complete, in its sender order, every message built on the step's head."""

    def __init__(
        self,
        identity: Identity,
        seat_message: Message,
        secret: TableSecret,
        endpoint: str,
        curve: bytes,
        transcript: Transcript | None = None,
        network: TableNetwork | None = None,
    ) -> None:
        """``network``: where every seat's confirmed endpoint must be (default: ``endpoint``'s)."""
        if seat_message.type is not MsgType.SEAT:
            raise ValueError("a table starts from its seat message")
        self.identity, self.me, self.seat_message = identity, identity.public_key, seat_message
        self.list_keys: tuple[bytes, ...] = tuple(seat_message.body["seats"])
        if self.me not in self.list_keys:
            raise ValueError("this identity is not seated at this table")
        self.ruleset, self.options = table_options(seat_message.body["options"])
        self.card_rules: CardTableRuleset = RULESETS[self.ruleset]
        if self.options.players != len(self.list_keys):
            raise ValueError("the seat message seats a different number of players")
        self.secret, self.endpoint, self.curve = secret, endpoint, curve
        self.network = network or TableNetwork.of_endpoint(endpoint)
        self.seating = seating = Seating(self.me, seat_message, self.network)
        self.names = seating.names
        self.seat_fault = seat_list_fault(seat_message)
        """Why the seat message's addresses are not every seat's own word (the host's fault)."""
        self.carried: dict[bytes, list[int]] = {}
        """Each seat's rounds from the earlier tables of a game going on without a departed seat."""
        if self.seat_fault is None:
            self.carried = carried_rounds(seat_message)
        self.rounds_audited = 0  # (what an account of this table carries)
        transcript = transcript or Transcript.start(seat_message)
        seat_confirm = frozenset({MsgType.SEAT_CONFIRM})
        self.steps = StepLog(Step("confirm", self.list_keys, seat_confirm, transcript.head))
        self.ledger = Ledger(identity, seating, transcript, self.steps)
        self.card_round = CardRound(
            self.card_rules, self.ruleset, self.options, secret, seating, self.ledger, self.carried
        )
        self.events: list[TableEvent] = []
        self.phase = "seating"
        self.finished = False
        self.aborted: TableFault | None = None
        self._verdict: TableFault | None = None
        """A fault found while our own messages were queued: raised once they are sent."""
        self.on_event: Callable[[TableEvent], None] | None = None

    # ================================================================ views
    @property
    def transcript(self) -> Transcript:
        return self.ledger.transcript

    @property
    def pending(self) -> dict[bytes, dict[int, Message]]:
        return self.ledger.pending  # held for a step not yet complete, by sender and seq

    @property
    def chain(self) -> Chain:
        return self.ledger.chain

    @property
    def card_play(self) -> Any:  # CardTablePlay | None (its users reach into the game untyped)
        return self.card_round.play

    @property
    def card_contradiction(self) -> Message | None:
        return self.card_round.contradiction

    @property
    def order(self) -> tuple[bytes, ...]:
        return self.seating.order

    @property
    def table_id(self) -> bytes:
        return self.seat_message.table_id

    @property
    def heads(self) -> Sequence[bytes]:
        return self.transcript.heads  # heads[i]: the head once message i was appended

    @property
    def head(self) -> bytes:
        return self.transcript.head  # (what this peer holds, as a resend request names it)

    @property
    def step(self) -> Step | None:
        return self.steps.current  # (None between steps that wait on this peer's own work)

    @property
    def step_head(self) -> bytes:
        return self.steps.head

    @property
    def my_seat(self) -> int | None:
        return self.seating.my_seat  # (once the play order is fixed)

    @property
    def my_turn(self) -> bool:
        """True when the game waits for this peer's move (the step's, set at its start)."""
        step = self.steps.current
        if self.phase != "play" or step is None or step.name != "card_move":
            return False
        return step.senders == (self.me,) and not self.own_pending_in_step()

    def seat_of(self, key: bytes) -> int | None:
        return self.seating.seat_of(key)

    def name_of_seat(self, seat: int) -> str:
        return self.seating.name_of_seat(seat)

    def confirmed_addresses(self) -> list[tuple[bytes, str, bytes]] | None:
        return self.seating.confirmed_addresses()

    def recorded(self, raw: bytes) -> Message | None:
        return self.ledger.recorded(raw)

    def outcome(self) -> tuple[list[int], list[int] | None]:
        """The game's totals (play order) and winners (None while it is not over)."""
        return self.card_round.outcome()

    def all_round_scores(self) -> list[list[int]]:
        return self.card_round.all_round_scores()

    def view(self) -> Any:
        """This seat's view of the round (the rule set's own type), None before a deal."""
        play = self.card_round.play
        return None if play is None or self.my_seat is None else play.copy.view(self.my_seat)

    # ================================================================ deferred checks
    @property
    def deferred(self) -> bool:
        """True while a fault found waits for our own messages to go out first."""
        return self._verdict is not None

    def check_deferred(self) -> None:
        """Raise the fault found while our own messages were still to be sent, once they are."""
        if self._verdict is not None:
            raise self._verdict

    def take_over(self, fault: TableFault) -> None:
        """The runner handles ``fault`` from now on (a divergence whose proof it seeks)."""
        if self._verdict is fault:
            self._verdict = None

    # ================================================================ driving
    def start(self) -> list[bytes]:
        """Send this peer's seat confirmation (idempotent: the same bytes every time); a seat
        message listing addresses not the seats' own is the host's fault (``seat_fault``)."""
        first = 1 if self.seat_message.sender == self.me else 0
        if self.chain.seq > first:  # already started (or replayed): what it sent, again
            return self.resend_own()
        commit = hashlib.sha256(self.secret.seat_nonce()).digest()
        body: dict[str, object] = {"commit": commit, "curve": self.curve, "endpoint": self.endpoint}
        self._send_own(MsgType.SEAT_CONFIRM, body)
        if self.seat_fault is not None:
            raise self.seating.fault(
                self.seat_message, f"'s seat message is refused: {self.seat_fault}"
            )
        self._pump()
        self.check_deferred()  # a replayed record's openings are proven before going on
        return self._drain()

    def load_record(self, messages: Sequence[Message]) -> None:
        """Hold a saved record's messages for replay by :meth:`start` (ours are made again)."""
        self.ledger.load(messages)

    def receive(self, msg: Message) -> list[bytes]:
        """Take one decoded message; send what this returns, then call :meth:`check_deferred`."""
        if self.aborted is not None or msg.table_id != self.table_id:
            return []
        self.check_deferred()
        if msg.sender not in self.ledger.pending:
            raise TableFault("a message from a key that has no seat at this table")
        if msg.type in (MsgType.RESEND, MsgType.EQUIVOCATION, MsgType.ABORT, MsgType.CHAT):
            raise ValueError("control messages are handled by the peer, not the machine")
        if not self.ledger.hold(msg):
            return []
        play = self.card_round.play
        if play is not None:  # a share's proof, while the step's others are on the way
            play.precheck(msg)
            if msg.sender == self.me:
                self.take_back_own_move()
        self._pump_then_fault()
        return self._drain()

    def check_everything_held(self) -> None:
        """Run every check still waiting (a held-back fault, a shuffle's passes in progress) when
        another peer says it stopped, or before a seat is blamed past its deadline."""
        self.check_deferred()
        self.card_round.prove_held()

    def check_while_idle(self) -> bool:
        """The share proofs the deal left for later (deck.md §10.2), checked aside (on a second
        thread) once nothing arrives, so that the first card opened finds them
        done: True if that check started now."""
        return self.aborted is None and self.card_round.check_unproven()

    def play(self, move: int | GameMove) -> list[bytes]:
        """Make this peer's move (it must be its turn); raises IllegalMove if it is not legal."""
        self.check_deferred()
        if not self.my_turn:
            raise IllegalMove("it is not this seat's turn")
        try:
            self.card_round.play_own(move)  # its copy of the rules checks it, once (ValueError)
        except MoveRefused as refused:
            raise IllegalMove(refused.rule or refused.reason) from None
        except ValueError as refused:  # the card table's copy of the rules
            raise IllegalMove(str(refused)) from None
        self._pump_then_fault()
        return self._drain()

    def move_value(self, move: int | GameMove) -> GameMove:
        return self.card_round.move_value(move)

    # ================================================================ for the runner (peer/)
    def listen(self, on_event: Callable[[TableEvent], None] | None) -> None:
        """Who is told of every :class:`TableEvent` as it happens (the runner; None: nobody)."""
        self.on_event = on_event

    def own_pending_in_step(self) -> bool:
        return bool(self.ledger.pending[self.me])

    def own_pending(self) -> list[Message]:
        """This peer's own messages sent for a step that has not completed, in chain order."""
        return self.ledger.own_pending()

    def resend_own(self) -> list[bytes]:
        """What others may be waiting for from this peer, again (after a peer rejoined)."""
        return [m.raw for m in self.ledger.own_pending()]

    def answer_resend(self, head: bytes) -> list[bytes]:
        """What a peer whose transcript ends at ``head`` needs: what follows, and ours pending."""
        return (self.ledger.messages_after(head) or []) + self.resend_own()

    def next_seq(self, key: bytes) -> int:
        return self.ledger.transcript.next_seq(key)

    def has_next(self, key: bytes) -> bool:
        """True if ``key``'s next message for the record is already here (held for its step)."""
        return self.ledger.transcript.next_seq(key) in self.ledger.pending[key]

    def holds_head(self, head: bytes) -> bool:
        """True if this peer's record passed through ``head`` (another peer's, its abort's)."""
        return self.ledger.transcript.index_of_head(head) is not None

    def messages_since(self, key: bytes, seq: int) -> list[bytes]:
        return [m.raw for m in self.ledger.transcript.since(key, seq)]

    def held(self) -> tuple[int, int]:
        """(messages recorded, messages held for a later step): changes when one was new here."""
        return self.ledger.held()

    def seal_control(self, msg_type: MsgType, body: dict[str, object]) -> bytes:
        """This peer's next chained message, on the record's head: the runner's abort."""
        return self.ledger.chain.seal(msg_type, body, self.ledger.transcript.head)

    def record_control(self, msg: bytes | Message) -> None:
        """Append a message the machine does not handle (an abort); WireError if not next."""
        self.ledger.transcript.append(msg)

    def flush(self) -> None:
        """Write the record to disk and sync it (the game's end, an abort)."""
        self.ledger.transcript.flush(sync=True)

    def abort(self, fault: TableFault) -> None:
        """Stop on ``fault``: nothing is received or played from now on."""
        self.aborted = fault

    def adopt_record(self, transcript: Transcript) -> None:
        """Record on into a restarted peer's saved record, once replay reached its head."""
        self.ledger.adopt(transcript)

    # ================================================================ the schedule
    def _event(self, kind: str, text: str, data: dict[str, object] | None = None) -> None:
        event = TableEvent(kind, text, data or {})
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _next(self, name: str, senders: Sequence[bytes], *types: MsgType) -> None:
        """Begin the next step, at the transcript's head now."""
        self.steps.begin(Step(name, tuple(senders), frozenset(types), self.ledger.transcript.head))

    def _send_own(self, msg_type: MsgType, body: dict[str, object]) -> None:
        self.ledger.send_own(msg_type, body)

    def _seal_move(self, token: str) -> Message:
        """This seat's signed ``move`` (the card table's copy asks for it)."""
        play = self.card_round.play
        assert play is not None
        body: dict[str, object] = {"move": token, "round": play.round_no}
        return self.ledger.seal_after_own(MsgType.MOVE, body)

    def _drain(self) -> list[bytes]:
        return self.ledger.drain()  # (the record synced first: write-ahead)

    def _pump_then_fault(self) -> None:
        """Pump; a fault found while our own messages are queued waits until the caller sent
        them (:meth:`check_deferred`): the others need them to find it themselves."""
        try:
            self._pump()
        except TableFault as fault:
            if not self.ledger.sending:
                raise
            self._verdict = fault

    def _pump(self) -> None:
        for _ in range(100_000):
            step = self.steps.current
            if step is None or not step.senders or self.aborted is not None:
                break
            batch, complete = self.ledger.due(step)
            for msg in batch:  # checked as soon as it is here, not when the step is complete
                self._check_in_step(step, msg)
            if not complete:
                break
            self.ledger.take(batch)
            _HANDLERS[step.name](self, batch)

    def _check_in_step(self, step: Step, msg: Message) -> None:
        if msg.type not in step.types:
            raise self.ledger.wrong_type(step, msg)
        if msg.type is MsgType.SEAT_CONFIRM:
            self.seating.check_confirm(msg)
        if msg.type is MsgType.RESULT:
            self.check_result(msg)
        if msg.head != self.steps.head:
            raise self.ledger.diverged(step, msg)

    # ================================================================ the seating steps
    def on_confirms(self, batch: list[Message]) -> None:
        """Every seat confirmed: reveal this seat's nonce."""
        self.seating.take_confirms(batch)
        self._next("nonce", self.list_keys, MsgType.SEAT_NONCE)
        self._send_own(MsgType.SEAT_NONCE, {"nonce": self.secret.seat_nonce()})

    def on_nonces(self, batch: list[Message]) -> None:
        """Every nonce is out and opens its commitment: the coin flip fixes the play order."""
        self.seating.take_nonces(batch)
        names = ", ".join(f"{i}: {self.names[k]}" for i, k in enumerate(self.order))
        order = [self.names[k] for k in self.order]  # the players by play seat
        self._event("seated", f"seat order fixed by coin flip — {names}", {"order": order})
        self.start_card_table()

    # ================================================================ the card table's steps
    def start_card_table(self) -> None:
        """Seating is done: this seat's copy of the game and the first round's keys step."""
        seat = self.my_seat
        assert seat is not None
        self.steps.close()  # until the keys step begins: our key is sealed on the head now
        play = self.card_round.seat(seat, self._seal_move)
        self.phase = "play"
        self._event("round_started", "round 1: keys, shuffles, the deal", {"round": 0})
        self.card_round.guard(None, play.start)
        self._next_step()

    def on_card_step(self, batch: list[Message]) -> None:
        """A deck, move, word or check step is complete: its messages go to the deck and copy."""
        step = self.steps.current
        assert step is not None
        self.steps.close()  # what this seat seals now builds on the head after the batch
        if step.name == "card_check":
            self._on_check(batch)
        else:
            self.card_round.take(step.name, batch)
            if step.name in ("card_move", "card_word"):
                for msg in batch:
                    self._moved(msg, self.card_round.shown(msg))
        self._next_step()

    def _moved(self, msg: Message, token: str) -> None:
        seat, who = self.seat_of(msg.sender), self.seating.who(msg.sender)
        self._event("move", f"{who} {token}", {"seat": seat, "move": token})

    def _on_check(self, batch: list[Message]) -> None:
        """Every seat's check of the last words; one ``Words:unfit`` sends every seat to the
        final reveal, where the audit judges the words (protocol.md §11, "The words' check")."""
        for msg in batch:
            self._moved(msg, self.card_round.check_token(msg))
        call = self.card_round.call_of(batch)
        if call is not None:
            why = f"{self.seating.who(call.sender)} finds the owners' words fit no arrangement"
            self._event("audit", f"{why}: every card is revealed", {"why": why})
        self.card_round.settle_words(call is not None)

    def _next_step(self) -> None:
        """Begin the step the card table has reached: a deck, word or check step, or a move."""
        due = self.card_round.due()
        if due is not None:
            self._next(*due)
            return
        play = self.card_round.play
        assert play is not None
        if self.card_contradiction is not None:
            self.card_round.judge_the_call()
        if play.closed:
            self._round_over()
            return
        mover = play.copy.to_move
        assert mover is not None, "the game waits for nobody"
        mover_key = self.seating.order[mover]
        self._next("card_move", (mover_key,), *MOVE_TYPES)
        if mover_key == self.me:
            self.card_round.replay_own_move(self.steps.head)

    def _round_over(self) -> None:
        """A round's table is revealed: audit it, then the result (game over) or the next round."""
        play = self.card_round.play
        assert play is not None
        self.card_round.audit()
        r, copy = play.round_no, play.copy
        self.rounds_audited = r + 1
        scores = copy.round_scores[-1] if copy.round_scores else list(copy.totals)
        self._event(
            "round_ended",
            f"round {r + 1} over ({copy.ended_by}): scores {scores}",
            {"round": r, "scores": list(scores), "ended_by": copy.ended_by},
        )
        if copy.game_over:  # (the record is synced as our result or next keys leave: write-ahead)
            self.start_result()
            return
        self._event("round_started", f"round {r + 2}: keys, shuffles, the deal", {"round": r + 1})
        self.card_round.next_round()
        self._next_step()

    def take_back_own_move(self) -> None:
        """Our own move for the move step under way, sent back by a peer (our record lost it after
        it left): made again as if our record held it, never chosen anew (protocol.md §8)."""
        step = self.steps.current
        if step is not None and step.name == "card_move" and step.senders == (self.me,):
            self.card_round.replay_own_move(self.step_head)

    # ================================================================ the result step
    def start_result(self) -> None:
        """The last round is audited: every seat now signs what the game gives."""
        totals, winners = self.outcome()
        assert winners is not None
        self.phase = "result"
        self._next("result", self.order, MsgType.RESULT)
        self._send_own(MsgType.RESULT, result_body(totals, winners))

    def check_result(self, msg: Message) -> None:
        """A result is checked the moment it is its sender's next message in the step."""
        totals, winners = self.outcome()
        assert winners is not None
        problem = result_problem(msg.body, totals, winners)
        if problem is not None:
            raise self.seating.fault(msg, f" {problem}")

    def on_results(self, batch: list[Message]) -> None:
        """Every seat signed the same result as this peer: the game is over."""
        totals, winners = self.outcome()
        self.phase = "done"
        self.steps.close()
        self.finished = True
        self._event(
            "game_over",
            f"game over: totals {totals}, winners {winners}",
            {"totals": totals, "winners": winners},
        )


_HANDLERS: dict[str, Callable[[TableMachine, list[Message]], None]] = {
    "confirm": TableMachine.on_confirms,
    "nonce": TableMachine.on_nonces,
    "result": TableMachine.on_results,
    **dict.fromkeys(
        ("card_deck", "card_move", "card_word", "card_check"), TableMachine.on_card_step
    ),
}
"""Each step's method, run once the step is complete."""
