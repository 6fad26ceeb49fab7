"""A round at a table: the mental deal, the moves, the reveal and the audit with every hand known.

Each function acts on one :class:`~druids_p2p.net.table_state.TableState`, inside its schedule
pump (``net/table.py``). A move is accepted through the one check every path uses
(``net/moves.py``): a peer's signed move here, this peer's own when it makes it (so its own
message is not checked again on the way back), the whole round once more at its end with every
hand known. The game is reached only through the table's rule set (``druids_p2p.rulesets``).
"""

from __future__ import annotations

import dataclasses
import logging

from druids_p2p.deck import AuditRequired, DeckFault, DeckParams, DeckPeer
from druids_p2p.games.seam import InvalidDeal
from druids_p2p.net.codec import WireCodec
from druids_p2p.net.game_result import start_result
from druids_p2p.net.moves import (
    AcceptedMove,
    MoveRefused,
    accept_move,
    play_accepted,
    replay_accepted,
)
from druids_p2p.net.round_audit import start_audit
from druids_p2p.net.table_state import TableState
from druids_p2p.net.table_types import TableFault
from druids_p2p.rulesets import DEFAULT_RULESET, dealt_ruleset
from druids_p2p.wire import Message, MsgType, encode_receipt

log = logging.getLogger(__name__)


def deal_params(
    table_id: bytes, round_no: int, players: int, ruleset: str = DEFAULT_RULESET
) -> DeckParams:
    """The deck's parameters for one round, from the rule set's deck description (the seam):
    every peer and the auditor must build exactly these."""
    rules = dealt_ruleset(ruleset)
    return DeckParams(
        table_id=table_id,
        round_no=round_no,
        num_cards=rules.deck_size,
        seats=players,
        hand_size=rules.hand_size(players),
        required=rules.required_cards(players),
    )


# ---------------------------------------------------------------- the deal
def start_round(t: TableState) -> None:
    r = t.game.round_index + 1
    params = deal_params(t.table_id, r, t.options.players, t.ruleset)
    seat = t.my_seat
    assert seat is not None
    t.codec = WireCodec(seat, t.chain, t._seal_head, t.seat_of, t.recorded, t._queue_own)
    t.deck = DeckPeer(
        params, t.codec, entropy=t.secret.entropy(f"deck/{r}"), defer_open_proofs=True
    )
    t.phase = "deal"
    t.ready = []
    t.gaia_holder = None
    t.audit_callers, t.audit_why = (), ""
    t.deal_schedule = _deal_steps(t)
    t.deal_index = 0
    _set_deal_step(t)
    t._event("round_started", f"round {r + 1}: shuffling and dealing", {"round": r})
    t.deck.start()  # the commitment is sealed and queued through the codec


def _deal_steps(t: TableState) -> list[tuple[str, tuple[bytes, ...], MsgType]]:
    everyone = t.order
    steps: list[tuple[str, tuple[bytes, ...], MsgType]] = [
        ("deal", everyone, MsgType.DECK_COMMIT),
        ("deal", everyone, MsgType.DECK_KEY),
    ]
    steps += [("deal", (k,), MsgType.DECK_SHUFFLE) for k in everyone]
    # the salts fix who holds which position, only once the final deck is fixed
    steps.append(("deal", everyone, MsgType.DECK_SALT))
    steps.append(("deal", everyone, MsgType.DECK_SHARES))
    return steps


def _set_deal_step(t: TableState) -> None:
    name, senders, msg_type = t.deal_schedule[t.deal_index]
    t._next(name, senders, msg_type)


def on_deck(t: TableState, batch: list[Message]) -> None:
    assert t.deck is not None
    t.deal_index += 1
    done = t.deal_index == len(t.deal_schedule)
    if not done:
        _set_deal_step(t)
    else:
        t.steps.close()  # decided below, once the hand is known
    emitted: list[bytes] = []
    for msg in batch:
        emitted += t._deck_receive(msg)
    if done:
        if emitted:
            raise TableFault("the deck emitted a message after the deal", None)
        _begin_play(t)


def _begin_play(t: TableState) -> None:
    """The deal is complete: check every share batch, learn this seat's hand and send its
    ``ready`` (the Gaia holder's shows Gaia, so the lead step names its sender). A hand that
    does not decrypt although every proof held sends ``deck_reveal`` instead: an audit call
    (deck.md §6.5), which the whole table follows."""
    assert t.deck is not None
    seat = t.my_seat
    assert seat is not None
    try:
        t.deck.verify_all_shares()  # now, not at each seat's first opening
    except DeckFault as exc:
        raise TableFault(f"deal: {exc.reason}", exc.seat, exc.evidence) from None
    t._next("ready", t.order, MsgType.READY, MsgType.DECK_REVEAL)
    try:
        hand = list(t.deck.hand())
    except AuditRequired as exc:
        log.warning("this seat's hand does not decrypt (%s): calling an audit", exc)
        t.phase = "audit"
        t.audit_why = f"{t._who(t.me)}'s hand does not decrypt ({exc.reason})"
        t.deck.reveal()  # sealed at the ready step's head and queued through the codec
        return
    try:
        t.game.start_hidden_round(seat, hand)
    except InvalidDeal as exc:
        raise TableFault(f"the deal gave this seat an impossible hand: {exc}") from None
    t.phase = "play"
    t.deck.prepare_openings()  # our own cards' proofs, not at each move
    body: dict[str, object] = {"round": t.game.round_index}
    if t.rules.lead_card in hand:
        assert t.codec is not None
        t.codec.carry(body, MsgType.READY)
        t.deck.open_card(t.rules.lead_card)  # sealed into our ready, queued through the codec
    else:
        t._send_own(MsgType.READY, body)


# ---------------------------------------------------------------- the moves
def own_move(t: TableState, move: int) -> AcceptedMove:
    """Check this peer's own move once and send it (its message is then not checked again):
    the card it plays is opened inside it, sealed and queued through the codec. Raises
    :class:`MoveRefused`."""
    assert t.deck is not None
    seat = t.my_seat
    assert seat is not None
    rules = t.rules
    cards = rules.cards_for_move(move)
    card = None
    if cards and rules.lead_card not in cards:
        opened = {o.card for o in t.deck.opened}
        hand = set(t.deck.hand())
        unopened = [c for c in cards if c in hand and c not in opened]
        card = unopened[0] if unopened else cards[0]  # not held: the rules say why below
    token = rules.format_move(move)
    accepted = accept_move(
        rules,
        t.game,
        seat,
        token,
        index=len(t.moves.of_round(t.game.round_index)),
        opens=card is not None,
        card=card,
        lead_shown=t.gaia_holder == t.me,
    )
    t._own_move = accepted
    body: dict[str, object] = {"round": t.game.round_index, "move": token}
    if card is not None:
        assert t.codec is not None
        t.codec.carry(body)
        t.deck.open_card(card)  # sealed into the move, queued through the codec
    else:
        t._send_own(MsgType.MOVE, body)  # a pile pick, or the lead: Gaia shown at ready
    return accepted


def on_play(t: TableState, batch: list[Message]) -> None:
    (msg,) = batch
    assert t.deck is not None
    seat = t.seat_of(msg.sender)
    assert seat is not None
    if msg.body["round"] != t.game.round_index:
        raise TableFault(f"{t._who(msg.sender)} sent a move for another round", seat)
    at = len(t.transcript) - 1
    own = t._own_move
    if own is not None and msg.sender == t.me and msg.body["move"] == own.token:
        accepted = dataclasses.replace(own, msg_hash=msg.hash, at=at)  # checked when made
        t._own_move = None
    else:
        card = None
        if "open" in msg.body:
            try:
                card = _take_opening(t, msg, seat)
            except AuditRequired as exc:
                start_audit(t, [], f"{t._who(msg.sender)}'s opening: {exc.reason}")
                return
        try:
            accepted = accept_move(
                t.rules,
                t.game,
                seat,
                msg.body["move"],
                index=len(t.moves.of_round(t.game.round_index)),
                opens="open" in msg.body,
                card=card,
                lead_shown=msg.sender == t.gaia_holder,
                msg_hash=msg.hash,
                at=at,
            )
        except MoveRefused as refused:
            raise TableFault(f"{t._who(msg.sender)} {refused.reason}", seat, (msg.raw,)) from None
    play_accepted(t.game, accepted)
    t.moves.append(accepted)
    t._event(
        "move",
        f"{t.name_of_seat(seat)} plays {accepted.token}",
        {"seat": seat, "move": accepted.token},
    )
    t.acked = set()
    if t.me != msg.sender:
        t._outbox.append(receipt_of_last_move(t))
    _after_move(t)


def receipt_of_last_move(t: TableState) -> bytes:
    """This peer's acknowledgement of the last move: the head it was appended to, its hash."""
    last = t.moves.last
    assert last is not None
    return encode_receipt(t.transcript.head_before(last.at), last.msg_hash)


def _take_opening(t: TableState, msg: Message, seat: int) -> int:
    """The deck checks the opening a move carries (proof, decryption, ownership); the card it
    shows is then known to this peer's view of the round. Returns the card."""
    assert t.deck is not None
    try:
        emitted = t._deck_receive(msg, audit=True)
    except AuditRequired as exc:
        if msg.body["open"]["card"] in t.deck.hand():
            # Only this seat sees the duplicate (the card is in its own hand): an audit it
            # started alone would not be followed in step, so it stops, as before.
            raise TableFault(f"deal needs an audit: {exc}", None, exc.evidence) from None
        raise  # every peer sees it at this move: all start the audit here
    if emitted:
        raise TableFault("the deck emitted a message in response to an opening", None)
    opened = t.deck.opened
    if not opened or opened[-1].seat != seat:
        raise TableFault(f"{t._who(msg.sender)}'s opening was not accepted", seat)
    card = opened[-1].card
    if seat != t.my_seat:
        try:
            t.game.reveal(seat, card)
        except ValueError as exc:
            raise TableFault(
                f"{t._who(msg.sender)} opened {t.rules.format_card(card)}: {exc}",
                seat,
                (msg.raw,),
            ) from None
    return card


def _after_move(t: TableState) -> None:
    if t.game.round_over:
        _end_of_round(t)
        return
    mover = t.game.to_move
    assert mover is not None
    t._next("move", (t.order[mover],), MsgType.MOVE)


# ---------------------------------------------------------------- the end of the round
def _end_of_round(t: TableState) -> None:
    assert t.deck is not None
    t.check_deferred()  # never reveal this seat's secrets over an unproven opening
    t.phase = "reveal"
    t._next("reveal", t.order, MsgType.DECK_REVEAL)
    t.deck.reveal()  # sealed and queued through the codec


def on_reveals(t: TableState, batch: list[Message]) -> None:
    assert t.deck is not None
    for msg in batch:
        t._deck_receive(msg)
    _audit_round(t)
    t.rounds_audited += 1
    r = t.game.round_index
    scores = t.game.round_scores[-1]
    ended_by = t.game.round_ended_by
    t._event(
        "round_ended",
        f"round {r + 1} over ({ended_by}): scores {scores}",
        {"round": r, "scores": list(scores), "ended_by": ended_by},
    )
    t.transcript.flush(sync=True)
    if t.game.game_over:
        start_result(t)
        return
    start_round(t)


def _audit_round(t: TableState) -> None:
    """Every secret is out: recompute the deal and accept the round's moves again with every
    hand known (a hidden hand's holder could not be checked against the rules before)."""
    result = t._audit_deal()
    r = t.game.round_index
    full = t.rules.new_game(t.options.players, variant=t.options.variant)
    full.start_round([list(h) for h in result.hands])
    problem = replay_accepted(t.rules, full, t.moves.of_round(r))
    if problem is not None:
        seat, index, reason = problem
        raise TableFault(
            f"audit: {t.name_of_seat(seat)} (seat {seat}) broke a rule at move "
            f"{index + 1} of round {r + 1}: {reason}",
            seat,
            (t.round_moves[index].raw,),
        )
