"""``druids audit`` for a game at the mental card table: the record replayed round by round with
every card known, through the table's own checks (protocol.md §11, "The offline audit"). The game's
onlooker replays it where the game has one (it holds no hand, so every seat is judged alike).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from druids_p2p.audit.schedule import Owing, ScheduleWalk
from druids_p2p.deck import DeckError, DeckFault, MalformedMessage
from druids_p2p.deck.shuffle_passes import prove_held
from druids_p2p.deck.table_audit import audit_state, joint_secret, position_card, secret_fault
from druids_p2p.deck.table_messages import KIND_TABLE_REVEAL, TableRevealMsg, parse_table_body
from druids_p2p.deck.table_ops import advance, senders
from druids_p2p.deck.table_state import TableState
from druids_p2p.games.seam import CardTableRuleset, TableOptions
from druids_p2p.lan.seating import carried_in_play_order, winners_of, with_carried
from druids_p2p.table.card_table_play import (
    FINAL,
    MOVE_TYPES,
    WORDS_CHECKS,
    WORDS_FIT,
    table_op,
    take_message,
)
from druids_p2p.table.card_table_round import result_problem
from druids_p2p.table.codec import MoveRefused, SignedMoves, deck_envelope, moves_of
from druids_p2p.wire import Message, MsgType
from druids_p2p.wire.transcript import AuditProblem

MAX_STEPS = 1 << 16
"""A bound on the steps of one round (a whole 4-seat game takes a few hundred)."""
MAX_ROUNDS = 64
"""A bound on the rounds of one game (Druids 2017 plays at most 5)."""
_OP_TYPES = {
    "shuffle": MsgType.TABLE_SHUFFLE,
    "deal": MsgType.TABLE_SHARE,
    "turn": MsgType.TABLE_SHARE,
    "deals": MsgType.TABLE_SHARES,
    "reveal": MsgType.TABLE_OPEN,
    "final": MsgType.TABLE_REVEAL,
}
_MOVES = set(MOVE_TYPES)


class CardTableReplay:
    """One card table's record after its seating, replayed step by step (:meth:`run`)."""

    def __init__(
        self,
        messages: Sequence[Message],
        walk: ScheduleWalk,
        rules: CardTableRuleset,
        options: TableOptions,
        settled: Callable[[CardTableReplay], None] | None = None,
        carried: Mapping[bytes, Sequence[int]] | None = None,
    ) -> None:
        """``settled``: called whenever the game waits for a seat's move or words, and at its
        end, with every card opened so far known to the copy (``druids replay`` takes its
        views there: ``audit/replay.py``). ``carried``: each seat's rounds carried from the
        tables before (``lan/seating.py``), which count in the result it signed."""
        assert walk.seated_at is not None
        self.messages, self.walk, self.order = messages, walk, walk.order
        self.settled = settled
        self.i = walk.seated_at
        """The next message to replay; where the record ends or its stop tail begins, after."""
        self.rules, self.players = rules, options.players
        self.carried = dict(carried or {})
        self.deck = self._table(0)
        # the onlooker (else seat 0's copy), told every card: hidden guesses are the truth
        game_options = rules.make_options(options.players, options.variant, options.rounds)
        onlooker = rules.onlooker(game_options)
        self.public = onlooker is not None
        """The copy follows the game by what is public alone (past a word without secrets)."""
        self.copy = onlooker or rules.table_seat(game_options, 0, random.Random(0))
        self.tables: list[tuple[TableState, int | None]] = []
        """Every round's card table replayed so far with its joint secret (None: not in the
        record), the current one last."""
        self.dealt: dict[int, tuple[tuple[int, ...], ...]] = {}
        """Each round's hands as dealt (the cards of the positions dealt to each seat when the
        game first waited for a seat), where the round's secrets are in the record."""
        self.words: set[int] = set()
        """Where the owners' words lie in the record (the rest of the moves are the game's)."""
        self.signed = SignedMoves()
        """Where each move of the copy's log lies in the record (the log is the copy's)."""
        self.owing: Owing | None = None
        """What the step the record stops in still waits for (None: it stops between steps)."""
        self.complete = False
        self._x: int | None = None
        self._told: set[int] = set()
        self._revealing = False
        self.blind_at: int | None = None
        """Where the replay stopped for want of the secrets (an owners' word step): the messages
        from there on are signed and chained, but their content is not replayed."""
        """A seat called the words contradicted: the deck goes straight to the final reveal."""

    def seat(self, key: bytes) -> int | None:
        return self.order.index(key) if key in self.order else None

    @property
    def cards_known(self) -> bool:
        """Every seat's secret is in the record (its final reveal): the copy is told every card
        the moment its position is taken, so its world is the truth wherever a card is out."""
        return self._x is not None

    def card_at(self, position: int, round_no: int | None = None) -> int | None:
        """The card at a taken ``position`` of round ``round_no``'s table (None: the current
        one), once every secret of that round is known (None otherwise)."""
        if round_no is None or round_no == self.deck.round_no:
            state, x = self.deck, self._x
        elif 0 <= round_no < len(self.tables):
            state, x = self.tables[round_no]
        else:
            return None
        if x is None or not 0 <= position < len(state.positions):
            return None
        return position_card(state, position, x)

    def _settled(self) -> None:
        if self.settled is not None:
            self.settled(self)

    # ------------------------------------------------------------------ the walk
    def run(self) -> None:
        """Replay to the end of the game (``complete``) or of the record; raises
        :class:`AuditProblem` at the first message the table would have refused, or, where the
        replay stops before the deck's final reveal (the record ends, stops, or goes on past an
        owners' word step without every true secret), at a false secret the record reveals."""
        self._run()
        if not self.deck.finished:  # (else the deck's final reveal checked every secret)
            self._check_secrets()

    def _table(self, round_no: int) -> TableState:
        """Round ``round_no``'s card table, as every seat made it (its own keys, positions)."""
        table_id = self.messages[0].table_id
        return TableState(table_id, round_no, self.players, self.rules.deck_size)

    @property
    def totals(self) -> list[int]:
        """The game's totals in play order, a continued table's carried rounds included."""
        return with_carried(self.copy.totals, self.order, self.carried)

    @property
    def round_scores(self) -> list[list[int]]:
        """Every round's scores in play order, the carried ones first."""
        own = [list(s) for s in self.copy.round_scores]
        return carried_in_play_order(self.order, self.carried) + own

    def _run(self) -> None:
        for round_no in range(MAX_ROUNDS):
            if round_no:
                self.deck, self._x, self._told = self._table(round_no), None, set()
            self.tables.append((self.deck, None))
            if not self._round():
                return
            if self.copy.game_over:
                break
        else:
            raise AuditProblem("the game does not end", self.i)
        totals = self.totals
        winners = self.copy.winners
        assert winners is not None
        winners = winners_of(totals) if self.carried else winners
        everyone = tuple(range(len(self.order)))

        def result(index: int, msg: Message) -> None:
            problem = result_problem(msg.body, totals, winners)
            if problem is not None:
                raise AuditProblem(
                    f"seat {self.seat(msg.sender)} {problem}", index, self.seat(msg.sender)
                )

        self.complete = self._step("result", everyone, {MsgType.RESULT}, result)

    def _round(self) -> bool:
        """One round's card table to its final reveal, its audit and its breaches; False where
        the record ends, stops or cannot be replayed further."""
        everyone = tuple(range(len(self.order)))
        if not self._step("card_deck", everyone, {MsgType.TABLE_KEY}, self._deck_message):
            return False
        self._x = joint_secret(self.deck, self._secrets())
        self.tables[-1] = (self.deck, self._x)
        for _ in range(MAX_STEPS):
            self._settle()
            deck = self.deck
            if deck.done < len(deck.ops):
                op = deck.ops[deck.done]
                owed = senders(deck, deck.done, op)
                if not owed:  # (the deck completes those at once: a schedule gone wrong)
                    raise AuditProblem(f"operation {deck.done} ({op.kind}) waits for nobody")
                who = (owed[deck.progress],) if op.kind == "shuffle" else owed
                types = {_OP_TYPES[op.kind]}
                if not self._step("card_deck", who, types, self._deck_message):
                    try:  # the record stops: a bad pass held before it is named first
                        prove_held(deck)
                    except DeckFault as exc:
                        raise self._fault(exc) from None
                    return False
                continue
            if deck.finished:
                break
            self._deal_seen()
            if self.copy.words_due():
                if self._x is None and not self.public:  # the words steer it by unseen cards
                    self.blind_at = self.i
                    return False
                self._settled()
                asked = self.copy.words_asked()
                if not self._step("card_word", asked, {MsgType.MOVE}, self._move):
                    return False
                if not self._step("card_check", everyone, {MsgType.MOVE}, self._check):
                    return False
                continue
            mover = self.copy.to_move
            if mover is None:
                raise AuditProblem("the game waits for nobody", self.i)
            self._settled()
            if not self._step("card_move", (mover,), _MOVES, self._move):
                return False
        else:
            raise AuditProblem("the round does not end", self.i)
        self._settled()
        try:
            audit = audit_state(self.deck)
        except DeckFault as exc:
            raise self._fault(exc) from None
        cards = {p.index: p.card for p in audit.positions}
        for seat, taken, reason in self.copy.breaches(cards)[:1]:
            by_rounds = "rounds" in self.rules.table_flags
            where = f" in round {self.deck.round_no + 1}" if by_rounds else ""
            raise AuditProblem(
                f"seat {seat} broke a rule{where}: {reason}",
                self.signed.at(self.deck.round_no, taken),
                seat,
            )
        return True

    def _deal_seen(self) -> None:
        """The game waits for a seat: the round's hands as dealt, the first time, if known."""
        r, x, state = self.deck.round_no, self._x, self.deck
        if r in self.dealt or x is None:
            return
        hands: list[list[int]] = [[] for _ in range(self.players)]
        for p, pos in enumerate(state.positions):
            card = position_card(state, p, x)
            if pos.owner is not None and card is not None:
                hands[pos.owner].append(card)
        self.dealt[r] = tuple(tuple(h) for h in hands)

    def _step(
        self,
        name: str,
        seats: Sequence[int],
        types: set[MsgType],
        take: Callable[[int, Message], None],
    ) -> bool:
        """One step: its messages in place, then each taken; False where the record ends or
        its stop tail begins (``owing`` says what the step still waited for)."""
        start = self.i
        head = self._head(start)
        for k, seat in enumerate(seats):
            i = start + k
            key = self.order[seat]
            if i >= len(self.messages) or self._mismatch(i, key, types, head):
                if i < len(self.messages) and not self.walk.is_tail(i):
                    raise self.walk.breach(i, name, key, types, head)
                what = "/".join(sorted(t.label for t in types))
                # A recorder's own message for the step is in its stop tail (recorded before
                # its abort, not in its place): that seat owed nothing.
                paid = {m.sender for m in self.messages[i:] if m.type in types and m.head == head}
                owed = frozenset(s for s in seats[k:] if self.order[s] not in paid)
                self.owing = Owing(what, owed, human=name == "card_move")
                self.i = i
                return False
        self.i = start + len(seats)
        for k in range(len(seats)):
            take(start + k, self.messages[start + k])
        return True

    def _head(self, i: int) -> bytes:
        return self.walk.head_before(i) if i < len(self.messages) else b""

    def _mismatch(self, i: int, key: bytes, types: set[MsgType], head: bytes) -> bool:
        msg = self.messages[i]
        return msg.sender != key or msg.type not in types or msg.head != head

    # ------------------------------------------------------------------ the content
    def _deck_message(self, index: int, msg: Message) -> None:
        seat = self.seat(msg.sender)
        env = deck_envelope(msg, seat if seat is not None else -1)
        assert env is not None and seat is not None  # the step checked type and sender
        try:
            self.deck.add(env.seat, env.kind, env.body, env.raw)
            advance(self.deck)
        except DeckFault as exc:
            raise self._fault(exc) from None
        except (MalformedMessage, DeckError) as exc:
            raise AuditProblem(f"card table: {exc}", index, seat) from None

    def _move(self, index: int, msg: Message) -> None:
        seat = self.seat(msg.sender)
        assert seat is not None
        truth = self.copy.word_of(seat) if self._x is not None else None
        said = msg.body.get("move")
        if truth is not None and said != truth:  # every card known: the word is checked
            raise AuditProblem(
                f"seat {seat}'s word {said} is false: the cards it spoke for say {truth}",
                index,
                seat,
            )
        try:
            r = self.deck.round_no
            index_in_round = len(moves_of(self.copy, r))
            word = bool(self.copy.words_due())
            op = take_message(self.copy, self.rules.Move, seat, msg, round_no=r)
        except MoveRefused as refused:
            raise AuditProblem(f"seat {seat}'s move is refused: {refused}", index, seat) from None
        except RuntimeError as exc:  # the words fit no arrangement of the real hidden cards
            raise AuditProblem(f"the seats' words are false: {exc}", index, None) from None
        self.signed.note(r, index_in_round, msg.hash, index)
        if word:
            self.words.add(index)
        if op is not None:
            self.deck.push(table_op(op))
            self._deck_message(index, msg)

    def _check(self, index: int, msg: Message) -> None:
        """A seat's check of the words just given (protocol.md §11, "The words' check"): with
        every card known the words were each found true at their messages, so a call that they
        fit nothing is false; without, the table went straight to the final reveal."""
        seat = self.seat(msg.sender)
        token = msg.body.get("move")
        if token not in WORDS_CHECKS:
            raise AuditProblem(
                f"seat {seat} sent {token!r} when the words' check was due", index, seat
            )
        if token == WORDS_FIT:
            return
        if self._x is not None:
            raise AuditProblem(
                f"seat {seat} called the owners' words contradicted, but every word is true "
                "(the final reveal shows every card)",
                index,
                seat,
            )
        if not self._revealing:  # the first call: nothing but the final reveal follows
            self._revealing = True
            self.deck.push(FINAL)

    def _settle(self) -> None:
        """Tell the copy every card it may learn now, and push the operations it gives once the
        deck has completed every one before (as a seat's copy at the table is asked)."""
        for _ in range(MAX_STEPS):
            try:
                advance(self.deck)
            except DeckFault as exc:
                raise self._fault(exc) from None
            self._learn()
            if self.deck.done < len(self.deck.ops) or self.deck.finished:
                return  # (a finished round's table takes no more: the next round has its own)
            ops = [] if self._revealing else self.copy.ops()
            if not ops:
                return
            for op in ops:
                self.deck.push(table_op(op))

    def _learn(self) -> None:
        state, x = self.deck, self._x
        for p, pos in enumerate(state.positions):
            if p in self._told:
                continue
            card = pos.card if x is None else position_card(state, p, x)
            if card is None:
                continue
            try:
                self.copy.learn(p, card)
            except ValueError as exc:
                raise AuditProblem(f"card table: position {p} holds card {card}: {exc}") from None
            self._told.add(p)

    def _secrets(self) -> dict[int, bytes]:
        """Each seat's secret from its final ``table_reveal`` in the record (checked against
        its key by :func:`joint_secret`; a false one is blamed at the deck's final reveal, or
        by :meth:`_check_secrets` where the replay stops before it)."""
        return {seat: body.secret for _, seat, body in self._reveals()}

    def _reveals(self) -> list[tuple[Message, int, TableRevealMsg]]:
        """Every well-formed ``table_reveal`` of a seat at this round's table, in record order."""
        out: list[tuple[Message, int, TableRevealMsg]] = []
        assert self.walk.seated_at is not None
        for msg in self.messages[self.walk.seated_at :]:
            seat = self.seat(msg.sender)
            if msg.type is not MsgType.TABLE_REVEAL or seat is None:
                continue
            if msg.body.get("round") != self.deck.round_no:
                continue
            try:
                body = parse_table_body(KIND_TABLE_REVEAL, dict(msg.body))
            except MalformedMessage:
                continue
            if isinstance(body, TableRevealMsg):
                out.append((msg, seat, body))
        return out

    def _check_secrets(self) -> None:
        """Every final secret the record reveals, against its seat's ``table_key`` and every
        share and opening it proved in what was replayed (``secret_fault``): a signed false
        secret is its signer's fault whatever the record could not replay (protocol.md §11)."""
        for msg, seat, body in self._reveals():
            fault = secret_fault(self.deck, seat, body.secret, msg.raw)
            if fault is not None:
                raise self._fault(fault)

    def _fault(self, exc: DeckFault) -> AuditProblem:
        where = None
        if exc.evidence:
            where = next((i for i, m in enumerate(self.messages) if m.raw == exc.evidence[0]), None)
        return AuditProblem(f"card table: {exc.reason}", where, exc.seat)
