"""One seat of a game played at a mental card table, over signed wire messages.

It keeps the rule set's copy of the game for this seat in step with the deck's seat (deck.md
§10.2); the table machine orders and times the messages (protocol.md §11).
"""

from __future__ import annotations

from collections.abc import Callable

from druids_p2p.deck import MalformedMessage
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.games.seam import (
    MOVE,
    PLAY,
    WORD,
    CardOp,
    CardTableSeat,
    GameMove,
    MoveValues,
    TableMove,
)
from druids_p2p.table.codec import (
    MoveRefused,
    SignedMoves,
    check_table_move,
    deck_envelope,
    moves_of,
    table_refusal,
    take_table_move,
)
from druids_p2p.wire import Message, MsgType

MAX_HELD = 64
"""Moves held ahead of this seat's progress, per table (more is flooding)."""
WORDS_FIT, WORDS_UNFIT = "Words:fit", "Words:unfit"
"""A seat's signed check of a round of owners' words (the ``move`` of the words' check step)."""
WORDS_CHECKS = frozenset({WORDS_FIT, WORDS_UNFIT})
"""The words' check tokens: a ``move`` message, but no move (see :func:`is_logged_move`)."""
FINAL = TableOp("final")
"""The deck's final reveal, pushed at once when a seat found the words contradicted."""


CARD_PLAYS = frozenset({MsgType.TABLE_PLAY, MsgType.TABLE_SHOW})
"""A card put down: face down (``table_play``) or shown face up (``table_show``)."""
MOVE_TYPES = frozenset({MsgType.MOVE, *CARD_PLAYS})
SHARES = frozenset({MsgType.TABLE_SHARE, MsgType.TABLE_SHARES})
"""The messages whose proofs a seat checks while their step's others are on the way."""
"""Every message a move step takes."""


def table_op(op: CardOp) -> TableOp:
    """The deck's operation for the rule set's (the same fields; the deck checks them)."""
    return TableOp(
        op.kind, op.deck, op.zone, op.seat, tuple(op.cards), op.position, op.source, tuple(op.seats)
    )


def message_move(
    copy: CardTableSeat, values: MoveValues, seat: int, msg: Message, *, round_no: int
) -> TableMove:
    """``seat``'s signed ``move``, ``table_play`` or ``table_show`` as one move value, built
    once from its body (a ``move``'s token parsed once, by the game's ``Move``; a word while
    the seats' words are due). A body for another round, or one that names no move, is refused
    (:class:`~druids_p2p.table.codec.MoveRefused`; a token that names none after the table's own
    refusals, as the rules would give it)."""
    if msg.body.get("round") != round_no:
        raise MoveRefused(
            f"sent a {msg.type.label} for round {msg.body.get('round')}, not this one"
        )
    try:
        if msg.type is MsgType.MOVE:
            token = str(msg.body["move"])
        else:
            zone, position = str(msg.body["zone"]), int(msg.body["pos"])
            card = int(msg.body["card"]) if msg.type is MsgType.TABLE_SHOW else None
    except (KeyError, TypeError, ValueError) as exc:
        raise MoveRefused(f"sent a {msg.type.label} that names no move ({exc})") from None
    if msg.type is not MsgType.MOVE:
        return TableMove(PLAY, seat, zone=zone, position=position, card=card)
    if copy.words_due():
        return TableMove(WORD, seat, token=token)
    try:
        move = values.from_token(token)
    except ValueError as exc:
        reason = table_refusal(copy, seat, MOVE)
        raise (MoveRefused(reason) if reason else MoveRefused(str(exc), str(exc))) from None
    return TableMove(MOVE, seat, move, token)


def take_message(
    copy: CardTableSeat, values: MoveValues, seat: int, msg: Message, *, round_no: int
) -> CardOp | None:
    """``seat``'s signed move (:func:`message_move`) taken by ``copy``, which checks it once
    and logs it (:func:`~druids_p2p.table.codec.take_table_move`): what the table does with a
    received move and ``druids audit`` with every recorded one."""
    return take_table_move(copy, message_move(copy, values, seat, msg, round_no=round_no))


def is_logged_move(msg: Message) -> bool:
    """Whether ``msg`` is a move or words a seat copy's ``log`` records (not a words' check).

    A words' check travels as a ``move`` but is a verdict, not a move (protocol.md §11): no log or
    audit holds it, so whoever counts a record's moves counts them by this.
    """
    if msg.type in CARD_PLAYS:
        return True
    return msg.type is MsgType.MOVE and msg.body.get("move") not in WORDS_CHECKS


class MoveFault(Exception):
    """A seat's move that its copy of the rules refuses: ``seat`` is blamed, ``raw`` signed it."""

    def __init__(self, reason: str, seat: int, raw: bytes) -> None:
        super().__init__(reason)
        self.reason, self.seat, self.raw = reason, seat, raw


class CardTablePlay:
    """This seat's copy of the game and its deck seat, driven by messages in and out."""

    def __init__(
        self,
        copy: CardTableSeat,
        peer: TablePeer,
        seat_of: Callable[[bytes], int | None],
        seal_move: Callable[[str], Message],
        message_of: Callable[[bytes], Message | None],
        values: MoveValues,
    ) -> None:
        """``seat_of(key)``: a signer's play seat; ``seal_move(token)``: this seat's signed
        ``move`` message; ``message_of(raw)``: the table's decoded copy of a message it holds
        (this seat's own included: nothing is decoded, nor its signature checked, twice);
        ``values``: the game's ``Move`` (a received token is parsed by it, once)."""
        self.copy, self.peer, self._seat_of = copy, peer, seat_of
        self._seal_move, self._message_of, self._values = seal_move, message_of, values
        self.signed = SignedMoves()
        """Where each move of the copy's log lies as a signed message (its one record is the
        copy's ``log``)."""
        self._own: dict[bytes, tuple[int, int, bytes]] = {}
        """This seat's own moves and words, taken when made, until their place in the
        transcript is known: (round, index in its log, message hash) by their signed bytes."""
        self._at: dict[bytes, int] = {}
        """Where received moves lie in the transcript, until they are taken."""
        self._pushed = 0
        """Deck operations pushed so far (the deck's own count of completed ones is ``done``)."""
        self._learned = 0
        self._held: list[Message] = []
        self._word_rounds: list[tuple[int, tuple[int, ...]]] = []
        """Each time the game asked for the seats' words: (operations pushed then, the seats
        asked), for the table's schedule (this seat's own word may settle a round at once)."""
        self._asking = False
        self.checking = False
        """This seat's check of the last words is sent: nothing goes on until every seat's is."""
        self.revealing = False
        """A seat found the words contradicted: the game goes no further than the final reveal."""

    @property
    def seat(self) -> int:
        return self.copy.seat

    @property
    def round_no(self) -> int:
        """The round this card table plays (its bodies' ``round``)."""
        return self.peer.state.round_no

    @property
    def closed(self) -> bool:
        """This round's table has had its final reveal: its next ops go to a new one."""
        return self.peer.state.finished

    def next_round(self, peer: TablePeer) -> list[bytes]:
        """The last round's table is revealed and judged: the copy's next round goes to
        ``peer``, a fresh card table (new keys, positions from 0)."""
        self.peer, self._pushed, self._learned = peer, 0, 0
        self._word_rounds.clear()
        self._asking = False
        return self.peer.start() + self._run()

    def words_asked_by(self, op: int) -> tuple[int, ...] | None:
        """The seats the game asked for their words before operation ``op`` was pushed, each
        time once (the table's next word step), or None."""
        if self._word_rounds and self._word_rounds[0][0] <= op:
            return self._word_rounds.pop(0)[1]
        return None

    @property
    def my_turn(self) -> bool:
        return self._settled() and self.copy.to_move == self.seat

    def start(self) -> list[bytes]:
        return self.peer.start() + self._run()

    def refusal(self, move: GameMove) -> str | None:
        """Why this seat's own ``move`` would be refused now, or None: the very check
        :meth:`play` makes (pure), for a player to ask before it moves."""
        if not self.my_turn:
            return "it is not this seat's turn"
        try:
            check_table_move(self.copy, self._own_move(move))
        except ValueError as exc:  # MoveRefused, or the copy's IllegalMove for a card not held
            return str(exc)
        return None

    def play(self, move: GameMove) -> list[bytes]:
        """This seat's own move (it must be its turn), checked once: raises ValueError
        (:class:`~druids_p2p.table.codec.MoveRefused`) with the rules' reason if they refuse."""
        if not self.my_turn:
            raise ValueError("it is not this seat's turn")
        m = self._own_move(move)
        r, index = self.round_no, self._index()
        op = take_table_move(self.copy, m)
        if op is None:
            sealed = self._seal_move(m.token)
            self._own[sealed.raw] = (r, index, sealed.hash)
            return [sealed.raw, *self._run()]
        self._pushed += 1
        out = self.peer.push(table_op(op), m.position)
        for raw in out:
            msg = self._message_of(raw)
            if msg is not None and msg.type in CARD_PLAYS:
                self._own[raw] = (r, index, msg.hash)
        return out + self._run()

    def _own_move(self, move: GameMove) -> TableMove:
        """This seat's ``move`` as the table takes it: a card put down is the position of its
        hand that holds the card, a public move its value."""
        down = self.copy.table_move(move)
        if down is None:
            return TableMove(MOVE, self.seat, move, move.token())
        card, zone = down
        return TableMove(PLAY, self.seat, zone=zone, position=self.copy.position_of(card))

    def _index(self) -> int:
        """The next move's place in this round's log."""
        return len(moves_of(self.copy, self.round_no))

    def placed(self, raw: bytes, at: int) -> None:
        """The move message ``raw`` lies at ``at`` in the transcript: this seat's own move is
        noted now; a received one is when it is taken."""
        own = self._own.pop(raw, None)
        if own is None:
            self._at[raw] = at
        else:
            self.signed.note(own[0], own[1], own[2], at)

    def settle_words(self, contradicted: bool) -> list[bytes]:
        """Every seat's check of the last words is in: go on, or (``contradicted``: some seat
        found them fit nothing) go straight to the final reveal, where the words are judged."""
        self.checking = False
        if not contradicted:
            return self._run()
        self.revealing = True
        self._pushed += 1
        return self.peer.push(FINAL)

    def receive(self, msg: Message) -> list[bytes]:
        """Another seat's message (the table's decoded copy); raises :class:`MoveFault`, or the
        deck's ``DeckFault`` / ``AuditRequired`` / ``MalformedMessage`` as
        :meth:`TablePeer.receive` does."""
        if msg.type in MOVE_TYPES:
            if len(self._held) >= MAX_HELD:
                raise MalformedMessage("more than 64 moves ahead of this seat")
            self._held.append(msg)
            return self._run()
        return self.peer.receive(msg.raw) + self._run()

    def precheck(self, msg: Message) -> None:
        """Another seat's message, held by the table until its step is complete: the deck
        checks a share's proof now, while the step's other shares are on their way
        (:meth:`TablePeer.precheck`: nothing is stored or judged)."""
        if msg.type not in SHARES:
            return  # (only shares are checked ahead: a move is not)
        seat = self._seat_of(msg.sender)
        env = None if seat is None else deck_envelope(msg, seat)
        if env is not None:
            self.peer.precheck(env)

    # ------------------------------------------------------------------ inside
    def _settled(self) -> bool:
        return self.peer.state.done == self._pushed

    def _run(self) -> list[bytes]:
        out: list[bytes] = []
        state = self.peer.state  # (this loop runs on every message: no property in between)
        for _ in range(100_000):
            if self._learned != state.done:
                self._learn()
            if state.done != self._pushed or self.checking or self.revealing or state.finished:
                break
            ops = self.copy.ops()
            if ops:
                for op in ops:
                    self._pushed += 1
                    out += self.peer.push(table_op(op))
                continue
            asked = self.copy.words_asked()
            if asked and not self._asking:
                self._word_rounds.append((self._pushed, asked))
            self._asking = bool(asked)
            word = self.copy.own_word() if asked else None  # (a word is owed only when asked)
            if word is not None:  # this seat's word about its own face-down cards
                r, index = self.round_no, self._index()
                take_table_move(self.copy, TableMove(WORD, self.seat, token=word))
                sealed = self._seal_move(word)
                self._own[sealed.raw] = (r, index, sealed.hash)
                out.append(sealed.raw)
                out += self._check_words()
                continue
            if not self._held or (self.copy.to_move is None and not self.copy.words_due()):
                break
            out += self._take_move(self._held.pop(0))
        return out

    def _check_words(self) -> list[bytes]:
        """Once the last word of a round is in: this seat's signed check of the words."""
        if self.copy.words_due():
            return []
        self.checking = True
        check = WORDS_UNFIT if self.copy.words_contradicted else WORDS_FIT
        return [self._seal_move(check).raw]

    def _learn(self) -> None:
        """Tell the copy every card the completed operations opened to this seat."""
        state = self.peer.state
        # What this seat knows, made only for an operation that opens cards to it: not for a
        # show (the copy took its card with the move), the operation of nearly every message.
        known: dict[int, int] | None = None
        for index in range(self._learned, state.done):
            op = state.ops[index]
            if op.kind in ("deal", "turn", "deals"):
                known = self.peer.known() if known is None else known
                for p in state.taken(index):
                    if p in known:
                        self.copy.learn(p, known[p])
            elif op.kind == "reveal":
                known = self.peer.known() if known is None else known
                for p in state.zone(op.zone):
                    self.copy.learn(p, known[p])
        self._learned = state.done

    def _take_move(self, msg: Message) -> list[bytes]:
        seat = self._seat_of(msg.sender)
        if seat is None:
            raise MalformedMessage("a move from a key with no seat at this table")
        a_word = bool(self.copy.words_due())
        r, index = self.round_no, self._index()
        try:
            op = take_message(self.copy, self._values, seat, msg, round_no=r)
        except ValueError as exc:  # MoveRefused, or the copy's IllegalMove
            raise MoveFault(str(exc), seat, msg.raw) from None
        self.signed.note(r, index, msg.hash, self._at.pop(msg.raw, -1))
        if a_word:  # the round's last word is this seat's cue to sign its check of them
            return self._check_words()
        if op is None:
            return []
        self._pushed += 1
        env = deck_envelope(msg, seat)  # the table's decoded copy: not looked up again
        if env is None:
            return self.peer.push(table_op(op)) + self.peer.receive(msg.raw)
        return self.peer.push_received(table_op(op), env)
