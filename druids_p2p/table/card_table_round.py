"""A game at the mental card table as the table machine's steps, round after round (the schedule
is protocol.md §11's): this seat's copy of the game and its deck seat driven in step, each round
its own deck, audited at its final reveal, then the result every seat signs.

The schedule is followed by a cursor over the operations the transcript has completed, not over
this seat's deck, which may have gone ahead on its own messages alone (a play, a reveal only it
owes).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, NoReturn

from druids_p2p.deck import AuditRequired, DeckError, DeckFault, MalformedMessage
from druids_p2p.deck.table_audit import audit_state
from druids_p2p.deck.table_ops import senders
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.games.seam import GameMove
from druids_p2p.table.card_table_play import (
    CARD_PLAYS,
    MOVE_TYPES,
    WORDS_CHECKS,
    WORDS_UNFIT,
    CardTablePlay,
    MoveFault,
    is_logged_move,
)
from druids_p2p.table.codec import TABLE_KIND_TYPES, WireCodec
from druids_p2p.table.table_state import TableFault, TableMachineState
from druids_p2p.wire import Message, MsgType, next_head

# A game at the mental card table as the table machine's steps, round after round.
KEYS = -1
"""The cursor before the first operation: the keys step."""
_OP_TYPES = {
    "shuffle": MsgType.TABLE_SHUFFLE,
    "deal": MsgType.TABLE_SHARE,
    "turn": MsgType.TABLE_SHARE,
    "deals": MsgType.TABLE_SHARES,
    "reveal": MsgType.TABLE_OPEN,
    "final": MsgType.TABLE_REVEAL,
}
assert set(_OP_TYPES.values()) <= set(TABLE_KIND_TYPES.values())


# The ``result`` step: every seat signs the totals and winners it computed, once the game is
# over.
def result_body(totals: list[int], winners: list[int]) -> dict[str, Any]:
    """What a seat signs: totals in play order (play seat 0 first) and the winners' play seats,
    in increasing order."""
    return {"totals": list(totals), "winners": sorted(winners)}


def result_problem(body: Mapping[str, Any], totals: list[int], winners: list[int]) -> str | None:
    """Why a signed result is not the one the game gives, or None when it is."""
    expected = result_body(totals, winners)
    if list(body["totals"]) != expected["totals"] or list(body["winners"]) != expected["winners"]:
        return (
            f"signed the result totals {list(body['totals'])}, winners {list(body['winners'])}; "
            f"the game gives totals {expected['totals']}, winners {expected['winners']}"
        )
    return None


class CardTableSteps(TableMachineState):
    """The table machine's steps at the mental card table, round after round, and its result
    step: the methods :class:`~druids_p2p.table.table.TableMachine` adds to its state."""

    def start_card_table(self) -> None:
        """Seating is done: this seat's copy of the game and the first round's card table, then
        its keys step."""
        rules = self.card_rules
        seat = self.my_seat
        assert seat is not None
        self.steps.close()  # until the keys step begins below: our key is sealed on the head now
        o = self.options
        world = random.Random(self.secret.derive("table-world"))  # guesses only, never a secret
        copy = rules.table_seat(rules.make_options(o.players, o.variant, o.rounds), seat, world)

        def seal_move(token: str) -> Message:
            assert self.card_play is not None
            body = {"move": token, "round": self.card_play.round_no}
            msg = self.chain.seal_message(MsgType.MOVE, body, self._head())
            self._queue_own(msg)
            return msg

        self.card_play = CardTablePlay(
            copy, self._new_table(0), self.seat_of, seal_move, self.recorded, rules.Move
        )
        self.card_cursor = (KEYS, 0)
        self.phase = "play"
        self._event("round_started", "round 1: keys, shuffles, the deal", {"round": 0})
        self._guard(None, self.card_play.start)
        self._next_step()

    def _new_table(self, round_no: int) -> TablePeer:
        """This seat's deck seat at round ``round_no``'s card table: fresh keys, positions from 0,
        its secret drawn from this table's secret and the round (deterministic: a restart signs
        the same messages again)."""
        seat = self.my_seat
        assert seat is not None
        codec = WireCodec(
            seat, self.chain, lambda: self._head(), self.seat_of, self.recorded, self._queue_own
        )
        tag = f"table/{self.ruleset}" if round_no == 0 else f"table/{self.ruleset}/{round_no}"
        return TablePeer(
            self.table_id,
            round_no,
            self.options.players,
            self.card_rules.deck_size,
            codec,
            entropy=self.secret.entropy(tag),
        )

    def _head(self) -> bytes:
        """The head our next message builds on: the transcript's, after every message of ours
        already sealed but not yet appended. Those are for steps of ours alone that come first (a
        deck can only run ahead of the transcript on this seat's own messages: its pass, its play,
        a reveal only it owes), so the head their steps leave is known here already."""
        head = self.transcript.head
        for seq, msg in sorted(self.pending[self.me].items()):
            if self.transcript.next_seq(self.me) <= seq < self.chain.seq:
                head = next_head(head, msg.hash)
        return head

    def move_value(self, move: int | GameMove) -> GameMove:
        """A player's move as the game's value: a move id (a bot answers with one) is made one
        here, where it enters the table, once (ValueError for an id that is no move)."""
        return self.card_rules.Move.of(move) if isinstance(move, int) else move

    def own_card_move(self, move: int | GameMove) -> None:
        """This seat's move, checked by its copy of the rules (IllegalMove / ValueError)."""
        assert self.card_play is not None
        self.card_play.play(self.move_value(move))

    def on_card_step(self, batch: list[Message]) -> None:
        """A deck step or a move step is complete: hand its messages to the deck and the copy."""
        play = self.card_play
        assert play is not None
        step = self.step
        assert step is not None
        self.steps.close()  # what this seat seals now builds on the head after the batch
        op, pass_no = self.card_cursor
        if step.name == "card_check":
            self._on_check(batch)
            self._next_step()
            return
        first = len(self.transcript) - len(batch)  # the batch is appended: its moves' places
        for i, msg in enumerate(batch):
            if is_logged_move(msg):
                play.placed(msg.raw, first + i)
            if msg.sender != self.me:
                self._guard(msg, lambda m=msg: play.receive(m))
        if step.name == "card_word":
            self.card_check_due = True
        if step.name in ("card_move", "card_word"):
            for msg in batch:
                seat = self.seat_of(msg.sender)
                token = self._shown(msg)
                self._event(
                    "move", f"{self._who(msg.sender)} {token}", {"seat": seat, "move": token}
                )
                if msg.type in CARD_PLAYS:
                    op += 1  # the move was the play operation's one message
        elif op == KEYS:
            op = 0
        elif play.peer.state.ops[op].kind == "shuffle" and pass_no + 1 < self.options.players:
            pass_no += 1
        else:
            op, pass_no = op + 1, 0
        self.card_cursor = (op, pass_no)
        self._next_step()

    def _on_check(self, batch: list[Message]) -> None:
        """Every seat's check of the last words: a token that is neither is its sender's fault;
        one ``Words:unfit`` (the first, in play order, is kept as the call) sends every seat
        to the final reveal, where the audit judges the words."""
        assert self.card_play is not None
        for msg in batch:
            token = msg.body["move"]
            if token not in WORDS_CHECKS:
                raise TableFault(
                    f"{self._who(msg.sender)} sent {token!r} when the words' check was due",
                    self.seat_of(msg.sender),
                    (msg.raw,),
                )
            seat = self.seat_of(msg.sender)
            self._event("move", f"{self._who(msg.sender)} {token}", {"seat": seat, "move": token})
        calls = [m for m in batch if m.body["move"] == WORDS_UNFIT]
        if calls:
            self.card_contradiction = calls[0]
            why = f"{self._who(calls[0].sender)} finds the owners' words fit no arrangement"
            self._event("audit", f"{why}: every card is revealed", {"why": why})
        self._guard(None, lambda: self.card_play.settle_words(bool(calls)))

    def _next_step(self) -> None:
        """Begin the step the cursor has reached (skipping operations nobody sends for)."""
        play = self.card_play
        assert play is not None
        state = play.peer.state
        op, pass_no = self.card_cursor
        if op == KEYS:
            self._next("card_deck", self.order, MsgType.TABLE_KEY)
            return
        if self.card_check_due:  # right after the words: every seat's check of them
            self.card_check_due = False
            self._next("card_check", self.order, MsgType.MOVE)
            return
        while True:
            if play.word_rounds and play.word_rounds[0][0] <= op:
                _, asked = play.word_rounds.pop(0)  # the owners' word: Word:yes / Word:no moves
                self.card_cursor = (op, 0)
                self._next("card_word", tuple(self.order[s] for s in asked), MsgType.MOVE)
                return
            if op >= len(state.ops):
                break
            owed = senders(state, op, state.ops[op])
            if owed:
                kind = state.ops[op].kind
                who = (owed[pass_no],) if kind == "shuffle" else owed
                self.card_cursor = (op, pass_no)
                self._next("card_deck", tuple(self.order[s] for s in who), _OP_TYPES[kind])
                return
            op, pass_no = op + 1, 0
        self.card_cursor = (op, 0)
        copy = play.copy
        if self.card_contradiction is not None:
            self._audit()
            self._blame_the_call(self.card_contradiction)
        if play.closed:
            self._round_over()
            return
        mover = copy.to_move
        assert mover is not None, "the game waits for nobody"
        self._next("card_move", (self.order[mover],), *MOVE_TYPES)
        if self.order[mover] == self.me:
            self._replay_own_move()

    def _round_over(self) -> None:
        """A round's card table is revealed: audit it and judge its breaches, then the result
        (the game is over) or the next round's table."""
        play = self.card_play
        assert play is not None
        self._audit()
        r = play.round_no
        self.rounds_audited = r + 1
        copy = play.copy
        scores = copy.round_scores[-1] if copy.round_scores else list(copy.totals)
        self._event(
            "round_ended",
            f"round {r + 1} over ({copy.ended_by}): scores {scores}",
            {"round": r, "scores": list(scores), "ended_by": copy.ended_by},
        )
        if copy.game_over:  # (the record is synced as our result or next keys leave: write-ahead)
            self.start_result()
            return
        self.card_cursor = (KEYS, 0)
        self._event("round_started", f"round {r + 2}: keys, shuffles, the deal", {"round": r + 1})
        self._guard(None, lambda: play.next_round(self._new_table(r + 1)))
        self._next_step()

    def _shown(self, msg: Message) -> str:
        """A move message as the events show it: the game's token, or the card put down."""
        if msg.type is MsgType.MOVE:
            return str(msg.body["move"])
        if msg.type is MsgType.TABLE_SHOW:
            assert self.card_play is not None
            shown: GameMove = self.card_play.copy.shown_move(
                int(msg.body["card"]), str(msg.body["zone"])
            )
            return shown.token()
        return f"play {msg.body['zone']}"

    def take_back_own_move(self) -> None:
        """Our own move for the move step under way, sent back by a peer (our record lost it after
        it left): made again as if our record held it, never chosen anew (protocol.md §8)."""
        step = self.step
        if step is not None and step.name == "card_move" and step.senders == (self.me,):
            self._replay_own_move()

    def _replay_own_move(self) -> None:
        """A restarted peer whose saved record holds its move for this step makes that move again,
        now, as it made it then (its player is not asked twice): the same bytes at the same head."""
        assert self.card_play is not None
        seq = self.transcript.next_seq(self.me)
        saved = self.pending[self.me].get(seq)
        if saved is None or seq < self.chain.seq or saved.head != self.step_head:
            return  # nothing saved for this step, or this step's move is already made
        move = self._saved_move(saved)
        if move is None:
            raise TableFault(f"the saved record's {saved.type.label} is no move this seat can make")
        try:
            self.own_card_move(move)
        except ValueError as exc:  # the saved record is not this table's: it replays otherwise
            raise TableFault(f"the saved record's own move is refused on replay: {exc}") from None

    def _saved_move(self, saved: Message) -> GameMove | None:
        """The move id of this seat's saved move message (a card put down: the legal move that puts
        the card at that position of its hand into that zone), None if it is none."""
        play, rules = self.card_play, self.card_rules
        assert play is not None and rules is not None
        try:
            if saved.type is MsgType.MOVE:
                return rules.Move.from_token(str(saved.body["move"]))
            if saved.type in CARD_PLAYS:
                down = (play.peer.known().get(int(saved.body["pos"])), str(saved.body["zone"]))
                legal = (rules.Move.of(m) for m in play.copy.legal_moves())
                return next((m for m in legal if play.copy.table_move(m) == down), None)
        except (ValueError, KeyError):
            return None
        return None

    def _audit(self) -> None:
        """Every secret is out: the deck recomputes every position and deck (deck.md §15.6)."""
        assert self.card_play is not None
        try:
            audit = audit_state(self.card_play.peer.state)
        except DeckFault as exc:
            raise TableFault(f"audit: {exc.reason}", exc.seat, exc.evidence) from None
        play = self.card_play
        cards = {p.index: p.card for p in audit.positions}
        for seat, taken, reason in play.copy.breaches(cards)[:1]:
            at = play.signed.at(
                play.round_no, taken
            )  # the breach's move, where the record holds it
            evidence = (self.transcript.messages[at].raw,) if at >= 0 else ()
            where = (
                f" in round {play.round_no + 1}" if "rounds" in self.card_rules.table_flags else ""
            )
            raise TableFault(
                f"audit: {self._who(self.order[seat])} broke a rule{where}: {reason} (the final "
                "reveal shows every card)",
                seat,
                evidence,
            )

    def _blame_the_call(self, call: Message) -> NoReturn:
        """The audit found every word true, so the seat that called them contradicted, whose
        cards the reveal shows, had an arrangement before it (the truth): its call is false."""
        raise TableFault(
            f"audit: {self._who(call.sender)} called the owners' words contradicted, but every "
            "word is true (the final reveal shows every card)",
            self.seat_of(call.sender),
            (call.raw,),
        )

    def prove_held(self) -> None:
        """Before a seat is blamed for a pass it did not send: the passes the shuffle holds are
        proven now (otherwise they are, together, once its last pass is in; deck.md §10.2), so a bad
        pass before the silence is blamed first (a :class:`TableFault` naming its shuffler)."""
        if self.card_play is not None:
            self._guard(None, self.card_play.peer.prove_held)

    def _guard(self, msg: Message | None, call: object) -> None:
        """Run a deck or copy call; a cheat found is a :class:`TableFault` naming its seat."""
        assert callable(call)
        try:
            call()
        except MoveFault as exc:
            mover = self._who(self.order[exc.seat])
            raise TableFault(
                f"{mover}'s move is refused: {exc.reason}", exc.seat, (exc.raw,)
            ) from None
        except DeckFault as exc:
            raise TableFault(f"card table: {exc.reason}", exc.seat, exc.evidence) from None
        except AuditRequired as exc:
            raise TableFault(f"card table needs an audit: {exc}", None, exc.evidence) from None
        except RuntimeError as exc:  # the rules cannot decide from what is known (nobody's fault)
            raise TableFault(f"the game cannot go on at this table: {exc}", None) from None
        except (MalformedMessage, DeckError) as exc:
            seat = None if msg is None else self.seat_of(msg.sender)
            raw = () if msg is None else (msg.raw,)
            raise TableFault(f"card table: {exc}", seat, raw) from None

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
            raise TableFault(
                f"{self._who(msg.sender)} {problem}", self.seat_of(msg.sender), (msg.raw,)
            )

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
