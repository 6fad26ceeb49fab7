"""Each card-table operation's checks and effects, in deck.md §10.2's order, in one place so
that every seat and the auditor move the state alike: a failed check blames the signer
(:class:`DeckFault`), a schedule the table cannot follow blames nobody (:class:`TableOpError`)."""

from __future__ import annotations

from collections.abc import Mapping

from druids_p2p.deck import group
from druids_p2p.deck import shuffle_passes as batches
from druids_p2p.deck.cards import Deck, card_table, decrypt_with
from druids_p2p.deck.errors import AuditRequired, DeckFault
from druids_p2p.deck.params import MAX_CARDS, DeckParams
from druids_p2p.deck.proofs import verify_open
from druids_p2p.deck.shuffle_proof import OwnShuffle
from druids_p2p.deck.table_messages import (
    CREATE,
    DEAL,
    DEALS,
    EXPECTED_KIND,
    FINAL,
    MAX_POSITIONS,
    PLAY,
    RETURN,
    REVEAL,
    SHOW,
    SHUFFLE,
    TRANSFER,
    TURN,
    Opened,
    TableMessage,
    TableOp,
    TableOpenMsg,
    TablePlayMsg,
    TableRevealMsg,
    TableShareMsg,
    TableSharesMsg,
    TableShowMsg,
    hand_zone,
)
from druids_p2p.deck.table_state import (
    DeckState,
    Position,
    Sent,
    TableOpError,
    TableState,
)

_BAD_SHARE = "invalid decryption share proof"
MAX_STEPS = 1 << 20
"""A bound on the loop of :func:`advance` (every step completes one operation)."""


def senders(state: TableState, index: int, op: TableOp) -> tuple[int, ...]:
    """The seats that owe a message for operation ``index`` (which must have begun)."""
    everyone = tuple(range(state.seats))
    if op.kind == SHUFFLE:
        size = state.sizes.get(index)
        return everyone if (len(state.decks[op.deck].a) if size is None else size) else ()
    if op.kind == DEAL:
        return tuple(s for s in everyone if s != op.seat)
    if op.kind == DEALS:
        return tuple(s for s in everyone if any(owner != s for owner in op.seats))
    if op.kind in (TURN, FINAL):
        return everyone
    if op.kind in (PLAY, SHOW):
        assert op.seat is not None
        return (op.seat,)
    if op.kind == REVEAL:
        return tuple(state.plans[index])
    return ()


def due(state: TableState, seat: int) -> bool:
    """True if ``seat`` owes its message for the operation in progress now (for a shuffle: if
    it is its pass's turn)."""
    index, ops = state.done, state.ops  # (state.current, without a property and a len each)
    if index >= len(ops) or state.joint_key is None or state.begun != index:
        return False
    op = ops[index]
    if (state.done, seat) in state.slots or seat not in senders(state, state.done, op):
        return False
    return op.kind != SHUFFLE or state.progress == seat


def waiting(state: TableState) -> tuple[int, ...]:
    """The seats whose message the table waits for now (for the net layer's deadlines)."""
    if state.joint_key is None:
        return tuple(s for s in range(state.seats) if s not in state.keys)
    return tuple(s for s in range(state.seats) if due(state, s))


def advance(state: TableState, own: Mapping[int, OwnShuffle] | None = None) -> list[int]:
    """Complete every operation the stored messages allow; returns the completed indices.

    ``own``: the holding seat's own pass of each shuffle (by operation index), which it knows
    how it made; the batch check of the others' passes then rewrites the terms on its output
    onto its input (``verify_shuffles``), one multiplication fewer per merged point."""
    completed: list[int] = []
    if state.joint_key is None:
        return completed
    ops = state.ops
    for _ in range(MAX_STEPS):
        index = state.done
        if index >= len(ops):
            break
        op = ops[index]
        if state.begun != index:
            _begin(state, index, op)
            state.begun = index
        if index in state.fresh:
            _check_parts(state, index, op)
        if op.kind == SHUFFLE:
            if not batches.shuffle(state, index, op, None if own is None else own.get(index)):
                break
        elif not _STEP[op.kind](state, index, op):
            break
        completed.append(index)
        state.done += 1
        state.progress = 0
    return completed


# --------------------------------------------------------------------------- starting an op
def _begin(state: TableState, index: int, op: TableOp) -> None:
    """What an operation does before any message: create a deck, take a position off a deck,
    fix who must open what. Only the schedule can be wrong here (TableOpError)."""
    if op.kind == CREATE and op.deck in state.decks:
        raise TableOpError(f"deck {op.deck} exists: create makes a new deck")
    if op.kind in (SHUFFLE, CREATE) and op.deck not in state.decks:
        _create(state, op)
    elif op.kind == SHUFFLE and op.cards:
        raise TableOpError(f"deck {op.deck} exists: a reshuffle lists no cards")
    if op.kind == SHUFFLE:
        deck = _deck(state, op.deck)
        state.sizes[index] = len(deck.a)
        state.starts[index] = (Deck(tuple(deck.a), tuple(deck.c)), deck.shuffles + 1)
    elif op.kind in (DEAL, TURN, DEALS):
        _take(state, index, op)
    elif op.kind in (PLAY, SHOW) and not (op.seat is not None and 0 <= op.seat < state.seats):
        raise TableOpError(f"seat {op.seat} is not at this table")
    elif op.kind == REVEAL:
        state.plans[index] = state.hidden_owners(op.zone)


def _create(state: TableState, op: TableOp) -> None:
    """A new deck of ``op.cards`` (top first), each card's public encryption (B, M + H) under
    the joint key H: the same bytes at every seat, from the schedule alone. A ``create`` leaves
    it unshuffled (every card's place is public, so nothing may be taken from it before a
    shuffle); a shuffle of a new deck shuffles it at once."""
    cards = op.cards
    if not cards or len(cards) > MAX_CARDS or len(set(cards)) != len(cards):
        raise TableOpError(f"deck {op.deck}: a new deck needs 1..{MAX_CARDS} distinct cards")
    if any(not 0 <= c < state.num_cards or c in state.created for c in cards):
        raise TableOpError(f"deck {op.deck}: a card is not an id or is already at the table")
    sides = state.public()[0]
    state.created.update(cards)
    state.decks[op.deck] = DeckState(
        [group.BASE] * len(cards),
        [sides[c] for c in cards],
        unshuffled_returns=op.kind == CREATE,
    )


def _take(state: TableState, index: int, op: TableOp) -> None:
    """A deal, a turn or a deals takes the top card(s) of its deck, in order, as the next
    positions: into the hand of the seat each is dealt to, or (a turn) face up into ``zone``."""
    owners = op.seats if op.kind == DEALS else (op.seat,)
    deck = _deck(state, op.deck)
    if not deck.a:
        raise TableOpError(f"deck {op.deck} is empty")
    if len(deck.a) < len(owners):
        raise TableOpError(f"deck {op.deck} holds {len(deck.a)} cards, not {len(owners)}")
    if deck.unshuffled_returns:
        raise TableOpError(
            f"deck {op.deck} holds created, returned or transferred cards: shuffle it first"
        )
    if len(state.positions) + len(owners) > MAX_POSITIONS:
        raise TableOpError(f"a game takes at most {MAX_POSITIONS} positions")
    if op.kind != TURN and not all(s is not None and 0 <= s < state.seats for s in owners):
        raise TableOpError(f"seat {op.seat if op.kind == DEAL else op.seats} is not at this table")
    state.at_op[index] = len(state.positions)
    for owner in owners:
        a, c = deck.a.pop(0), deck.c.pop(0)
        zone = op.zone if owner is None else hand_zone(owner)
        state.zones.setdefault(zone, []).append(len(state.positions))
        state.positions.append(
            Position(a, c, op.deck, index, owner, zone, from_raws=deck.source_raws)
        )


def _deck(state: TableState, name: str) -> DeckState:
    deck = state.decks.get(name)
    if deck is None:
        raise TableOpError(f"there is no deck {name}")
    return deck


def _check_parts(state: TableState, index: int, op: TableOp) -> None:
    """Every message stored for this operation (each checked once: ``state.fresh``, lowest seat
    first) must be the right kind from a seat that owes one; anything else convicts its signer."""
    seats = state.fresh.pop(index, None)
    if not seats:
        return
    allowed = senders(state, index, op)
    want = EXPECTED_KIND.get(op.kind)
    for seat in sorted(seats):
        sent = state.slots[(index, seat)]
        if want != sent.msg.KIND:
            raise DeckFault(
                seat, f"{sent.msg.KIND} for operation {index}, which is a {op.kind}", (sent.raw,)
            )
        if seat not in allowed:
            raise DeckFault(
                seat,
                f"{sent.msg.KIND} for operation {index}, which needs none from it",
                (sent.raw,),
            )


# --------------------------------------------------------------------------- the operations
def _shares(state: TableState, index: int, op: TableOp) -> bool:
    """A deal, a turn or a deals: every share proven in the operation's context before it is
    stored (a ``table_shares``' proofs: those of the shares of this state's seat's cards, the
    others when their cards are opened, deck.md §8.3, §10.2); a bad proof convicts its signer."""
    params = state.context(b"share", op.deck, index)
    complete, fresh = _unchecked(state, index, senders(state, index, op))
    for seat, sent in fresh:
        msg = sent.msg
        assert isinstance(msg, TableShareMsg | TableSharesMsg)
        parts = msg.shares if isinstance(msg, TableSharesMsg) else (msg,)
        got, owed = [part.position for part in parts], batches.owed_shares(state, index, seat)
        if got != owed:
            wrong = (
                f"shares for positions {got}, but operation {index} wants its shares of "
                f"positions {owed} (each one dealt to another seat, in order)"
                if isinstance(msg, TableSharesMsg)
                else f"share for position {got[0]}, but operation {index} takes position {owed[0]}"
            )
            raise DeckFault(seat, f"{msg.KIND}: {wrong}", (sent.raw,))
        if isinstance(msg, TableSharesMsg):
            batches.check_proof_seats(state, seat, msg, owed, sent.raw)
        if not (
            sent.raw in state.own
            or sent.raw in state.proven
            or batches.proven(state, params, seat, msg)
        ):
            one = f"{msg.KIND}: {_BAD_SHARE} for position {got[0]}"
            reason = batches.BAD_SHARES if isinstance(msg, TableSharesMsg) else one
            raise DeckFault(seat, reason, (sent.raw, state.keys[seat].raw))
        for part in parts:
            state.positions[part.position].shares[seat] = Sent(seat, part, sent.raw)
        if isinstance(msg, TableSharesMsg) and sent.raw not in state.own:
            batches.defer(state, index, seat, msg)
        state.checked.add((index, seat))
    if not complete:
        return False
    if op.kind == DEALS:  # the equation on T2 of every seat's due proofs, in one batch
        batches.prove_deals(state, params, index, senders(state, index, op))
    if op.kind == TURN:
        p = state.at_op[index]
        state.positions[p].card = _decrypt(state, p, state.shares_of(p))
    return True


def precheck_share(
    state: TableState, seat: int, msg: TableShareMsg | TableSharesMsg, raw: bytes
) -> None:
    """Check ``seat``'s share(s) for the step in progress while the others' are on their way, so
    a draw waits for one proof, not one a seat; only the fact that it held is kept
    (``state.proven``), everything else is judged when the message is stored."""
    index = state.done
    op = state.current
    if op is None or msg.op != index or state.begun != index:
        return
    batch = isinstance(msg, TableSharesMsg)
    if op.kind not in ((DEALS,) if batch else (DEAL, TURN)):
        return
    if raw in state.own or raw in state.proven or seat not in senders(state, index, op):
        return
    key = state.keys.get(seat)
    parts = msg.shares if isinstance(msg, TableSharesMsg) else (msg,)
    owed = batches.owed_shares(state, index, seat)
    if key is None or [part.position for part in parts] != owed:
        return
    if isinstance(msg, TableSharesMsg) and not batches.proof_seats_fit(state, msg, owed):
        return
    params = state.context(b"share", op.deck, index)
    if batches.proven(state, params, seat, msg):
        state.proven.add(raw)
        if isinstance(msg, TableSharesMsg):  # its part of the batch, while the others come
            for proof in batches.due_proofs(state, msg):
                batches.keep_terms(state, params, seat, msg, proof, raw)


def _unchecked(
    state: TableState, index: int, seats: tuple[int, ...]
) -> tuple[bool, list[tuple[int, Sent[TableMessage]]]]:
    """(every owing seat's message is in, the ones not yet checked)."""
    complete = all((index, seat) in state.slots for seat in seats)
    fresh = [
        (seat, state.slots[(index, seat)])
        for seat in seats
        if (index, seat) in state.slots and (index, seat) not in state.checked
    ]
    return complete, fresh


def _check_dleq(
    state: TableState,
    params: DeckParams,
    sent: Sent[TableMessage],
    p: int,
    share: bytes,
    proof: tuple[bytes, bytes],
) -> None:
    """The sender's share of position ``p`` is x·A with the x of its key (8.2)."""
    key = state.keys[sent.seat]
    a = state.positions[p].a
    if sent.raw in state.own or sent.raw in state.proven:
        return
    if not verify_open(params, sent.seat, p, key.msg.key, a, share, proof):
        why = f"{sent.msg.KIND}: {_BAD_SHARE} for position {p}"
        raise DeckFault(sent.seat, why, (sent.raw, key.raw))


def _decrypt(state: TableState, p: int, shares: list[bytes]) -> int:
    """The card of position ``p`` from shares covering the whole joint key; a point that is no
    card, or a card already public elsewhere, can only come from a broken proof: audit."""
    pos = state.positions[p]
    card = card_table(state.num_cards).get(decrypt_with(pos.c, shares))
    if card is None:
        raise AuditRequired(f"position {p} decrypts to no card", tuple(_raws(pos)))
    return _fresh(state, p, card)


def _fresh(state: TableState, p: int, card: int) -> int:
    """``card``, read at position ``p``, unless it is already public at another position."""
    for q, other in enumerate(state.positions):
        if q != p and other.card == card and other.zone is not None:
            raise AuditRequired(f"card {card} at position {p} is already at position {q}")
    return card


def _raws(pos: Position) -> list[bytes]:
    return [pos.shares[s].raw for s in sorted(pos.shares)]


def _put_down(state: TableState, index: int, op: TableOp) -> bool:
    """A play (face down) or a show (face up: opened as a reveal opens a position): the seat's
    message names the operation's zone and a position of its own hand, else it convicts it."""
    assert op.seat is not None
    sent = state.slots.get((index, op.seat))
    if sent is None:
        return False
    msg = sent.msg
    shown: TableShowMsg | None = None  # (its type asked once: on every card put down)
    if isinstance(msg, TableShowMsg):
        shown, now, past = msg, "shows", "showed"
    else:
        assert isinstance(msg, TablePlayMsg)
        now, past = "plays", "played"
    p, hand = msg.position, hand_zone(op.seat)
    if msg.zone != op.zone:
        raise DeckFault(
            op.seat,
            f"{msg.KIND}: {now} onto {msg.zone}, but operation {index} {now} onto {op.zone}",
            (sent.raw,),
        )
    if p >= len(state.positions) or state.positions[p].zone != hand:
        raise DeckFault(
            op.seat, f"{msg.KIND}: {past} position {p}, which is not in its hand", (sent.raw,)
        )
    if shown is not None:
        _open(state, state.context(b"open", op.zone, index), Sent(sent.seat, shown, sent.raw))
    state.zones[hand].remove(p)
    state.zones.setdefault(op.zone, []).append(p)
    state.positions[p].zone = op.zone
    return True


def _reveal(state: TableState, index: int, op: TableOp) -> bool:
    plan = state.plans[index]
    params = state.context(b"open", op.zone, index)
    complete, fresh = _unchecked(state, index, tuple(plan))
    for owner, sent in fresh:
        expected = plan[owner]
        msg = sent.msg
        assert isinstance(msg, TableOpenMsg)
        got = [o.position for o in msg.opens]
        if got != expected:
            raise DeckFault(
                owner,
                f"table_open: opened positions {got} of {op.zone}, but it holds {expected} "
                "hidden there",
                (sent.raw,),
            )
        _open(state, params, Sent(owner, msg, sent.raw))
        state.checked.add((index, owner))
    return complete


def _open(state: TableState, params: DeckParams, sent: Sent[Opened]) -> None:
    """Each position the owner opens (a reveal's openings, a show's one): its share is proven
    (8.2) and, with the shares published when the position left its deck, decrypts to the card
    it claims, which is then public (this seat's own: the card it decrypted from those shares
    when it was dealt, not decrypted twice)."""
    own = sent.raw in state.own
    for opening in sent.msg.opens:
        p = opening.position
        pos = state.positions[p]
        if pos.owner in state.unproven:  # the shares of its cards, before one is read
            batches.prove_unproven(state, pos.owner)
        _check_dleq(state, params, sent, p, opening.share, (opening.e, opening.s))
        if own:  # this seat's own card, read from the same proven shares when it was dealt
            card = _fresh(state, p, opening.card)
        else:
            card = _decrypt(state, p, [opening.share, *state.shares_of(p)])
        if card != opening.card:
            why = f"{sent.msg.KIND}: claimed card {opening.card} at position {p}, which holds"
            raise DeckFault(sent.seat, f"{why} card {card}", (sent.raw, *_raws(pos)))
        pos.card, pos.opened = card, sent


def _return(state: TableState, index: int, op: TableOp) -> bool:
    assert op.position is not None
    deck = _deck(state, op.deck)
    p = op.position
    if p >= len(state.positions):
        raise TableOpError(f"there is no position {p}")
    pos = state.positions[p]
    if pos.card is None or pos.zone is None:
        raise TableOpError(f"position {p} is hidden or already in a deck: it cannot be returned")
    if len(deck.a) >= MAX_CARDS:
        raise TableOpError(f"deck {op.deck} is full")
    deck.a.append(group.BASE)
    deck.c.append(state.public()[0][pos.card])
    deck.unshuffled_returns = True
    state.zones[pos.zone].remove(p)
    pos.zone = None
    return True


def _transfer(state: TableState, index: int, op: TableOp) -> bool:
    """The top of ``source`` to the bottom of ``deck``, unchanged: the destination must be
    shuffled before it is drawn from, and its next shuffle's evidence includes the pass that
    made the transferred ciphertext."""
    deck, source = _deck(state, op.deck), _deck(state, op.source)
    if not source.a:
        raise TableOpError(f"deck {op.source} is empty")
    if len(deck.a) >= MAX_CARDS:
        raise TableOpError(f"deck {op.deck} is full")
    deck.a.append(source.a.pop(0))
    deck.c.append(source.c.pop(0))
    deck.unshuffled_returns = True
    deck.source_raws = tuple(dict.fromkeys((*deck.source_raws, *source.source_raws)))
    return True


def _made(state: TableState, index: int, op: TableOp) -> bool:
    return True  # a create: made when begun, nobody owes a message


def _final(state: TableState, index: int, op: TableOp) -> bool:
    if any((index, s) not in state.slots for s in range(state.seats)):
        return False
    batches.prove_unproven(state)  # every share is proven before the secrets are public
    secrets: dict[int, int] = {}
    for seat in range(state.seats):
        sent = state.slots[(index, seat)]
        msg, key = sent.msg, state.keys[seat]
        assert isinstance(msg, TableRevealMsg)
        if group.is_zero_scalar(msg.secret) or group.base_mul(msg.secret) != key.msg.key:
            why = "table_reveal: revealed secret does not match its table_key"
            raise DeckFault(seat, why, (sent.raw, key.raw))
        secrets[seat] = int.from_bytes(msg.secret, "little")
    state.secrets = secrets
    return True


_STEP = {
    DEAL: _shares,
    TURN: _shares,
    PLAY: _put_down,
    REVEAL: _reveal,
    RETURN: _return,
    FINAL: _final,
    TRANSFER: _transfer,
    SHOW: _put_down,
    DEALS: _shares,
    CREATE: _made,
}
