"""The game at the mental card table as far as the transcript has taken it (protocol.md §11).

The cursor follows the transcript, not this seat's deck, which may have gone ahead on its own
messages alone (a play, a reveal only it owes).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, NoReturn, TypeVar

from druids_p2p.deck import AuditRequired, DeckError, DeckFault, MalformedMessage
from druids_p2p.deck.table_audit import audit_state
from druids_p2p.deck.table_ops import senders
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.games.seam import CardTableRuleset, GameMove, TableOptions
from druids_p2p.lan.seating import carried_in_play_order, winners_of, with_carried
from druids_p2p.table.card_table_play import (
    CARD_PLAYS,
    WORDS_CHECKS,
    WORDS_UNFIT,
    CardTablePlay,
    MoveFault,
    is_logged_move,
)
from druids_p2p.table.codec import TABLE_KIND_TYPES, WireCodec
from druids_p2p.table.ledger import Ledger
from druids_p2p.table.table_state import DECK_CHECK, Seating, TableFault, TableSecret
from druids_p2p.wire import Message, MsgType

T = TypeVar("T")

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

Due = tuple[str, tuple[bytes, ...], MsgType]
"""A step to begin: its name, its senders (in append order) and the message type they owe."""


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


class CardRound:
    """This seat's game at the card table (:class:`CardTablePlay`, once seated) and where the
    transcript is in its operations."""

    def __init__(
        self,
        rules: CardTableRuleset,
        ruleset: str,
        options: TableOptions,
        secret: TableSecret,
        seating: Seating,
        ledger: Ledger,
        carried: dict[bytes, list[int]],
    ) -> None:
        """``carried``: each seat's rounds from the previous tables of a game going on without a
        departed seat (``lan/seating.py``), counted in the outcome."""
        self.rules, self.ruleset, self.options = rules, ruleset, options
        self.secret, self.seating, self.ledger = secret, seating, ledger
        self.carried = carried
        self.play: CardTablePlay | None = None
        """This seat's copy of the game and deck seat, once seated."""
        self.cursor = (KEYS, 0)
        """(operation, pass) the transcript has reached."""
        self.check_due = False
        """The words' check step comes next (every owners'-word step is followed by one)."""
        self.contradiction: Message | None = None
        """The first signed ``Words:unfit``: the table reveals all and judges the words."""

    def seat(self, seat: int, seal_move: Callable[[str], Message]) -> CardTablePlay:
        """Seating is done: this seat's copy of the game and the first round's card table."""
        rules, o = self.rules, self.options
        world = random.Random(self.secret.derive("table-world"))  # guesses only, never a secret
        copy = rules.table_seat(rules.make_options(o.players, o.variant, o.rounds), seat, world)
        ledger = self.ledger
        self.play = CardTablePlay(
            copy, self.new_table(0), self.seating.seat_of, seal_move, ledger.recorded, rules.Move
        )
        self.cursor = (KEYS, 0)
        return self.play

    def new_table(self, round_no: int) -> TablePeer:
        """This seat's deck seat at round ``round_no``'s card table: fresh keys, positions from 0,
        its secret drawn from this table's secret and the round (deterministic: a restart signs
        the same messages again)."""
        seat = self.seating.my_seat
        assert seat is not None
        ledger = self.ledger
        codec = WireCodec(
            seat,
            ledger.chain,
            ledger.head_after_own,
            self.seating.seat_of,
            ledger.recorded,
            ledger.queue_own,
        )
        tag = f"table/{self.ruleset}" if round_no == 0 else f"table/{self.ruleset}/{round_no}"
        return TablePeer(
            self.seating.seat_message.table_id,
            round_no,
            self.options.players,
            self.rules.deck_size,
            codec,
            entropy=self.secret.entropy(tag),
        )

    def next_round(self) -> None:
        """The last round is judged: the next one at a fresh card table, from its keys step."""
        play = self.play
        assert play is not None
        self.cursor = (KEYS, 0)
        self.guard(None, lambda: play.next_round(self.new_table(play.round_no + 1)))

    # ================================================================ the game's score
    def outcome(self) -> tuple[list[int], list[int] | None]:
        """The game's totals (play order) and winners (None while it is not over), the carried
        rounds counted too."""
        order = self.seating.order
        if self.play is None:
            return [0] * self.options.players, None
        game = self.play.copy
        if not self.carried or not order:
            return list(game.totals), game.winners
        totals = with_carried(game.totals, order, self.carried)
        return totals, None if game.winners is None else winners_of(totals)

    def all_round_scores(self) -> list[list[int]]:
        """Every round's scores in play order: the carried ones first, then this table's."""
        own = [] if self.play is None else [list(s) for s in self.play.copy.round_scores]
        return carried_in_play_order(self.seating.order, self.carried) + own

    # ================================================================ the cursor
    def take(self, name: str, batch: list[Message]) -> None:
        """Step ``name`` (a deck, move or word step) is complete and appended: its messages go to
        the deck and the copy, and the cursor moves past it."""
        play = self.play
        assert play is not None
        op, pass_no = self.cursor
        first = len(self.ledger.transcript) - len(batch)  # the batch's moves' places
        for i, msg in enumerate(batch):
            if is_logged_move(msg):
                play.placed(msg.raw, first + i)
            if msg.sender != self.seating.me:
                self.guard(msg, partial(play.receive, msg))
        if name == "card_word":
            self.check_due = True
        if name in ("card_move", "card_word"):
            for msg in batch:
                if msg.type in CARD_PLAYS:
                    op += 1  # the move was the play operation's one message
        elif op == KEYS:
            op = 0
        elif play.peer.state.ops[op].kind == "shuffle" and pass_no + 1 < self.options.players:
            pass_no += 1
        else:
            op, pass_no = op + 1, 0
        self.cursor = (op, pass_no)

    def due(self) -> Due | None:
        """The deck, word or check step the cursor has reached (skipping operations nobody sends
        for), or None once the operations pushed so far are all done."""
        play = self.play
        assert play is not None
        state, order = play.peer.state, self.seating.order
        op, pass_no = self.cursor
        if op == KEYS:
            return "card_deck", order, MsgType.TABLE_KEY
        if self.check_due:  # right after the words: every seat's check of them
            self.check_due = False
            return "card_check", order, MsgType.MOVE
        while True:
            asked = play.words_asked_by(op)  # the owners' word: Word:yes / Word:no moves
            if asked is not None:
                self.cursor = (op, 0)
                return "card_word", tuple(order[s] for s in asked), MsgType.MOVE
            if op >= len(state.ops):
                break
            owed = senders(state, op, state.ops[op])
            if owed:
                kind = state.ops[op].kind
                who = (owed[pass_no],) if kind == "shuffle" else owed
                self.cursor = (op, pass_no)
                return "card_deck", tuple(order[s] for s in who), _OP_TYPES[kind]
            op, pass_no = op + 1, 0
        self.cursor = (op, 0)
        return None

    # ================================================================ the words' check
    def check_token(self, msg: Message) -> str:
        """A seat's check of the last words: a token that is neither is its sender's fault."""
        token = msg.body["move"]
        if token not in WORDS_CHECKS:
            raise self.seating.fault(msg, f" sent {token!r} when the words' check was due")
        return str(token)

    def call_of(self, batch: list[Message]) -> Message | None:
        """The first ``Words:unfit`` in play order, kept as the call that sends every seat to
        the final reveal, where the audit judges the words."""
        calls = [m for m in batch if m.body["move"] == WORDS_UNFIT]
        if calls:
            self.contradiction = calls[0]
        return calls[0] if calls else None

    def settle_words(self, called: bool) -> None:
        play = self.play
        assert play is not None
        self.guard(None, lambda: play.settle_words(called))

    # ================================================================ a round's end
    def audit(self) -> None:
        """Every secret is out: the deck recomputes every position and deck (deck.md §10.3), and
        the copy judges every move by the cards now known."""
        play = self.play
        assert play is not None
        try:
            audit = audit_state(play.peer.state)
        except DeckFault as exc:
            raise TableFault(f"audit: {exc.reason}", exc.seat, exc.evidence) from None
        cards = {p.index: p.card for p in audit.positions}
        for seat, taken, reason in play.copy.breaches(cards)[:1]:
            at = play.signed.at(play.round_no, taken)  # the breach's move, where the record has it
            evidence = (self.ledger.transcript.messages[at].raw,) if at >= 0 else ()
            where = f" in round {play.round_no + 1}" if "rounds" in self.rules.table_flags else ""
            raise TableFault(
                f"audit: {self.seating.who(self.seating.order[seat])} broke a rule{where}: "
                f"{reason} (the final reveal shows every card)",
                seat,
                evidence,
            )

    def judge_the_call(self) -> NoReturn:
        """A seat called the owners' words contradicted and every card is out: the audit blames
        a liar's word, else every word is true and the caller, whose cards the reveal shows, had
        an arrangement before it (the truth): its call is false."""
        call = self.contradiction
        assert call is not None
        self.audit()
        raise TableFault(
            f"audit: {self.seating.who(call.sender)} called the owners' words contradicted, but "
            "every word is true (the final reveal shows every card)",
            self.seating.seat_of(call.sender),
            (call.raw,),
        )

    # ================================================================ helpers
    def shown(self, msg: Message) -> str:
        """A move message as the events show it: the game's token, or the card put down."""
        if msg.type is MsgType.MOVE:
            return str(msg.body["move"])
        if msg.type is MsgType.TABLE_SHOW:
            assert self.play is not None
            card, zone = int(msg.body["card"]), str(msg.body["zone"])
            shown: GameMove = self.play.copy.shown_move(card, zone)
            return shown.token()
        return f"play {msg.body['zone']}"

    def move_value(self, move: int | GameMove) -> GameMove:
        """A player's move as the game's value: a move id (a bot answers with one) is made one
        here, where it enters the table, once (ValueError for an id that is no move)."""
        return self.rules.Move.of(move) if isinstance(move, int) else move

    def play_own(self, move: int | GameMove) -> None:
        """This seat's move, checked by its copy of the rules (IllegalMove / ValueError)."""
        assert self.play is not None
        self.play.play(self.move_value(move))

    def replay_own_move(self, head: bytes) -> None:
        """A restarted peer whose saved record holds its move for the step at ``head`` makes it
        again as it made it then (its player is not asked twice): the same bytes."""
        saved = self.ledger.saved_own(head)
        if saved is None:
            return  # nothing saved for this step, or this step's move is already made
        move = self.saved_move(saved)
        if move is None:
            raise TableFault(f"the saved record's {saved.type.label} is no move this seat can make")
        try:
            self.play_own(move)
        except ValueError as exc:  # the saved record is not this table's: it replays otherwise
            raise TableFault(f"the saved record's own move is refused on replay: {exc}") from None

    def saved_move(self, saved: Message) -> GameMove | None:
        """The move of this seat's saved move message (a card put down: the legal move that puts
        the card at that position of its hand into that zone), None if it is none."""
        play, rules = self.play, self.rules
        assert play is not None
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

    def prove_held(self) -> None:
        """Before a seat is blamed for a pass it did not send: the passes the shuffle holds are
        proven now (deck.md §10.2), so a bad pass before the silence is blamed first."""
        if self.play is not None:
            self.guard(None, self.play.peer.prove_held)

    def check_unproven(self) -> bool:
        """The deal's share proofs of other seats' cards, left for later (deck.md §10.2): their
        check started aside (``TablePeer.check_unproven``); True if it started now."""
        play = self.play
        return play is not None and self.guard(None, play.peer.check_unproven)

    def guard(self, msg: Message | None, call: Callable[[], T]) -> T:
        """Run a deck or copy call (its result); a cheat found is a :class:`TableFault` naming
        its seat."""
        try:
            return call()
        except MoveFault as exc:
            mover = self.seating.who(self.seating.order[exc.seat])
            raise TableFault(
                f"{mover}'s move is refused: {exc.reason}", exc.seat, (exc.raw,)
            ) from None
        except DeckFault as exc:
            raise TableFault(f"{DECK_CHECK}{exc.reason}", exc.seat, exc.evidence) from None
        except AuditRequired as exc:
            raise TableFault(f"card table needs an audit: {exc}", None, exc.evidence) from None
        except RuntimeError as exc:  # the rules cannot decide from what is known (nobody's fault)
            raise TableFault(f"the game cannot go on at this table: {exc}", None) from None
        except (MalformedMessage, DeckError) as exc:
            seat = None if msg is None else self.seating.seat_of(msg.sender)
            raw = () if msg is None else (msg.raw,)
            raise TableFault(f"{DECK_CHECK}{exc}", seat, raw) from None
